"""The frame floor: abstract, introduction and conclusion written without a model.

Every statement is a count from the run's own data or a phrase the cited works use, cited to
them (agents/trends.py):

- the **abstract** says what the survey covers, how it is organised, which ingredient recurs
  across sections, which data the works share most, which themes their stated limitations
  concentrate on, and the corpus's time window (no history the corpus cannot show);
- the **introduction** opens on how one cited work frames the topic, says how the papers were
  gathered, then lays out the taxonomy: each section with its subsections and the phrases that
  set its works apart from the other sections' (each phrase cited to the works that use it);
- the **conclusion** draws the sections together: where activity concentrates, the ingredients
  that cut across sections, evaluation practice (how many works name data, measures and figures;
  which recur), the kinds of contribution, and the open problems: the challenges the works report
  (their own limitations and the gaps their problem statements name in existing methods), grouped
  by kind of challenge, each kind with the clauses of the works' own sentences that name it.

Citations are numbers of ``survey["references"]`` (a paper the body cites keeps its number;
others are appended by ``Citer``), so every one resolves.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from .attribution import attribute, paper_handle
from .background import BOTH_TITLE, CONCEPTS_TITLE, SURVEYS_TITLE
from .candidates import candidate_sentences
from .facets import KnownNames, paper_facets
from ..retrieval.spelling import WordFamilies
from .outline.names import topic_words
from .outline.parts import leads_section
from .topic_pool import topic_terms
from .text import (CITATION_MARKER, and_list, count_words, in_sentence, marker_numbers, said_before, sentence_key,
                   topic_in_prose)
from .trends import (Practice, challenge_statements, challenge_themes, crosscutting_phrases, distinctive_phrases,
                     evaluation_practice)

MAX_CITED = 4  # works cited for one phrase; more are counted
KIND_NOUNS = {"method": ("proposes methods or systems", "propose methods or systems"),
              "benchmark": ("contributes benchmarks or datasets", "contribute benchmarks or datasets"),
              "survey": ("is a survey or review", "are surveys or reviews"),
              "study": ("is an empirical study", "are empirical studies")}


def section_papers(section: dict, plan: dict, references: list[str]) -> list[str]:
    """Paper ids a section discusses: those its text cites, in the order of its cluster (most
    central first) when the plan has one, else in citation order."""
    numbers = {n for sub in section["subsections"] for m in CITATION_MARKER.finditer(sub.get("text", ""))
               for n in marker_numbers(m.group(1))}
    cited = [references[n - 1] for n in sorted(numbers) if 1 <= n <= len(references)]
    ranked = plan.get("paper_ids") or [pid for sub in plan.get("subsections", []) for pid in sub.get("paper_ids", [])]
    order = {pid: i for i, pid in enumerate(ranked)}
    return sorted(cited, key=lambda pid: (order.get(pid, len(order)), cited.index(pid)))


class Citer:
    """Numbers for frame citations: a paper's existing reference number, else a new one."""

    def __init__(self, references: list[str]):
        self.references = list(references)

    def number(self, paper_id: str) -> int:
        if paper_id not in self.references:
            self.references.append(paper_id)
        return self.references.index(paper_id) + 1

    def __call__(self, paper_id: str) -> str:
        return f"[{self.number(paper_id)}]"

    def many(self, paper_ids: list[str]) -> str:
        return "[" + ", ".join(str(n) for n in sorted({self.number(p) for p in paper_ids})) + "]"


