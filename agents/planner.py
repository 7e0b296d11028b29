"""Plan: heuristic outline learning (SurveyForge §3.1).

gather_topic_context: P_R (papers for the topic, kept as memory M) and P_S (human outlines).
plan_sections: first-level headings, each with a description and a query.
plan_subsections: per section, retrieve M_i and draft second-level headings with queries.
"""

from __future__ import annotations

from ..errors import UserError
from ..memory import PaperMemory, remember_papers
from ..models import normalize_title
from ..prompts import render_prompt
from .deps import GenerationDeps, guarded_call
from .schemas import plan_max_tokens, sections_schema, subsections_schema
from .outline_fallback import demo_headings, fill_entries, sanitize_entries
from .text import as_data

PROMPT_TITLES = 40  # paper titles shown to the planner: enough to ground it, small for 8k contexts
DEMO_LINES = 30  # lines of each demonstration outline shown


def _demo_views(demos: list[dict], max_level: int) -> list[dict]:
    views = []
    for demo in demos:
        lines = [
            "    " * (e["level"] - 1) + as_data(e["title"], 120)
            for e in demo.get("entries", []) if e.get("level", 1) <= max_level
        ]
        views.append({"title": as_data(demo.get("title") or demo.get("topic"), 150),
                      "text": "\n".join(lines[:DEMO_LINES])})
    return views


def _paper_views(memory: PaperMemory, ids: list[str]) -> list[dict]:
    views = []
    for pid in ids[:PROMPT_TITLES]:
        paper = memory.papers.get(pid)
        if paper:
            views.append({"title": as_data(paper["title"], 160), "year": paper.get("year") or "n.d."})
    return views


def _demo_outlines(deps: GenerationDeps, query: str, k: int) -> tuple[list[dict], dict | None]:
    mode = deps.settings.generation.outline_demos
    if mode == "none":
        return [], None
    if deps.outlines is None or deps.outlines.count() == 0:
        return [], {"node": "gather_topic_context", "reason": f"outline demos '{mode}' requested "
                    "but the outline store is empty; planning without demonstrations"}
    if mode == "random":
        found = deps.outlines.random(k, seed=deps.settings.generation.seed)
    else:
        found = deps.outlines.search(query, k=k)
    return [o.model_dump(mode="json") for o in found], None


def gather_topic_context(state: dict, deps: GenerationDeps) -> dict:
    """Retrieve P_R (-> memory M) and the demonstration outlines P_S for the topic."""
    if deps.corpus.count() == 0:
        raise UserError("the paper store is empty: run `surveygraph corpus ingest ...` first")
    topic = state["topic"]
    hits = deps.corpus.search(topic, k=deps.settings.generation.outline_candidates, mode="hybrid", tre=False)
    ids, dumps = remember_papers(hits)
    demos, fallback = _demo_outlines(deps, topic, k=3)
    update: dict = {"memory": ids, "papers": dumps, "demos": demos}
    if fallback:
        update["fallbacks"] = [fallback]
    return update


def plan_sections(state: dict, deps: GenerationDeps) -> dict:
    """LLM drafts the first-level headings; unusable output falls back deterministically."""
    topic = state["topic"]
    n = deps.settings.generation.sections
    memory = PaperMemory.from_state(state)
    demos = state.get("demos") or []
    kept: list[dict] = []
    update: dict = {"fallbacks": [], "failures": []}
    if not state.get("budget_exhausted"):
        prompt = render_prompt(
            "gen_plan_sections", topic=as_data(topic, 200), demos=_demo_views(demos, 2),
            papers=_paper_views(memory, memory.overall), n_sections=n,
        )
        outcome = guarded_call("plan_sections", lambda: deps.clients.planner.structured(
            prompt, sections_schema(n), node="plan_sections", max_tokens=plan_max_tokens(n)))
        if outcome.ok:
            kept = sanitize_entries(outcome.value.sections, n, topic=topic)
        update["failures"] += [outcome.failure] if outcome.failure else []
        update["budget_exhausted"] = outcome.budget_exhausted
    kept, fill = fill_entries(
        kept, n, topic=topic, demo_titles=demo_headings(demos, 1),
        paper_titles=memory.titles(memory.overall),
    )
    if fill:
        update["fallbacks"].append({"node": "plan_sections", "reason": "planner output unusable "
                                    f"or short ({n - fill['filled']}/{n} headings kept)", **fill})
    update["outline"] = [
        {"id": str(i), **entry, "subsections": []} for i, entry in enumerate(kept, start=1)
    ]
    return update


