"""Measured validity of each leaderboard metric and per-system intervals over topics.

Validity comes from ``evaluation/data/validity.json``, written by ``surveygraph validate``:
``{"generated_by", "date", "encoder", "metrics": {"<metric>": {"component", "rho", "rho_ci",
"concordance", "n_disciplines", "pairwise_accuracy"}}}``. A metric without an entry is shown
as "not validated" - never as if it had been.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import numpy as np

VALIDITY_PATH = Path(__file__).resolve().parents[1] / "data" / "validity.json"
NOT_VALIDATED = "not validated"


@lru_cache(maxsize=4)
def load_validity(path: str | None = None) -> dict:
    """The validity file's content, or an empty table when it is absent or unreadable."""
    file = Path(path) if path else VALIDITY_PATH
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return {"metrics": {}}
    return data if isinstance(data.get("metrics"), dict) else {"metrics": {}}


def validity_label(metric: str, validity: dict | None = None) -> str:
    """"ρ 0.74 [0.52, 0.88]" (Spearman vs the SurveyLens ranking, CI) or "not validated"."""
    entry = (validity if validity is not None else load_validity())["metrics"].get(metric)
    if not entry:
        return NOT_VALIDATED
    if entry.get("rho") is None:  # validated on the pairwise human labels only
        acc = entry.get("pairwise_accuracy")
        return f"label acc. {acc:.2f}" if isinstance(acc, (int, float)) else NOT_VALIDATED
    ci = entry.get("rho_ci") or []
    text = f"ρ {entry['rho']:.2f}"
    if len(ci) == 2 and all(isinstance(v, (int, float)) for v in ci):
        text += f" [{ci[0]:.2f}, {ci[1]:.2f}]"
    return text


def metric_validity(metric: str, validity: dict | None = None) -> str:
    """``validity_label``, plus the quality model's own leave-one-discipline-out ρ for
    ``quality.*``: the harness scores that model on the disciplines it was fitted on."""
    label = validity_label(metric, validity)
    if metric.startswith("quality."):
        from .model import load_model

        cv = load_model()["cv"].get(metric.split(".", 1)[1])
        if cv:
            label += f"; LODO ρ {cv['rho_mean']:.2f}"
    return label


def bootstrap_interval(values: list[float], *, rounds: int = 2000, seed: int = 0,
                       level: float = 0.95) -> tuple[float, float] | None:
    """Percentile bootstrap interval of the mean over topics (resampling topics)."""
    data = np.asarray([v for v in values if v is not None and np.isfinite(v)], dtype=float)
    if data.size == 0:
        return None
    if data.size == 1:
        return float(data[0]), float(data[0])
    rng = np.random.default_rng(seed)
    means = data[rng.integers(0, data.size, size=(rounds, data.size))].mean(axis=1)
    lo, hi = np.quantile(means, [(1 - level) / 2, 1 - (1 - level) / 2])
    return float(lo), float(hi)
