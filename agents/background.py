"""Background: how the surveyed works define the field's key terms, and the earlier surveys the
topic's papers include, written without a model, as a subsection of the introduction.

Blind readers of c33 faulted four of ten drafts for having "no background or foundations section"
and all ten for missing the field's seminal works. The corpus holds 2025-26 papers only, so that
literature cannot be cited; two things can be, and both are what a researcher new to the field reads
first:

- **Key concepts**: for each of the topic's concepts and of the survey's section headings, one
  sentence of a topic paper's abstract that says what it is ("Reinforcement learning with verifiable
  rewards (RLVR) has emerged as a paradigm for ..."): the term is the sentence's subject and a
  defining verb follows (``_DEFINING``). Quoted, attributed and cited, never paraphrased.
- **Earlier surveys**: the surveys among the topic's papers (facets.contribution_kind), each with the
  scope its title states, the survey's cited works first. Surveys review a field's earlier work too:
  the literature before 2025 that this survey cannot cite.

Written when either part has ``MIN_PARTS`` items (one definition is written beside the surveys).
"""

from __future__ import annotations

import re
from typing import Callable

from ..sanitize import untrusted
from .attribution import attribute, paper_handle
from .candidates import candidate_sentences
from .facets import contribution_kind
from .text import and_list, count_words, in_sentence, said_before

CONCEPTS_TITLE = "Background and Key Concepts"
SURVEYS_TITLE = "Earlier Surveys"
BOTH_TITLE = "Background: Key Concepts and Earlier Surveys"
MIN_PARTS = 2  # one definition or one survey is an anecdote, not a background
MAX_TERMS = 8
MAX_SURVEYS = 6
MAX_WORDS = 40  # a longer sentence is an argument, not a definition

# Right after the term (and its bracketed abbreviation): what it is or has become. Counted on 15,000
# corpus abstracts, sentences opening "<Term> (<ABBR>)": "is a" (133), "has emerged" (58), "have
# become" (24) ... and claims of success ("have demonstrated" 98, "have achieved" 53) or of a role
# ("plays a vital role"), which say how well or how much, not what: they are left out.
_DEFINING = (r"(?:(?:is|are)\s+(?:an?|the|one\s+of)\s|refers? to|denotes?|is defined as|"
             r"(?:has|have)\s+(?:recently\s+)?(?:emerged|become)\s+(?:as\s+)?(?:an?|the|one\s+of)\s|serves? as)")
# "A Survey on X", "Beyond Pipelines: A Survey of X", "A Comprehensive Review of X"; else "X: A Survey"
_SCOPE_NAMED = re.compile(r"\b(?:survey|review|overview|tutorial)s?\s+(?:of|on|for)\s+(?P<scope>[^:?]+)", re.I)
_SCOPE_BEFORE = re.compile(r"^(?P<scope>[^:?]+?)\s*:\s*(?:an?\s+)?(?:[\w-]+\s+){0,3}?(?:survey|review|overview|"
                           r"tutorial)\b", re.I)
# "The Landscape of X", "Recent Advances in X", "the State of X", "Toward X": the scope is X
_SCOPE_LEAD = re.compile(r"^(?:towards?\s+)?(?:the\s+)?(?:(?:(?:current\s+)?landscape|state|(?:recent\s+)?(?:advances|"
                         r"progress|developments)|foundations|frontiers?)\s+(?:of|in|on)\s+)?", re.I)

Cite = Callable[[str], str]


def _term_pattern(term: str) -> re.Pattern:
    words = [re.escape(w) for w in term.split()]
    # "Vision Transformers (ViTs)", "the vision transformer", "Multi-agent reinforcement learning"
    body = r"[\s-]+".join(words) + r"s?"
    # ... or an apposition says what it is: "Group Relative Policy Optimization (GRPO), an efficient
    # variant of PPO that ..., has ..."
    return re.compile(rf"^(?:the\s+)?{body}(?:\s*\([^()]{{1,24}}\))?(?:,?\s+{_DEFINING}|,\s+(?:an?|the)\s+\w)", re.I)


