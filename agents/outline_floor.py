"""Outline floor: heuristic outline learning without an LLM.

The topic's retrieved papers (memory M) are clustered on their embeddings into sections, and each
section's papers into subsections (k-means, fixed seed). Each cluster is named by its distinctive
keyphrases (class-based TF-IDF over titles and abstracts, 1-3 word phrases that neither start nor
end on a stop word). Where a heading of a related human outline (P_S) describes a cluster at least
as well as the generated name (cosine to the cluster centroid, in the same embedding space) and
fits no other cluster better, the human wording is used; the human outlines also order the
sections. Every heading has papers behind it by construction: their ids, most central first, are
kept on the outline entry (``paper_ids``) and become the section memory M_i.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..models import normalize_title
from .text import and_list, as_data
from .cluster_names import informative_word, stem, class_terms, name_from_terms, surface_forms, topic_words
from .validators import FRAME_HEADINGS, validate_heading

Encode = Callable[[list[str]], np.ndarray]

def _normalise(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.maximum(norms, 1e-12)


def kmeans_groups(vectors: np.ndarray, k: int, *, seed: int, min_size: int) -> list[list[int]]:
    """k groups of row indices (k-means on unit vectors), none smaller than ``min_size``.

    A group below ``min_size`` takes, one at a time, the member of a larger group that is
    closest to it relative to its own centroid (the smallest loss of fit), so outliers cannot
    leave a section or subsection with one paper.
    """
    from sklearn.cluster import KMeans

    n = len(vectors)
    k = max(1, min(k, n // max(min_size, 1)))
    if k == 1:
        return [list(range(n))]
    labels = KMeans(n_clusters=k, n_init=10, random_state=seed).fit_predict(vectors)
    groups = [list(np.flatnonzero(labels == c)) for c in range(k)]
    groups = [g for g in groups if g]
    while True:
        small = [i for i, g in enumerate(groups) if len(g) < min_size]
        if not small:
            break
        target = min(small, key=lambda i: (len(groups[i]), i))
        centroids = np.stack([_normalise(vectors[g].mean(axis=0, keepdims=True))[0] for g in groups])
        best = None
        for i, group in enumerate(groups):
            if len(group) <= min_size:
                continue
            for row in group:
                loss = float(vectors[row] @ centroids[i] - vectors[row] @ centroids[target])
                if best is None or (loss, row) < best[0]:
                    best = ((loss, row), i)
        if best is None:  # nothing left to move: merge the small group into its nearest neighbour
            others = [i for i in range(len(groups)) if i != target]
            nearest = max(others, key=lambda i: float(centroids[i] @ centroids[target]))
            groups[nearest] += groups.pop(target)
            continue
        (_, row), source = best
        groups[source].remove(row)
        groups[target].append(row)
    return [sorted(int(r) for r in g) for g in groups]


def _central_order(vectors: np.ndarray, rows: list[int]) -> tuple[list[int], np.ndarray]:
    centroid = _normalise(vectors[rows].mean(axis=0, keepdims=True))[0]
    sims = vectors[rows] @ centroid
    order = [rows[i] for i in np.lexsort((rows, -sims))]
    return order, centroid


def demo_heading_pool(demos: list[dict], level: int) -> list[tuple[str, float]]:
    """(heading, relative position in its outline) for one level of the human outlines."""
    pool = []
    for demo in demos:
        entries = [e for e in demo.get("entries", []) if e.get("level") == level]
        for i, entry in enumerate(entries):
            title = " ".join(str(entry.get("title") or "").split())
            if normalize_title(title) not in FRAME_HEADINGS and len(title) >= 3:
                pool.append((title, i / max(len(entries) - 1, 1)))
    return pool


def match_demo_headings(names: list[str], centroids: np.ndarray, pool: list[tuple[str, float]],
                        encode: Encode | None, *, topic: str,
                        terms: list[list[str]] | None = None) -> tuple[list[str | None], list[float | None]]:
    """Per cluster: a human heading that fits it at least as well as its generated name (cosine
    to the centroid), fits no other cluster better, and shares a word with the cluster's
    distinctive phrases (``terms``); and the position of its nearest human heading (ordering)."""
    if not pool or encode is None or not len(centroids):
        return [None] * len(names), [None] * len(names)
    headings = [h for h, _ in pool]
    heading_vecs = _normalise(np.asarray(encode(headings), dtype=float))
    name_vecs = _normalise(np.asarray(encode(names), dtype=float))
    sims = heading_vecs @ centroids.T  # headings x clusters
    own = np.einsum("ij,ij->i", name_vecs, centroids)  # each generated name vs its own cluster
    banned = topic_words(topic)

    def informative(text: str) -> set[str]:
        return {stem(w) for w in normalize_title(text).split() if informative_word(w, banned)}

    vocab = [set().union(*(informative(t) for t in cluster_terms)) for cluster_terms in (terms or [[n] for n in names])]
    related = np.array([[bool(informative(h) & vocab[c]) for c in range(len(names))] for h in headings])
    # Order: the position of the nearest human heading that shares a distinctive word with the
    # cluster; clusters no heading speaks of get None (placed after, largest first).
    positions: list[float | None] = []
    for c in range(len(names)):
        near = [h for h in np.argsort(-sims[:, c], kind="stable") if related[h, c]]
        positions.append(pool[near[0]][1] if near else None)
    chosen: list[str | None] = [None] * len(names)
    taken: set[str] = set()
    candidates = sorted(((sims[h, c] - own[c], h, c) for h in range(len(headings)) for c in range(len(names))
                         if int(np.argmax(sims[h])) == c and sims[h, c] >= own[c] and related[h, c]), reverse=True)
    for _gain, h, c in candidates:
        title = headings[h]
        if chosen[c] is None and not validate_heading(title, topic=topic, taken=taken):
            chosen[c] = title
            taken.add(normalize_title(title))
    return chosen, positions


def _texts(papers: list[dict], ids: list[str]) -> list[str]:
    # as_data = sanitize.untrusted: no HTML attribute ("onerror", "alert") becomes a heading term
    return [f"{as_data(papers[i].get('title'))}. {as_data(papers[i].get('abstract'))}" for i in ids]


def _describe(name: str, terms: list[str], ids: list[str], papers: dict[str, dict], forms: dict[str, str]) -> str:
    years = [papers[i].get("year") for i in ids if papers[i].get("year")]
    span = f", {min(years)}-{max(years)}" if years else ""
    shown = [forms.get(t, t) for t in terms[:3]]
    return as_data(f"{len(ids)} papers{span} on {and_list(shown)}." if shown else f"{len(ids)} papers{span}.", 300)


def _name_clusters(term_lists: list[list[str]], forms: dict[str, str], *, topic: str, taken: set[str],
                   avoid: list[str] | None = None) -> list[dict]:
    named = []
    for i, terms in enumerate(term_lists):
        name, kept = name_from_terms(terms, forms, topic=topic, taken=taken, avoid=(avoid or [""] * len(term_lists))[i])
        if not name:  # no usable phrase at all (a tiny cluster of unrelated papers)
            context = (avoid or [""] * len(term_lists))[i]
            name = f"Further Directions in {context}" if context else f"Further Directions ({i + 1})"
        taken.add(normalize_title(name))
        named.append({"title": name, "terms": kept, "source": "clusters"})
    return named


def _apply_human(named: list[dict], centroids: np.ndarray, pool: list[tuple[str, float]],
                 encode: Encode | None, topic: str, taken: set[str]) -> list[float | None]:
    human, positions = match_demo_headings([n["title"] for n in named], centroids, pool, encode, topic=topic,
                                           terms=[n["terms"] for n in named])
    for item, title in zip(named, human):
        if title and normalize_title(title) not in taken:
            taken.discard(normalize_title(item["title"]))
            taken.add(normalize_title(title))
            item.update(title=title, source="human-outline")
    return positions


def build_outline_floor(topic: str, ids: list[str], papers: dict[str, dict], vectors: np.ndarray, *,
                        n_sections: int, n_subsections: int, demos: list[dict] | None = None,
                        encode: Encode | None = None, seed: int = 0) -> list[dict]:
    """Sections with subsections, each {title, description, query, paper_ids, terms, source}.

    ``ids``/``vectors``: the memory M and its embeddings (rows in the same order); ``encode``
    embeds headings in the same space (None: no human wording is matched).
    """
    vectors = _normalise(np.asarray(vectors, dtype=float))
    banned = topic_words(topic)
    sec_rows, sec_centroids = [], []
    for group in kmeans_groups(vectors, n_sections, seed=seed, min_size=max(2 * n_subsections, 2)):
        rows, centroid = _central_order(vectors, group)
        sec_rows.append(rows)
        sec_centroids.append(centroid)
    leaves, leaf_rows, leaf_centroids = [], [], []  # (section index, rows) of every subsection
    for s, rows in enumerate(sec_rows):
        for group in kmeans_groups(vectors[rows], n_subsections, seed=seed, min_size=2):
            ordered, centroid = _central_order(vectors, [rows[i] for i in group])
            leaves.append(s)
            leaf_rows.append(ordered)
            leaf_centroids.append(centroid)
    forms = surface_forms(_texts(papers, ids))

    def terms_of(row_groups: list[list[int]]) -> list[list[str]]:
        return class_terms([_texts(papers, [ids[r] for r in rows]) for rows in row_groups], banned,
                           titles=[[papers[ids[r]].get("title", "") for r in rows] for rows in row_groups])

    taken: set[str] = set()
    sections = _name_clusters(terms_of(sec_rows), forms, topic=topic, taken=taken)
    positions = _apply_human(sections, np.stack(sec_centroids), demo_heading_pool(demos or [], 1), encode, topic, taken)
    subs = _name_clusters(terms_of(leaf_rows), forms, topic=topic, taken=taken,
                          avoid=[sections[s]["title"] for s in leaves])
    _apply_human(subs, np.stack(leaf_centroids), demo_heading_pool(demos or [], 2), encode, topic, taken)
    order = sorted(range(len(sections)), key=lambda i: (positions[i] if positions[i] is not None else 1.0,
                                                        -len(sec_rows[i]), i))
    return [
        _entry({**sections[i], "rows": sec_rows[i]}, ids, papers, forms) | {"subsections": [
            _entry({**subs[j], "rows": leaf_rows[j]}, ids, papers, forms)
            for j in range(len(subs)) if leaves[j] == i]}
        for i in order
    ]


def _entry(item: dict, ids: list[str], papers: dict[str, dict], forms: dict[str, str]) -> dict:
    paper_ids = [ids[r] for r in item["rows"]]
    terms = [forms.get(t, t) for t in item["terms"]]
    return {
        "title": item["title"],
        "description": _describe(item["title"], item["terms"], paper_ids, papers, forms),
        "query": " ".join(dict.fromkeys([item["title"], *terms[:3]]))[:200],
        "paper_ids": paper_ids,
        "terms": terms,
        "source": item["source"],
    }


def tfidf_encoder(texts: list[str], seed: int = 0, dims: int = 128) -> tuple[np.ndarray, Encode]:
    """Vectors for ``texts`` and an encoder for new text in the same space (TF-IDF + LSA): used
    when the corpus offers no embedder (e.g. a test double)."""
    from sklearn.decomposition import TruncatedSVD
    from sklearn.feature_extraction.text import TfidfVectorizer

    vectorizer = TfidfVectorizer(stop_words="english", sublinear_tf=True, min_df=1)
    matrix = vectorizer.fit_transform(texts)
    svd = TruncatedSVD(n_components=max(2, min(dims, matrix.shape[1] - 1, len(texts) - 1)), random_state=seed)
    vectors = svd.fit_transform(matrix)
    return vectors, lambda new: svd.transform(vectorizer.transform(new))
