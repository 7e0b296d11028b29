"""The method part of the outline: families of concepts found by subsumption.

A section is a phrase S whose papers include most of the papers of a few narrower phrases L (its
subsections): S *subsumes* L when at least ``SUBSUME`` of the papers naming L also name S, and S names
more papers than L (Sanderson and Croft, "Deriving concept hierarchies from text", SIGIR 1999, on
document co-occurrence; they use 0.8 on whole documents, we read titles and abstracts only, where a
paper names its broader concept less often). So 'KV cache' subsumes 'KV cache compression' and 'KV
cache quantization', 'model compression' subsumes 'weight quantization' when the pool's abstracts
say so, and a section's heading is named by the papers under each of its subsections.

Sections are chosen greedily: the phrase whose own papers and subsumed phrases organise the most
not yet covered papers (concepts.concept_score: titles over abstracts, the literature's use of it as
a heading), at least two subsections of ``min_leaf`` papers each, at most ``cap`` papers (a phrase
naming more is the topic itself, 'scene reconstruction' for 3D Gaussian splatting). Phrases for
subsections are ones titles use (``MIN_TITLES``): abstracts alone name costs and gains
('computational costs') as often as concepts. Task phrases ('question answering', followed by
'tasks' / 'benchmarks' in the pool's text) are problems methods are applied to, and measures
('memory usage', after 'reduce' / 'high') are what methods move: neither names a method family.

Every paper of a family goes under the subsection that fits it best (title, then abstract, then
embedding), so each heading has its papers behind it; the papers no family names go to the nearest
family by embedding, after the ones that name it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ...models import normalize_title
from .concepts import Concept, concept_score, fit, select_concepts

TASK_SHARE = 0.1  # task phrases score 0.12-0.15 on the tuning pools, method phrases 0.00-0.02
MEASURE_SHARE = 0.2  # measures score 0.20-0.73 on the tuning pools ('token usage' 0.70), methods 0.00-0.18
SUBSUME = 0.5  # share of a narrower phrase's papers that also name its section's phrase
MIN_TITLES = 2  # titles that must name a leaf phrase (at least)


def _unit(matrix: np.ndarray) -> np.ndarray:
    return matrix / np.maximum(np.linalg.norm(matrix, axis=-1, keepdims=True), 1e-12)


def place_rows(rows: list[int], concepts: list[Concept], vectors: np.ndarray) -> list[list[int]]:
    """Every row under the concept that fits it best: named in its title, then in its abstract,
    ties and rows naming none by cosine to the concept's papers; each group ordered by fit, then by
    closeness, so the papers about the heading come first."""
    if not concepts:
        return []
    row_set = set(rows)
    members = [sorted(c.support & row_set) or rows for c in concepts]
    centroids = _unit(np.stack([vectors[m].mean(axis=0) for m in members]))
    sims = vectors[rows] @ centroids.T
    groups: list[list[tuple]] = [[] for _ in concepts]
    for i, row in enumerate(rows):
        fits = [fit(c, row) for c in concepts]
        best = max(range(len(concepts)), key=lambda j: (fits[j], sims[i, j], -j))
        groups[best].append((-fits[best], -float(sims[i, best]), row))
    return [[row for *_, row in sorted(group)] for group in groups]


def titled(concept: Concept, rows: set[int], min_titles: int = MIN_TITLES) -> bool:
    """Named in enough titles of ``rows`` to head a part of the outline."""
    return len(concept.strong & rows) >= min_titles


def nameable(concept: Concept, rows: set[int], min_titles: int = MIN_TITLES) -> bool:
    """A section name is a phrase human surveys use as a heading, or one the pool's titles use."""
    return concept.prior > 0 or titled(concept, rows, min_titles)


@dataclass
class Family:
    name: Concept
    rows: list[int]  # the family's papers, those naming its phrases first
    subs: list[tuple[Concept, list[int]]]  # subsections and their papers


