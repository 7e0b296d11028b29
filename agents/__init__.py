"""surveygraph.agents"""
