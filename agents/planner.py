"""Plan: heuristic outline learning (SurveyForge §3.1).

gather_topic_context: P_R (papers for the topic, kept as memory M) and P_S (human outlines).
plan_sections: first-level headings, each with a description and a query.
plan_subsections: per section, retrieve M_i and draft second-level headings with queries.

Both planning steps first build the deterministic outline floor (agents/outline/floor.py: M
clustered into sections and subsections, named from their papers and the human outlines). The
model's headings replace the floor only when every one of them passes agents/outline/headings.py;
otherwise the floor is used and manifest.fallbacks says which headings failed and why.
"""

from __future__ import annotations

import re

from ..errors import UserError
from ..memory import PaperMemory, remember_papers
from ..models import normalize_title
from ..prompts import render_prompt
from ..sanitize import untrusted
from .deps import LOCAL_DRAFTS_SKIPPED, GenerationDeps, drafts_enabled, guarded_call
from .digest import survey_focus
from .schemas import HeadingDraft, plan_max_tokens, sections_schema, subsections_schema
from .outline.floor import build_outline_floor
from .outline.vectors import floor_inputs
from .reader import reading_budgets
from .topic_pool import shape_of, topic_pool, topic_terms
from .text import as_data
from .outline.headings import content_words, validate_heading

PROMPT_TITLES = 40  # paper titles shown to the planner: enough to ground it, small for 8k contexts
DEMO_LINES = 30  # lines of each demonstration outline shown
RELATED_SURVEYS = 8  # surveys of the knowledge base whose phrases count as the field's own for a topic


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
    excluded = {normalize_title(t) for t in deps.settings.generation.exclude_outlines}
    extra = len(excluded)  # ask for more so that k remain after the exclusions
    if mode == "random":
        found = deps.outlines.random(k + extra, seed=deps.settings.generation.seed)
    else:
        found = deps.outlines.search(query, k=k + extra)
    kept = [o for o in found if not excluded & {normalize_title(o.topic or ""), normalize_title(o.title or "")}]
    return [o.model_dump(mode="json") for o in kept[:k]], None


def gather_topic_context(state: dict, deps: GenerationDeps) -> dict:
    """Build P_R in rounds, keep its on-topic papers as memory M; fetch the demonstration outlines P_S."""
    if deps.corpus.count() == 0:
        raise UserError("the paper store is empty: run `surveygraph corpus ingest ...` first")
    topic = state["topic"]
    pool = topic_pool(topic, deps)
    demos, fallback = _demo_outlines(deps, topic, k=3)
    update: dict = {"memory": pool.ids, "papers": pool.dumps, "demos": demos, "relevance": pool.record,
                    "shape": pool.shape, "fallbacks": pool.notes + ([fallback] if fallback else [])}
    return update


_NUMBERING = re.compile(r"^\s*(?:[IVX]+\.|\d+(?:\.\d+)*\.?)\s+")
TITLE_CAP = HeadingDraft.model_json_schema()["properties"]["title"].get("maxLength")  # cut at this length


def prompt_title_keys(papers: list[dict]) -> set[str]:
    """Normalised titles shown in a prompt, and their parts before and after a colon (a model
    copying "RouteRAG: Efficient ..." often keeps only one of them)."""
    keys = set()
    for paper in papers:
        title = str(paper.get("title") or "")
        # what a survey's title says it surveys ("A Survey on Efficient Inference for LLMs") is copied too
        keys |= {normalize_title(title), normalize_title(survey_focus(title)),
                 *(normalize_title(part) for part in title.split(":", 1))}
    return {k for k in keys if len(k.split()) >= 2}


def checked_entries(raw: list, n: int, *, topic: str, taken: set[str], prompt_titles: set[str],
                    parent: str = "") -> tuple[list[dict], list[dict]]:
    """Model headings that pass validation (at most ``n``) and the rejected ones with reasons.

    Only numbering ("2.1 ") and surrounding whitespace are removed before validating: anything
    else wrong with a heading (a cut, a copied year tag, an echo) is a reason to reject it. A
    subsection (``parent`` = its section's title) must add a word to its section and topic.
    """
    kept, rejected = [], []
    for item in raw or []:
        data = item if isinstance(item, dict) else getattr(item, "model_dump", lambda: {})()
        title = _NUMBERING.sub("", " ".join(str(data.get("title") or "").split()))
        reasons = validate_heading(title, topic=topic, taken=taken, cap=TITLE_CAP, copied_titles=prompt_titles)
        if parent and content_words(title) and content_words(title) <= content_words(parent) | content_words(topic):
            reasons.append("adds nothing to its section's heading and the topic")
        if reasons:
            rejected.append({"title": title[:100], "reasons": reasons})
            continue
        if len(kept) == n:
            continue
        taken.add(normalize_title(title))
        description = " ".join(str(data.get("description") or "").split())[:300] or title
        query = " ".join(str(data.get("query") or "").split())[:200] or f"{title} {topic}"
        kept.append({"title": title, "description": description, "query": query, "source": "model"})
    return kept, rejected