class _Kinship:
    """How each leaf belongs under each name, computed once: a leaf is kin to a name that subsumes
    it (at least ``SUBSUME`` of the leaf's papers name it too), the most specific such name first.

    Why subsumption only: leaves used to be kin by nearness as well (the leaf's typical paper as close
    to the name's centroid as the name's own typical paper), which filed "Link Prediction" and
    "Adjacency Matrix" under "Convolutional Networks" in a GNN survey. Two blind readers compared the
    20 SurveyBench outlines built both ways (session 18, BENCHMARKS.md): subsumption alone was the
    better taxonomy on 12 of 17 topics that differ, nearness on 5, and it cites more works (mean 72
    against 66)."""

    def __init__(self, names: list[Concept], leaves: list[Concept], scope: set[int]):
        self.order: dict[tuple[str, str], tuple[int, float]] = {}  # (0, parent size): smaller is closer
        for leaf in leaves:
            mine = leaf.support & scope
            for name in names:
                if not mine or leaf.key == name.key or len(mine) >= len(name.support & scope) or \
                        set(name.key.split()) > set(leaf.key.split()):
                    continue
                if len(mine & name.support) >= SUBSUME * len(mine):  # the most specific subsuming phrase first
                    self.order[name.key, leaf.key] = (0, len(name.support & scope))

    def kin(self, name: Concept, leaf: Concept) -> tuple[int, float] | None:
        """Sort key of how ``leaf`` belongs under ``name`` (smaller is closer); None when it does not."""
        return self.order.get((name.key, leaf.key))


def _pick_names(names: list[Concept], leaves: list[Concept], scope: set[int], kin: _Kinship, *, n: int,
                min_leaf: int, cap: int, excluded: set[str]) -> list[tuple[Concept, set[int]]]:
    """Section phrases chosen greedily by how well they organise papers no earlier one names
    (concepts.concept_score), each with at most ``cap`` papers and at least two kin leaves of
    ``min_leaf`` papers; with each, the papers it names first."""
    picked: list[tuple[Concept, set[int]]] = []
    covered: set[int] = set()
    while len(picked) < n:
        taken = {c.key for c, _ in picked}
        best, best_score, best_own = None, 0.0, set()
        for name in names:
            if name.key in taken or name.key in excluded:
                continue
            everything = name.support & scope
            own = everything - covered
            if not min_leaf <= len(own) <= cap or len(own) < 0.5 * len(everything):
                continue
            kids = [leaf for leaf in leaves if leaf.key not in taken and kin.kin(name, leaf) is not None
                    and len((leaf.support & scope) - covered) >= min_leaf]
            if len(kids) < 2:
                continue
            score = concept_score(name, own)
            if score > best_score or (score == best_score and best is not None and name.key < best.key):
                best, best_score, best_own = name, score, own
        if best is None:
            break
        picked.append((best, best_own))
        covered |= best_own
    return picked


