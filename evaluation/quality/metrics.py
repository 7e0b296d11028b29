"""The quality score as evaluation-graph metrics, and the per-subsection content scorer."""

from __future__ import annotations

from ...models import MetricResult, Survey
from .features import Substance, content_features
from .model import COMPONENTS, component_score, contributions, load_model
from .reading import Encode, read_quality

FAMILY = "quality"
QUALITY_METRICS = tuple(f"quality.{c}" for c in COMPONENTS)
# Content features that mean the same for one subsection as for a whole survey; the others
# (cited-sentence count, share of cited sections, tables/figures) are held at the training mean.
SUBSECTION_FEATURES = ("c_citation_density", "c_substance_share", "c_sentence_novelty", "c_readability",
                       "c_synthesis", "c_lexical_diversity")


def quality_metrics(survey: Survey, *, encode: Encode | None = None,
                    abstracts: dict[str, str] | None = None) -> list[MetricResult]:
    """quality.{outline,content,reference,overall}: 1-5 (SurveyLens rubric scale), no LLM. With
    ``encode`` each component is gated by P(about the topic) (``reading.py``); with ``abstracts``
    (reference key -> abstract) copied sentences count only by what they add."""
    model = load_model()
    reading = read_quality(survey, model, encode=encode, abstracts=abstracts)
    results = []
    for component in COMPONENTS:
        cv = model["cv"][component]
        details = {"model_version": model["version"], "scale": "1-5", "lodo_rho": round(cv["rho_mean"], 3),
                   "form_score": round(reading.form_scores[component], 4),
                   "contributions": contributions(reading.features, component, model),
                   "features": {k: round(v, 4) for k, v in reading.features.items()}}
        if reading.on_topic:
            details["on_topic_probability"] = {c: round(p, 4) for c, p in reading.on_topic.items()}
            details["topic_readings"] = {k: round(v, 4) for k, v in reading.topic_readings.items()}
            details["off_topic"] = {k: [[t, round(v, 3)] for t, v in items[:15]] for k, items in reading.flags.items()}
            details["off_topic_counts"] = {k: len(v) for k, v in reading.flags.items()}
        if reading.copied_share is not None:
            details["copied_share"] = round(reading.copied_share, 4)
            details["sentences_with_known_sources"] = len(reading.copied)
        if reading.notes:
            details["notes"] = reading.notes
        gate = " gated by P(on topic)" if reading.on_topic else ""
        results.append(MetricResult(
            name=f"quality.{component}", family=FAMILY, value=reading.scores[component], details=details,
            rationale=f"offline quality model v{model['version']} (LODO ρ {cv['rho_mean']:.2f} vs SurveyLens rubric){gate}"))
    return results


def content_quality(text: str) -> float:
    """Score one subsection's Markdown with the content model (1-5; higher = better).

    Uses the single-section content features (citation density, substance share, sentence
    novelty, readability, synthesis, lexical diversity); survey-level ones sit at the training
    mean. Comparable between texts, e.g. a model's subsection vs an extractive floor.
    """
    from ..markdown_parser import parse_markdown

    model = load_model()
    survey = parse_markdown(text or "")
    values = content_features(survey, Substance(survey))
    features = {name: stats["mean"] for name, stats in model["features"].items()}
    features.update({k: values[k] for k in SUBSECTION_FEATURES})
    return component_score(features, "content", model)
