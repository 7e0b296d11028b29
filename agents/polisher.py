"""Polish: merge drafts, remove repetition, verify and renumber citations (SurveyForge's refine).

Citation integrity is checked whatever the settings: a marker survives only if it names a paper
that was in that subsection's writer prompt; every other marker is dropped and counted.
"""

from __future__ import annotations

from ..prompts import render_prompt
from .deps import GenerationDeps, guarded_call
from .text import (
    MAX_REPETITION, PAPER_MARKER, clean_generated, collapse_loops, degenerate_repetition, drop_repeated_sentences,
    renumber, resolve_local_citations,
)


def _subsections(outline: list[dict]):
    for section in outline:
        for sub in section["subsections"]:
            yield section, sub


def _to_local(text: str, keys: dict[str, str]) -> str:
    """Internal [@paper_id] markers back to the writer's local [n] (for the smoothing prompt)."""
    local = {pid: number for number, pid in keys.items()}
    return PAPER_MARKER.sub(lambda m: f"[{local[m.group(1)]}]" if m.group(1) in local else "", text)


def smooth_text(sid: str, heading: str, text: str, keys: dict[str, str], deps: GenerationDeps) -> tuple[str, dict]:
    """Optional LLM smoothing of one subsection; unusable rewrites keep the original text."""
    records: dict = {"failures": [], "fallbacks": [], "dropped": 0, "budget": False}
    prompt = render_prompt("gen_smooth", heading=heading, text=_to_local(text, keys))
    outcome = guarded_call("polish_sections", lambda: deps.clients.writer.complete(prompt, node="smooth"), item=sid)
    records["budget"] = outcome.budget_exhausted
    if outcome.failure:
        records["failures"].append(outcome.failure)
    if not outcome.ok:
        return text, records
    smoothed, _ = collapse_loops(clean_generated(str(outcome.value)))
    smoothed, dropped = resolve_local_citations(smoothed, keys)
    if len(smoothed) < 0.5 * len(text) or degenerate_repetition(smoothed) > MAX_REPETITION:
        records["fallbacks"].append({"node": "polish_sections", "item": sid,
                                     "reason": "smoothed text too short or repetitive; kept the draft"})
        return text, records
    records["dropped"] = dropped
    return smoothed, records


def polish_sections(state: dict, deps: GenerationDeps) -> dict:
    """Merge drafts in outline order, clean repetition, verify citations, renumber by first use."""
    settings = deps.settings.generation
    drafts = state.get("drafts") or {}
    ids, texts, dropped = [], [], {}
    for _section, sub in _subsections(state["outline"]):
        draft = drafts.get(sub["id"], {"text": "", "keys": {}})
        text, count = resolve_local_citations(draft["text"], draft.get("keys", {}))
        ids.append(sub["id"])
        texts.append(text)
        dropped[sub["id"]] = count
    integrity = {"repeated_sentences_removed": 0, "loop_words_removed": 0, "smoothing_dropped": 0}
    update: dict = {"fallbacks": [], "failures": []}
    if settings.polish:
        texts, integrity["repeated_sentences_removed"] = drop_repeated_sentences(texts)
        cleaned = [collapse_loops(t) for t in texts]
        texts = [t for t, _ in cleaned]
        integrity["loop_words_removed"] = sum(n for _, n in cleaned)
        if settings.llm_smoothing and not state.get("budget_exhausted"):
            headings = {sub["id"]: sub["title"] for _s, sub in _subsections(state["outline"])}
            for i, sid in enumerate(ids):
                if not texts[i] or update.get("budget_exhausted"):
                    continue
                texts[i], rec = smooth_text(sid, headings[sid], texts[i], drafts[sid]["keys"], deps)
                integrity["smoothing_dropped"] += rec["dropped"]
                update["failures"] += rec["failures"]
                update["fallbacks"] += rec["fallbacks"]
                update["budget_exhausted"] = update.get("budget_exhausted", False) or rec["budget"]
    numbering: dict[str, int] = {}
    texts = renumber(texts, numbering)
    by_id = dict(zip(ids, texts))
    body = [
        {"id": section["id"], "title": section["title"],
         "subsections": [{"id": sub["id"], "title": sub["title"], "text": by_id[sub["id"]]}
                         for sub in section["subsections"]]}
        for section in state["outline"]
    ]
    integrity.update(
        dropped_markers=dropped,
        dropped_total=sum(dropped.values()) + integrity["smoothing_dropped"],
        cited_papers=len(numbering),
    )
    update["survey"] = {
        "topic": state["topic"],
        "body": body,
        "references": sorted(numbering, key=numbering.get),  # paper ids in citation-number order
    }
    update["integrity"] = integrity
    return update
