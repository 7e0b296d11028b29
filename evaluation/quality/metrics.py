"""The quality score as evaluation-graph metrics, and the per-subsection content scorer."""

from __future__ import annotations

from ...models import MetricResult, Survey
from .features import Substance, content_features
from .model import COMPONENTS, component_score, contributions, load_model, survey_features, topic_view

FAMILY = "quality"
QUALITY_METRICS = tuple(f"quality.{c}" for c in COMPONENTS)
# Content features that mean the same for one subsection as for a whole survey; the others
# (cited-sentence count, share of cited sections, tables/figures) are held at the training mean.
SUBSECTION_FEATURES = ("c_citation_density", "c_substance_share", "c_sentence_novelty", "c_readability",
                       "c_synthesis", "c_lexical_diversity")


def quality_metrics(survey: Survey) -> list[MetricResult]:
    """quality.{outline,content,reference,overall}: 1-5 (SurveyLens rubric scale), no LLM."""
    model = load_model()
    features = survey_features(topic_view(survey))
    results = []
    for component in COMPONENTS:
        cv = model["cv"][component]
        results.append(MetricResult(
            name=f"quality.{component}", family=FAMILY, value=component_score(features, component, model),
            details={"model_version": model["version"], "scale": "1-5",
                     "lodo_rho": round(cv["rho_mean"], 3),
                     "contributions": contributions(features, component, model),
                     "features": {k: round(v, 4) for k, v in features.items()}},
            rationale=f"offline quality model v{model['version']} (LODO ρ {cv['rho_mean']:.2f} vs SurveyLens rubric)"))
    return results


def quality_node(state: dict) -> dict:
    """Evaluation-graph node: typed state in (``survey``), partial state out (``results``)."""
    return {"results": quality_metrics(state["survey"])}


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
