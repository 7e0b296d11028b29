"""Load the shipped quality model (``model_v6.json``) and score surveys with it.

An outline, content or reference score is ``clip(a + b * Σ_i w_i (x_i - mean_i) / scale_i, 1, 5)``:
standardised features, non-negative weights ``w`` fitted by ``train.py``, and a linear map
(a, b > 0) onto the SurveyLens rubric's 1-5 scale fitted on the training systems, so "3.9" reads
like a SurveyLens score. Overall is the mean of the three, as SurveyLens defines it. Every step is
monotone non-decreasing in every feature.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import numpy as np

from ...agents.text import and_list
from ...errors import UserError
from ...models import Survey
from .features import ALL_FEATURES, survey_features

MODEL_PATH = Path(__file__).with_name("model_v6.json")
COMPONENTS = ("outline", "content", "reference", "overall")


@lru_cache(maxsize=4)
def load_model(path: str | None = None) -> dict:
    """The model JSON (cached). A missing or foreign file is a user error, not a traceback."""
    file = Path(path) if path else MODEL_PATH
    if not file.is_file():
        raise UserError(f"quality model not found: {file} (run `python -m surveygraph.evaluation.quality.train`)")
    try:
        model = json.loads(file.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise UserError(f"quality model {file} is not valid JSON: {exc}") from exc
    missing = [c for c in COMPONENTS if c not in model.get("components", {})]
    if missing:
        raise UserError(f"quality model {file} lacks components: {', '.join(missing)}")
    return model


def component_score(features: dict[str, float], component: str, model: dict | None = None) -> float:
    """One component's score on the 1-5 scale from a feature dict (``survey_features``)."""
    model = model or load_model()
    spec = model["components"][component]
    if "combination" in spec:  # overall: the mean of the component scores
        return float(sum(component_score(features, c, model) for c in spec["of"]) / len(spec["of"]))
    raw = raw_score(features, component, model)
    value = spec["calibration"]["intercept"] + spec["calibration"]["slope"] * raw
    return float(min(5.0, max(1.0, value)))


def raw_score(features: dict[str, float], component: str, model: dict) -> float:
    stats = model["features"]
    spec = model["components"][component]
    return float(sum(w * (features[name] - stats[name]["mean"]) / stats[name]["scale"]
                     for name, w in spec["weights"].items()))


def score_features(features: dict[str, float], model: dict | None = None) -> dict[str, float]:
    model = model or load_model()
    return {c: component_score(features, c, model) for c in COMPONENTS}


def topic_view(survey: Survey) -> Survey:
    """ASG-Bench names files ``<discipline>__<topic>``: the topic words are the part after ``__``
    (as in training), so the discipline prefix does not count as a missing topic word."""
    if "__" in (survey.topic or ""):
        return survey.model_copy(update={"topic": survey.topic.split("__", 1)[1]})
    return survey


def score_survey(survey: Survey, model: dict | None = None) -> dict[str, float]:
    """quality scores (outline, content, reference, overall) of one parsed survey."""
    return score_features(survey_features(topic_view(survey)), model)


def contributions(features: dict[str, float], component: str, model: dict | None = None) -> dict[str, float]:
    """Each feature's share of the raw score (weight × z-score): why a survey got its score.
    For overall, the components' shares on the 1-5 scale (slope × share), averaged."""
    model = model or load_model()
    stats = model["features"]
    spec = model["components"][component]
    if "combination" in spec:  # overall: each component's contributions on the 1-5 scale, averaged
        total: dict[str, float] = {}
        for part in spec["of"]:
            slope = model["components"][part]["calibration"]["slope"]
            for name, value in contributions(features, part, model).items():
                total[name] = total.get(name, 0.0) + slope * value / len(spec["of"])
        return {name: round(v, 4) for name, v in total.items()}
    return {name: round(w * (features[name] - stats[name]["mean"]) / stats[name]["scale"], 4)
            for name, w in spec["weights"].items() if w}


def verdict(scores: dict[str, float], model: dict | None = None, component: str = "overall") -> str:
    """One line placing one draft's score among the reference systems the model was fitted on.

    A reference system's score is a mean over many drafts; one draft's score also carries how far a
    single draft strays from its system's mean. The line therefore states the point estimate's side
    of the systems' median, how many systems it reaches, and which systems lie within one draft's
    95% error (``cv.<component>.per_draft_error``, else the system-level held-out error): those it
    cannot be told apart from - never "level with" a system it merely comes near."""
    model = model or load_model()
    ref = model["components"][component].get("reference_systems") or {}
    if not ref:
        return f"quality.{component} = {scores[component]:.2f} (no reference systems stored)"
    value = scores[component]
    ordered = sorted(ref.items(), key=lambda kv: kv[1])
    below = [s for s, v in ordered if v <= value]
    cv = model.get("cv", {}).get(component, {})
    error = cv.get("per_draft_error") or cv.get("heldout_rmse")
    median = float(np.median([v for _, v in ordered]))
    side = ("below" if value < median else "above" if value > median else "at")
    line = (f"quality.{component} {value:.2f} on the SurveyLens 1-5 scale: {side} the median of the "
            f"{len(ordered)} ASG-Bench reference systems ({median:.2f}); at or above {len(below)} of them")
    if not error:
        return line
    half = 1.96 * error
    near = [f"{s} {v:.2f}" for s, v in reversed(ordered) if abs(v - value) <= half]
    line += f"; one draft's 95% error is ±{half:.2f}"
    if near:
        names = and_list(near) if len(near) <= 3 else f"{len(near)} of them, {near[0]} to {near[-1]}"
        line += f", so it cannot be told apart from {names}"
    return line


def feature_names() -> tuple[str, ...]:
    return ALL_FEATURES
