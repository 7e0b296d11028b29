"""LLM judges: rubrics, checklists, arena battles."""
