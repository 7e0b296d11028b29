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
from .taxonomy import MEASURE_SHARE, MIN_TITLES, TASK_SHARE, choose_families, nameable, place_rows, titled
from .names import topic_words
from .roles import APPLICATIONS, DOMAIN_SHORT, EVALUATION, METHODS, domain_of, is_system_name, learn_roles, paper_role, role_heading

Encode = Callable[[list[str]], np.ndarray]
MIN_SHARE = 0.01  # a heading's phrase must organise this share of the pool (at least two papers)
FRINGE = 0.1  # the share of the pool least similar to the topic
SUB_SHARE = 0.05  # a subsection's phrase must organise this share of its section
MIN_LEAF = 5  # papers a subsection's phrase must organise (a subsection cites up to 8)
FLAT_LEAF = 3  # the same in a pool too small for families (a subsection of three works beats none)

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
    if sum(len(members) for _, members in tail) >= MIN_DOMAIN:  # fewer: too few works for a subsection
        names = [DOMAIN_SHORT.get(name, name) for name, _ in tail if name]
        groups.append((and_list(names) if names else "", sorted(r for _, members in tail for r in members)))
    # an unnamed group (no domain word) joins the largest named one
    named = [(n, m) for n, m in groups if n]
    for n, m in groups:
        if not n and named:
            named[0] = (named[0][0], sorted(named[0][1] + m))
    return named or groups


# An evaluation section whose papers no phrase organises (or only one) names its lone subsection by
# the kinds of work it holds ("Benchmarks and Datasets"), not by a phrase a few of its titles share.
# Not foundations: its kinds ("Methods and Surveys") would name no concept of the topic.
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
    chosen = select_concepts(inside, set(rows), 3 * k, min_support=min_support, distinct_words=False)
    chosen = _named(chosen, topic=topic, taken=taken, k=k)
    if not chosen:
        return []
    return [(c, g) for c, g in zip(chosen, place_rows(rows, chosen, vectors)) if g]


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
    # tasks ('question answering') and measures ('memory usage') head no part of a role section either
    plain = [c for c in concepts if index.task_share(c.key) < TASK_SHARE and index.measure_share(c.key) < MEASURE_SHARE]
    min_leaf = max(MIN_LEAF, min_support)
    # a role section holds at least half an even share of the pool: six application papers of 620
    # are no section ('Applications' with 'Medicine' and 'Finance' of two papers each)
    min_role = max(2 * n_subsections, MIN_LEAF, round(len(ids) / (2 * n_sections)))
    fixed, method_rows, n_methods, _ = _role_sections(topic, ids, papers, demos or [], n_sections, min_role)
    taken: set[str] = set()
    # method families name themselves first: the phrases that organise the most papers are theirs
    # ('hallucination detection' heads a family, not a subsection of the benchmarks)
    sections = _method_sections(method_rows, concepts, index, vectors, n_methods=n_methods,
                                n_subsections=n_subsections, min_leaf=min_leaf, topic=topic, taken=taken)
    for role, rows in fixed:
        title = role_heading(role, topic)
        if role == APPLICATIONS:
            subs = [{"title": name, "terms": [], "source": "role:domain", "rows": _central_order(vectors, members)[0]}
                    for name, members in _domain_groups(rows, ids, papers, topic, n_subsections)]
        else:
            inside = [c for c in plain if titled(c, set(rows))]
            placed = _subsections("", rows, inside, vectors, k=n_subsections,
                                  min_support=max(MIN_LEAF, round(SUB_SHARE * len(rows))), topic=topic, taken=taken) or \
                _subsections("", rows, inside, vectors, k=n_subsections, min_support=FLAT_LEAF, topic=topic, taken=taken)
            subs = [{"title": c.title(), "terms": [c.key], "source": "concepts", "rows": g} for c, g in placed]
            if len(subs) <= 1 and role in KIND_NAMED_ROLES:  # one subsection: named by what its papers are
                lone = subs[0] if subs else {"title": "", "terms": [], "source": "role:kinds", "rows": rows}
                subs = [sub for sub in [_named_by_kinds(lone, ids, papers, topic=topic, taken=taken)] if sub["title"]]
        if not subs:  # no phrase organises its papers: they stay in the pool, under no heading
            continue
        taken |= {normalize_title(title)} | {normalize_title(sub["title"]) for sub in subs}
        sections.append({"title": title, "key": "", "role": role, "rows": _central_order(vectors, rows)[0],
                         "source": f"role:{role}", "subs": subs})
    order = learn_roles(demos or [])[0]
    sections.sort(key=lambda s: (order.index(s["role"]) if s["role"] in order else len(order), -len(s["rows"])))
    result = []
    for section in sections:
        subs = section.pop("subs")
        section["terms"] = [section["key"]] if section["key"] else [t for sub in subs for t in sub["terms"][:1]]
        result.append(_entry(section, ids, papers, forms) | {
            "role": section["role"], "subsections": [_entry(sub, ids, papers, forms) for sub in subs]})
    return result