def _plan_one_section(section: dict, state: dict, deps: GenerationDeps, memory: PaperMemory,
                      used_titles: set[str]) -> dict:
    """Retrieve M_i for one section and draft its subsections (with fallback)."""
    settings = deps.settings.generation
    hits = deps.corpus.search(section["query"], k=settings.papers_per_section, mode="hybrid", tre=False)
    ids, dumps = remember_papers(hits)
    memory.papers.update(dumps)
    demos = state.get("demos") or []
    if settings.outline_demos == "related":
        demos, _ = _demo_outlines(deps, section["query"], k=2)
    kept: list[dict] = []
    result: dict = {"ids": ids, "dumps": dumps, "failure": None, "budget": False, "fallback": None}
    if not (state.get("budget_exhausted")):
        prompt = render_prompt(
            "gen_plan_subsections", topic=as_data(state["topic"], 200),
            section={k: as_data(section[k], 300) for k in ("title", "description")},
            demos=_demo_views(demos, 2), papers=_paper_views(memory, ids),
            n_subsections=settings.subsections,
        )
        outcome = guarded_call("plan_subsections", lambda: deps.clients.planner.structured(
            prompt, subsections_schema(settings.subsections), node="plan_subsections", max_tokens=plan_max_tokens(settings.subsections)),
            item=section["id"])
        if outcome.ok:  # a subsection may not repeat its section's title
            kept = sanitize_entries(outcome.value.subsections, settings.subsections, topic=state["topic"],
                                    taken={normalize_title(section["title"]), *used_titles})
        result["failure"], result["budget"] = outcome.failure, outcome.budget_exhausted
    kept, fill = fill_entries(
        kept, settings.subsections, topic=state["topic"], demo_titles=demo_headings(demos, 2),
        paper_titles=memory.titles(ids), context=section["title"], exclude=used_titles,
    )
    if fill:
        result["fallback"] = {"node": "plan_subsections", "item": section["id"],
                              "reason": "planner output unusable or short", **fill}
    result["subsections"] = [
        {"id": f"{section['id']}.{j}", **entry} for j, entry in enumerate(kept, start=1)
    ]
    return result


def plan_subsections(state: dict, deps: GenerationDeps) -> dict:
    """Second-level headings for every section; M_i is stored per section id."""
    memory = PaperMemory.from_state(state)
    outline, section_memory, papers = [], {}, {}
    update: dict = {"fallbacks": [], "failures": [], "budget_exhausted": False}
    used: set[str] = set()  # subsection titles already taken by earlier sections
    for section in state["outline"]:
        view = {**state, "budget_exhausted": state.get("budget_exhausted") or update["budget_exhausted"]}
        result = _plan_one_section(section, view, deps, memory, used)
        used.update(normalize_title(sub["title"]) for sub in result["subsections"])
        outline.append({**section, "subsections": result["subsections"]})
        section_memory[section["id"]] = result["ids"]
        papers.update(result["dumps"])
        update["budget_exhausted"] |= result["budget"]
        update["failures"] += [result["failure"]] if result["failure"] else []
        update["fallbacks"] += [result["fallback"]] if result["fallback"] else []
    update.update(outline=outline, section_memory=section_memory, papers=papers)
    return update
