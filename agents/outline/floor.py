"""Outline floor: the pool's taxonomy, without an LLM.

The related human outlines (P_S) give the survey's section roles and their order (foundations,
method families, benchmarks and evaluation, applications: agents/outline/roles.py); their wording
is never copied. The topic's on-topic papers (memory M) fill the roles: surveys and analyses go to
the foundations, benchmarks to evaluation, papers naming an application domain to applications
(one subsection per domain). The rest are organised by concept (concepts.py): the method sections
are the multi-word phrases that organise the most papers ("speculative decoding", "KV cache
compression"), chosen greedily so that together they cover the pool, and the subsections of every
section are the phrases that organise its papers. Each paper goes under the heading that fits it
best (named in its title, then in its abstract, then the closest by embedding), so a heading has
its papers behind it by construction: their ids, the ones naming it first, are kept on the outline
entry (``paper_ids``) and become the section memory M_i.
"""

from __future__ import annotations

from collections import Counter
from typing import Callable

import numpy as np

from ...models import normalize_title
from ..facets import contribution_kind
from ..text import and_list, as_data
from .headings import validate_heading
from .concepts import Concept, PhraseIndex, candidate_concepts, fit, select_concepts
from .names import topic_words
from .roles import APPLICATIONS, DOMAIN_SHORT, EVALUATION, METHODS, domain_of, is_system_name, learn_roles, paper_role, role_heading

Encode = Callable[[list[str]], np.ndarray]
MIN_SHARE = 0.01  # a heading's phrase must organise this share of the pool (at least two papers)
FRINGE = 0.1  # the share of the pool least similar to the topic
SUB_SHARE = 0.05  # a subsection's phrase must organise this share of its section
STRICT_QUANTILE = 0.25  # a paper naming no subsection phrase joins one as close as its lower quartile of papers
SECTION_PRIOR_MIN = 1  # method sections are phrases human surveys use as headings or categories, when enough are

