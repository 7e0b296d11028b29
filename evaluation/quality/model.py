"""Load the shipped quality model (``model_v4.json``) and score surveys with it.

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

from ...agents.text import and_list
from ...errors import UserError
from ...models import Survey
from .features import ALL_FEATURES, survey_features

MODEL_PATH = Path(__file__).with_name("model_v4.json")
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
    """One line placing a score among the reference systems the model was fitted on."""
    model = model or load_model()
    ref = model["components"][component].get("reference_systems") or {}
    if not ref:
        return f"quality.{component} = {scores[component]:.2f} (no reference systems stored)"
    value = scores[component]
    ordered = sorted(ref.items(), key=lambda kv: kv[1])
    below = [s for s, v in ordered if v <= value]
    above = [s for s, v in ordered if v > value]
    # A difference smaller than the model's held-out error (a system's score against SurveyLens'
    # in the discipline left out) is no difference: say "level with", not "above".
    error = model.get("cv", {}).get(component, {}).get("heldout_rmse")
    level = [f"{s} {v:.2f}" for s, v in reversed(ordered) if error and abs(v - value) <= error]
    if level:
        names = and_list(level) if len(level) <= 3 else f"{len(level)} reference systems, {level[0]} to {level[-1]}"
        where = f"level with {names} (within the model's held-out error, ±{error:.2f})"
    elif not below:
        where = f"below every reference system (lowest: {ordered[0][0]} {ordered[0][1]:.2f})"
    elif not above:
        where = f"above every reference system (highest: {ordered[-1][0]} {ordered[-1][1]:.2f})"
    else:
        lo, hi = below[-1], above[0]
        where = f"between {lo} ({ref[lo]:.2f}) and {hi} ({ref[hi]:.2f}) level"
    return (f"quality.{component} {value:.2f} on the SurveyLens 1-5 scale: {where}; "
            f"at or above {len(below)} of the {len(ordered)} ASG-Bench reference systems")


def feature_names() -> tuple[str, ...]:
    return ALL_FEATURES