def definitions(terms: list[str], ids: list[str], papers: dict, said: set[str]) -> list[tuple[str, str, str]]:
    """(term, paper id, sentence) for each term one of ``ids``' abstracts defines, the first work
    in ``ids`` order that does (the survey's cited works come first); one sentence per work."""
    found: list[tuple[str, str, str]] = []
    used_papers: set[str] = set()
    sentences = {pid: [c.text for c in candidate_sentences([papers[pid]])] for pid in ids if pid in papers}
    for term in dict.fromkeys(t for t in terms if len(t) >= 3):
        pattern = _term_pattern(term)
        for pid, texts in sentences.items():
            if pid in used_papers:
                continue
            hit = next((s for s in texts if pattern.match(s) and len(s.split()) <= MAX_WORDS
                        and not said_before(s, said)), None)
            if hit:
                found.append((term, pid, hit))
                used_papers.add(pid)
                break
        if len(found) >= MAX_TERMS:
            break
    return found


def survey_scope(title: str) -> str:
    """What a survey's title says it covers ("" when it does not say it in a known form)."""
    title = " ".join(title.split()).rstrip(".")
    for pattern in (_SCOPE_NAMED, _SCOPE_BEFORE):
        match = pattern.search(title)
        if match:
            scope = _SCOPE_LEAD.sub("", re.sub(r"^(?:the\s+)", "", match.group("scope").strip(" :-"), flags=re.I))
            if 2 <= len(scope.split()) <= 16:
                return in_sentence(scope)
    # "Reinforcement Learning-based Agentic Search: Foundations, Roles, ...": the head names the scope
    head = title.split(":", 1)[0].strip() if ":" in title else ""
    return in_sentence(head) if 2 <= len(head.split()) <= 10 else ""


def earlier_surveys(ids: list[str], papers: dict) -> list[tuple[str, str]]:
    """(paper id, scope) of the surveys among ``ids``, in ``ids`` order, each scope once."""
    out, scopes = [], set()
    for pid in ids:
        paper = papers.get(pid) or {}
        title, abstract = untrusted(paper.get("title") or "", 300), untrusted(paper.get("abstract") or "")
        if contribution_kind(title, abstract) != "survey":
            continue
        scope = survey_scope(title)
        if scope and scope.lower() not in scopes:
            scopes.add(scope.lower())
            out.append((pid, scope))
        if len(out) >= MAX_SURVEYS:
            break
    return out


def _concepts_text(found: list[tuple[str, str, str]], papers: dict, cite: Cite) -> str:
    lines = ["The works describe the terms this survey is organised by in their own words." if len(found) > 1
             else "One of the works describes a term this survey is organised by in its own words."]
    for _, pid, sentence in found:
        handle, plural = paper_handle(papers[pid])
        lines.append(attribute(sentence, handle, plural, cite(pid), "note"))
    return " ".join(lines)


def _surveys_text(surveys: list[tuple[str, str]], papers: dict, cite: Cite, latest_gap: str) -> str:
    items = []
    for pid, scope in surveys:
        handle, plural = paper_handle(papers[pid])
        items.append(f"{handle} {cite(pid)} on {scope}")
    # the reason stated once, in the introduction's scope sentence; said again here as an excuse, a
    # c34a reader quoted it as an admission
    return (f"{count_words(len(surveys)).capitalize()} of the topic's papers are surveys themselves: "
            f"{and_list(items)}. They review the field's earlier work as well, the seminal works{latest_gap} "
            f"included.")


def background_part(terms: list[str], cited: list[str], memory: list[str], papers: dict, cite: Cite,
                    said: set[str], first_year: int | None) -> dict | None:
    """The introduction's background subsection, or None when neither part has MIN_PARTS items.

    ``terms``: the topic's concepts and the survey's headings; ``cited``: the body's works in order;
    ``memory``: every paper judged on topic (surveys may be among those the body left out). One
    subsection: a pool rarely defines more than one or two of its terms (one of the ten c34 pools
    defined five; seven defined one), too little to stand alone beside the surveys; a single
    definition is written only beside the surveys."""
    ids = list(dict.fromkeys([*cited, *memory]))
    found = definitions(terms, ids, papers, said)
    surveys = earlier_surveys(ids, papers)
    gap = f" before {first_year}" if first_year else ""
    has_surveys = len(surveys) >= MIN_PARTS
    if not has_surveys and len(found) < MIN_PARTS:
        return None
    paragraphs = [_concepts_text(found, papers, cite)] if found else []
    paragraphs += [_surveys_text(surveys, papers, cite, gap)] if has_surveys else []
    title = BOTH_TITLE if found and has_surveys else SURVEYS_TITLE if has_surveys else CONCEPTS_TITLE
    return {"id": "background", "subsections": [{"id": "background.1", "title": title,
                                                  "text": "\n\n".join(paragraphs)}]}