def frame_facts(state: dict) -> dict:
    """The numbers the floor states, all computed from the run's own data."""
    survey, papers = state["survey"], state.get("papers") or {}
    references = survey.get("references", [])
    plans = {s["id"]: s for s in state.get("outline") or []}
    years = [papers[pid].get("year") for pid in references if pid in papers and papers[pid].get("year")]
    latest = max(years) if years else None
    sections = []
    for section in survey["body"]:
        ids = section_papers(section, plans.get(section["id"], {}), references)
        section_years = [papers[p].get("year") for p in ids if p in papers and papers[p].get("year")]
        sections.append({"title": section["title"], "papers": ids,
                         "subsections": [sub["title"] for sub in section["subsections"]],
                         "recent_share": (sum(y == latest for y in section_years) / len(section_years))
                         if section_years else 0.0})
    relevance = state.get("relevance") or {}
    return {"topic": state["topic"], "cited": len(references), "years": Counter(years),
            "memory": len(state.get("memory") or []), "sections": sections, "latest": latest,
            "tables": bool(survey.get("tables")), "candidates": relevance.get("candidates"),
            "relevance": bool(relevance.get("enabled")), "corpus": relevance.get("corpus") or {},
            "on_topic": relevance.get("kept"), "rounds": len(relevance.get("rounds") or []),
            "estimate": (relevance.get("estimated_on_topic") or {}).get("on_topic"),
            "known_names": relevance.get("known_names") or {},
            # the words of the field's terms the pool read the topic as ("graph neural networks (GNN)"
            # for "neural networks that work on graph data")
            "topic_terms": sorted(topic_terms(relevance) | {w for c in relevance.get("concepts") or []
                                                            for w in c.get("phrase", "").lower().split()})}


@dataclass
class Overview:
    """Cross-section statistics of the cited works (agents/trends.py)."""
    distinct: list  # per section: [(phrase, ids)]
    cross: list  # [(phrase, section indices, ids)]
    practice: Practice | None
    stated: list  # [(paper id, Candidate)]: challenges the works state (agents/trends.py)
    themes: list  # [(kind of challenge, [(paper id, the clause naming it)])]


def overview_banned(facts: dict) -> WordFamilies:
    """The topic's words and its terms', in any form: no ingredient "cuts across" a survey of GNNs
    by being "GNNs" or "graph neural network" (a c23 draft's conclusion)."""
    terms = set(facts.get("topic_terms") or ())
    return WordFamilies(topic_words(facts["topic"]) | terms | {f"{t}s" for t in terms})


def survey_overview(facts: dict, papers: dict) -> Overview:
    banned = overview_banned(facts)
    sections = [[pid for pid in s["papers"] if pid in papers] for s in facts["sections"]]
    ids = list(dict.fromkeys(pid for section in sections for pid in section))
    if not ids:
        return Overview([[] for _ in sections], [], None, [], [])
    facets = {pid: paper_facets(papers[pid], KnownNames.from_record(facts.get("known_names"))) for pid in ids}
    stated = challenge_statements(ids, papers)
    return Overview(distinctive_phrases(sections, papers, banned) if len(sections) > 1 else [[] for _ in sections],
                    crosscutting_phrases(sections, papers, banned, headings=[s["title"] for s in facts["sections"]])
                    if len(sections) > 1 else [],
                    evaluation_practice(ids, facets, banned), stated, challenge_themes(stated, banned))


def span(years: Counter) -> str:
    if not years:
        return ""
    low, high = min(years), max(years)
    return f" published in {low}" if low == high else f" published between {low} and {high}"


def _plural(n: int, noun: str) -> str:
    return f"{count_words(n)} {noun}{'' if n == 1 else 's'}"


def _phrase_cites(phrase: str, ids: list[str], cite: Citer) -> str:
    shown = ids[:MAX_CITED]
    return f"{phrase} {cite.many(shown)}"


def scope_sentence(facts: dict) -> str:
    """The corpus's time window, so no reader takes the survey for the field's history."""
    corpus = facts.get("corpus") or {}
    years = corpus.get("years")
    if not years:
        return ""
    size = f" of {corpus['papers']:,} papers" if corpus.get("papers") else ""
    return (f"The papers come from an arXiv corpus{size} from {years[0]}-{years[1]}, so work published before "
            f"{years[0]}, including much of the field's earlier literature, is outside this survey's view.")


def further_surveys(facts: dict) -> str:
    """The surveys the background names beyond the reviewed works (agents/background.py)."""
    n = facts.get("further_surveys") or 0
    return f", and points to {count_words(n)} further survey{'s' if n > 1 else ''} of the field" if n else ""