def _floor_record(node: str, n_kept: int, n: int, rejected: list[dict], *, item: str | None = None,
                  extra: dict | None = None) -> dict:
    record = {"node": node, "reason": f"model headings unusable ({n_kept}/{n} valid); used the outline floor "
              "(clusters of the retrieved papers named by their key phrases)",
              "rejected": rejected[:12], **(extra or {})}
    if item:
        record["item"] = item
    return record


def _knowledge(state: dict, deps: GenerationDeps, encode) -> tuple[dict[str, int], set[str], dict | None, dict]:
    """From the outline knowledge base: how many human surveys use each phrase as a heading or
    category, and the phrases of the surveys closest to the topic; the same-topic human survey is
    never used (``generation.exclude_outlines``, matched by topic and title)."""
    from ..retrieval.outline_kb import knowledge_base
    from .outline.concepts import phrase_key

    kb, note = knowledge_base(deps.settings)
    if kb is None:
        return {}, set(), None, {"kb": "none (build it with `surveygraph outlines build-kb`)"}
    exclude = list(deps.settings.generation.exclude_outlines)
    counts: dict[str, int] = {}
    for phrase, n in kb.phrase_counts(exclude).items():
        key = phrase_key(phrase)
        if key:
            counts[key] = counts.get(key, 0) + n
    related = kb.related(encode([state["topic"]])[0], k=RELATED_SURVEYS, exclude=exclude)
    phrases = {phrase_key(p) for survey, _ in related for p in survey.phrases()} - {""}
    stats = {"kb_surveys": len(kb.surveys), "related_surveys": [untrusted(s.title, 80) for s, _ in related]}  # store titles: data
    return counts, phrases, kb.background, stats | ({"kb_note": note} if note else {})


def _outline_floor(state: dict, deps: GenerationDeps, ids: list[str], n_sections: int) -> tuple[list[dict], dict]:
    kept_ids, vectors, encode, stats = floor_inputs(deps.settings, deps.corpus, ids, state.get("papers") or {})
    counts, related, background, kb_stats = _knowledge(state, deps, encode)
    floor = build_outline_floor(state["topic"], kept_ids, state.get("papers") or {}, vectors,
                                n_sections=n_sections, n_subsections=shape_of(state, deps)[1],
                                demos=state.get("demos") or [], encode=encode, seed=deps.settings.generation.seed,
                                topic_terms=topic_terms(state.get("relevance")),
                                kb_counts=counts, related=related, background=background,
                                min_placed=deps.settings.generation.min_cited)
    return floor, stats | kb_stats


def plan_sections(state: dict, deps: GenerationDeps) -> dict:
    """First-level headings: the model's if all are valid, else the outline floor's."""
    topic = state["topic"]
    n = shape_of(state, deps)[0]
    memory = PaperMemory.from_state(state)
    demos = state.get("demos") or []
    floor, stats = _outline_floor(state, deps, memory.overall, n)
    update: dict = {"fallbacks": [], "failures": [], "outline_floor": floor}
    kept: list[dict] = []
    rejected: list[dict] = []
    if not drafts_enabled(deps, "planner"):
        rejected = [{"title": "", "reasons": [LOCAL_DRAFTS_SKIPPED]}]
    elif not state.get("budget_exhausted"):
        papers = _paper_views(memory, memory.overall)
        prompt = render_prompt(
            "gen_plan_sections", topic=as_data(topic, 200), demos=_demo_views(demos, 2),
            papers=papers, n_sections=n,
        )
        outcome = guarded_call("plan_sections", lambda: deps.clients.planner.structured(
            prompt, sections_schema(n), node="plan_sections", max_tokens=plan_max_tokens(n)))
        if outcome.ok:
            shown = prompt_title_keys(papers) | prompt_title_keys(_demo_views(demos, 2))
            kept, rejected = checked_entries(outcome.value.sections, n, topic=topic, taken=set(), prompt_titles=shown)
        update["failures"] += [outcome.failure] if outcome.failure else []
        update["budget_exhausted"] = outcome.budget_exhausted
    if len(kept) < n:
        update["fallbacks"].append(_floor_record("plan_sections", len(kept), n, rejected, extra={"floor": stats}))
        kept = [{k: v for k, v in section.items() if k != "subsections"} for section in floor]
    update["outline"] = [
        {"id": str(i), **entry, "subsections": []} for i, entry in enumerate(kept, start=1)
    ]
    return update


