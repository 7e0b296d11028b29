"""Abstract, introduction and conclusion around the polished body (part of polish).

The frame floor (agents/frame_floor.py) is written without a model from the outline, the cited
works and corpus statistics: the taxonomy with what sets each section apart, the ingredients that
cut across sections, evaluation practice, and the open problems grouped by the themes of the
works' own limitation sentences. Figures placed in the introduction (``survey["figures"]``) end it.

The model writes each part too; its text replaces the floor only through the gate
(agents/gate.py): valid prose (agents/validators.py) that covers the outline at least as well.
"""

from __future__ import annotations

from dataclasses import replace

from ..models import normalize_title
from ..prompts import render_prompt
from .background import background_part
from .deps import GenerationDeps, drafts_enabled, guarded_call
from .challenges import challenges_section
from .evaluation_practice import evaluation_section
from .facets import KnownNames, paper_facets
from .frame_floor import Citer, floor_abstract, floor_conclusion, floor_introduction, frame_facts, survey_overview
from .models_in_use import models_section
from .name_roles import tool_names
from .gate import choose
from .text import (
    CITATION_MARKER, PAPER_MARKER, clean_generated, collapse_loops, degenerate_repetition, drop_repeated_sentences,
    marker_numbers, sentences, strip_citation_markers,
)
from .outline.headings import content_words
from .outline.names import topic_words
from .outline.parts import is_other_work
from .validators import trim_incomplete

PART_MAX_TOKENS = {"abstract": 220, "introduction": 380, "conclusion": 220}
PART_MIN_WORDS = {"abstract": 40, "introduction": 60, "conclusion": 40}
PARTS = {
    "abstract": "Write a one-paragraph abstract (about 120 words) of this survey.",
    "introduction": "Write a two-paragraph introduction: why the topic matters and how the survey is organised.",
    "conclusion": "Write a one-paragraph conclusion: the main trends and open challenges.",
}
def _outline_lines(body: list[dict]) -> list[str]:
    return [f"{s['title']}: " + "; ".join(sub["title"] for sub in s["subsections"]) for s in body]


def _excerpt(body: list[dict], per_section: int = 1, limit: int = 1500) -> str:
    lines = []
    for section in body:
        for sub in section["subsections"]:
            first = sentences(CITATION_MARKER.sub("", PAPER_MARKER.sub("", sub["text"])))[:per_section]
            lines.extend(first)
    return " ".join(lines)[:limit].replace("<", "‹").replace(">", "›")


def selection_sentence(facts: dict) -> str:
    """How the papers were chosen, as it happened: the candidates, the rounds of search and the judge
    (the corpus window is the scope sentence's)."""
    if facts.get("relevance") and facts.get("candidates") and facts.get("rounds") and facts.get("on_topic"):
        estimate = facts.get("estimate")
        total = (f" (the relevance model estimates about {estimate:,.0f} such papers in the whole corpus)"
                 if estimate else "")
        return (f"They were drawn from {facts['on_topic']:,} papers judged to be about the topic{total}, found among "
                f"{facts['candidates']:,} candidates in {facts['rounds']} rounds of search, each round searching for "
                "the key phrases of the papers already found; papers judged off topic were left out, not padded in.")
    if facts.get("relevance") and facts.get("candidates") and facts.get("on_topic"):
        return (f"They were chosen from {facts['on_topic']:,} papers that a relevance model judged to be on topic, "
                f"among {facts['candidates']:,} candidates retrieved from the corpus.")
    return f"They were chosen from the {facts['memory']:,} candidates a hybrid lexical and semantic search returned."


def _figure_lines(figures: list[dict], section_id: str) -> list[str]:
    lines = []
    for number, figure in enumerate(figures, start=1):
        if figure.get("section_id") == section_id and figure.get("path"):
            caption = " ".join(str(figure.get("caption") or "").split()).replace("]", ")")
            lines.append(f"![Figure {number}: {caption}]({figure['path']})")
    return lines


def coverage_score(body: list[dict], topic: str):
    """Frame content score for the gate: share of section headings the text covers (at least half
    of a heading's words that are not topic words), times its non-redundancy. The floor names
    every section, so a model text wins when it covers the outline as fully and does not loop."""
    banned = content_words(topic)
    headings = [h for h in (content_words(s["title"]) - banned for s in body) if h]

    def score(text: str) -> float:
        words = set(normalize_title(text).split())
        covered = sum(2 * len(h & words) >= len(h) for h in headings) / max(len(headings), 1)
        return covered * (1.0 - min(1.0, degenerate_repetition(text)))

    return score


def _model_part(part: str, state: dict, deps: GenerationDeps, body: list[dict], update: dict) -> str:
    if state.get("budget_exhausted") or update["budget_exhausted"] or not drafts_enabled(deps, "writer"):
        return ""
    prompt = render_prompt("gen_frame", part=part, topic=state["topic"], outline=_outline_lines(body),
                           excerpt=_excerpt(body) if part != "introduction" else "", instruction=PARTS[part])
    outcome = guarded_call("write_frame", lambda: deps.clients.writer.complete(
        prompt, node="write_frame", max_tokens=PART_MAX_TOKENS[part]), item=part)
    update["budget_exhausted"] |= outcome.budget_exhausted
    update["failures"] += [outcome.failure] if outcome.failure else []
    if not outcome.ok:
        return ""
    text, _ = collapse_loops(clean_generated(str(outcome.value)))
    text, stripped = strip_citation_markers(text)  # the model saw no sources: its markers mean nothing
    update["integrity_removed"] += stripped
    return trim_incomplete(text)