def _normalise(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.maximum(norms, 1e-12)


def _central_order(vectors: np.ndarray, rows: list[int]) -> tuple[list[int], np.ndarray]:
    centroid = _normalise(vectors[rows].mean(axis=0, keepdims=True))[0]
    sims = vectors[rows] @ centroid
    order = [rows[i] for i in np.lexsort((rows, -sims))]
    return order, centroid


def _describe(name: str, terms: list[str], ids: list[str], papers: dict[str, dict], forms: dict[str, str]) -> str:
    years = [papers[i].get("year") for i in ids if papers[i].get("year")]
    span = f", {min(years)}-{max(years)}" if years else ""
    shown = [forms.get(t, t) for t in terms[:3]]
    return as_data(f"{len(ids)} papers{span} on {and_list(shown)}." if shown else f"{len(ids)} papers{span}.", 300)


def _role_sections(topic: str, ids: list[str], papers: dict[str, dict], demos: list[dict], n_sections: int,
                   min_size: int) -> tuple[list[tuple[str, list[int]]], list[int], int, dict]:
    """(role, rows) of the role sections the pool can fill, the method rows, how many method
    sections, and the record of what was learned. Roles beyond the section budget, or with fewer
    than ``min_size`` papers, give their papers back to the methods."""
    roles, learned = learn_roles(demos)
    by_role: dict[str, list[int]] = {}
    for row, pid in enumerate(ids):
        by_role.setdefault(paper_role(papers[pid].get("title", ""), topic), []).append(row)
    fixed = [r for r in roles if r != METHODS and len(by_role.get(r, [])) >= min_size]
    while fixed and n_sections - len(fixed) < 1:  # keep at least one method section
        fixed.pop()  # the last in outline order (applications before evaluation before foundations)
    methods = sorted(r for role, rows in by_role.items() if role not in fixed for r in rows)
    if len(methods) < min_size and fixed:  # too few methods for a section of their own
        methods = sorted(methods + by_role[fixed.pop()])
    learned.update(order=roles, filled={r: len(by_role.get(r, [])) for r in roles})
    return [(r, by_role[r]) for r in fixed], methods, max(1, n_sections - len(fixed)), {**learned, "used": fixed}


MIN_DOMAIN = 3  # papers a domain needs to head a subsection of its own


def _domain_groups(rows: list[int], ids: list[str], papers: dict[str, dict], topic: str, k: int) -> list[tuple[str, list[int]]]:
    """Application rows grouped by domain: the k-1 largest domains, the rest together."""
    by_domain: dict[str, list[int]] = {}
    for r in rows:
        by_domain.setdefault(domain_of(papers[ids[r]].get("title", ""), topic) or "", []).append(r)
    ranked = sorted(by_domain.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    # a domain with fewer than MIN_DOMAIN papers is not a subsection of its own: it joins the rest
    big = [kv for kv in ranked if len(kv[1]) >= MIN_DOMAIN or not kv[0]]
    head = big[: max(k - 1, 1)]
    tail = [kv for kv in ranked if kv not in head]
    groups = [(name, members) for name, members in head]
    if tail:
        names = [DOMAIN_SHORT.get(name, name) for name, _ in tail if name]
        groups.append((and_list(names) if names else "", sorted(r for _, members in tail for r in members)))
    # an unnamed group (no domain word) joins the largest named one
    named = [(n, m) for n, m in groups if n]
    for n, m in groups:
        if not n and named:
            named[0] = (named[0][0], sorted(named[0][1] + m))
    return named or groups


# Role sections whose lone subsection is named by the kinds of work it holds ("Benchmarks and
# Datasets"), not by a phrase a few of its titles share. Not foundations: its kinds ("Methods and
# Surveys") would name no concept of the topic.
KIND_NAMED_ROLES = {EVALUATION}
KIND_LABELS = {"survey": "Surveys", "study": "Empirical Studies", "benchmark": "Benchmarks and Datasets",
               "method": "Methods"}


def _named_by_kinds(sub: dict, ids: list[str], papers: dict[str, dict], *, topic: str, taken: set[str]) -> dict:
    """The lone subsection of an evaluation section, named by the two kinds of work it holds most
    ("Benchmarks, Datasets and Empirical Studies") instead of a phrase a few of them share ("Visual
    and Action Representation")."""
    kinds = Counter(k for k in (contribution_kind(str(papers[ids[r]].get("title") or ""),
                                                  str(papers[ids[r]].get("abstract") or "")) for r in sub["rows"]) if k)
    top = [KIND_LABELS[k] for k, n in kinds.most_common(2) if n >= 2]
    # "Methods, Benchmarks and Datasets", not "Methods and Benchmarks and Datasets"
    title = and_list([word for label in top for word in label.split(" and ")])
    if not title or validate_heading(title, topic=topic, taken=taken - {normalize_title(sub["title"])}):
        return sub
    taken.discard(normalize_title(sub["title"]))
    taken.add(normalize_title(title))
    return {**sub, "title": title, "source": "role:kinds"}


def _centroid(vectors: np.ndarray, rows: list[int] | set[int]) -> np.ndarray:
    return _normalise(vectors[sorted(rows)].mean(axis=0, keepdims=True))[0]


def _place(rows: list[int], concepts: list[Concept], vectors: np.ndarray, *, strict: bool = False) -> list[list[int]]:
    """Every row under the phrase that fits it best: named in its title, then in its abstract, ties
    (and rows naming none) by cosine to the phrase's papers. Each group is ordered by fit, then by
    closeness to its centroid, so the papers about the heading come first. ``strict`` (subsections):
    a row naming none of the phrases joins one only when it is at least as close to the phrase's
    papers as the median paper naming it; otherwise it stays in its section's memory only."""
    members = [sorted(c.support & set(rows)) or rows for c in concepts]
    centroids = np.stack([_centroid(vectors, m) for m in members])
    sims = vectors[rows] @ centroids.T
    position = {row: i for i, row in enumerate(rows)}
    bars = [float(np.quantile([sims[position[r], j] for r in m], STRICT_QUANTILE)) for j, m in enumerate(members)]
    groups: list[list[tuple]] = [[] for _ in concepts]
    for i, row in enumerate(rows):
        fits = [fit(c, row) for c in concepts]
        best = max(range(len(concepts)), key=lambda j: (fits[j], sims[i, j], -j))
        if strict and not fits[best] and sims[i, best] < bars[best]:
            continue
        groups[best].append((-fits[best], -float(sims[i, best]), row))
    return [[row for *_, row in sorted(group)] for group in groups]


def _named(concepts: list[Concept], *, topic: str, taken: set[str], k: int) -> list[Concept]:
    """The first ``k`` concepts whose title is a valid, unused heading (not a system's name)."""
    kept = []
    for concept in concepts:
        title = concept.title()
        if len(kept) == k or is_system_name(title) or validate_heading(title, topic=topic, taken=taken):
            continue
        taken.add(normalize_title(title))
        kept.append(concept)
    return kept


def _subsections(section_key: str, rows: list[int], concepts: list[Concept], vectors: np.ndarray, *, k: int,
                 min_support: int, topic: str, taken: set[str]) -> list[tuple[Concept, list[int]]]:
    """Concepts within one section's papers (each must add a word to the section's phrase), every row
    placed under the one that fits it best."""
    inside = [c for c in concepts if c.key != section_key and not set(c.key.split()) <= set(section_key.split())]
    chosen = select_concepts(inside, set(rows), 3 * k, min_support=min_support)
    chosen = _named(chosen, topic=topic, taken=taken, k=k)
    if not chosen:
        return []
    return [(c, g) for c, g in zip(chosen, _place(rows, chosen, vectors, strict=True)) if g]


def build_outline_floor(topic: str, ids: list[str], papers: dict[str, dict], vectors: np.ndarray, *,
                        n_sections: int, n_subsections: int, demos: list[dict] | None = None,
                        encode: Encode | None = None, seed: int = 0, topic_terms: set[str] | None = None,
                        kb_counts: dict[str, int] | None = None, related: set[str] | None = None,
                        background: dict | None = None) -> list[dict]:
    """A taxonomy of the pool: sections with subsections, each {title, description, query,
    paper_ids, terms, source, role}.

    ``ids``/``vectors``: the on-topic memory M and its embeddings (rows in the same order). The
    related human outlines (``demos``) give the section roles and their order (roles.py), never their
    wording. Method sections and every subsection are concept phrases chosen because they organise
    many of the section's papers (concepts.py); ``kb_counts`` (phrase -> surveys using it as a
    heading or category) and ``related`` (phrases of the surveys closest to the topic) come from the
    outline knowledge base. ``topic_terms``: the topic's concept variants, which name no part of it.
    """
    vectors = _normalise(np.asarray(vectors, dtype=float))
    banned = topic_words(topic) | set(topic_terms or ())
    index = PhraseIndex([as_data(papers[i].get("title")) for i in ids], [as_data(papers[i].get("abstract")) for i in ids],
                        banned)
    min_support = max(2, round(MIN_SHARE * len(ids)))
    concepts = candidate_concepts(index, min_support=min_support, kb_counts=kb_counts, related=set(related or ()),
                                  background=background)
    if encode is not None and len(ids) >= 10:
        # a phrase whose papers are mostly the pool's fringe (the tenth least similar to the topic)
        # organises no part of the topic: an incidental cluster, not a section
        topic_sims = vectors @ _normalise(np.asarray(encode([topic]), dtype=float))[0]
        fringe = set(np.flatnonzero(topic_sims < np.quantile(topic_sims, FRINGE)).tolist())
        concepts = [c for c in concepts if len(c.support & fringe) <= 0.5 * len(c.support)]
    forms = {c.key: c.form for c in concepts}
    min_size = max(2 * n_subsections, 4)
    fixed, method_rows, n_methods, _ = _role_sections(topic, ids, papers, demos or [], n_sections, min_size)
    taken: set[str] = set()
    sections: list[dict] = []
    known = [c for c in concepts if c.prior >= SECTION_PRIOR_MIN or c.related]
    heads = select_concepts(known, set(method_rows), 3 * n_methods, min_support=max(min_size, 2 * min_support))
    if len(heads) < n_methods:  # too few phrases the literature names parts by: any phrase of the pool
        heads = select_concepts(concepts, set(method_rows), 3 * n_methods, min_support=max(min_size, 2 * min_support))
    heads = _named(heads, topic=topic, taken=taken, k=n_methods)
    if heads:
        for concept, rows in zip(heads, _place(method_rows, heads, vectors)):
            if rows:
                sections.append({"title": concept.title(), "key": concept.key, "role": METHODS, "rows": rows,
                                 "source": "concepts"})
    elif method_rows:
        title = f"Methods for {topic}" if len(topic) <= 40 else f"Methods for {topic.split(' for ')[0]}"
        sections.append({"title": title, "key": "", "role": METHODS, "rows": method_rows, "source": "role:methods"})
        taken.add(normalize_title(title))
    for role, rows in fixed:
        title = role_heading(role, topic)
        taken.add(normalize_title(title))
        sections.append({"title": title, "key": "", "role": role, "rows": _central_order(vectors, rows)[0],
                         "source": f"role:{role}"})
    order = learn_roles(demos or [])[0]
    sections.sort(key=lambda s: (order.index(s["role"]) if s["role"] in order else len(order), -len(s["rows"])))
    result = []
    for section in sections:
        rows = section["rows"]
        if section["role"] == APPLICATIONS:
            subs = []
            for name, members in _domain_groups(rows, ids, papers, topic, n_subsections):
                taken.add(normalize_title(name))
                subs.append({"title": name, "terms": [], "source": "role:domain", "rows": _central_order(vectors, members)[0]})
        else:
            placed = _subsections(section["key"], rows, concepts, vectors, k=n_subsections,
                                  min_support=max(2, min_support, round(SUB_SHARE * len(rows))),
                                  topic=topic, taken=taken)
            subs = [{"title": c.title(), "terms": [c.key], "source": "concepts", "rows": g} for c, g in placed]
            if not subs:  # no phrase organises two of its papers: one subsection named by their kinds
                subs = [{"title": section["title"], "terms": [], "source": "role:kinds", "rows": rows}]
                subs[0] = _named_by_kinds(subs[0], ids, papers, topic=topic, taken=taken)
                if subs[0]["title"] == section["title"]:
                    subs[0]["title"] = f"{section['title']} Methods"
                    taken.add(normalize_title(subs[0]["title"]))
            elif len(subs) == 1 and section["role"] in KIND_NAMED_ROLES:
                subs[0] = _named_by_kinds(subs[0], ids, papers, topic=topic, taken=taken)
        section["terms"] = [section["key"]] if section["key"] else [t for sub in subs for t in sub["terms"][:1]]
        result.append(_entry(section, ids, papers, forms) | {
            "role": section["role"], "subsections": [_entry(sub, ids, papers, forms) for sub in subs]})
    return result


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
