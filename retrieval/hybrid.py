"""Reciprocal-rank fusion of several rankings (Cormack et al., 2009)."""

from __future__ import annotations


def reciprocal_rank_fusion(rankings: dict[str, list[str]], k: int = 60) -> list[tuple[str, float]]:
    """Fuse ranked id lists: score(d) = sum over rankings of 1 / (k + rank(d)), rank 1-based.

    ``rankings`` maps a retriever name to its ids, best first (an id repeated within one list
    counts at its first position). Returns (id, score) best first; ties keep the order in which
    ids were first seen, walking the rankings in the dict's order.
    """
    if k < 0:
        raise ValueError("k must be >= 0")
    scores: dict[str, float] = {}
    for ids in rankings.values():
        seen: set[str] = set()
        for rank, doc_id in enumerate(ids, start=1):
            if doc_id in seen:
                continue
            seen.add(doc_id)
            scores[doc_id] = scores.get(doc_id, 0.0) + 1.0 / (k + rank)
    # sorted() is stable, so equal scores stay in first-seen order.
    return sorted(scores.items(), key=lambda item: -item[1])


def ranks_by_retriever(rankings: dict[str, list[str]]) -> dict[str, dict[str, int]]:
    """id -> {retriever: 1-based rank} for ScoredPaper.ranks."""
    out: dict[str, dict[str, int]] = {}
    for name, ids in rankings.items():
        for rank, doc_id in enumerate(ids, start=1):
            out.setdefault(doc_id, {}).setdefault(name, rank)
    return out