def _cited_ids(facts: dict, papers: dict) -> list[str]:
    """The works the body's sections cite, in order, each once."""
    return list(dict.fromkeys(pid for s in facts["sections"] for pid in s["papers"] if pid in papers))


def evaluation_section_of(facts: dict, papers: dict, cite: Citer, table_number: int) -> dict | None:
    """The datasets-and-metrics section over the survey's cited works (agents/evaluation_practice.py)."""
    ids = _cited_ids(facts, papers)
    if not ids:
        return None
    facets = {pid: paper_facets(papers[pid], KnownNames.from_record(facts.get("known_names"))) for pid in ids}
    return evaluation_section(ids, facets, facts["sections"], papers, cite, topic_words(facts["topic"]), table_number)


def models_section_of(facts: dict, papers: dict, cite: Citer, table_number: int) -> dict | None:
    """The models-and-methods-in-use section over the survey's cited works (agents/models_in_use.py)."""
    ids = _cited_ids(facts, papers)
    if not ids:
        return None
    # the names the topic's papers use as tools (agents/name_roles.py), read over every paper the run holds
    tools = tool_names([(str(p.get("title") or ""), str(p.get("abstract") or "")) for p in papers.values()])
    texts = [p.get("abstract") or "" for p in papers.values()]
    return models_section(ids, papers, facts["sections"], cite, tools, facts["topic"], topic_words(facts["topic"]),
                          texts, table_number)


def write_frame(state: dict, deps: GenerationDeps) -> dict:
    """Abstract, introduction and conclusion (only when polishing is on)."""
    if not deps.settings.generation.polish:
        return {}
    survey = dict(state["survey"])
    body, papers = survey["body"], state.get("papers") or {}
    said: set[str] = set()
    drop_repeated_sentences([sub["text"] for s in body for sub in s["subsections"]], said)
    facts = frame_facts(state)
    overview = survey_overview(facts, papers)
    cite = Citer(survey.get("references", []))
    # The open challenges get a section of their own (agents/challenges.py) after the body; written
    # from the works' sentences, as the body is, so a model conclusion does not replace it.
    models = models_section_of(facts, papers, cite, len(survey.get("tables") or []) + 1)
    evaluation = evaluation_section_of(facts, papers, cite, len(survey.get("tables") or []) + 1 + bool(models))
    challenges = challenges_section(overview, facts, papers, cite, set(said), topic_words(state["topic"]))
    if challenges:  # the abstract and the conclusion name the kinds the section has, not one it left out
        written = {sub["kind"] for sub in challenges["subsections"]}
        overview = replace(overview, themes=[t for t in overview.themes if t[0] in written])
    # the introduction's background: the works' own definitions of the survey's terms, the earlier
    # surveys among the topic's papers (agents/background.py)
    concepts = [c.get("phrase", "") for c in (state.get("relevance") or {}).get("concepts") or []]
    headings = [t for s in facts["sections"] for t in [s["title"], *s["subsections"]] if not is_other_work(t)]
    background = background_part([*concepts, *headings], _cited_ids(facts, papers),
                                 list(state.get("memory") or []), papers, cite, said,
                                 min(facts["years"]) if facts["years"] else None)
    if background:  # said once: the introduction's opening does not quote the same sentence
        drop_repeated_sentences([sub["text"] for sub in background["subsections"]], said)
        # the surveys it names that the body does not cite are said apart from the reviewed works, so
        # that the counts agree with the reference list ("The abstract says 95 papers but the list has
        # 97 entries", c34j) and with the later sections' "of the 60 works" ("the text says both 62 and
        # 60 works", c34k)
        facts["further_surveys"] = len(cite.references) - facts["cited"]
    after_body = [name for name, part in (("models", models), ("evaluation", evaluation), ("challenges", challenges))
                  if part]
    numbers = {name: len(body) + 2 + i for i, name in enumerate(after_body)}
    floors = {"introduction": floor_introduction(facts, papers, cite, overview, selection_sentence(facts), said,
                                                 extra_sections=numbers,
                                                 background=[sub["title"] for sub in (background or {}).get(
                                                     "subsections", [])])}
    floors["conclusion"], _limits = floor_conclusion(facts, cite, overview, extra_sections=numbers)
    floors["abstract"] = floor_abstract(facts, overview)
    update: dict = {"fallbacks": [], "failures": [], "budget_exhausted": False, "integrity_removed": 0}
    decisions = {}
    for part in PARTS:
        model_text = _model_part(part, state, deps, body, update)
        if model_text:
            (model_text,), _ = drop_repeated_sentences([model_text], set(said))
        text, decision = choose("write_frame", part, model_text, floors[part], score=coverage_score(body, state["topic"]),
                                min_words=PART_MIN_WORDS[part], no_model_reason="no model text")
        decisions[f"write_frame:{part}"] = decision.record()
        if decision.winner == "floor":
            update["fallbacks"].append(decision.fallback())
        survey[part] = text
    figures = _figure_lines(survey.get("figures") or [], "introduction")
    if figures:
        survey["introduction"] = survey["introduction"].rstrip() + "\n\n" + "\n\n".join(figures)
    if background:
        survey["background"] = background
    if models:
        survey["models"] = models
    if evaluation:
        survey["evaluation"] = evaluation
    if challenges:
        survey["challenges"] = challenges
    survey["references"] = cite.references
    removed = update.pop("integrity_removed")
    update.update(survey=survey, gate=decisions, integrity={**(state.get("integrity") or {}), "frame_markers_removed": removed})
    return update


def frame_citations_resolve(text: str, n_references: int) -> bool:
    """Every numeric marker in ``text`` names one of ``n_references`` references."""
    return all(1 <= n <= n_references for m in CITATION_MARKER.finditer(text) for n in marker_numbers(m.group(1)))
