"""Is a survey about its topic? Dense readings of references, headings and text against the topic.

The offline quality model scores form: how much is cited, how evenly, how the outline is shaped.
Form cannot tell a survey of lice from a survey of traffic forecasting, so a survey scored against
the wrong topic kept its content and reference scores. This module reads meaning with the bundled
sentence encoder (MiniLM, no LLM): the cosine of each reference title, each specific heading and
each cited sentence to the topic. (Section bodies are not read: a heading-to-body cosine was computed
here once, read by nothing, and cost half of a cold leaderboard's encoding time; BENCHMARKS.md.)

``TopicalityGate`` (fitted by ``evaluation/quality/topicality_fit.py`` on the shared ASG-Bench
drafts, every draft against its own topic and against other topics) turns the three topic readings
into the probability that the component is about the topic; ``quality`` scales each component's
distance above the rubric's floor of 1 by that probability. A reference or heading is *flagged*
when its similarity is below what almost every reference or heading of the human-written surveys
has to their own topic (the fitted ``flag_below`` quantile), so the self-evaluation can list them.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from ..models import Survey
from .citations import split_sentences
from .quality.features import GENERIC_HEADINGS, Substance, clean_heading

GATE_PATH = Path(__file__).resolve().parent / "data" / "topicality_gate.json"
READINGS = ("t_outline", "t_content", "t_reference")
COMPONENT_READING = {"outline": "t_outline", "content": "t_content", "reference": "t_reference"}
# Enough items for a stable mean; a 300-reference survey is read on an even sample of them. 100
# rather than 200 (the gate was fitted at 200): on 60 random ASG-Bench drafts the components'
# P(on topic) moved by 0.0001 on average (at most 0.13, one reference list) and quality.overall by
# 0.003 (at most 0.06), while the contextual encoder's work per draft halves (BENCHMARKS.md).
MAX_ITEMS = 100

Encode = Callable[[Sequence[str]], np.ndarray]


@dataclass
class TopicalityReading:
    """Cosines of a survey's parts to its topic (unit vectors, so cosine = dot product)."""

    topic: str
    references: list[tuple[str, float]] = field(default_factory=list)
    headings: list[tuple[str, float]] = field(default_factory=list)
    sentences: list[float] = field(default_factory=list)

    outline: float = 0.0  # the headings read as one text, relative to the background

    def has_items(self, component: str) -> bool:
        """Whether the component's reading rests on anything (a survey whose references carry no
        titles, e.g. bare URLs, has no reference reading)."""
        return bool({"outline": self.headings, "content": self.sentences, "reference": self.references}[component])

    def features(self) -> dict[str, float]:
        return {"t_outline": self.outline,
                "t_content": _mean(self.sentences),
                "t_reference": _mean([s for _, s in self.references])}


def _mean(values: list[float]) -> float:
    return float(np.mean(values)) if values else 0.0


def _even_sample(items: list, limit: int = MAX_ITEMS) -> list:
    if len(items) <= limit:
        return items
    step = len(items) / limit
    return [items[int(i * step)] for i in range(limit)]


def survey_parts(survey: Survey) -> dict[str, list]:
    """What is read: distinct reference titles, distinct specific headings, cited sentences
    (every body sentence when nothing is cited)."""
    from .coverage import reference_title

    titles = list(dict.fromkeys(t.strip() for t in (reference_title(r) for r in survey.references) if t and t.strip()))
    headings, seen = [], set()
    entries = [e.title for e in survey.outline] or [s.heading for s in survey.sections]
    for title in entries:
        key = clean_heading(title)
        if key and key not in GENERIC_HEADINGS and key not in seen:
            seen.add(key)
            headings.append(title.strip())
    substance = Substance(survey)
    sentences = substance.cited or [s for sec in substance.sections for s in split_sentences(sec.text)
                                    if len(s.split()) >= 5]
    return {"references": _even_sample(titles), "headings": _even_sample(headings),
            "sentences": _even_sample(sentences)}


def outline_text(headings: list[str]) -> str:
    """The outline as one text: read whole, an outline's specific headings carry it, where a mean
    over headings is diluted by every structural one ("Applications and Case Studies")."""
    return "; ".join(headings)


def read_topicality(survey: Survey, topic: str, encode: Encode, background: Sequence[str] = ()) -> TopicalityReading:
    """Encode the topic, the background topics and the survey's parts once, and read each part's
    cosine to the topic *relative to the background*: minus its mean cosine to the background
    topics (those that are not this topic). A long, generic text is close to every topic; what
    counts is how much closer it is to this one. Without a background, plain cosines."""
    parts = survey_parts(survey)
    others, items, texts = _reading_texts(parts, topic, background)
    vectors = _unit(np.asarray(encode(texts), dtype=np.float32))
    topic_vec, back, rest = vectors[0], vectors[1:1 + len(others)], vectors[1 + len(others):]
    cos = rest[:len(items)] @ topic_vec
    if len(others):
        cos = cos - (rest[:len(items)] @ back.T).mean(axis=1)
    reading, i = TopicalityReading(topic=topic), 0
    for key in ("references", "headings"):
        n = len(parts[key])
        getattr(reading, key).extend(zip(parts[key], (float(v) for v in cos[i:i + n])))
        i += n
    reading.sentences = [float(v) for v in cos[i:len(items) - 1]]
    reading.outline = float(cos[len(items) - 1]) if parts["headings"] else 0.0
    return reading


def _reading_texts(parts: dict[str, list], topic: str, background: Sequence[str]) -> tuple[list[str], list[str], list[str]]:
    """(the background topics other than this one, the survey's items, every text to encode)."""
    others = [b for b in dict.fromkeys(background) if b.strip().lower() != topic.strip().lower()]
    items = [*parts["references"], *parts["headings"], *parts["sentences"], outline_text(parts["headings"])]
    return others, items, [topic, *others, *items]


def topicality_texts(survey: Survey, topic: str, background: Sequence[str] = ()) -> list[str]:
    """Every text ``read_topicality`` encodes for this survey: a caller scoring many surveys encodes
    them all in one call first (``leaderboard``), where one call per survey pads a batch to each
    survey's long outline text."""
    return _reading_texts(survey_parts(survey), topic, background)[2]


def _unit(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1.0, norms)


# --- the fitted gate --------------------------------------------------------------------------
@lru_cache(maxsize=4)
def load_gate(path: str | None = None) -> dict | None:
    """The fitted gate (``topicality_gate.json``), or None when it has not been fitted."""
    file = Path(path) if path else GATE_PATH
    try:
        gate = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None
    return gate if all(c in gate.get("components", {}) for c in COMPONENT_READING) else None


def on_topic_probability(value: float, spec: dict) -> float:
    """P(the component is about the topic) from its reading: the fitted logistic curve."""
    z = spec["intercept"] + spec["slope"] * value
    return 1.0 / (1.0 + math.exp(-z)) if z > -60 else 0.0


def gated(score: float, probability: float) -> float:
    """A component's score above the rubric floor (1), scaled by P(on topic): an off-topic survey
    is worth the floor whatever its form, an on-topic one keeps its score."""
    return 1.0 + (score - 1.0) * probability


def flagged(reading: TopicalityReading, gate: dict) -> dict[str, list[tuple[str, float]]]:
    """References and headings less similar to the topic than almost all of the human surveys'
    own (below the fitted quantile), least similar first."""
    out = {}
    for key in ("references", "headings"):
        floor = gate["flag_below"][key]
        out[key] = sorted(((t, s) for t, s in getattr(reading, key) if s < floor), key=lambda x: x[1])
    return out
