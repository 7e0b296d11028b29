"""Write: one subsection from its papers only (SurveyForge §3.2, C_ij = LLM(O_ij, L_ij*)).

The writer sees papers numbered [1]..[K] local to its prompt; the keys map back to paper ids.
Retrieved text goes inside <paper> tags, declared as data, with tags inside it neutralised.
"""

from __future__ import annotations

from ..prompts import render_prompt
from .deps import GenerationDeps, guarded_call
from .text import CITATION_MARKER, as_data, looks_like_prose, clean_generated, collapse_loops, marker_numbers, sentences

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


def extractive_draft(papers: list[dict], paragraphs: int) -> str:
    """Deterministic stand-in for unusable model text: each paper's title, year and first
    abstract sentence, cited with its local key (so the citations are right by construction)."""
    lines = []
    for number, paper in enumerate(papers, start=1):
        first = (sentences(" ".join((paper.get("abstract") or "").split())) or [""])[0]
        words = first.split()
        first = " ".join(words[:45]) + (" ..." if len(words) > 45 else "")
        year = f" ({paper['year']})" if paper.get("year") else ""
        lead = f"{paper.get('title', '').rstrip('.')}{year}"
        lines.append(f"{lead}: {first.rstrip('.')} [{number}]." if first else f"{lead} [{number}].")
    size = max(1, -(-len(lines) // paragraphs))
    return "\n\n".join(" ".join(lines[i:i + size]) for i in range(0, len(lines), size))


def _paper_id(paper: dict) -> str:
    from ..memory import paper_from_dump

    return paper_from_dump(paper).paper_id


def write_subsection(task: dict, deps: GenerationDeps) -> dict:
    """Draft one subsection; failures and a spent budget leave an empty, labelled draft."""
    settings = deps.settings.generation
    sid = task["subsection"]["id"]
    prompt, keys = writer_prompt(task, settings.abstract_chars, settings.paragraphs)
    draft = {"text": "", "keys": keys, "status": "written", "loops_removed": 0}
    update: dict = {}
    if task.get("budget_exhausted"):
        draft["status"] = "skipped-budget"
    elif not task["papers"]:
        draft["status"] = "no-papers"
        update["fallbacks"] = [{"node": "write_subsection", "item": sid,
                                "reason": "no papers retrieved; subsection left empty"}]
    else:
        outcome = guarded_call("write_subsection",
                               lambda: deps.clients.writer.complete(prompt, node="write_subsection"), item=sid)
        if outcome.budget_exhausted:
            draft["status"] = "skipped-budget"
            update["budget_exhausted"] = True
        elif outcome.failure:
            draft["status"] = "failed"
            update["failures"] = [outcome.failure]
        else:
            text, removed = collapse_loops(clean_generated(str(outcome.value)))
            draft.update(text=text, loops_removed=removed)
            if not usable_draft(text, len(task["papers"])):
                draft.update(text=extractive_draft(task["papers"], settings.paragraphs), status="extractive")
                update["fallbacks"] = [{"node": "write_subsection", "item": sid, "reason": "model text unusable "
                                        f"({len(text.split())} words; too short, looping or without a valid citation); wrote an extractive summary "
                                        "of the subsection's papers"}]
    update["drafts"] = {sid: draft}
    return update
