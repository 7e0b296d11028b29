"""The pieces sections and subsections are built from: which concepts may head a part of the
outline, placing a section's papers under its subsection phrases, a section headed by one phrase,
and subsections named by the kinds of work they hold. Shared by the floor (floor.py) and the method
sections (methods.py)."""

from __future__ import annotations

import re
from collections import Counter

import numpy as np

from ...models import normalize_title
from ..facets import contribution_kind
from ..text import and_list
from .concepts import Concept, fit, select_concepts
from .headings import own_stems, validate_heading
from .names import initials, title_case
from .roles import EVALUATION, METHODS, is_system_name, names_no_field
from .taxonomy import place_rows

SUB_SHARE = 0.05  # a subsection's phrase must organise this share of its section
MIN_LEAF = 5  # papers a subsection's phrase must organise (a subsection cites up to 8)
FLAT_LEAF = 3  # the same in a pool too small for families (a subsection of three works beats none)

# An evaluation section whose papers no phrase organises (or only one) names its lone subsection by
# the kinds of work it holds ("Benchmarks and Datasets"), not by a phrase a few of its titles share.
# Foundations is parted by kind instead, surveys apart from analyses (floor._foundation_parts).
KIND_NAMED_ROLES = {EVALUATION}
KIND_LABELS = {"survey": "Surveys", "study": "Empirical Studies", "benchmark": "Benchmarks and Datasets",
               "method": "Methods"}


def fallback_method_title(topic: str) -> str:
    """The method section's heading when no phrase organises the pool, the topic title-cased as
    every other heading is ("Methods for Graph Neural Networks for Recommendation"); a long topic
    by its head ("Methods for Large Language Models" of "... for Time Series Forecasting"); a topic
    typed as a question names no section ("Methods for Can Large Language Models Forecast ...")."""
    if names_no_field(topic):
        return "Proposed Methods and Systems"
    topic = topic.split(":")[0].strip() or topic  # the subject, not the parts a colon lists
    return f"Methods for {title_case(topic if len(topic) <= 40 else topic.split(' for ')[0])}"


