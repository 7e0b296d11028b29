"""Abstract, introduction and conclusion around the polished body (part of polish).

Written from the outline and the sections' opening sentences, without citations (markers the
model adds anyway are removed and counted). A failed call gets a plain deterministic text that
says what the survey contains, and the fallback is recorded.
"""

from __future__ import annotations

from ..prompts import render_prompt
from .deps import GenerationDeps, guarded_call
from .text import (
    PAPER_MARKER, clean_generated, collapse_loops, drop_repeated_sentences, looks_like_prose, sentences,
    strip_citation_markers,
)

PART_MAX_TOKENS = {"abstract": 220, "introduction": 380, "conclusion": 220}
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
            first = sentences(PAPER_MARKER.sub("", sub["text"]))[:per_section]
            lines.extend(first)
    return " ".join(lines)[:limit].replace("<", "‹").replace(">", "›")


def fallback_text(part: str, topic: str, body: list[dict]) -> str:
    titles = [s["title"] for s in body]
    listing = ", ".join(titles[:-1]) + (f" and {titles[-1]}" if len(titles) > 1 else "".join(titles))
    if part == "abstract":
        return f"This survey reviews recent work on {topic}. It covers {listing}."
    if part == "introduction":
        return (f"This survey reviews recent research on {topic}, drawing on the retrieved literature. "
                f"It is organised into {len(titles)} parts: {listing}.")
    return f"This survey reviewed {topic} through {len(titles)} themes: {listing}."


def write_frame(state: dict, deps: GenerationDeps) -> dict:
    """Abstract, introduction and conclusion (only when polishing is on)."""
    survey = dict(state["survey"])
    if not deps.settings.generation.polish:
        return {}
    body, topic = survey["body"], state["topic"]
    seen: set[str] = set()
    drop_repeated_sentences([sub["text"] for s in body for sub in s["subsections"]], seen)
    update: dict = {"fallbacks": [], "failures": [], "budget_exhausted": False}
    stripped_total = 0
    for part, instruction in PARTS.items():
        text = ""
        if not (state.get("budget_exhausted") or update["budget_exhausted"]):
            prompt = render_prompt("gen_frame", part=part, topic=topic, outline=_outline_lines(body),
                                   excerpt=_excerpt(body) if part != "introduction" else "",
                                   instruction=instruction)
            outcome = guarded_call("write_frame", lambda: deps.clients.writer.complete(
                prompt, node="write_frame", max_tokens=PART_MAX_TOKENS[part]),
                                   item=part)
            update["budget_exhausted"] |= outcome.budget_exhausted
            update["failures"] += [outcome.failure] if outcome.failure else []
            if outcome.ok:
                text, _ = collapse_loops(clean_generated(str(outcome.value)))
                text, stripped = strip_citation_markers(text)
                stripped_total += stripped
                (text,), _ = drop_repeated_sentences([text], seen)
        if not looks_like_prose(text, 15):
            update["fallbacks"].append({"node": "write_frame", "item": part,
                                        "reason": "no usable model text; wrote a plain summary"})
            text = fallback_text(part, topic, body)
        survey[part] = text
    integrity = {**(state.get("integrity") or {}), "frame_markers_removed": stripped_total}
    update.update(survey=survey, integrity=integrity)
    return update
