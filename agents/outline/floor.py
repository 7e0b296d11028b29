"""Outline floor: heuristic outline learning without an LLM.

The related human outlines (P_S) give the survey's section roles and their order (foundations,
method families, benchmarks and evaluation, applications: agents/outline/roles.py); their wording
is never copied. The topic's on-topic papers (memory M) fill the roles: surveys and analyses go to
the foundations, benchmarks to evaluation, papers naming an application domain to applications
(one subsection per domain), and the rest are clustered on their embeddings into method families
(k-means, fixed seed), each split into subsections. Clusters are named by keyphrases their own
titles share (class-based TF-IDF; never a system or dataset name). Every heading has papers behind
it by construction: their ids, most central first, are kept on the outline entry (``paper_ids``)
and become the section memory M_i.
"""

from __future__ import annotations

from collections import Counter
from typing import Callable

import numpy as np

from ...models import normalize_title
from ..facets import contribution_kind
from ..text import and_list, as_data
from .headings import validate_heading
from .names import class_terms, name_from_terms, surface_forms, topic_words
from .roles import APPLICATIONS, DOMAIN_SHORT, EVALUATION, METHODS, domain_of, is_system_name, learn_roles, paper_role, role_heading

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


def _name_groups(groups: list[list[int]], ids: list[str], papers: dict[str, dict], banned: set[str],
                 forms: dict[str, str], *, topic: str, taken: set[str], avoid: list[str] | None = None) -> list[dict]:
    """Names for groups of rows: phrases their own titles share, never a system name."""
    term_lists = class_terms([_texts(papers, [ids[r] for r in rows]) for rows in groups], banned,
                             titles=[[papers[ids[r]].get("title", "") for r in rows] for rows in groups])
    named_lists = []
    for rows, terms in zip(groups, term_lists):
        named_lists.append([t for t in terms if _title_support(t, rows, ids, papers) >= _needed(len(rows))
                            and not is_system_name(forms.get(t, t))])
    return _name_clusters(named_lists, forms, topic=topic, taken=taken, avoid=avoid)


def _needed(n_papers: int) -> int:
    """Titles that must share a phrase before it may name their group: two (one paper's wording
    is not what a group shares)."""
    return 2 if n_papers > 1 else 1


def _title_support(phrase: str, rows: list[int], ids: list[str], papers: dict[str, dict]) -> int:
    key = f" {normalize_title(phrase)} "
    return sum(key in f" {normalize_title(papers[ids[r]].get('title', ''))} " for r in rows)


def _merge_unnamed(named: list[dict], groups: list[list[int]], vectors: np.ndarray) -> tuple[list[dict], list[list[int]]]:
    """Groups whose titles share no phrase join the nearest named group (a heading must name
    what its papers share; a name one paper gives is not a subsection)."""
    keep = [i for i, item in enumerate(named) if item.get("terms")]
    if not keep or len(keep) == len(named):
        return named, groups
    merged = {i: list(groups[i]) for i in keep}
    centroids = {i: _central_order(vectors, groups[i])[1] for i in keep}
    for i, group in enumerate(groups):
        if i in merged:
            continue
        own = _central_order(vectors, group)[1]
        nearest = max(keep, key=lambda j: (float(own @ centroids[j]), -j))
        merged[nearest] += group
    return [named[i] for i in keep], [_central_order(vectors, merged[i])[0] for i in keep]


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


def build_outline_floor(topic: str, ids: list[str], papers: dict[str, dict], vectors: np.ndarray, *,
                        n_sections: int, n_subsections: int, demos: list[dict] | None = None,
                        encode: Encode | None = None, seed: int = 0, topic_terms: set[str] | None = None) -> list[dict]:
    """Sections with subsections, each {title, description, query, paper_ids, terms, source, role}.

    ``ids``/``vectors``: the on-topic memory M and its embeddings (rows in the same order). The
    related human outlines (``demos``) give the section roles and their order (agents/outline/roles.py),
    never their wording; method families are clusters of M named by phrases their titles share.
    ``topic_terms``: the topic's concept variants (acronyms such as 'vla'), which may not name a part.
    """
    vectors = _normalise(np.asarray(vectors, dtype=float))
    banned = topic_words(topic) | set(topic_terms or ())  # the topic's own words and acronyms name no part of it
    forms = surface_forms(_texts(papers, ids))
    min_size = max(2 * n_subsections, 4)
    fixed, method_rows, n_methods, _ = _role_sections(topic, ids, papers, demos or [], n_sections, min_size)
    taken: set[str] = set()
    sections: list[dict] = []  # {title, terms, source, role, rows, subgroups: [(name|None, rows)]}
    method_groups = [[method_rows[i] for i in g] for g in
                     kmeans_groups(vectors[method_rows], n_methods, seed=seed, min_size=min(min_size, len(method_rows)))]
    method_groups = [_central_order(vectors, g)[0] for g in method_groups]
    method_names = _name_groups(method_groups, ids, papers, banned, forms, topic=topic, taken=taken)
    method_names, method_groups = _merge_unnamed(method_names, method_groups, vectors)
    if len(method_names) == 1 and not method_names[0].get("terms"):  # nothing shared at all: any phrase
        taken.discard(normalize_title(method_names[0]["title"]))
        method_names = _name_clusters(class_terms([_texts(papers, [ids[r] for r in method_groups[0]])], banned),
                                      forms, topic=topic, taken=taken)
    for item, rows in zip(method_names, method_groups):
        sections.append({**item, "role": METHODS, "rows": rows})
    for role, rows in fixed:
        title = role_heading(role, topic)
        taken.add(normalize_title(title))
        ordered = _central_order(vectors, rows)[0]
        sections.append({"title": title, "terms": [], "source": f"role:{role}", "role": role, "rows": ordered})
    order = learn_roles(demos or [])[0]
    sections.sort(key=lambda s: (order.index(s["role"]) if s["role"] in order else len(order), -len(s["rows"])))
    result = []
    for section in sections:
        rows = section["rows"]
        if section["role"] == APPLICATIONS:
            groups = _domain_groups(rows, ids, papers, topic, n_subsections)
            subs = []
            for name, members in groups:
                taken.add(normalize_title(name))
                subs.append({"title": name, "terms": [], "source": "role:domain", "rows": _central_order(vectors, members)[0]})
        else:
            leaf = [[rows[i] for i in g] for g in kmeans_groups(vectors[rows], n_subsections, seed=seed, min_size=2)]
            leaf = [_central_order(vectors, g)[0] for g in leaf]
            named = _name_groups(leaf, ids, papers, banned, forms, topic=topic, taken=taken,
                                 avoid=[section["title"]] * len(leaf))
            named, leaf = _merge_unnamed(named, leaf, vectors)
            if not any(item.get("terms") for item in named):  # no subgroup shares a phrase: one subsection
                leaf = [_central_order(vectors, rows)[0]]
                for item in named:
                    taken.discard(normalize_title(item["title"]))
                named = _name_clusters(class_terms([_texts(papers, [ids[r] for r in rows])], banned), forms,
                                       topic=topic, taken=taken, avoid=[section["title"]])
            subs = [{**item, "rows": g} for item, g in zip(named, leaf)]
            if len(subs) == 1 and section["role"] in KIND_NAMED_ROLES:
                subs[0] = _named_by_kinds(subs[0], ids, papers, topic=topic, taken=taken)
        if not section["terms"]:  # a role section's terms: its subsections' lead phrases
            section["terms"] = [t for sub in subs for t in sub["terms"][:1]]
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