def floor_abstract(facts: dict, overview: Overview) -> str:
    titles = [s["title"] for s in facts["sections"]]
    parts = [f"This survey reviews {facts['cited']} papers on {topic_in_prose(facts['topic'])}{span(facts['years'])}"
             f"{further_surveys(facts)}.",
             f"It organises them into {_plural(len(titles), 'section')} ({and_list(titles)}) and, within "
             f"{'it' if len(titles) == 1 else 'each'}, groups "
             "the works into lines that share a problem, an ingredient or a kind of contribution, setting their "
             "methods, evaluation data and reported results side by side."]
    if overview.cross:
        phrase, spread, ids = overview.cross[0]
        parts.append(f"Across sections, {phrase} recurs most ({len(ids)} works in {len(spread)} sections).")
    if overview.practice and overview.practice.data:
        name, users = overview.practice.data[0]
        parts.append(f"{name} is the evaluation data the works share most ({len(users)} works).")
    if overview.themes:
        parts.append(f"The challenges the works report, in their own methods or in earlier ones, concern above all "
                     f"{and_list([t for t, _ in overview.themes])}.")
    elif overview.stated:
        parts.append(f"The conclusion collects the challenges {count_words(len({p for p, _ in overview.stated}))} "
                     "of the works report.")
    years = (facts.get("corpus") or {}).get("years")
    if years:  # the introduction states the corpus window in full
        parts.append(f"Only work from {years[0]}-{years[1]} is covered.")
    return " ".join(parts)


def context_sentence(facts: dict, papers: dict, cite: Citer, said: set[str]) -> str:
    """How one cited work frames the topic: the opening (problem) sentence that names most of the
    topic's words, from a survey when there is one, attributed and cited."""
    words = topic_words(facts["topic"])
    best, best_key = None, None
    for rank, pid in enumerate(pid for s in facts["sections"] for pid in s["papers"]):
        if pid not in papers:
            continue
        survey = paper_facets(papers[pid]).kind == "survey"
        for cand in candidate_sentences([papers[pid]]):
            if cand.role != "problem" or cand.position > 1 or said_before(cand.text, said) \
                    or said_before(attribute(cand.text, *paper_handle(papers[pid]), "[0]", "note"), said):
                continue
            named = len(words & set(sentence_key(cand.text).split()))
            key = (named, survey, -cand.position, -rank)
            if named and (best_key is None or key > best_key):
                best, best_key = (pid, cand), key
    if best is None:
        return ""
    handle, plural = paper_handle(papers[best[0]])
    return attribute(best[1].text, handle, plural, cite(best[0]), "note")


# Rotated so that the taxonomy does not repeat one frame per section.
DISTINCT_CLAUSES = ("; what sets its works apart from the other sections' is their attention to {named}",
                    "; compared with the rest of the survey, its works more often concern {named}",
                    "; its works stand out for {named}")


def _section_sentence(number: int, section: dict, distinct: list, cite: Citer) -> str:
    subs = section["subsections"]
    # the section's works at large open it under no heading (outline.parts.leads_section)
    if leads_section(subs):
        subs = subs[1:]
        where = (f", those on {in_sentence(section['title'])} at large first, then "
                 f"{_plural(len(subs), 'subsection')} ({and_list(subs)})")
    else:  # one subsection: no division
        where = "" if len(subs) == 1 else f" in {_plural(len(subs), 'subsection')} ({and_list(subs)})"
    text = f"Section {number}, {section['title']}, covers {_plural(len(section['papers']), 'work')}{where}"
    if distinct:
        named = and_list([_phrase_cites(p, ids, cite) for p, ids in distinct])
        text += DISTINCT_CLAUSES[number % len(DISTINCT_CLAUSES)].format(named=named)
    return text + "."