def choose_families(rows: list[int], names: list[Concept], leaves: list[Concept], vectors: np.ndarray, *,
                    n_families: int, n_subsections: int, min_leaf: int, taken: set[str],
                    valid: Callable[[Concept, set[str]], bool]) -> list[Family]:
    """Up to ``n_families`` families of ``rows``, largest first (module docstring): section phrases
    first (``_pick_names``), then every other leaf under the section it is most kin to; a section
    left with fewer than two subsections is dropped and the choice made again without it.
    ``valid(concept, taken)``: whether a phrase may head a part of the outline next to the ``taken``
    headings (normalised titles; the families' headings are added to it)."""
    scope = set(rows)
    cap = max(2 * len(rows) // max(n_families, 1), 4 * min_leaf)
    names = [c for c in names if valid(c, set(taken))]
    if not names or not leaves:  # a small pool's tier may offer no phrase at all
        return []
    kin = _Kinship(names, leaves, scope)
    excluded: set[str] = set()
    while True:
        picked = _pick_names(names, leaves, scope, kin, n=n_families, min_leaf=min_leaf, cap=cap, excluded=excluded)
        if not picked:
            return []
        chosen, failed = _assign(picked, leaves, scope, kin, n_subsections=n_subsections, min_leaf=min_leaf,
                                 cap=cap, taken=taken, valid=valid)
        if not failed:
            break
        # the last picked of the sections that failed goes; the others may succeed without it
        excluded.add(next(c.key for c, _ in reversed(picked) if c.key in failed))
    for name, _, subs in chosen:
        taken |= {normalize_title(c.title()) for c in [name, *subs]}
    return _families(rows, chosen, set().union(*(f for _, f, _ in chosen)), vectors)


def _assign(picked: list[tuple[Concept, set[int]]], leaves: list[Concept], scope: set[int], kin: _Kinship, *,
            n_subsections: int, min_leaf: int, cap: int, taken: set[str], valid: Callable[[Concept, set[str]], bool]
            ) -> tuple[list[tuple[Concept, set[int], list[Concept]]], set[str]]:
    """Each leaf under its most kin section that stays within ``cap`` papers (the closest leaves
    placed first, so a broad section does not take every leaf of the field); each section's papers
    (its own, then its leaves' not named by an earlier section) and subsections. Returns the families
    and the keys of the sections left with fewer than two subsections."""
    heads = {c.key for c, _ in picked}
    claimed = set().union(*(own for _, own in picked))
    sizes = [set(own) for _, own in picked]
    kids: list[list[Concept]] = [[] for _ in picked]
    ranked = []
    for leaf in leaves:
        if leaf.key in heads:
            continue
        options = sorted((kin.kin(name, leaf), i) for i, (name, _) in enumerate(picked) if kin.kin(name, leaf))
        if options:
            ranked.append((options[0][0], leaf.key, leaf, [i for _, i in options]))
    for _, _, leaf, options in sorted(ranked, key=lambda r: r[:2]):
        fresh = (leaf.support & scope) - claimed
        for i in options:
            if len(sizes[i] | fresh) <= cap:
                sizes[i] |= fresh
                kids[i].append(leaf)
                break
    seen = set(taken) | {normalize_title(c.title()) for c, _ in picked}
    chosen, failed, placed = [], set(), set()
    for (name, own), mine in zip(picked, kids):
        family = set(own)
        for leaf in mine:
            family |= (leaf.support & scope) - claimed - placed
        placed |= family
        subs = []
        for sub in select_concepts(mine, family, 3 * n_subsections, min_support=min_leaf, distinct_words=False):
            if len(subs) < n_subsections and valid(sub, seen):
                seen.add(normalize_title(sub.title()))
                subs.append(sub)
        if len(subs) < 2:
            failed.add(name.key)
        chosen.append((name, family, subs))
    return chosen, failed


def _families(rows: list[int], chosen: list[tuple[Concept, set[int], list[Concept]]], covered: set[int],
              vectors: np.ndarray) -> list[Family]:
    """Each family's papers placed under its subsections. A paper no family names joins the family
    nearest by embedding (after its own papers) when it is as close to it as the family's own
    papers' lower quartile; the others stay in the pool, under no heading, for no heading names them."""
    extra: list[list[int]] = [[] for _ in chosen]
    rest = [r for r in rows if r not in covered]
    if rest:
        members = [sorted(f) for _, f, _ in chosen]
        centroids = _unit(np.stack([vectors[m].mean(axis=0) for m in members]))
        floor = [np.quantile(vectors[m] @ c, 0.25) for m, c in zip(members, centroids)]
        sims = vectors[rest] @ centroids.T
        for row, row_sims in zip(rest, sims):
            f = int(np.argmax(row_sims))
            if row_sims[f] >= floor[f]:
                extra[f].append(row)
    families = []
    for (name, family, subs), more in zip(chosen, extra):
        own = sorted(family)
        groups = place_rows(own, subs, vectors)
        # the rows naming no phrase of the family come last in the subsection nearest to them
        tail = place_rows(more, subs, vectors) if more else [[] for _ in subs]
        placed = [(s, g + t) for s, g, t in zip(subs, groups, tail) if g]
        families.append(Family(name, [r for _, g in placed for r in g], placed))
    return sorted(families, key=lambda f: -len(f.rows))
