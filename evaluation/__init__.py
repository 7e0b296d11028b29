"""surveygraph.evaluation"""