def floor_introduction(facts: dict, papers: dict, cite: Citer, overview: Overview, selection: str,
                       said: set[str], extra_sections: dict[str, int] | None = None,
                       background: list[str] | None = None) -> str:
    """``extra_sections``: the numbers of the sections written after the body from the works'
    statements ("evaluation": datasets and metrics, "challenges": open challenges); ``background``:
    the titles of the introduction's background subsections (agents/background.py)."""
    extra = extra_sections or {}
    years = facts["years"]
    peak = max(sorted(years), key=lambda y: years[y]) if years else None
    first = [context_sentence(facts, papers, cite, said),
             f"This survey reviews {facts['cited']} papers on {topic_in_prose(facts['topic'])}{span(years)}" +
             (f", most of them ({years[peak]}) from {peak}" if peak and len(years) > 1 else "") +
             f"{further_surveys(facts)}.",
             selection, scope_sentence(facts)]
    taxonomy = [_section_sentence(n + 2, s, overview.distinct[n] if n < len(overview.distinct) else [], cite)
                for n, s in enumerate(facts["sections"])]
    last = len(facts["sections"]) + 2 + len(extra)
    tables = " and each section compares its works in a table" if facts["tables"] else ""
    after = []
    if "models" in extra:
        after.append(f"Section {extra['models']} lists the models and methods the works share, named in their "
                     "abstracts: what the works call them, and which works build on or compare against them.")
    if "evaluation" in extra:
        after.append(f"Section {extra['evaluation']} reads across the sections for the data sets, benchmarks and "
                     "measures the works share.")
    if "challenges" in extra:
        after.append(f"Section {extra['challenges']} collects the open challenges the works report, by kind, with "
                     "the works that already report progress on each.")
    organisation = (f"Within each subsection, the works are grouped into lines that share a problem, an ingredient "
                    f"or a kind of contribution; each subsection closes with the evaluation data and models the "
                    f"works name and the limitations they state{tables}. " + " ".join(after) + (" " if after else "") +
                    f"Section {last} draws the sections together: " + and_list(
                        ["the ingredients that cut across them"]
                        + ([] if "evaluation" in extra else ["evaluation practice"])
                        + ([] if "challenges" in extra else ["the open problems the works name"])) + ".")
    return "\n\n".join(" ".join(p for p in paragraph if p) for paragraph in
                       (first, ["The survey is organised as follows.", *_background_sentences(background or []),
                                *taxonomy], [organisation]))


_DEFINES = "quotes how the works define the terms the survey is organised by"
_SURVEYS = "names the surveys among the topic's papers, where the work before the corpus's span is reviewed"
BACKGROUND_SAYS = {CONCEPTS_TITLE: _DEFINES, SURVEYS_TITLE: _SURVEYS, BOTH_TITLE: f"{_DEFINES} and {_SURVEYS}"}


def _background_sentences(titles: list[str]) -> list[str]:
    return [f"Section 1.{n}, {title}, {BACKGROUND_SAYS[title]}." for n, title in enumerate(titles, start=1)
            if title in BACKGROUND_SAYS]


def _kinds_sentence(practice: Practice) -> str:
    parts = []
    for kind, (one, many) in KIND_NOUNS.items():
        n = practice.kinds.get(kind, 0)
        if n:
            parts.append(f"{count_words(n)} {one if n == 1 else many}")
    if len(parts) < 2:
        return ""
    unknown = practice.kinds.get("other", 0)
    rest = ("" if not unknown else " (the abstract of the other one does not say)" if unknown == 1 else
            f" (the abstracts of the other {count_words(unknown)} do not say)")
    return f"Of the {practice.works} works, {and_list(parts)}{rest}."


def _practice_sentences(practice: Practice, cite: Citer) -> list[str]:
    # How many abstracts name data, measures or figures is said once, in the datasets-and-metrics
    # section; repeated here it was read as counting in place of synthesis (blind readers, v10).
    out = []
    if practice.data:
        shared = and_list([f"{name} ({len(ids)} works {cite.many(ids[:MAX_CITED])})" for name, ids in practice.data])
        out.append(f"The data most shared across the survey are {shared}.")
    if practice.metrics:
        measures = and_list([f"{name} ({len(ids)} works)" for name, ids in practice.metrics])
        out.append(f"The measures reported most are {measures}.")
    kinds = _kinds_sentence(practice)
    return out + ([kinds] if kinds else [])


