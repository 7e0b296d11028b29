"""surveygraph.retrieval"""
