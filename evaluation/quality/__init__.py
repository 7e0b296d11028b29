"""Offline learned quality score of a survey (outline, content, reference, overall).

``score_survey(survey)`` -> {"outline", "content", "reference", "overall"} on the SurveyLens 1-5
scale, from interpretable features (``features.py``) and the shipped ``model_v6.json``
(``python -m surveygraph.evaluation.quality.train`` reproduces it). ``content_quality(text)``
scores one subsection's Markdown for the generation gate. ``read_quality`` adds what form cannot
see: P(about the topic) per component from a sentence encoder, and copying from known abstracts.
"""

from __future__ import annotations

from .features import ALL_FEATURES, survey_features
from .metrics import QUALITY_METRICS, content_quality, quality_metrics
from .model import load_model, score_survey, verdict
from .reading import QualityReading, read_quality

__all__ = ["ALL_FEATURES", "QUALITY_METRICS", "QualityReading", "content_quality", "load_model", "quality_metrics",
           "read_quality", "score_survey", "survey_features", "verdict"]