def _method_sections(rows: list[int], concepts: list[Concept], index: PhraseIndex, vectors: np.ndarray, *,
                     n_methods: int, n_subsections: int, min_leaf: int, topic: str, taken: set[str]) -> list[dict]:
    """Method families (taxonomy.py): sections are phrases that subsume two or more narrower
    phrases, which are their subsections. Families are sought in tiers, each on the papers the earlier
    ones left and for the section slots they left: method phrases; then task phrases too (the
    problems of the papers no method family holds may organise them); then, for a small pool,
    phrases of three papers and one title. Slots still left: a family that is only the union of its
    subsections splits into them (``_split_families``), then single phrases head sections of the
    papers no family holds (``_flat_sections``); with none of these, one 'Methods for' section."""
    if not rows:
        return []
    scope = set(rows)
    tasks = {c.key for c in concepts if index.task_share(c.key) >= TASK_SHARE}
    measures = {c.key for c in concepts if index.measure_share(c.key) >= MEASURE_SHARE}

    def valid(concept: Concept, seen: set[str]) -> bool:
        return not is_system_name(concept.title()) and not validate_heading(concept.title(), topic=topic, taken=seen)

    usable = [c for c in concepts if c.key not in measures and valid(c, set(taken))]
    families: list = []
    for with_tasks, leaf_size, min_titles in ((False, min_leaf, MIN_TITLES), (True, min_leaf, MIN_TITLES),
                                              (True, FLAT_LEAF, 1)):
        rest = sorted(scope - {r for f in families for r in f.rows})
        if len(families) >= n_methods or len(rest) < 2 * leaf_size:
            break
        used = {c.key for f in families for c in [f.name, *(c for c, _ in f.subs)]}
        left = [c for c in usable if c.key not in used and (with_tasks or c.key not in tasks)]
        families += choose_families(rest, [c for c in left if nameable(c, scope, min_titles)],
                                    [c for c in left if titled(c, scope, min_titles)], vectors,
                                    n_families=n_methods - len(families), n_subsections=n_subsections,
                                    min_leaf=leaf_size, taken=taken, valid=valid)
    sections = [{"title": f.name.title(), "key": f.name.key, "role": METHODS, "rows": f.rows, "source": "concepts",
                 "subs": [{"title": c.title(), "terms": [c.key], "source": "concepts", "rows": g} for c, g in f.subs]}
                for f in families]
    phrases = [c for c in usable if titled(c, scope, 1)]
    sections = _split_families(sections, {c.key: c for c in usable}, phrases, vectors, n_methods=n_methods,
                               n_subsections=n_subsections, min_leaf=min_leaf, topic=topic, taken=taken)
    rest = sorted(scope - {r for s in sections for r in s["rows"]})
    if len(sections) < n_methods and len(rest) >= 2 * FLAT_LEAF:
        used = {k for s in sections for k in [s["key"], *(t for sub in s["subs"] for t in sub["terms"])]}
        # a section of phrase alone holds half an even share of the method papers, as a role section does
        sections += _flat_sections(rest, [c for c in phrases if c.key not in used], vectors,
                                   k=n_methods - len(sections), n_subsections=n_subsections,
                                   min_size=max(min_leaf, round(len(rows) / (2 * n_methods))), topic=topic, taken=taken)
    if sections:
        return sections
    # no phrase subsumes two others, none heads a section alone: one method section of the pool's phrases
    title = f"Methods for {topic}" if len(topic) <= 40 else f"Methods for {topic.split(' for ')[0]}"
    taken.add(normalize_title(title))
    placed = _subsections("", rows, [c for c in usable if titled(c, scope)], vectors, k=n_subsections,
                          min_support=FLAT_LEAF, topic=topic, taken=taken)
    subs = [{"title": c.title(), "terms": [c.key], "source": "concepts", "rows": g} for c, g in placed] or \
        [{"title": title, "terms": [], "source": "role:methods", "rows": rows}]
    taken |= {normalize_title(sub["title"]) for sub in subs}
    return [{"title": title, "key": "", "role": METHODS, "rows": rows, "source": "role:methods", "subs": subs}]


