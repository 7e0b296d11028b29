"""Open challenges and future directions: a section of its own, written without a model.

Surveys of a field close on what stays open (SurveyLens' outline rubric asks for it beside
background, methods and evaluation); readers of our drafts missed a dedicated section when the open
problems were one paragraph of the conclusion. Every statement here comes from the cited works:

- one subsection per kind of challenge the works report (agents/trends.py ``challenge_themes``:
  kinds at least two works name, most works first);
- it says how many works report the kind and in which of the survey's sections they sit, then
  quotes the works' own sentences that state it, attributed and cited;
- then the works of the survey whose own sentences report progress on that kind ("reduces latency
  by 40%", "improves robustness to noisy inputs"): where the field is already moving, which is
  what a "future directions" paragraph can say without inventing directions.

Nothing is paraphrased beyond attribution; a kind with no sentence left to quote (all said
earlier in the survey) is not written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .attribution import attribute, paper_handle
from .candidates import Candidate, candidate_sentences
from .facets import paper_facets
from .outline.names import stem
from .text import and_list, said_before, sentence_key
from .trends import CHALLENGE_PATTERNS, excerpt

SECTION_TITLE = "Open Challenges and Future Directions"
MAX_QUOTED = 3  # works whose sentence is quoted per kind; the rest are counted and cited
MAX_ADDRESSING = 3  # works quoted for progress on a kind
# Headings a survey of an empirical field uses for these kinds (the kinds' names read as phrases
# inside a sentence; a few need a noun to stand as a heading).
HEADINGS = {"efficiency and scalability": "Efficiency and Scalability", "robustness": "Robustness",
            "generalisation": "Generalisation", "data and annotation": "Data and Annotation Scarcity",
            "evaluation": "Evaluation Practice", "interpretability": "Interpretability",
            "factuality": "Factuality and Hallucination", "fidelity and consistency": "Fidelity and Consistency",
            "dependence on inputs and priors": "Dependence on Inputs and Priors",
            "safety, privacy and fairness": "Safety, Privacy and Fairness",
            "languages and modalities": "Languages and Modalities",
            "reasoning and long contexts": "Reasoning and Long Contexts"}


# Verbs that report progress on a challenge, in the clause that names it ("improves robustness to
# noise", "cuts latency by half"). Narrower than trends._GAIN, which only has to rule a clause
# out as a complaint: "achieves co-evolution through adversarial self-play" is no progress on robustness.
PROGRESS_CUES = re.compile(r"\b(?:reduc\w*|improv\w*|lower\w*|decreas\w*|sav(?:e|es|ed|ing)|cuts?|boost\w*|"
                           r"accelerat\w*|speeds? up|enhanc\w*|mitigat\w*|alleviat\w*|strengthen\w*|"
                           r"outperform\w*|robust (?:to|against))\b", re.I)


# A gain verb on a quantity that should be high is a loss, not progress: "RAG systems consistently
# show lower robustness on multi-hop queries" was quoted as progress on robustness (a c26r reader).
LOSS_CUES = re.compile(r"\b(?:lower|reduc\w*|decreas\w*|degrad\w*|weak\w*|hurts?|harms?|drops?)\s+(?:the\s+|their\s+|its\s+)?"
                       r"(?:\w+\s+)?(?:robustness|accuracy|performance|quality|fidelity|reliability|generali[sz]ation|"
                       r"safety|faithfulness|stability|efficiency)\b", re.I)


@dataclass
class ChallengeKind:
    name: str  # the kind, as agents/trends.py names it
    reporters: list  # [(paper id, Candidate)]: the works stating it, most central first
    addressing: list  # [(paper id, Candidate)]: works reporting progress on it


def _sections_of(ids: list[str], sections: list[dict]) -> list[int]:
    """Survey section numbers (the body starts at Section 2) holding any of ``ids``."""
    return [n + 2 for n, s in enumerate(sections) if set(ids) & set(s["papers"])]


def _progress(paper: dict, name: str, topic_stems: set[str]) -> Candidate | None:
    """The work's first finding or method sentence that reports a gain on the kind: its term and a
    gain verb in one clause ("reduces inference latency by 2x"), the term not made of the topic's
    own words. For evaluation, a benchmark or dataset contribution is the progress ("improves
    accuracy on three benchmarks" names evaluation data, not progress on evaluating)."""
    candidates = [c for c in candidate_sentences([paper]) if c.role in ("finding", "method")]
    if name == "evaluation":
        if paper_facets(paper).kind != "benchmark":
            return None
        return next((c for c in candidates if c.role == "method"), None)
    for cand in candidates:
        for match in CHALLENGE_PATTERNS[name].finditer(cand.text):
            clause = excerpt(cand.text, match.start(), match.end())
            if not PROGRESS_CUES.search(clause) or LOSS_CUES.search(clause):
                continue
            if {stem(w) for w in match.group(0).lower().split()} <= topic_stems:
                continue
            return cand
    return None


def challenge_kinds(themes: list, stated: list, sections: list[dict], papers: dict,
                    topic_words: set[str]) -> list[ChallengeKind]:
    """The kinds of ``themes`` with the full sentences that state them (from ``stated``) and the
    survey's works that report progress on them (a work reporting the kind is not counted as
    addressing it)."""
    sentence_of = {}
    for pid, cand in stated:
        sentence_of.setdefault(pid, []).append(cand)
    order = {pid: i for i, pid in enumerate(pid for s in sections for pid in s["papers"])}
    topic_stems = {stem(w) for w in topic_words}
    kinds = []
    for name, users in themes:
        reporters = []
        for pid, clause in users:
            cand = next((c for c in sentence_of.get(pid, []) if clause.rstrip(" …") in c.text), None)
            if cand is not None:
                reporters.append((pid, cand))
        reporters.sort(key=lambda item: order.get(item[0], len(order)))
        reporting = {pid for pid, _ in users}
        addressing = []
        for pid in sorted(order, key=order.get):
            if pid in reporting or pid not in papers:
                continue
            cand = _progress(papers[pid], name, topic_stems)
            if cand is not None:
                addressing.append((pid, cand))
        kinds.append(ChallengeKind(name, reporters, addressing))
    return kinds


def _quote(pid: str, cand: Candidate, papers: dict, cite, verb: str) -> str:
    handle, plural = paper_handle(papers[pid])
    return attribute(cand.text, handle, plural, cite(pid), verb)


def _fresh_quotes(pairs: list, limit: int, verb: str, papers: dict, cite, said: set[str]) -> list[str]:
    """Up to ``limit`` of the works' sentences not said before in the survey, attributed; each one
    quoted is marked as said."""
    quotes = []
    for pid, cand in pairs:
        if len(quotes) == limit:
            break
        if not said_before(cand.text, said):
            quotes.append(_quote(pid, cand, papers, cite, verb))
            said.add(sentence_key(cand.text))
    return quotes


def kind_text(kind: ChallengeKind, sections: list[dict], papers: dict, cite, said: set[str]) -> str:
    """One subsection: who reports the kind and where, their sentences, and the works already
    reporting progress on it."""
    ids = [pid for pid, _ in kind.reporters]
    where = _sections_of(ids, sections)
    place = (f" in Section {where[0]} ({sections[where[0] - 2]['title']})" if len(where) == 1 else
             f" across Sections {and_list([str(n) for n in where])}" if where else "")
    # no tally ("Five of the surveyed works report ..."): the citations say how many
    who = "one work" if len(ids) == 1 else "works"
    lead = f"{kind.name[:1].upper()}{kind.name[1:]} is a challenge reported by {who}{place} {cite.many(ids)}."
    quotes = _fresh_quotes(kind.reporters, MAX_QUOTED, "point out", papers, cite, said)
    if not quotes:
        return ""
    paragraphs = [" ".join([lead, *quotes])]
    progress = _fresh_quotes(kind.addressing, MAX_ADDRESSING, "report", papers, cite, said)
    if progress:
        n = len(kind.addressing)
        lead = (f"Progress on it is reported by {'another work' if n == 1 else 'other works'} "
                f"{cite.many([pid for pid, _ in kind.addressing])}" + (", among them:" if n > len(progress) else "."))
        paragraphs.append(" ".join([lead, *progress]))
    else:
        paragraphs.append(f"None of the other surveyed works reports progress on {kind.name} in its abstract, "
                          "so it stays open within this survey's window.")
    return "\n\n".join(paragraphs)


def challenges_section(overview, facts: dict, papers: dict, cite, said: set[str], topic_words: set[str]) -> dict | None:
    """{"title", "subsections": [{"id", "title", "text"}]} for the kinds the works report, or None
    when fewer than two kinds have sentences to quote (the conclusion then names the challenges)."""
    if not overview.themes:
        return None
    kinds = challenge_kinds(overview.themes, overview.stated, facts["sections"], papers, topic_words)
    subsections = []
    for (name, _users), kind in zip(overview.themes, kinds):
        text = kind_text(kind, facts["sections"], papers, cite, said)
        if text:
            slug = name.replace(",", "").replace(" ", "-")
            subsections.append({"id": f"challenges-{slug}", "title": HEADINGS.get(name, name.title()), "text": text,
                                "kind": name})
    if len(subsections) < 2:
        return None
    return {"id": "challenges", "title": SECTION_TITLE, "subsections": subsections}