def _section_floor(section: dict, state: dict, deps: GenerationDeps, ids: list[str]) -> list[dict]:
    """Subsections of one section from the floor: the floor's own for a floor section, else
    M_i clustered into subsections (one section's worth of the same procedure)."""
    for planned in state.get("outline_floor") or []:
        if planned["title"] == section["title"] and planned.get("paper_ids") == section.get("paper_ids"):
            return planned["subsections"]
    floor, _ = _outline_floor(state, deps, ids, 1)
    return floor[0]["subsections"] if floor else []


def _plan_one_section(section: dict, state: dict, deps: GenerationDeps, memory: PaperMemory,
                      used_titles: set[str]) -> dict:
    """M_i for one section (its cluster, or retrieval for a model-written heading) and its
    subsections (the model's if all valid, else the floor's)."""
    settings = deps.settings.generation
    n_sub = shape_of(state, deps)[1]
    if section.get("paper_ids"):
        ids, dumps = list(section["paper_ids"]), {}
    else:
        # A model-written heading's M_i comes from M (on-topic papers only) when relevance is on.
        within = memory.overall if (state.get("relevance") or {}).get("enabled") else None
        hits = deps.corpus.search(section["query"], k=settings.papers_per_section, mode="hybrid", tre=False,
                                  within_ids=within)
        ids, dumps = remember_papers(hits)
        memory.papers.update(dumps)
    kept: list[dict] = []
    rejected: list[dict] = []
    result: dict = {"ids": ids, "dumps": dumps, "failure": None, "budget": False, "fallback": None}
    taken = {normalize_title(section["title"]), *used_titles}
    if not drafts_enabled(deps, "planner"):
        rejected = [{"title": "", "reasons": [LOCAL_DRAFTS_SKIPPED]}]
    elif not state.get("budget_exhausted"):
        demos = state.get("demos") or []
        if settings.outline_demos == "related":  # only a model reads them: the floor learns from the KB
            demos, _ = _demo_outlines(deps, section["query"], k=2)
        papers = _paper_views(memory, ids)
        views = _demo_views(demos, 2)
        prompt = render_prompt(
            "gen_plan_subsections", topic=as_data(state["topic"], 200),
            section={k: as_data(section[k], 300) for k in ("title", "description")},
            demos=views, papers=papers, n_subsections=n_sub,
        )
        outcome = guarded_call("plan_subsections", lambda: deps.clients.planner.structured(
            prompt, subsections_schema(n_sub), node="plan_subsections",
            max_tokens=plan_max_tokens(n_sub)), item=section["id"])
        if outcome.ok:
            kept, rejected = checked_entries(outcome.value.subsections, n_sub, topic=state["topic"],
                                             # a related survey's title names another survey, not a part of this
                                             # one (the 270M model offered "Efficient Inference for Large Language
                                             # Models" as a subsection of a RAG survey)
                                             taken=set(taken), prompt_titles=prompt_title_keys(papers) |
                                             prompt_title_keys(views),
                                             parent=section["title"])
        result["failure"], result["budget"] = outcome.failure, outcome.budget_exhausted
    if len(kept) < n_sub:
        floor = _section_floor(section, {**state, "papers": {**(state.get("papers") or {}), **memory.papers}}, deps, ids)
        if floor:
            result["fallback"] = _floor_record("plan_subsections", len(kept), n_sub, rejected,
                                               item=section["id"])
            # a lone subsection named as its section is the section itself (a part the topic lists
            # that no phrase divides), not a second heading to tell apart with "(II)"
            own = normalize_title(section["title"])
            kept = [entry if len(floor) == 1 and normalize_title(entry["title"]) == own else _unique(entry, taken)
                    for entry in floor]
    result["subsections"] = [
        {"id": f"{section['id']}.{j}", **entry} for j, entry in enumerate(kept, start=1)
    ]
    return result


def _unique(entry: dict, taken: set[str]) -> dict:
    """A floor subsection whose name another section already uses gets its section's context."""
    title = entry["title"]
    if normalize_title(title) in taken:
        title = f"{title} ({entry.get('terms', ['more'])[-1]})" if entry.get("terms") else f"{title} (II)"
    taken.add(normalize_title(title))
    return {**entry, "title": title}


def plan_subsections(state: dict, deps: GenerationDeps) -> dict:
    """Second-level headings for every section; M_i is stored per section id."""
    memory = PaperMemory.from_state(state)
    outline, section_memory, papers = [], {}, {}
    update: dict = {"fallbacks": [], "failures": [], "budget_exhausted": False}
    used: set[str] = {normalize_title(s["title"]) for s in state["outline"]}  # headings already taken
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
    settings = deps.settings.generation
    budgets = reading_budgets(outline, settings.papers_per_subsection, settings.min_cited)
    outline = [{**section, "subsections": [{**sub, "reading_k": budgets[sub["id"]]} for sub in section["subsections"]]}
               for section in outline]
    update.update(outline=outline, section_memory=section_memory, papers=papers)
    return update
