"""surveygraph.memory"""
