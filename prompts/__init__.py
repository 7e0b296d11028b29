"""surveygraph.prompts"""
