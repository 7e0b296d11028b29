"""surveygraph.llm"""
