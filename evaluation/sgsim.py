"""SGSimEval similarity-enhanced scoring (spec sgsimeval.md §1.2, §5).

Embedding units per component (outline paths, header-delimited content chunks, reference
entries), the similarity weight σ (mean of the top-N nearest-human similarities) and the two
ways of folding σ into a score: Human-as-Perfect and Balanced.
"""

from __future__ import annotations

import numpy as np

from ..models import OutlineEntry, Survey

# N^k of the paper (§4.1): outline, content, reference.
TOP_N = {"outline": 5, "content": 5, "reference": 20}
PATH_SEPARATOR = " > "


def _outline_tree(outline: list[OutlineEntry], topic: str) -> tuple[list[str], list[int | None]]:
    """Titles and parent indices; levels are normalised so the top level is 1 and, unless
    there is exactly one top-level entry, the topic is inserted as the root (all levels +1)."""
    entries = [e for e in outline if e.title.strip()]
    if not entries:
        return [], []
    top = min(e.level for e in entries)
    levels = [e.level - top + 1 for e in entries]
    titles = [e.title.strip() for e in entries]
    if levels.count(1) != 1:
        titles = [topic.strip() or "Survey"] + titles
        levels = [1] + [lv + 1 for lv in levels]
    parents: list[int | None] = []
    stack: list[int] = []  # indices of the open ancestors, shallowest first
    for idx, level in enumerate(levels):
        while stack and levels[stack[-1]] >= level:
            stack.pop()
        parents.append(stack[-1] if stack else None)
        stack.append(idx)
    return titles, parents


def outline_units(outline: list[OutlineEntry], topic: str) -> list[str]:
    """Root→leaf title paths with sibling leaves merged, joined by " > "; paths of ≤2 titles dropped."""
    titles, parents = _outline_tree(outline, topic)
    has_child = {p for p in parents if p is not None}
    groups: dict[tuple[str, ...], list[str]] = {}  # parent path -> its leaf titles, in order
    for idx, title in enumerate(titles):
        if idx in has_child:
            continue
        ancestors: list[str] = []
        node = parents[idx]
        while node is not None:
            ancestors.append(titles[node])
            node = parents[node]
        if len(ancestors) + 1 <= 2:
            continue
        groups.setdefault(tuple(reversed(ancestors)), []).append(title)
    return [PATH_SEPARATOR.join([*parent, *leaves]) for parent, leaves in groups.items()]


def content_units(survey: Survey) -> list[str]:
    """One chunk per header-delimited section: the header line plus its body."""
    units = []
    for section in survey.sections:
        header = "#" * max(section.level, 1) + " " + section.heading.strip()
        body = section.text.strip()
        if section.heading.strip() or body:
            units.append(f"{header}\n{body}".strip())
    return units


def reference_units(survey: Survey) -> list[str]:
    """One document per reference entry string (the raw entry; the title when no raw text)."""
    return [(r.text or r.title or "").strip() for r in survey.references if (r.text or r.title)]


def sigma(sim_gen_human: np.ndarray, top_n: int) -> float:
    """σ = mean of the top-N of each generated unit's best similarity to a human unit.

    Fewer than N generated units -> mean of all; no units on either side -> 0.0.
    """
    sim = np.asarray(sim_gen_human, dtype=np.float64)
    if sim.ndim != 2 or sim.shape[0] == 0 or sim.shape[1] == 0:
        return 0.0
    if top_n < 1:
        raise ValueError("top_n must be >= 1")
    best = np.sort(sim.max(axis=1))[::-1]
    return float(best[:top_n].mean())


def human_as_perfect(score: float, sigma: float, q_max: float) -> float:
    """HP (Eq. 6): σ·Q_max + (1-σ)·Q — the closer to the human survey, the closer to perfect."""
    return sigma * q_max + (1.0 - sigma) * score


def balanced(score: float, sigma: float, human_score: float) -> float:
    """Balanced (Eq. 7): σ·Q_human + (1-σ)·Q — pulls the score toward the human survey's score."""
    return sigma * human_score + (1.0 - sigma) * score
