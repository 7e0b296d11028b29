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
entry (``paper_ids``) and become the section memory M_i. A phrase counts for the papers that are
about it (its title, the sentences stating their contribution) more than for those that only
mention it, and the subsections of a section headed by one phrase hold only the papers naming them
(parts.named_subsections; the section's other papers under "Other Work on ...").
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ...models import normalize_title
from ...retrieval.spelling import WordFamilies
from ..facets import contribution_kind
from ..text import and_list, as_data
from .asked import MAX_PARTS as MAX_ASKED, asked_parts
from .concepts import Concept, PhraseIndex, candidate_concepts, fit, phrase_key
from .headings import validate_heading
from .methods import method_sections, promote_large_subsections, split_large_subsections
from .names import topic_words
from .parts import (FLAT_LEAF, KIND_NAMED_ROLES, LEAD_MIN_NAMED, MIN_LEAF, OTHER_WORK, SUB_SHARE, kind_named,
                    merge_duplicate_sections, merge_duplicate_subsections, move_subsections_named_as_sections,
                    named_by_kinds, named_subsections, normalise, other_work_title, place_subsections)
from .roles import (APPLICATIONS, DOMAIN_SHORT, EVALUATION, FOUNDATIONS, METHODS, domain_of, learn_roles, paper_role,
                    role_heading)
from .taxonomy import MEASURE_SHARE, TASK_SHARE, titled

Encode = Callable[[list[str]], np.ndarray]
MIN_SHARE = 0.01  # a heading's phrase must organise this share of the pool (at least two papers)
FRINGE = 0.1  # the share of the pool least similar to the topic

def _central_order(vectors: np.ndarray, rows: list[int]) -> tuple[list[int], np.ndarray]:
    centroid = normalise(vectors[rows].mean(axis=0, keepdims=True))[0]
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
    # the pool's application papers head a section of their own as a related survey's would, also
    # when no related outline has one: 50 of a 242-paper ViT pool were medical imaging ("Skin Cancer",
    # "Lung Cancer" headed a method section, c26f)
    if APPLICATIONS not in roles and len(by_role.get(APPLICATIONS, [])) >= min_size:
        roles = [*roles, APPLICATIONS]
        learned = {**learned, "added": [APPLICATIONS]}
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
        named_tail = [name for name, _ in tail if name]
        # one domain alone keeps its full name ("Science" alone was a one-word heading)
        names = named_tail if len(named_tail) == 1 else [DOMAIN_SHORT.get(name, name) for name in named_tail]
        groups.append((and_list(names) if names else "", sorted(r for _, members in tail for r in members)))
    # an unnamed group (no domain word) joins the largest named one
    named = [(n, m) for n, m in groups if n]
    for n, m in groups:
        if not n and named:
            named[0] = (named[0][0], sorted(named[0][1] + m))
    return named or groups


def build_outline_floor(topic: str, ids: list[str], papers: dict[str, dict], vectors: np.ndarray, *,
                        n_sections: int, n_subsections: int, demos: list[dict] | None = None,
                        encode: Encode | None = None, seed: int = 0, topic_terms: set[str] | None = None,
                        kb_counts: dict[str, int] | None = None, related: set[str] | None = None,
                        background: dict | None = None, min_placed: int = 0) -> list[dict]:
    """A taxonomy of the pool: sections with subsections, each {title, description, query,
    paper_ids, terms, source, role}.

    ``ids``/``vectors``: the on-topic memory M and its embeddings (rows in the same order). The
    related human outlines (``demos``) give the section roles and their order (roles.py), never their
    wording. Method sections and every subsection are concept phrases chosen because they organise
    many of the section's papers (concepts.py); ``kb_counts`` (phrase -> surveys using it as a
    heading or category) and ``related`` (phrases of the surveys closest to the topic) come from the
    outline knowledge base. ``topic_terms``: the topic's concept variants, which name no part of it.
    """
    vectors = normalise(np.asarray(vectors, dtype=float))
    # the topic's words in any form ('detection', 'detectors' of "detecting deepfakes"): a phrase
    # of them alone restates the topic, it names no part of it
    banned = WordFamilies(topic_words(topic) | set(topic_terms or ()))
    index = PhraseIndex([as_data(papers[i].get("title")) for i in ids], [as_data(papers[i].get("abstract")) for i in ids],
                        banned)
    min_support = max(2, round(MIN_SHARE * len(ids)))
    concepts = candidate_concepts(index, min_support=min_support, kb_counts=kb_counts, related=set(related or ()),
                                  background=background)
    if encode is not None and len(ids) >= 10:
        # a phrase whose papers are mostly the pool's fringe (the tenth least similar to the topic)
        # organises no part of the topic: an incidental cluster, not a section
        topic_sims = vectors @ normalise(np.asarray(encode([topic]), dtype=float))[0]
        fringe = set(np.flatnonzero(topic_sims < np.quantile(topic_sims, FRINGE)).tolist())
        concepts = [c for c in concepts if len(c.support & fringe) <= 0.5 * len(c.support)]
    # a phrase the pool sets beside the topic ("CNNs and ViTs", "SFT and RL", "NeRF and 3DGS") more
    # often than a paper is about it is the topic's alternative or baseline, no part of it: blind
    # readers found "Convolutional Neural Networks" heading ViT surveys (c26f, c29a, c29k), and
    # "Supervised Fine-Tuning" headed a section of RL papers in a survey of RL for LLMs
    concepts = [c for c in concepts if len(index.beside_topic(c)) <= len(c.about())]
    forms = {c.key: c.form for c in concepts}
    # tasks ('question answering') and measures ('memory usage') head no part of a role section either
    plain = [c for c in concepts if index.task_share(c.key) < TASK_SHARE and index.measure_share(c.key) < MEASURE_SHARE]
    evaluated = [c for c in concepts if index.measure_share(c.key) < MEASURE_SHARE]
    min_leaf = max(MIN_LEAF, min_support)
    # a role section holds at least half an even share of the pool: six application papers of 620
    # are no section ('Applications' with 'Medicine' and 'Finance' of two papers each)
    min_role = max(2 * n_subsections, MIN_LEAF, round(len(ids) / (2 * n_sections)))
    fixed, method_rows, n_methods, _ = _role_sections(topic, ids, papers, demos or [], n_sections, min_role)
    taken: set[str] = set()
    # the parts the user's topic lists come first, in the user's order (asked.py)
    # (a part the user asked for is a section with a subsection's worth of papers)
    asked = _asked_sections(topic, method_rows, ids, papers, plain, vectors, n_subsections=n_subsections,
                            min_size=min_leaf, taken=taken)
    held = {r for section in asked for r in section["rows"]}
    method_rows = [r for r in method_rows if r not in held]
    n_methods = max(n_methods - len(asked), 1)
    # method families name themselves first: the phrases that organise the most papers are theirs
    # ('hallucination detection' heads a family, not a subsection of the benchmarks)
    sections = asked + method_sections(method_rows, concepts, index, vectors, n_methods=n_methods,
                                       n_subsections=n_subsections, min_leaf=min_leaf, topic=topic, taken=taken)
    for section in sections:
        section["subs"] = kind_named(section["subs"], ids, papers, topic=topic, taken=taken)
    for role, rows in fixed:
        title = role_heading(role, topic)
        if role == APPLICATIONS:
            subs = [{"title": name, "terms": [], "source": "role:domain", "rows": _central_order(vectors, members)[0]}
                    for name, members in _domain_groups(rows, ids, papers, topic, n_subsections)]
        else:
            # what benchmarks evaluate is a task ('instruction following', 'logical reasoning'): a part of
            # an evaluation section, as it is no method family
            usable = evaluated if role == EVALUATION else plain
            subs = _phrase_subsections("", rows, usable, vectors, n_subsections=n_subsections, topic=topic, taken=taken)
            phrases = [sub for sub in subs if sub["source"] == "concepts"]
            if not phrases and role in KIND_NAMED_ROLES:  # no phrase: one subsection named by what its papers are
                lone = {"title": "", "terms": [], "source": "role:kinds", "rows": rows}
                named = named_by_kinds(lone, ids, papers, topic=topic, taken=taken)
                # its kinds' name already heads a listed part's subsection: these are further works of
                # those kinds ("Further Benchmarks, Datasets and Methods"), and the role keeps its section
                named = named if named["title"] else named_by_kinds(lone, ids, papers, topic=topic, taken=taken,
                                                                    prefix="Further ")
                subs = [named] if named["title"] else []
            elif len(phrases) <= 1 and role == FOUNDATIONS:
                subs = _foundation_parts(rows, ids, papers, vectors)
            else:
                subs = kind_named(subs, ids, papers, topic=topic, taken=taken)
        if not subs:  # no phrase organises its papers: they stay in the pool, under no heading
            continue
        taken |= {normalize_title(title)} | {normalize_title(sub["title"]) for sub in subs}
        sections.append({"title": title, "key": "", "role": role, "rows": _central_order(vectors, rows)[0],
                         "source": f"role:{role}", "subs": subs})
    # section and subsection slots still left: large subsections become sections, or split
    sections = promote_large_subsections(sections, {c.key: c for c in plain}, vectors, n_sections=n_sections,
                                         n_subsections=n_subsections, topic=topic, taken=taken)
    sections = split_large_subsections(sections, plain, vectors, n_subsections=n_subsections, topic=topic,
                                       taken=taken)
    sections = merge_duplicate_subsections(merge_duplicate_sections(sections, topic), topic)
    sections = move_subsections_named_as_sections(sections, topic)
    sections = _place_the_rest(sections, ids, papers, vectors, plain, topic=topic, taken=taken, min_placed=min_placed,
                               n_subsections=n_subsections)
    order = learn_roles(demos or [])[0]
    # within a role, the parts the topic lists first, in its order, then larger sections first; the
    # papers no heading named come after the method sections
    sections.sort(key=lambda s: (order.index(s["role"]) if s["role"] in order else len(order), bool(s.get("further")),
                                 s.get("asked", MAX_ASKED), -len(s["rows"])))
    by_key = {c.key: c for c in concepts}
    result = []
    for section in sections:
        subs = section.pop("subs")
        # the section's papers no subsection phrase names: one subsection, last, named after the section
        # as it is now (two merged sections brought one each)
        others = [sub for sub in subs if sub["source"] == OTHER_WORK]
        if others:
            named = [sub for sub in subs if sub["source"] != OTHER_WORK]
            other = {**others[0], "title": other_work_title(section["title"]),
                     "rows": [r for r in dict.fromkeys(r for sub in others for r in sub["rows"])]}
            # first, as the section's opening, before two or more named lines (parts.leads_section)
            subs = [other, *named] if len(named) >= LEAD_MIN_NAMED else [*named, other]
        section["terms"] = [section["key"]] if section["key"] else [t for sub in subs for t in sub["terms"][:1]]
        result.append(_entry(section, ids, papers, forms) | {
            "role": section["role"],
            "subsections": [_entry(sub, ids, papers, forms) | {"named": _naming(sub, by_key)} for sub in subs]})
    return result


def _phrase_subsections(key: str, rows: list[int], concepts: list[Concept], vectors: np.ndarray, *,
                        n_subsections: int, topic: str, taken: set[str]) -> list[dict]:
    """The subsections of a section that is no phrase family (a role, a listed part): the phrases
    its papers' titles use that organise a twentieth of them (MIN_LEAF at least), else FLAT_LEAF."""
    inside = [c for c in concepts if titled(c, set(rows))]
    leaf = max(MIN_LEAF, round(SUB_SHARE * len(rows)))
    placed = place_subsections(key, rows, inside, vectors, k=n_subsections, min_support=leaf, topic=topic,
                               taken=taken) or \
        place_subsections(key, rows, inside, vectors, k=n_subsections, min_support=FLAT_LEAF, topic=topic,
                          taken=taken)
    # each phrase holds the papers naming it; the rest one subsection named later by their kinds (205
    # benchmark papers sat under "Mathematical Reasoning", 14 of them about it: c27j)
    subs, rest = named_subsections(placed)
    return subs + [{"title": "", "terms": [], "source": "role:kinds", "rows": rest}] * bool(subs and rest)


def _asked_sections(topic: str, rows: list[int], ids: list[str], papers: dict[str, dict], concepts: list[Concept],
                    vectors: np.ndarray, *, n_subsections: int, min_size: int, taken: set[str]) -> list[dict]:
    """A method section per part the topic lists (asked.asked_parts), its subsections the phrases
    within its papers, as a role section's are."""
    titles = [as_data(papers[ids[r]].get("title")) for r in rows]
    abstracts = [as_data(papers[ids[r]].get("abstract")) for r in rows]
    parts = [(heading, part, [rows[i] for i in local])
             for heading, part, local in asked_parts(topic, titles, abstracts, min_size=min_size)]
    if not parts:
        # a part whose papers a role section holds ("benchmarks" of "LVLMs: architectures, training and
        # benchmarks" went to the evaluation section, and the list lost all three parts): the list is
        # read on the whole pool, and the parts the method papers fill are its sections
        everything = list(range(len(ids)))
        method = set(rows)
        whole = asked_parts(topic, [as_data(papers[i].get("title")) for i in ids],
                            [as_data(papers[i].get("abstract")) for i in ids], min_size=min_size)
        parts = [(heading, part, members) for heading, part, local in whole
                 if len(members := [everything[i] for i in local if everything[i] in method]) >= min_size]
        parts = parts if len(parts) >= 2 else []
    sections = []
    for number, (heading, part, members) in enumerate(parts):
        subs = _phrase_subsections(phrase_key(part), members, concepts, vectors, n_subsections=n_subsections,
                                   topic=topic, taken=taken)
        if len(subs) <= 1:  # no phrase divides it: one subsection named by what its papers are ...
            lone = subs[0] if subs else {"title": "", "terms": [], "source": "role:kinds", "rows": members}
            subs = [sub for sub in [named_by_kinds(lone, ids, papers, topic=topic, taken=taken)] if sub["title"]]
        else:  # ... or its phrases, and the papers naming none by their kinds
            subs = kind_named(subs, ids, papers, topic=topic, taken=taken)
        # ... or, with no such name free, by the part itself: a listed part is never an empty section
        # (a c26k reader: "the 'Node Classification' section is empty")
        subs = subs or [{"title": heading, "terms": [], "source": "asked", "rows": members}]
        taken |= {normalize_title(heading)} | {normalize_title(sub["title"]) for sub in subs}
        sections.append({"title": heading, "key": "", "role": METHODS, "rows": _central_order(vectors, members)[0],
                         "source": "asked", "asked": number, "subs": subs})
    return sections


def _place_the_rest(sections: list[dict], ids: list[str], papers: dict[str, dict], vectors: np.ndarray,
                    concepts: list[Concept], *, topic: str, taken: set[str], min_placed: int,
                    n_subsections: int) -> list[dict]:
    """When the headings hold fewer than ``min_placed`` papers (the survey's citation target), the
    pool's papers under no heading get a section of their own, named by the kinds of work they are
    ("Further Methods and Empirical Studies"). Phrase sections hold only the papers naming their
    phrase: a 64-paper pool ("how do self-driving cars detect other vehicles ... from lidar point
    clouds") got sections of 14, 9 and 6 papers and its survey cited 29 of its 64 on-topic works.
    Joined to the nearest subsection instead, 44 of them sat under "Bird's Eye View" and its blind
    reader wrote "'Bird's Eye View' holds 44 unrelated works" (c25i): a heading says what is under it.
    None of the 20 SurveyBench topics' outlines needs it."""
    placed = {r for section in sections for sub in section["subs"] for r in sub["rows"]}
    if len(placed) >= min(min_placed, len(ids)):
        return sections
    rest = [r for r in range(len(ids)) if r not in placed]
    if len(rest) < FLAT_LEAF:
        return sections
    rows = _central_order(vectors, rest)[0]
    sub = named_by_kinds({"title": "", "terms": [], "source": "role:kinds", "rows": rows}, ids, papers, topic=topic,
                         taken=taken)
    title = f"Further {sub['title']}" if sub["title"] else "Further Work"
    if validate_heading(title, topic=topic, taken=taken):
        return sections
    taken.add(normalize_title(title))
    # parted as a role section is, by the phrases its papers' titles use, each holding the papers
    # naming it: 108 further works of an interpretability pool hold token and data attribution lines
    trial = set(taken)
    subs = _phrase_subsections("", rows, concepts, vectors, n_subsections=n_subsections, topic=topic, taken=trial)
    # the phrases must hold most of its works: the rest, named by no kind, join the largest phrase
    # (kind_named), and "Search Agents", named by 3 of 23 further works, headed all 23 and the section
    # read "23 works on search agents" (c28n)
    if 2 * sum(len(part["rows"]) for part in subs if part["source"] == "concepts") >= len(rows):
        taken |= trial
        subs = kind_named(subs, ids, papers, topic=topic, taken=taken)
    else:
        subs = [{**sub, "title": sub["title"] or title}]
    return sections + [{"title": title, "key": "", "role": METHODS, "rows": rows, "source": "role:kinds", "further": True,
                        "subs": subs}]


# The foundations section holds the pool's surveys and its analyses (roles.paper_role: 'survey',
# 'rethinking', 'understanding', 'empirical study' in the title). One phrase a few of them share
# named it for all of them ('Foundations' holding only 'Spatial Reasoning', a blind reader wrote):
# without two phrases that organise them, they are parted by what they are.
FOUNDATION_PARTS = ("Surveys and Overviews", "Analyses and Perspectives")


def _foundation_parts(rows: list[int], ids: list[str], papers: dict[str, dict], vectors: np.ndarray) -> list[dict]:
    surveys = [r for r in rows if contribution_kind(str(papers[ids[r]].get("title") or ""),
                                                    str(papers[ids[r]].get("abstract") or "")) == "survey"]
    rest = [r for r in rows if r not in set(surveys)]
    groups = list(zip(FOUNDATION_PARTS, (surveys, rest)))
    if min(len(surveys), len(rest)) < FLAT_LEAF:
        groups = [("Surveys, Analyses and Perspectives", rows)]
    return [{"title": title, "terms": [], "source": "role:kinds", "rows": _central_order(vectors, group)[0],
             "split": True} for title, group in groups]


def _naming(sub: dict, concepts: dict[str, Concept]) -> int:
    """How many of a subsection's papers name its phrase (they lead its ``paper_ids``: place_rows
    orders by fit), 0 for a subsection named otherwise (a domain, the kinds of work)."""
    concept = concepts.get(sub["terms"][0]) if sub["terms"] else None
    return sum(1 for r in sub["rows"] if fit(concept, r) > 0) if concept else 0


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
    } | ({"merged": item["merged"]} if item.get("merged", 1) > 1 else {})


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