def _phrase_section(concept: Concept, rows: list[int], phrases: list[Concept], vectors: np.ndarray, *,
                    n_subsections: int, topic: str, taken: set[str]) -> dict | None:
    """A method section headed by one phrase, its subsections the phrases within its papers that
    organise a twentieth of them, two at least (None when there is none)."""
    placed = _subsections(concept.key, rows, phrases, vectors, k=n_subsections,
                          min_support=max(2, round(SUB_SHARE * len(rows))), topic=topic, taken=taken)
    if not placed:
        return None
    return {"title": concept.title(), "key": concept.key, "role": METHODS, "rows": rows, "source": "concepts",
            "subs": [{"title": c.title(), "terms": [c.key], "source": "concepts", "rows": g} for c, g in placed]}


def _split_families(sections: list[dict], concepts: dict[str, Concept], phrases: list[Concept], vectors: np.ndarray,
                    *, n_methods: int, n_subsections: int, min_leaf: int, topic: str, taken: set[str]) -> list[dict]:
    """While section slots are left, the largest family whose name adds nothing to its subsections
    (fewer than ``min_leaf`` of its papers name it and no subsection's phrase) splits into them, when
    each can head a section (a phrase within each): such a family is only the union of its leaves,
    merged under a broad phrase ('Question Answering' over knowledge-graph and visual QA) where a
    reader would part them."""
    by_key = {c.key: c for c in phrases}
    for family in sorted(sections, key=lambda s: -len(s["rows"])):
        if len(sections) >= n_methods:
            break
        if len(sections) - 1 + len(family["subs"]) > n_methods or \
                not all(sub["terms"] and sub["terms"][0] in by_key for sub in family["subs"]):
            continue
        rows = set(family["rows"])
        own = concepts[family["key"]].support & rows
        for sub in family["subs"]:
            own -= by_key[sub["terms"][0]].support
        if len(own) >= min_leaf:  # the name organises papers of its own: a family, not a union
            continue
        trial = set(taken)
        parts = [_phrase_section(by_key[sub["terms"][0]], sub["rows"], phrases, vectors, n_subsections=n_subsections,
                                 topic=topic, taken=trial) for sub in family["subs"]]
        if all(parts):
            taken |= trial
            at = sections.index(family)
            sections = sections[:at] + parts + sections[at + 1:]
    return sections


def _flat_sections(rows: list[int], phrases: list[Concept], vectors: np.ndarray, *, k: int, n_subsections: int,
                   min_size: int, topic: str, taken: set[str]) -> list[dict]:
    """Up to ``k`` sections over the papers no family holds, each headed by a phrase that organises
    them (not a family: no phrase there subsumes two others). Every paper goes under the one that
    fits it; one naming none of them only when it is as close to the phrase's papers as their lower
    quartile (else it stays in the pool, under no heading, as in taxonomy._families)."""
    heads = _named(select_concepts(phrases, set(rows), 3 * k, min_support=min_size), topic=topic, taken=set(taken), k=k)
    sections = []
    for head, group in zip(heads, place_rows(rows, heads, vectors) if heads else []):
        named = [r for r in group if fit(head, r)]
        if len(named) < min_size:
            continue
        centroid = _normalise(vectors[named].mean(axis=0, keepdims=True))[0]
        floor = np.quantile(vectors[named] @ centroid, 0.25)
        group = [r for r in group if fit(head, r) or float(vectors[r] @ centroid) >= floor]
        trial = set(taken) | {normalize_title(head.title())}
        section = _phrase_section(head, group, phrases, vectors, n_subsections=n_subsections, topic=topic, taken=trial)
        if section:
            taken |= trial
            sections.append(section)
    return sections


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
