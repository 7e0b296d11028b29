"""surveygraph.graphs"""
