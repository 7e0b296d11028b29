"""Write: one subsection from its papers only (SurveyForge §3.2, C_ij = LLM(O_ij, L_ij*)).

The writer sees papers numbered [1]..[K] local to its prompt; the keys map back to paper ids.
Retrieved text is sanitized and quoted as data (prompts/__init__.py). The model's draft replaces
the subsection's extractive synthesis (agents/synthesis.py) only when the gate accepts it
(agents/gate.py); the decision is recorded in ``state["gate"]``.
"""

from __future__ import annotations

from ..prompts import render_prompt
from ..sanitize import markdown_safe
from .deps import LOCAL_DRAFTS_SKIPPED, GenerationDeps, drafts_enabled, guarded_call
from .facets import KnownNames
from .gate import choose, interim_content_score
from .synthesis import synthesize
from .text import CITATION_MARKER, as_data, looks_like_prose, clean_generated, collapse_loops, marker_numbers
from .validators import trim_incomplete, validate_prose

MIN_WORDS = 40  # shorter drafts (e.g. "I would like to respond.") are not survey prose


def writer_prompt(task: dict, abstract_chars: int, paragraphs: int) -> tuple[str, dict[str, str]]:
    """The prompt and its citation keys ("1" -> paper id)."""
    views, keys = [], {}
    for number, paper in enumerate(task["papers"], start=1):
        keys[str(number)] = _paper_id(paper)
        views.append({
            "key": number,
            "title": as_data(paper.get("title"), 200),
            "year": paper.get("year") or "n.d.",
            "excerpt": as_data(paper.get("abstract"), abstract_chars) or "(no abstract)",
        })
    sub = task["subsection"]
    prompt = render_prompt(
        "gen_write_subsection",
        topic=as_data(task["topic"], 200),
        section_title=as_data(task["section_title"], 200),
        subsection={k: as_data(sub.get(k, ""), 300) for k in ("title", "description")},
        papers=views,
        paragraphs=paragraphs,
    )
    return prompt, keys


def usable_draft(text: str, n_papers: int) -> bool:
    """Prose (enough words, no loops) with at least one marker naming a paper of the prompt."""
    cited = {n for m in CITATION_MARKER.finditer(text) for n in marker_numbers(m.group(1))}
    return looks_like_prose(text, MIN_WORDS) and any(1 <= n <= n_papers for n in cited)


def _paper_id(paper: dict) -> str:
    from ..memory import paper_from_dump

    return paper_from_dump(paper).paper_id


def subsection_encoder(deps: GenerationDeps):
    """The corpus's sentence encoder (disk-cached MiniLM by default) for the synthesis, or None
    (TF-IDF) when the corpus has none."""
    embedder = getattr(deps.corpus, "embedder", None)
    return getattr(embedder, "encode", None)


def floor_text(task: dict, deps: GenerationDeps) -> str:
    """The subsection's content floor: the extractive synthesis of its papers."""
    sub = task["subsection"]
    return synthesize(sub.get("title", ""), task["papers"], description=sub.get("description", ""),
                      encode=subsection_encoder(deps), per_paper=deps.settings.generation.synthesis_per_paper,
                      topic=task.get("topic", ""), topic_terms=set(task.get("topic_terms") or ()),
                      known=KnownNames.from_record(task.get("known_names")))


def citation_problems(text: str, n_papers: int) -> list[str]:
    cited = {n for m in CITATION_MARKER.finditer(text) for n in marker_numbers(m.group(1))}
    return [] if any(1 <= n <= n_papers for n in cited) else ["cites none of the papers it was given"]


def write_subsection(task: dict, deps: GenerationDeps) -> dict:
    """Draft one subsection: the model's text when the gate accepts it, else the extractive floor.

    The floor is computed first (no model, no tokens), so a failed call or a spent budget still
    leaves a grounded synthesis; ``status`` says what happened to the model call.
    """
    settings = deps.settings.generation
    sid = task["subsection"]["id"]
    prompt, keys = writer_prompt(task, settings.abstract_chars, settings.paragraphs)
    update: dict = {}
    if not task["papers"]:
        update["fallbacks"] = [{"node": "write_subsection", "item": sid,
                                "reason": "no papers retrieved; subsection left empty"}]
        update["drafts"] = {sid: {"text": "", "keys": keys, "status": "no-papers", "loops_removed": 0}}
        return update
    floor = floor_text(task, deps)
    draft = {"text": floor, "keys": keys, "status": "extractive", "loops_removed": 0}
    model_text, why = None, "no model text"
    if not drafts_enabled(deps, "writer"):
        draft["status"], why = "skipped-local", LOCAL_DRAFTS_SKIPPED
    elif task.get("budget_exhausted"):
        draft["status"], why = "skipped-budget", "token budget spent before this subsection; no model call"
    else:
        outcome = guarded_call("write_subsection",
                               lambda: deps.clients.writer.complete(prompt, node="write_subsection"), item=sid)
        if outcome.budget_exhausted:
            draft["status"], why = "skipped-budget", "token budget spent; no model call"
            update["budget_exhausted"] = True
        elif outcome.failure:
            draft["status"], why = "failed", f"model call failed ({outcome.failure['error'][:120]})"
            update["failures"] = [outcome.failure]
        else:
            model_text, removed = collapse_loops(clean_generated(str(outcome.value)))
            model_text = trim_incomplete(markdown_safe(model_text))
            draft["loops_removed"] = removed
            why = "model text empty after clean-up (headings, echoed tags and markup removed)"
    n = len(task["papers"])
    text, decision = choose(
        "write_subsection", sid, model_text, floor, score=interim_content_score(task["papers"]),
        validate=lambda t: validate_prose(t, min_words=MIN_WORDS) + citation_problems(t, n), no_model_reason=why)
    draft["text"] = text
    if decision.winner == "model":
        draft["status"] = "written"
    else:
        update["fallbacks"] = [decision.fallback()]
    update["gate"] = {f"write_subsection:{sid}": decision.record()}
    update["drafts"] = {sid: draft}
    return update
