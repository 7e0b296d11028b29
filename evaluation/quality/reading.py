"""One survey's quality reading: the learned form score, gated by what the survey is about.

``read_quality(survey, encode=..., abstracts=...)``:
1. features (``features.py``), with cited sentences counted by what they do not copy from the
   abstracts they cite when those are known (``evaluation/copying.py``);
2. the learned model's component scores (``model.py``): the survey's *form*;
3. with a sentence encoder and the fitted gate (``evaluation/topicality.py``), each component's
   P(about the topic) from its topic reading, and the component's distance above the rubric's
   floor scaled by it; the reference component also by the share of its works that read as on
   topic one by one. A survey scored against a topic it is not about falls to the floor.
Overall stays the mean of the three components (SurveyLens' definition).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...models import Survey
from .features import Encode, survey_features
from .model import COMPONENTS, load_model, score_features, topic_view


@dataclass
class QualityReading:
    scores: dict[str, float]  # what to report: gated when the topic was read
    form_scores: dict[str, float]  # the learned model alone
    features: dict[str, float]
    on_topic: dict[str, float] = field(default_factory=dict)  # component -> P(about the topic)
    references_on_topic: float | None = None  # share of the read references not flagged off topic
    topic_readings: dict[str, float] = field(default_factory=dict)
    flags: dict[str, list[tuple[str, float]]] = field(default_factory=dict)
    copied: dict[str, tuple[float, str]] = field(default_factory=dict)  # sentence key -> (share, own words)
    notes: list[str] = field(default_factory=list)

    @property
    def copied_share(self) -> float | None:
        """Mean copied share of the citing sentences whose sources' abstracts are known."""
        return float(np.mean([share for share, _ in self.copied.values()])) if self.copied else None


def topic_texts(survey: Survey, gate: dict) -> list[str]:
    """The texts ``read_quality`` encodes for ``survey``'s topic reading (none without a topic)."""
    from ..topicality import topicality_texts

    view = topic_view(survey)
    topic = _topic_of(view)
    return topicality_texts(view, topic, gate.get("background_topics", [])) if topic else []


def _topic_of(view: Survey) -> str:
    return (view.topic or view.title or "").strip()


def read_quality(survey: Survey, model: dict | None = None, *, encode: Encode | None = None,
                 abstracts: dict[str, str] | None = None, gate: dict | None = None) -> QualityReading:
    from ..copying import copied_shares
    from ..topicality import COMPONENT_READING, flagged, gated, load_gate, on_topic_probability, read_topicality

    model = model or load_model()
    view = topic_view(survey)
    copied = copied_shares(view, abstracts or {})
    features = survey_features(view, copied or None)
    form = score_features(features, model)
    reading = QualityReading(scores=dict(form), form_scores=form, features=features, copied=copied)
    gate = gate if gate is not None else load_gate()
    topic = _topic_of(view)
    if encode is None or gate is None or not topic:
        why = ("no sentence encoder was given" if encode is None else
               "the topicality gate is not fitted" if gate is None else "the survey names no topic")
        reading.notes.append(f"topic not read ({why}): the scores are the survey's form only")
        return reading
    topical = read_topicality(view, topic, encode, gate.get("background_topics", []))
    reading.topic_readings = topical.features()
    reading.flags = flagged(topical, gate)
    if topical.references:
        # Each cited work read on its own: a list half about another subject keeps half its worth,
        # however well its on-topic half reads as a whole.
        reading.references_on_topic = 1.0 - len(reading.flags["references"]) / len(topical.references)
    for component, spec in gate["components"].items():
        if not topical.has_items(component):  # nothing to read is no evidence of being off topic
            reading.notes.append(f"{component}: nothing to read for the topic (no titles, headings or "
                                 "sentences found), scored on form only")
            continue
        p = on_topic_probability(reading.topic_readings[COMPONENT_READING[component]], spec)
        if component == "reference" and reading.references_on_topic is not None:
            p *= reading.references_on_topic
        reading.on_topic[component] = p
        reading.scores[component] = gated(form[component], p)
    reading.scores["overall"] = float(np.mean([reading.scores[c] for c in COMPONENTS if c != "overall"]))
    return reading