def normalise(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.maximum(norms, 1e-12)


def named_by_kinds(sub: dict, ids: list[str], papers: dict[str, dict], *, topic: str, taken: set[str],
                   prefix: str = "") -> dict:
    """The lone subsection of an evaluation section, named by the two kinds of work it holds most
    ("Benchmarks, Datasets and Empirical Studies") instead of a phrase a few of them share ("Visual
    and Action Representation")."""
    kinds = Counter(k for k in (contribution_kind(str(papers[ids[r]].get("title") or ""),
                                                  str(papers[ids[r]].get("abstract") or "")) for r in sub["rows"]) if k)
    top = [KIND_LABELS[k] for k, n in kinds.most_common(2) if n >= 2]
    # "Methods, Benchmarks and Datasets", not "Methods and Benchmarks and Datasets"
    title = and_list([word for label in top for word in label.split(" and ")])
    title = f"{prefix}{title}" if title else ""
    if not title or validate_heading(title, topic=topic, taken=taken - {normalize_title(sub["title"])}):
        return sub
    taken.discard(normalize_title(sub["title"]))
    taken.add(normalize_title(title))
    return {**sub, "title": title, "source": "role:kinds"}


def kind_named(subs: list[dict], ids: list[str], papers: dict[str, dict], *, topic: str,
                taken: set[str]) -> list[dict]:
    """Name a method section's unnamed subsection by the kinds of work it holds; when its kinds name
    nothing ('Methods' alone), its papers join the largest named subsection."""
    named = [sub for sub in subs if sub["title"]]
    for sub in subs:
        if sub["title"]:
            continue
        labelled = named_by_kinds(sub, ids, papers, topic=topic, taken=taken)
        if not labelled["title"] and named:
            # its kinds' name heads another part already: these papers are further work of those
            # kinds, not the largest subsection's (39 ViT papers under 'Convolutional Neural
            # Networks', 21 of them naming it, when 'Methods and Empirical Studies' was taken)
            labelled = named_by_kinds(sub, ids, papers, topic=topic, taken=taken, prefix="Further ")
        several_kinds = bool(labelled["title"]) and len(labelled["title"].split(" and ")) > 1
        if several_kinds or not named:  # alone, it keeps the section's own heading (made unique later)
            named.append(labelled if labelled["title"] else {**sub, "title": fallback_method_title(topic),
                                                             "source": "role:methods"})
        else:
            largest = max(named, key=lambda s: len(s["rows"]))
            largest["rows"] = largest["rows"] + sub["rows"]
    return named


def named_concepts(concepts: list[Concept], *, topic: str, taken: set[str], k: int) -> list[Concept]:
    """The first ``k`` concepts whose title is a valid, unused heading (not a system's name)."""
    kept = []
    for concept in concepts:
        title = concept.title()
        if len(kept) == k or is_system_name(title) or validate_heading(title, topic=topic, taken=taken):
            continue
        taken.add(normalize_title(title))
        kept.append(concept)
    return kept


def place_subsections(section_key: str, rows: list[int], concepts: list[Concept], vectors: np.ndarray, *, k: int,
                      min_support: int, topic: str, taken: set[str]) -> list[tuple[Concept, list[int]]]:
    """Concepts within one section's papers (each must add a word to the section's phrase), every row
    placed under the one that fits it best."""
    inside = [c for c in concepts if c.key != section_key and not set(c.key.split()) <= set(section_key.split())]
    chosen = select_concepts(inside, set(rows), 3 * k, min_support=min_support, distinct_words=False)
    chosen = named_concepts(chosen, topic=topic, taken=taken, k=k)
    if not chosen:
        return []
    return [(c, g) for c, g in zip(chosen, place_rows(rows, chosen, vectors)) if g]


OTHER_WORK = "other"  # the source of a section's subsection of its papers no subsection phrase names


OTHER_WORK_PREFIX = "Other Work on "


def other_work_title(section_title: str) -> str:
    return f"{OTHER_WORK_PREFIX}{section_title}"


# A section's works on its phrase that none of its subsections' phrases names open the section, under
# no heading of their own, when two or more named subsections follow: blind readers faulted "Other
# Work on X" as a catch-all bucket on seven of ten c33 panels, and a survey discusses a family at
# large before its lines. With one named subsection left, the section would have a lone subsection
# (faulted by v7 readers), so the works keep their heading, last.
LEAD_MIN_NAMED = 2


def is_other_work(title: str) -> bool:
    return title.startswith(OTHER_WORK_PREFIX)


def leads_section(titles: list[str]) -> bool:
    """Whether the first of a section's subsection titles is its works at large, shown as the
    section's opening text rather than as a subsection."""
    return len(titles) > LEAD_MIN_NAMED and is_other_work(titles[0]) and not any(map(is_other_work, titles[1:]))


def concept_parts(concept: Concept, placed: list[tuple[Concept, list[int]]], *, topic: str,
                  taken: set[str]) -> tuple[list[dict], list[int]]:
    """The subsections of a section headed by ``concept`` over the phrases ``placed`` within it: each
    phrase's subsection holds the papers naming it, and the section's own papers that no subsection's
    phrase names go under "Other Work on <concept>", last ('Multi-Agent Debate' papers under
    'Multi-Agent Decision-Making' by nearness were no part of it); also those own papers. The papers
    naming neither are read only when the survey needs more works ("Further ...",
    floor._place_the_rest). No subsection at all when no phrase names enough papers."""
    subs, unnamed = named_subsections(placed)
    own = [r for r in unnamed if fit(concept, r)]
    title = other_work_title(concept.title())
    if subs and len(own) >= FLAT_LEAF and not validate_heading(title, topic=topic, taken=taken):
        taken.add(normalize_title(title))
        subs.append({"title": title, "terms": [], "source": OTHER_WORK, "rows": own})
    return subs, own


def phrase_section(concept: Concept, rows: list[int], phrases: list[Concept], vectors: np.ndarray, *,
                   n_subsections: int, topic: str, taken: set[str]) -> dict | None:
    """A method section headed by one phrase, its subsections the phrases within its papers that
    organise a twentieth of them, each holding the papers naming it, and "Other Work on <phrase>" for
    the section's papers no subsection names; with no such phrase, one subsection of the papers naming
    the section's phrase (None when fewer than FLAT_LEAF do)."""
    placed = place_subsections(concept.key, rows, phrases, vectors, k=n_subsections,
                               min_support=max(2, round(SUB_SHARE * len(rows))), topic=topic, taken=taken)
    if not placed:
        return None
    subs, own = concept_parts(concept, placed, topic=topic, taken=taken)
    if not subs:  # no phrase parts it: one subsection of the papers naming it, named as the section
        return {"title": concept.title(), "key": concept.key, "role": METHODS, "rows": rows, "source": "concepts",
                "subs": [{"title": concept.title(), "terms": [concept.key], "source": "concepts", "rows": own}]} \
            if len(own) >= FLAT_LEAF else None
    return {"title": concept.title(), "key": concept.key, "role": METHODS, "rows": rows, "source": "concepts",
            "subs": subs}


def named_subsections(placed: list[tuple[Concept, list[int]]],
                      extra: dict | None = None) -> tuple[list[dict], list[int]]:
    """Subsections of the phrases ``placed`` holding the papers that name them, and the papers left
    over. Placed by nearness, those had filled the subsections: 'Lymphoma Diagnosis' held 12 papers
    of a ViT survey, two of them about lymphoma, and its blind reader wrote that the headings do not
    match what is under them (c26f, c26n). A phrase fewer than FLAT_LEAF papers name heads no
    subsection (its papers are left over too); a few left over (fewer than FLAT_LEAF) stay where
    they were placed."""
    unnamed = [r for c, g in placed for r in g if not fit(c, r)]
    if len(unnamed) < FLAT_LEAF:
        return [{"title": c.title(), "terms": [c.key], "source": "concepts", "rows": g, **(extra or {})}
                for c, g in placed], []
    subs = []
    for concept, group in placed:
        named = [r for r in group if fit(concept, r)]
        if len(named) >= FLAT_LEAF:
            subs.append({"title": concept.title(), "terms": [concept.key], "source": "concepts", "rows": named,
                         **(extra or {})})
        else:
            unnamed += named
    return subs, unnamed


# Stems that say what kind of thing a concept is, not which: a heading naming only these beyond the
# topic ("Preference Learning" in a survey of preference optimization: 'learn') names no concept of
# its own to be the same as another's ("Reinforcement Learning", merged into it and its "Other Work
# on Reinforcement Learning" renamed "Other Work on Preference Learning")
_KIND_STEMS = frozenset({"learn", "method", "model", "approach", "framework", "system", "network", "techniqu",
                         "algorithm", "architectur", "task", "problem", "data"})


def _one_concept(own_a: set[str], own_b: set[str]) -> bool:
    """Two headings name one concept when what one names beyond the topic is part of the other's,
    and is more than the kind of thing it is."""
    if not own_a - _KIND_STEMS or not own_b - _KIND_STEMS:
        return False
    return own_a <= own_b or own_b <= own_a


def spelled_out(title: str, other: str) -> str:
    """``title`` with each acronym that ``other`` spells out as consecutive words replaced by them:
    "Explainable AI" beside "Explainable Artificial Intelligence" is one concept, and both headed
    sections of one survey (c35f)."""
    words = [part for word in re.findall(r"[A-Za-z][\w-]*", other) for part in word.split("-") if part]

    def spell(match: re.Match) -> str:
        letters = match.group(1).lower()
        for start in range(len(words) - len(letters) + 1):
            run = words[start:start + len(letters)]
            if initials(" ".join(run)) == letters:
                return " ".join(run)
        return match.group(0)

    return re.sub(r"\b([A-Z]{2,5})s?\b", spell, title)


def _with_new(rows: list[int], more: list[int]) -> list[int]:
    """``rows`` followed by the rows of ``more`` not already in it."""
    present = set(rows)
    return [*rows, *(r for r in more if r not in present)]


def merge_duplicate_subsections(sections: list[dict], topic: str) -> list[dict]:
    """One concept, one subsection. Two subsections where what one names beyond the topic is part of
    what the other names ("Low-Resource Speech" and "Low-Resource Languages" in a speech survey,
    "Self-Supervised Learning" and "Self-Supervised Vision Transformers" in a ViT survey) are the
    same concept filed twice, often in two sections: the one with fewer papers goes, its papers
    appended to the other's, which then reads as many works as the two would have (``merged``: how
    many subsections it stands for). A section keeps at least one subsection: when the smaller one is
    its section's last, the larger one goes instead.
    Sections and their headings are not compared: a section "KV Cache" over "KV Cache Compression"
    is how a taxonomy reads."""
    # A subsection named by the kinds of work it holds ("Methods, Benchmarks and Datasets") names no
    # concept: merged as one with the evaluation section's "Benchmarks and Datasets" (the latter kept,
    # as its section's last), it moved 65 method papers of an 83-paper pool under the benchmarks.
    subs = [(i, j, own_stems(sub["title"], topic)) for i, section in enumerate(sections)
            for j, sub in enumerate(section["subs"]) if sub.get("source") not in ("role:kinds", OTHER_WORK)]
    gone: set[tuple[int, int]] = set()
    for a, (i, j, own_a) in enumerate(subs):
        for i2, j2, own_b in subs[a + 1:]:
            if (i, j) in gone or (i2, j2) in gone or not _one_concept(own_a, own_b):
                continue
            # a part the user listed holds the papers naming it: none move in or out with a concept
            if i != i2 and ("asked" in sections[i] or "asked" in sections[i2]):
                continue
            first, second = sections[i]["subs"][j], sections[i2]["subs"][j2]
            keep, drop = ((i, j), (i2, j2)) if len(first["rows"]) >= len(second["rows"]) else ((i2, j2), (i, j))

            def left(at: tuple[int, int]) -> int:
                return sum(1 for k in range(len(sections[at[0]]["subs"])) if (at[0], k) not in gone)

            if left(drop) <= 1:  # it is its section's last subsection: the other one goes instead
                if left(keep) <= 1 or keep[0] == drop[0]:
                    continue
                keep, drop = drop, keep
            kept, donor = sections[keep[0]]["subs"][keep[1]], sections[drop[0]]["subs"][drop[1]]
            kept["rows"] = _with_new(kept["rows"], donor["rows"])
            # it reads for both: the works the second subsection would have cited are not lost
            kept["merged"] = kept.get("merged", 1) + donor.get("merged", 1)
            if drop[0] != keep[0]:  # the papers move with the concept to the section that keeps it
                moved = set(donor["rows"])
                sections[drop[0]]["rows"] = [r for r in sections[drop[0]]["rows"] if r not in moved]
                sections[keep[0]]["rows"] = _with_new(sections[keep[0]]["rows"], donor["rows"])
            gone.add(drop)
    for i, section in enumerate(sections):
        section["subs"] = [sub for j, sub in enumerate(section["subs"]) if (i, j) not in gone]
    return sections


def move_subsections_named_as_sections(sections: list[dict], topic: str) -> list[dict]:
    """A subsection that names exactly what another section names ("KV Cache Eviction" under
    "Long-Context LLM Inference" beside a section "KV Cache Eviction") is that section's concept:
    its papers join that section and it goes, unless it is its own section's last subsection. Left
    in place, the planner renamed it "KV Cache Eviction (KV cache eviction)"."""
    heads = {i: own_stems(section["title"], topic) for i, section in enumerate(sections)}
    for i, section in enumerate(sections):
        for sub in list(section["subs"]):
            own = own_stems(sub["title"], topic)
            home = next((k for k, stems in heads.items() if k != i and stems and stems == own), None)
            if home is None or len(section["subs"]) <= 1 or sub.get("source") == "role:kinds" \
                    or "asked" in section or "asked" in sections[home]:
                continue
            moved = set(sub["rows"])
            section["subs"].remove(sub)
            section["rows"] = [r for r in section["rows"] if r not in moved]
            sections[home]["rows"] = _with_new(sections[home]["rows"], sub["rows"])
    return sections


def merge_duplicate_sections(sections: list[dict], topic: str) -> list[dict]:
    """One concept, one section. Of two method sections where what one names beyond the topic is
    part of what the other names ("Preference Optimization" and "Direct Preference Optimization" in
    a survey of LLM alignment, read by a blind reader as an overlapping taxonomy), the broader one
    (fewer own words; on a tie the larger) keeps its heading and takes the other's papers and
    subsections. Role sections (foundations, evaluation, applications) have headings of their own
    and are not compared."""
    methods = [i for i, s in enumerate(sections) if s.get("role") == METHODS]
    gone: set[int] = set()
    for a, i in enumerate(methods):
        for j in methods[a + 1:]:
            if i in gone or j in gone:
                continue
            title_i, title_j = spelled_out(sections[i]["title"], sections[j]["title"]), \
                spelled_out(sections[j]["title"], sections[i]["title"])
            own_i, own_j = own_stems(title_i, topic), own_stems(title_j, topic)
            if not _one_concept(own_i, own_j):
                continue
            asked = ["asked" in sections[i], "asked" in sections[j]]
            if all(asked):
                continue  # two parts the user listed stay two sections
            if any(asked):  # a part the user listed keeps its heading ("Reinforcement Learning from
                keep, drop = (i, j) if asked[0] else (j, i)  # Human Feedback" over "Human Feedback")
            elif own_i == own_j:
                keep, drop = (i, j) if len(sections[i]["rows"]) >= len(sections[j]["rows"]) else (j, i)
            else:
                keep, drop = (i, j) if own_i < own_j else (j, i)
            kept, donor = sections[keep], sections[drop]
            kept["rows"] = _with_new(kept["rows"], donor["rows"])
            titles = {normalize_title(sub["title"]) for sub in kept["subs"]}
            kept["subs"] = [*kept["subs"], *(sub for sub in donor["subs"] if normalize_title(sub["title"]) not in titles)]
            gone.add(drop)
    return [s for k, s in enumerate(sections) if k not in gone]
