"""Polish: merge drafts, remove repetition, verify and renumber citations (SurveyForge's refine).

Citation integrity is checked whatever the settings: a marker survives only if it names a paper
that was in that subsection's writer prompt; every other marker is dropped and counted.
Polish never empties a subsection: when every sentence of one was already said earlier, its best
sentences stay, with a warning and a manifest entry. LLM smoothing goes through the gate.
"""

from __future__ import annotations

import logging
import re

from ..prompts import render_prompt
from ..sanitize import markdown_safe
from .deps import GenerationDeps, guarded_call
from .gate import choose, interim_content_score
from .text import (
    PAPER_MARKER, clean_generated, collapse_loops, drop_repeated_sentences, renumber, resolve_local_citations,
    sentences,
)
from .validators import trim_incomplete

log = logging.getLogger(__name__)
KEEP_WHEN_EMPTIED = 3  # sentences kept when repetition removal would empty a subsection


def _subsections(outline: list[dict]):
    for section in outline:
        for sub in section["subsections"]:
            yield section, sub


def _to_local(text: str, keys: dict[str, str]) -> str:
    """Internal [@paper_id] markers back to the writer's local [n] (for the smoothing prompt)."""
    local = {pid: number for number, pid in keys.items()}
    return PAPER_MARKER.sub(lambda m: f"[{local[m.group(1)]}]" if m.group(1) in local else "", text)


def smooth_text(sid: str, heading: str, text: str, keys: dict[str, str], papers: list[dict],
                deps: GenerationDeps) -> tuple[str, dict]:
    """Optional LLM smoothing of one subsection, through the gate: the rewrite is used only when it
    is valid prose and not worse than the text it rewrites (agents/gate.py)."""
    records: dict = {"failures": [], "fallbacks": [], "dropped": 0, "budget": False, "gate": {}}
    local = _to_local(text, keys)
    prompt = render_prompt("gen_smooth", heading=heading, text=local)
    outcome = guarded_call("polish_sections", lambda: deps.clients.writer.complete(prompt, node="smooth"), item=sid)
    records["budget"] = outcome.budget_exhausted
    if outcome.failure:
        records["failures"].append(outcome.failure)
    if not outcome.ok:
        return text, records
    smoothed, _ = collapse_loops(clean_generated(str(outcome.value)))
    smoothed = trim_incomplete(markdown_safe(smoothed))
    chosen, decision = choose("polish_sections", sid, smoothed, local, score=interim_content_score(papers),
                              min_words=min(40, len(local.split()) // 2))
    records["gate"] = {f"polish_sections:{sid}": decision.record()}
    if decision.winner == "floor":
        records["fallbacks"].append({"node": "polish_sections", "item": sid,
                                     "reason": f"kept the draft: {decision.reason}"})
        return text, records
    resolved, records["dropped"] = resolve_local_citations(chosen, keys)
    return resolved, records


def keep_best_sentences(original: str, limit: int = KEEP_WHEN_EMPTIED) -> str:
    """A subsection's best sentences, in their order, for when repetition removal would empty it:
    the sentences citing the most distinct papers (then the longest), at most ``limit``."""
    said = [s for p in re.split(r"\n\s*\n", original) for s in sentences(p)]
    ranked = sorted(range(len(said)), key=lambda i: (-len(set(PAPER_MARKER.findall(said[i]))),
                                                      -len(said[i].split()), i))
    return " ".join(said[i] for i in sorted(ranked[:limit]))


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
        originals = list(texts)
        texts, integrity["repeated_sentences_removed"] = drop_repeated_sentences(texts)
        for i, sid in enumerate(ids):
            # polish must never empty a subsection, nor leave it without one of its works: an opening
            # ("This subsection reviews four works on ...") that cites nothing is empty to a reader
            uncited = PAPER_MARKER.search(originals[i]) and not PAPER_MARKER.search(texts[i])
            if originals[i].strip() and (not texts[i].strip() or uncited):
                opening = texts[i].strip()
                texts[i] = keep_best_sentences(originals[i])
                if opening and opening not in texts[i]:
                    texts[i] = f"{opening} {texts[i]}"
                reason = ("removing repeated sentences would have emptied the subsection; kept its "
                          f"{len(sentences(texts[i]))} best sentences")
                log.warning("polish_sections %s: %s", sid, reason)
                update["fallbacks"].append({"node": "polish_sections", "item": sid, "reason": reason})
                integrity["emptied_subsections_kept"] = integrity.get("emptied_subsections_kept", 0) + 1
        cleaned = [collapse_loops(t) for t in texts]
        texts = [t for t, _ in cleaned]
        integrity["loop_words_removed"] = sum(n for _, n in cleaned)
        if settings.llm_smoothing and not state.get("budget_exhausted"):
            headings = {sub["id"]: sub["title"] for _s, sub in _subsections(state["outline"])}
            all_papers = state.get("papers") or {}
            for i, sid in enumerate(ids):
                if not texts[i] or update.get("budget_exhausted"):
                    continue
                keys = drafts[sid]["keys"]
                papers = [all_papers.get(keys[k], {}) for k in sorted(keys, key=int)]
                texts[i], rec = smooth_text(sid, headings[sid], texts[i], keys, papers, deps)
                update["gate"] = {**update.get("gate", {}), **rec["gate"]}
                integrity["smoothing_dropped"] += rec["dropped"]
                update["failures"] += rec["failures"]
                update["fallbacks"] += rec["fallbacks"]
                update["budget_exhausted"] = update.get("budget_exhausted", False) or rec["budget"]
    numbering: dict[str, int] = {}
    texts = renumber(texts, numbering)
    by_id = dict(zip(ids, texts))
    body = [
        {"id": section["id"], "title": section["title"], "text": "",  # section-level text: agents/illustrate.py
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
