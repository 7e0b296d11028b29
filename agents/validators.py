"""Validation of model prose before it is used (headings: agents/outline/headings.py).

Every check returns reasons (short strings, empty = valid) so callers can write them to
``manifest.fallbacks`` and use the deterministic floor instead. The checks target what small base
models actually produce (tests/fixtures/local_model_outputs/): instruction echoes and prompt
leakage, JSON/Markdown debris, loops and word salad.
"""

from __future__ import annotations

import re

from .text import CITATION_MARKER, MAX_REPETITION, PAPER_MARKER, degenerate_repetition, sentences

_ECHO_PROSE = re.compile(
    r"\(\s*\d+\s*(?:points?|pts|marks?)\s*\)|\bsection\s+\d+\s*[-–:]|search quer(?:y|ies)|"
    r"\bTASK:|\banswer in json\b|\bdo not use citation markers\b|\bdo not write a heading\b|"
    r"\beverything inside\b|\bnever instructions\b|\bsurvey topic:|\bhere (?:is|are) (?:a|an|the|your|my)\b|"
    r"\bas an ai\b|\bi (?:cannot|can't|am unable)\b|\b(?:question|answer|instruction|your answer)\s*:|"
    r"\bword count\b|\babout \d+ words\b|\bone-paragraph\b|\btwo-paragraph\b",
    re.I,
)
_IMPERATIVE_START = re.compile(
    r"^(?:write|describe|explain|discuss|list|summari[sz]e|provide|give|answer|please|do not|don't|"
    r"make sure|remember|consider the following|note that you)\b", re.I)
_DEBRIS_LINE = re.compile(r"^\s*(?:[-*•+]\s|#|\||```|[{}\[\]](?!\d)|\"\w+\"\s*:|\d+[.)]\s)")
_TERMINAL = (".", "!", "?", '."', ".”", ".)", "]")
MIN_MEAN_SENTENCE_WORDS = 6  # below this the text is fragments or a list, not prose
MAX_SENTENCE_WORDS = 90  # longer "sentences" are run-on noise with no punctuation


def trim_incomplete(text: str) -> str:
    """Drop a last sentence cut by the output cap (text that does not end a sentence)."""
    stripped = text.rstrip()
    if not stripped or stripped.endswith(_TERMINAL):
        return stripped
    parts = sentences(stripped)
    return " ".join(parts[:-1]).rstrip() if len(parts) > 1 else stripped


def validate_prose(text: str, *, min_words: int = 40) -> list[str]:
    """Reasons why model-written prose cannot be used (empty list = valid).

    Reuses the writer's checks (length, n-gram loops) and adds instruction echoes, questions to
    the reader, imperative sentences, list/JSON/Markdown debris, fragments and run-ons, and an
    unfinished last sentence (apply ``trim_incomplete`` first to keep the complete part).
    """
    raw = str(text or "").strip()
    plain = PAPER_MARKER.sub("", CITATION_MARKER.sub("", raw))
    words = plain.split()
    if not words:
        return ["empty"]
    reasons: list[str] = []
    if len(words) < min_words:
        reasons.append(f"too short ({len(words)} words, fewer than {min_words})")
    repetition = degenerate_repetition(raw)
    if repetition > MAX_REPETITION:
        reasons.append(f"repeats itself ({repetition:.0%} of 6-grams occur more than twice)")
    if _ECHO_PROSE.search(raw):
        reasons.append("instruction echo or prompt leakage")
    said = sentences(" ".join(plain.split()))
    questions = sum(s.rstrip().endswith("?") for s in said)
    if questions > max(1, len(said) // 10):
        reasons.append(f"asks the reader questions ({questions})")
    if any(_IMPERATIVE_START.match(s) for s in said):
        reasons.append("contains instructions (imperative sentences)")
    if any(s.rstrip().endswith("!") for s in said):
        reasons.append("exclamations (not survey prose)")
    if re.search(r"\b(?:you|your|yours)\b", plain, re.I):
        reasons.append("addresses the reader ('you')")
    lines = [line for line in raw.splitlines() if line.strip()]
    debris = sum(bool(_DEBRIS_LINE.match(line)) for line in lines)
    if debris and (debris >= max(2, len(lines) // 3) or _DEBRIS_LINE.match(lines[0])):
        reasons.append(f"list, Markdown or JSON debris ({debris} of {len(lines)} lines)")
    if said:
        lengths = [len(s.split()) for s in said]
        if len(said) >= 3 and sum(lengths) / len(lengths) < MIN_MEAN_SENTENCE_WORDS:
            reasons.append("fragments, not sentences")
        if max(lengths) > MAX_SENTENCE_WORDS:
            reasons.append(f"a run-on of {max(lengths)} words without a sentence break")
    if not raw.rstrip().endswith(_TERMINAL):
        reasons.append("ends mid-sentence")
    if re.search(r"https?://|www\.|\S+@\S+\.\w", raw):
        reasons.append("links or e-mail addresses (noise, not survey prose)")
    letters = sum(ch.isalpha() for ch in plain)
    if letters < 0.7 * len(plain.replace(" ", "")):
        reasons.append("mostly digits or symbols")
    return reasons
