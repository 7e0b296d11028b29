"""Method sections: families of the pool's concept phrases (taxonomy.py), sought in tiers, and what
fills the slots they leave: splitting a family that is only the union of its leaves, sections headed
by one phrase over the papers no family holds, promoting a large subsection to a section and
splitting a large subsection into the phrases within it."""

from __future__ import annotations

import numpy as np

from ...models import normalize_title
from .concepts import Concept, PhraseIndex, fit, select_concepts
from .headings import validate_heading
from .parts import (FLAT_LEAF, MIN_LEAF, OTHER_WORK, SUB_SHARE, concept_parts, fallback_method_title, named_concepts,
                    named_subsections, normalise, other_work_title, phrase_section, place_subsections)
from .roles import METHODS, is_system_name
from .taxonomy import MEASURE_SHARE, MIN_TITLES, TASK_SHARE, Family, choose_families, nameable, place_rows, titled

def method_sections(rows: list[int], concepts: list[Concept], index: PhraseIndex, vectors: np.ndarray, *,
                    n_methods: int, n_subsections: int, min_leaf: int, topic: str, taken: set[str]) -> list[dict]:
    """Method families (taxonomy.py): sections are phrases that subsume two or more narrower
    phrases, which are their subsections. Families are sought in tiers, each on the papers the earlier
    ones left and for the section slots they left: method phrases; then task phrases too (the
    problems of the papers no method family holds may organise them); then, for a small pool,
    phrases of three papers and one title. Slots still left: a family that is only the union of its
    subsections splits into them (``_split_families``), then single phrases head sections of the
    papers no family holds (``_flat_sections``, smaller ones while slots stay empty); with none of
    these, one 'Methods for' section."""
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
    sections = [s for s in (_family_section(f, topic=topic, taken=taken) for f in families) if s]
    phrases = [c for c in usable if titled(c, scope, 1)]
    sections = _split_families(sections, {c.key: c for c in usable}, phrases, vectors, n_methods=n_methods,
                               n_subsections=n_subsections, min_leaf=min_leaf, topic=topic, taken=taken)
    # Papers a family holds only by nearness (naming none of its phrases) are free for a section of
    # their own: families place every paper under the nearest of them, so two families over a
    # 370-paper pool left 54 papers for the three empty slots, while 51 papers it holds for nearness
    # alone name 'mathematical reasoning'.
    by_key = {c.key: c for c in usable}
    # A section of phrase alone holds half an even share of the method papers, as a role section
    # does; when no phrase names that many and slots are still empty, a quarter of that share, then
    # min_leaf papers: a pool whose phrases are many and small ('LLM-based Multi-Agent': debate,
    # reasoning, multi-agent RL, 21-25 papers each of 489, no family among them) otherwise got one
    # section of one 302-paper subsection. The smaller sizes only add to sections found already: with
    # none, the pool's phrases part one 'Methods for' section below, and a lone small section would
    # leave the rest of the pool under no heading.
    share = round(len(rows) / (2 * n_methods))
    for min_size in dict.fromkeys(max(min_leaf, size) for size in (share, share // 4, min_leaf)):
        held = {r for s in sections for r in s["rows"] if any(fit(by_key[t], r) for t in _section_terms(s) if t in by_key)}
        rest = sorted(scope - held)
        if len(sections) >= n_methods or len(rest) < 2 * FLAT_LEAF or (not sections and min_size < share):
            break
        used = {k for s in sections for k in _section_terms(s)}
        flat = _flat_sections(rest, [c for c in phrases if c.key not in used], vectors,
                              k=n_methods - len(sections), n_subsections=n_subsections,
                              min_size=min_size, topic=topic, taken=taken)
        moved = {r for f in flat for r in f["rows"]}
        for section in sections:  # a paper sits in one section: the flat one that names it
            section["rows"] = [r for r in section["rows"] if r not in moved]
            for sub in section["subs"]:
                sub["rows"] = [r for r in sub["rows"] if r not in moved]
            section["subs"] = [sub for sub in section["subs"] if sub["rows"]]
        sections = [s for s in sections if s["subs"]] + flat
    if sections:
        return sections
    # no phrase subsumes two others, none heads a section alone: one method section of the pool's phrases
    title = fallback_method_title(topic)
    taken.add(normalize_title(title))
    # phrases two titles name; failing those, one title (a 57-paper pool whose titles are system
    # names had none of the first kind, and got one subsection named like its section)
    placed = []
    for min_titles in (MIN_TITLES, 1):
        placed = placed or place_subsections("", rows, [c for c in usable if titled(c, scope, min_titles)], vectors,
                                             k=n_subsections, min_support=FLAT_LEAF, topic=topic, taken=taken)
    subs = [{"title": c.title(), "terms": [c.key], "source": "concepts", "rows": [r for r in g if fit(c, r)]}
            for c, g in placed]
    # the papers naming none of these few phrases are not about them: they get a subsection named
    # by the kinds of work they are (build_outline_floor names it), not the nearest phrase's heading
    # (39 time-series papers under 'Question Answering', 4 of them about it)
    unnamed = sorted(r for (c, g) in placed for r in g if not fit(c, r))
    subs = [sub for sub in subs if sub["rows"]]
    if unnamed:
        subs.append({"title": "", "terms": [], "source": "role:kinds", "rows": unnamed})
    # no phrase at all: one subsection named by the kinds of work it holds (build_outline_floor), not
    # a second heading that repeats the section's
    subs = subs or [{"title": "", "terms": [], "source": "role:kinds", "rows": rows}]
    taken |= {normalize_title(sub["title"]) for sub in subs if sub["title"]}
    return [{"title": title, "key": "", "role": METHODS, "rows": rows, "source": "role:methods", "subs": subs}]


def _family_section(family: Family, *, topic: str, taken: set[str]) -> dict | None:
    """A family's section: each subsection holds the papers naming its phrase, as a phrase section's
    do (parts.named_subsections); the family's papers naming only the family's own phrase go under
    "Other Work on <family>"; those naming neither are no part of it (free for a section of their own,
    or read only when the survey needs more works). Placed by nearness, 'Sparse Autoencoders' held 52
    papers of an LLM-interpretability pool, 5 of them about sparse autoencoders."""
    subs, own = concept_parts(family.name, family.subs, topic=topic, taken=taken)
    placed = {c.key: g for c, g in family.subs}
    for sub in subs:  # where nearness placed the family's papers: what a split into sections parts
        if sub["terms"]:
            sub["placed"] = placed[sub["terms"][0]]
    if not subs:  # no phrase of the family names enough of its papers: the family's phrase alone
        return {"title": family.name.title(), "key": family.name.key, "role": METHODS, "rows": own,
                "source": "concepts", "subs": [{"title": family.name.title(), "terms": [family.name.key],
                                                "source": "concepts", "rows": own}]} if len(own) >= FLAT_LEAF else None
    rows = list(dict.fromkeys(r for sub in subs for r in sub["rows"]))
    return {"title": family.name.title(), "key": family.name.key, "role": METHODS, "rows": rows, "source": "concepts",
            "subs": subs}


def _section_terms(section: dict) -> list[str]:
    """The phrase keys a method section is headed and parted by."""
    return [section["key"], *(t for sub in section["subs"] for t in sub["terms"])]


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
        parts = [phrase_section(by_key[sub["terms"][0]], sub.get("placed", sub["rows"]), phrases, vectors,
                                n_subsections=n_subsections, topic=topic, taken=trial) for sub in family["subs"]]
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
    heads = named_concepts(select_concepts(phrases, set(rows), 3 * k, min_support=min_size), topic=topic,
                           taken=set(taken), k=k)
    sections = []
    for head, group in zip(heads, place_rows(rows, heads, vectors) if heads else []):
        named = [r for r in group if fit(head, r)]
        if len(named) < min_size:
            continue
        centroid = normalise(vectors[named].mean(axis=0, keepdims=True))[0]
        floor = np.quantile(vectors[named] @ centroid, 0.25)
        group = [r for r in group if fit(head, r) or float(vectors[r] @ centroid) >= floor]
        trial = set(taken) | {normalize_title(head.title())}
        section = phrase_section(head, group, phrases, vectors, n_subsections=n_subsections, topic=topic, taken=trial)
        if section:
            taken |= trial
            sections.append(section)
    return sections


def _catch_all(sub: dict, section: dict) -> bool:
    """A subsection named by the kinds of work it holds ("Methods and Empirical Studies") that holds
    a third of its section or more: split into its phrases even with no slot left. In a survey of
    LLM-powered recommenders one held 31 of the section's 60 works, and its own lines of work
    (reinforcement learning, collaborative filtering, user preferences) were the subsections a reader
    looks for."""
    return sub["source"] == "role:kinds" and 3 * len(sub["rows"]) >= len(section["rows"])


def split_large_subsections(sections: list[dict], concepts: list[Concept], vectors: np.ndarray, *,
                            n_subsections: int, topic: str, taken: set[str]) -> list[dict]:
    """A section with subsection slots left splits its largest subsection, when that holds papers for
    two MIN_LEAF-paper leaves or more, into the phrases that organise a twentieth of its papers
    ('Benchmarks, Datasets and Methods' of 130 papers into the benchmarks' own problems). Domain
    subsections (applications) stay whole: their names are their domains."""
    by_key = {c.key: c for c in concepts}
    for section in sections:
        for _ in range(n_subsections):
            large = [sub for sub in section["subs"] if sub["source"] != "role:domain" and not sub.get("split")
                     and len(sub["rows"]) >= 4 * MIN_LEAF
                     and (len(section["subs"]) < n_subsections or _catch_all(sub, section))]
            if not large:
                break
            sub = max(large, key=lambda s: (len(s["rows"]), s["title"]))
            sub["split"] = True
            key = sub["terms"][0] if sub["terms"] else ""
            rows = set(sub["rows"])
            inside = [c for c in concepts if titled(c, rows)]
            trial = set(taken) - {normalize_title(sub["title"])}
            slots = max(n_subsections - len(section["subs"]) + 1, n_subsections if _catch_all(sub, section) else 0)
            placed = place_subsections(key, sub["rows"], inside, vectors, k=slots,
                                       min_support=max(FLAT_LEAF, round(SUB_SHARE * len(rows))), topic=topic,
                                       taken=trial)
            parts, rest = named_subsections(placed, {"split": True})
            if len(parts) < 2:
                continue
            taken |= trial
            at = section["subs"].index(sub)
            # the papers naming none of the new phrases keep the heading they had when they name it (a
            # kinds-named subsection's, always); in a phrase section the others are its other work
            # ('Sparse Autoencoders' kept 44 papers after its split, 5 of them about it)
            concept = by_key.get(key)
            kept = [r for r in rest if concept is None or not section.get("key") or fit(concept, r)]
            others = [r for r in rest if r not in set(kept)] if len(kept) < len(rest) else []
            section["subs"][at:at + 1] = parts + ([{**sub, "rows": kept}] if kept else []) + (
                [{"title": other_work_title(section["title"]), "terms": [], "source": OTHER_WORK, "rows": others}]
                if others else [])
    return sections


def promote_large_subsections(sections: list[dict], concepts: dict[str, Concept], vectors: np.ndarray, *,
                              n_sections: int, n_subsections: int, topic: str, taken: set[str]) -> list[dict]:
    """While section slots are left, the largest method subsection that holds enough papers for
    subsections of its own (two MIN_LEAF-paper leaves per slot) becomes a section, its subsections
    the phrases within its papers; its parent keeps at least two subsections. A subsection of 280
    papers cites 8 of them: 'Diffusion Transformer' under 'Latent Diffusion' is a family of its own
    in a survey of diffusion models, and the outline would otherwise stop at two or three sections
    with five slots asked for."""
    tried: set[str] = set()
    while len(sections) < n_sections:
        choices = [(len(sub["rows"]), parent, sub) for parent in sections if parent["role"] == METHODS
                   and len(parent["subs"]) > 2 for sub in parent["subs"]
                   if sub["terms"] and sub["terms"][0] in concepts and sub["terms"][0] not in tried
                   and len(sub["rows"]) >= 2 * n_subsections * MIN_LEAF]
        if not choices:
            break
        _, parent, sub = max(choices, key=lambda c: (c[0], c[2]["title"]))
        key = sub["terms"][0]
        tried.add(key)
        inside = [c for c in concepts.values() if titled(c, set(sub["rows"]), 1)]
        trial = set(taken) - {normalize_title(sub["title"])}
        section = phrase_section(concepts[key], sub["rows"], inside, vectors, n_subsections=n_subsections,
                                 topic=topic, taken=trial)
        if section is None or len(section["subs"]) < 2:
            continue
        taken |= trial
        parent["subs"] = [s for s in parent["subs"] if s is not sub]
        parent["rows"] = [r for r in parent["rows"] if r not in set(sub["rows"])]
        sections.append(section)
    return sections