def _theme_sentences(overview: Overview, cite: Citer) -> list[str]:
    """One sentence per kind of challenge: how many works report it, with the clause of each
    work's own sentence that names it (quoted, cited); then the works whose challenges are of
    other kinds."""
    out = []
    for rank, (name, users) in enumerate(overview.themes):
        ids = [pid for pid, _ in users]
        quotes = "; ".join(f"“{clause}” {cite(pid)}" for pid, clause in users[:MAX_CITED])
        more = ", among them" if len(users) > MAX_CITED else ""
        lead = "The most frequent is" if rank == 0 else "Next comes" if rank == 1 else "Then comes"
        out.append(f"{lead} {name} ({_plural(len(ids), 'work')} {cite.many(ids)}{more}: {quotes}).")
    themed = {pid for _, users in overview.themes for pid, _ in users}
    rest = sorted({pid for pid, _ in overview.stated} - themed)
    if rest and overview.themes:
        out.append(f"{_plural(len(rest), 'further work').capitalize()} {cite.many(rest)} "
                   f"report{'' if len(rest) > 1 else 's'} challenges of other kinds.")
    return out


def _challenges_pointer(facts: dict, overview: Overview, section_number: int) -> str:
    """The open problems in one sentence, when a section of their own (agents/challenges.py) holds them."""
    stating = {p for p, _ in overview.stated}
    kinds = and_list([f"{name} ({_plural(len(users), 'work')})" for name, users in overview.themes])
    return (f"{count_words(len(stating)).capitalize()} of the {facts['cited']} works state a challenge; Section "
            f"{section_number} sets out the kinds they name most, {kinds}, with the works already reporting "
            "progress on each.")


def floor_conclusion(facts: dict, cite: Citer, overview: Overview,
                     extra_sections: dict[str, int] | None = None) -> tuple[str, bool]:
    """The conclusion, and whether it names limitations. With a datasets-and-metrics or a challenges
    section (``extra_sections``: their numbers), evaluation practice or the open problems are that
    section's; the conclusion points to it."""
    extra = extra_sections or {}
    challenges_section = extra.get("challenges")
    ranked = sorted(facts["sections"], key=lambda s: -len(s["papers"]))
    first = [f"This survey organised {facts['cited']} recent papers on {topic_in_prose(facts['topic'])} into "
             f"{_plural(len(facts['sections']), 'section')}."]
    if len(ranked) > 1:
        text = f"The most populated is {ranked[0]['title']} ({_plural(len(ranked[0]['papers']), 'work')})"
        newest = max(facts["sections"], key=lambda s: (s["recent_share"], len(s["papers"])))
        if facts["latest"] is not None and newest["recent_share"] > 0:
            recent = round(newest["recent_share"] * len(newest["papers"]))
            which = "it also" if newest is ranked[0] else newest["title"]
            text += (f"; {which} has the largest share of {facts['latest']} papers ({recent} of "
                     f"{len(newest['papers'])})")
        first.append(text + ".")
    cross = []
    if overview.cross:
        parts = [f"{phrase} (in Sections {and_list([str(i + 2) for i in spread])}; {len(ids)} works "
                 f"{cite.many(ids[:MAX_CITED])})" for phrase, spread, ids in overview.cross]
        cross.append(f"Some ingredients cut across the taxonomy: {and_list(parts)}.")
    practice = _practice_sentences(overview.practice, cite) if overview.practice else []
    if "evaluation" in extra and practice:  # the counts are that section's; the kinds of contribution stay
        kinds = _kinds_sentence(overview.practice)
        practice = [f"Section {extra['evaluation']} sets out the evaluation data and measures the works share."] + \
            ([kinds] if kinds else [])
    if challenges_section is not None and overview.themes:
        return "\n\n".join(" ".join(p) for p in (first, cross + practice,
                                                   [_challenges_pointer(facts, overview, challenges_section)]) if p), True
    themes = _theme_sentences(overview, cite) if overview.stated else []
    if overview.stated:
        stating = sorted({p for p, _ in overview.stated})
        themes.insert(0, f"Open problems show in the challenges the works report, in their own methods or in earlier "
                         f"ones: {count_words(len(stating))} of the {facts['cited']} works state one"
                         + (f" {cite.many(stating)}." if not overview.themes else ", and they fall into kinds."))
    paragraphs = [first, cross + practice, themes]
    return "\n\n".join(" ".join(p) for p in paragraphs if p), bool(themes)
