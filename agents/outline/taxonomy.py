"""The method part of the outline, built bottom-up: leaf concepts, then their families.

1. **Leaves**: the phrases that together organise the method papers (concepts.select_concepts; they
   may share words, 'KV cache compression' and 'KV cache eviction', but not papers), each with at
   least ``min_leaf`` papers so a subsection has works to cite. Task phrases ('question answering',
   followed by 'tasks' / 'benchmarks' in the pool's text) are problems methods are applied to, never
   a method family (PhraseIndex.task_share).
2. **Families**: leaves whose papers share papers and sit close in the index's embedding space are
   grouped (average-linkage agglomerative clustering, scikit-learn) into at most ``n_sections``
   families; a family smaller than a third of an even share joins its nearest family.
3. **Family names**: the phrase whose papers best cover the family's papers and few others
   (recall x precision, weighted by how often human surveys use it as a heading), so a family of
   'weight quantization' and 'structured pruning' can be named 'Model Compression' when the pool's
   abstracts say so; otherwise its largest leaf names it. A leaf that names its family is not also
   its subsection: its papers are split by the phrases inside it, or go to its siblings.

Every paper goes under the leaf that fits it best (title, then abstract, then embedding), so each
heading has its papers behind it.
"""

from __future__ import annotations

import math

import numpy as np

from .concepts import Concept, concept_score, fit, select_concepts

TASK_SHARE = 0.1  # task phrases score 0.12-0.15 on the tuning pools, method phrases 0.00-0.02
NAME_RECALL = 0.3  # a family name's papers cover at least this share of the family
NAME_PRECISION = 0.5  # and at least this share of its method papers lie in the family
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


def _leaf_similarity(groups: list[list[int]], leaves: list[Concept], rows: list[int], vectors: np.ndarray) -> np.ndarray:
    """Pairwise: the larger of shared papers (over the smaller support) and the cosine of the
    groups' centroids, rescaled to [0, 1] over the pairs (in one field every raw cosine is close to
    the others; only their order says which leaves are kin)."""
    centroids = _unit(np.stack([vectors[g].mean(axis=0) for g in groups]))
    cosine = centroids @ centroids.T
    off = cosine[~np.eye(len(groups), dtype=bool)]
    low, high = (float(off.min()), float(off.max())) if off.size else (0.0, 1.0)
    cosine = np.clip((cosine - low) / max(high - low, 1e-9), 0.0, 1.0)
    scope = set(rows)
    supports = [c.support & scope for c in leaves]
    shared = np.array([[len(a & b) / max(min(len(a), len(b)), 1) for b in supports] for a in supports])
    return np.maximum(cosine, shared)


def group_leaves(groups: list[list[int]], leaves: list[Concept], vectors: np.ndarray, rows: list[int],
                 n_families: int) -> list[list[int]]:
    """Leaf indices per family (largest family first)."""
    if len(leaves) <= n_families:
        return [[i] for i in range(len(leaves))]
    from sklearn.cluster import AgglomerativeClustering

    similarity = _leaf_similarity(groups, leaves, rows, vectors)
    labels = AgglomerativeClustering(n_clusters=n_families, metric="precomputed", linkage="average").fit_predict(
        1.0 - similarity)
    families = [[i for i in range(len(leaves)) if labels[i] == f] for f in range(n_families)]
    size = lambda fam: sum(len(groups[i]) for i in fam)  # noqa: E731
    floor = len(rows) / (3 * n_families)
    families.sort(key=size)
    while len(families) > 1 and size(families[0]) < floor:  # too small for a section: join the nearest
        small = families.pop(0)
        nearest = max(range(len(families)), key=lambda f: max(similarity[i, j] for i in small for j in families[f]))
        families[nearest] = families[nearest] + small
        families.sort(key=size)
    return sorted(families, key=lambda fam: -size(fam))


def family_name(family_rows: set[int], method_rows: set[int], members: list[Concept], candidates: list[Concept],
                taken_keys: set[str]) -> Concept:
    """The phrase whose papers cover the family and few other method papers, weighted by how
    often human surveys use it as a heading; else the family's largest leaf."""
    best, best_score = None, 0.0
    for concept in candidates:
        if concept.key in taken_keys:
            continue
        inside = len(concept.support & family_rows)
        anywhere = len(concept.support & method_rows)
        if not anywhere:
            continue
        recall, precision = inside / max(len(family_rows), 1), inside / anywhere
        if recall < NAME_RECALL or precision < NAME_PRECISION:
            continue
        score = recall * precision * (1.0 + math.log1p(concept.prior)) * (1.3 if concept.related else 1.0)
        if score > best_score:
            best, best_score = concept, score
    return best or max(members, key=lambda c: (concept_score(c, family_rows), c.key))


def select_leaves(concepts: list[Concept], rows: list[int], k: int, *, min_leaf: int, max_leaf: int,
                  task_keys: set[str]) -> list[Concept]:
    """Up to ``k`` method concepts that together organise ``rows`` (no task phrase), each naming at
    most ``max_leaf`` of them: a phrase naming more ('robotic manipulation', half of a VLA pool) is
    a family, which may name a section (``family_name``) but is no subsection."""
    scope = set(rows)
    concepts = [c for c in concepts if len(c.support & scope) <= max_leaf]
    titled = max(MIN_TITLES, math.ceil(min_leaf / 2))
    # a leaf is a phrase titles use: abstracts alone name costs and gains ('computational costs',
    # 'efficiency gains') as often as concepts
    usable = [c for c in concepts if c.key not in task_keys and len(c.strong & scope) >= titled]
    return select_concepts(usable, scope, k, min_support=min_leaf, distinct_words=False)


def nameable(concept: Concept, rows: set[int], min_leaf: int) -> bool:
    """A family name is a phrase human surveys use as a heading, or one the pool's titles use."""
    return concept.prior > 0 or len(concept.strong & rows) >= max(MIN_TITLES, math.ceil(min_leaf / 2))
