"""Merge duplicate papers: same arXiv id, else same DOI, else same normalised title.

Two records that carry *different* arXiv ids (or different DOIs) are never merged on their
title alone: arXiv has distinct papers with identical titles, and a title clash is weaker
evidence than two explicit, conflicting identifiers.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..models import Paper, normalize_title

# Very short normalised titles ("introduction", "editorial") are too generic to match on.
MIN_TITLE_KEY_CHARS = 12


def paper_keys(p: Paper) -> list[str]:
    """Identity keys in priority order: ["arxiv:<id>", "doi:<doi>", "title:<normalised title>"]."""
    keys: list[str] = []
    if p.arxiv_id:
        keys.append(f"arxiv:{p.arxiv_id}")
    if p.doi:
        keys.append(f"doi:{p.doi}")
    title = normalize_title(p.title)
    if len(title) >= MIN_TITLE_KEY_CHARS:
        keys.append(f"title:{title}")
    return keys


def _conflict(a: Paper, b: Paper) -> bool:
    return bool(
        (a.arxiv_id and b.arxiv_id and a.arxiv_id != b.arxiv_id)
        or (a.doi and b.doi and a.doi != b.doi)
    )


def merge_papers(a: Paper, b: Paper) -> Paper:
    """``a`` wins on every field it has; ``b`` fills the gaps. Citation count is the max,
    categories are the ordered union, and the longer abstract is kept."""
    data = a.model_dump()
    other = b.model_dump()
    for field, value in other.items():
        if data.get(field) in (None, "", []) and value not in (None, "", []):
            data[field] = value
    if len(b.abstract) > len(a.abstract):
        data["abstract"] = b.abstract
    counts = [c for c in (a.citation_count, b.citation_count) if c is not None]
    data["citation_count"] = max(counts) if counts else None
    data["categories"] = list(dict.fromkeys([*a.categories, *b.categories]))
    return Paper(**data)


def dedupe_papers(papers: Iterable[Paper]) -> tuple[list[Paper], int]:
    """(unique papers in first-seen order, number of records merged away)."""
    slots: list[Paper | None] = []
    index: dict[str, int] = {}
    seen = 0
    for paper in papers:
        seen += 1
        keys = paper_keys(paper)
        matches = _matching_slots(paper, keys, index, slots)
        if not matches:
            slots.append(paper)
            target = len(slots) - 1
        else:
            target = matches[0]
            merged = merge_papers(slots[target], paper)  # type: ignore[arg-type]
            # A paper can bridge two earlier records (arXiv id of one, DOI of the other).
            for extra in matches[1:]:
                merged = merge_papers(merged, slots[extra])  # type: ignore[arg-type]
                slots[extra] = None
            slots[target] = merged
        for key in keys if not matches else paper_keys(slots[target]):  # type: ignore[arg-type]
            index[key] = target
    unique = [p for p in slots if p is not None]
    return unique, seen - len(unique)


def _matching_slots(
    paper: Paper, keys: list[str], index: dict[str, int], slots: list[Paper | None]
) -> list[int]:
    found: list[int] = []
    for key in keys:
        slot = index.get(key)
        if slot is None or slot in found or slots[slot] is None:
            continue
        if key.startswith("title:") and _conflict(paper, slots[slot]):  # type: ignore[arg-type]
            continue
        found.append(slot)
    return found
