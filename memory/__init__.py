"""Survey memory: M (papers retrieved for the topic) and M_i (papers retrieved per section)."""

from .store import PaperMemory, paper_from_dump, remember_papers

__all__ = ["PaperMemory", "paper_from_dump", "remember_papers"]
