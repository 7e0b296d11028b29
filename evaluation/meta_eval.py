"""Meta-evaluation: how well a metric agrees with pairwise human preferences.

Labels (JSONL): ``{"topic", "system_a", "system_b", "choice": "a" | "b" | "tie"}``, or the
``battles.jsonl`` of ``surveygraph arena`` (one dimension's verdict per battle: A → a, B → b,
Tie and BothBad → tie), to measure how well a metric agrees with an arena judge.
Scores: per (topic, system) values of one metric, from a CSV (``topic,system,score`` or a column
named after the metric), a JSONL/JSON list of rows with ``topic``, ``system`` and the metric
either as a key, inside a ``metrics`` dict, or in a ``metrics`` list of ``{"name", "value"}``; or
the ``leaderboard.json`` written by ``surveygraph leaderboard`` (``reports``: system -> topic ->
EvaluationReport).

Numbers: pairwise accuracy (1 when the metric prefers the labelled system, 0 when it prefers the
other or ties on a decisive label, 0.5 for every human tie), and Spearman / Kendall between the
system ranking from the labels (Bradley–Terry, ties half) and the metric's mean score per
system, each with a bootstrap percentile interval over label rows.
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path
from typing import Any, Iterable

import numpy as np
from scipy import stats

from ..errors import UserError
from .jsonl import read_jsonl
from .bradley_terry import bt_elo_ratings

Scores = dict[tuple[str, str], float]
CHOICES = {"a", "b", "tie"}


_ARENA_CHOICE = {"A": "a", "B": "b", "Tie": "tie", "BothBad": "tie"}


def load_labels(path: Path, dimension: str = "D5") -> list[dict]:
    rows = []
    for n, row in read_jsonl(path, "labels"):
        if "choice" not in row and isinstance(row.get("outcomes"), dict):  # an arena battle
            verdict = row["outcomes"].get(dimension)
            if verdict is None:
                continue  # this battle failed or lacks the dimension
            if verdict not in _ARENA_CHOICE:
                raise UserError(f"{path}:{n}: arena verdict {verdict!r} for {dimension}")
            row = {**row, "choice": _ARENA_CHOICE[verdict]}
        missing = [k for k in ("topic", "system_a", "system_b", "choice") if k not in row]
        if missing:
            raise UserError(f"{path}:{n}: missing {', '.join(missing)}")
        row["choice"] = str(row["choice"]).lower()
        if row["choice"] not in CHOICES:
            raise UserError(f"{path}:{n}: choice must be a, b or tie, not {row['choice']!r}")
        rows.append(row)
    if not rows:
        raise UserError(f"no labels in {path}")
    return rows


def _metric_value(row: dict, metric: str) -> Any:
    if metric in row:
        return row[metric]
    metrics = row.get("metrics")
    if isinstance(metrics, dict):
        return metrics.get(metric)
    if isinstance(metrics, list):
        return next((m.get("value") for m in metrics if isinstance(m, dict) and m.get("name") == metric), None)
    if metric == "score" or "score" in row:
        return row.get("score")
    return None


def _rows_to_scores(rows: Iterable[dict], metric: str) -> Scores:
    scores: Scores = {}
    for row in rows:
        if not isinstance(row, dict) or "topic" not in row or "system" not in row:
            continue
        value = _metric_value(row, metric)
        if value in (None, ""):
            continue
        try:
            scores[(str(row["topic"]), str(row["system"]))] = float(value)
        except (TypeError, ValueError):
            continue
    return scores


def load_scores(path: Path, metric: str) -> Scores:
    if not path.is_file():
        raise UserError(f"scores file not found: {path}")
    text = path.read_text(encoding="utf-8")
    if path.suffix.lower() == ".csv":
        rows = list(csv.DictReader(text.splitlines()))
    elif path.suffix.lower() == ".jsonl":
        rows = [json.loads(l) for l in text.splitlines() if l.strip()]
    else:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise UserError(f"{path} is not JSON: {exc.msg}") from exc
        reports = data.get("reports") if isinstance(data, dict) else None
        if isinstance(reports, dict):  # leaderboard.json: system -> topic -> EvaluationReport
            data = [{**(r if isinstance(r, dict) else {}), "system": system, "topic": topic}
                    for system, by_topic in reports.items() if isinstance(by_topic, dict)
                    for topic, r in by_topic.items()]
        rows = data if isinstance(data, list) else next(
            (v for k, v in data.items() if k in ("rows", "reports", "entries", "results") and isinstance(v, list)),
            [data])
    scores = _rows_to_scores(rows, metric)
    if not scores:
        raise UserError(f"no (topic, system) values of metric {metric!r} in {path}")
    return scores


def pair_credit(row: dict, scores: Scores) -> float | None:
    a, b = scores.get((row["topic"], row["system_a"])), scores.get((row["topic"], row["system_b"]))
    if a is None or b is None:
        return None
    if row["choice"] == "tie":
        return 0.5
    prefers = "a" if a > b else "b" if b > a else "tie"
    return 1.0 if prefers == row["choice"] else 0.0


def label_ratings(rows: list[dict]) -> dict[str, float]:
    players = sorted({r["system_a"] for r in rows} | {r["system_b"] for r in rows})
    y = {"a": 1.0, "b": 0.0, "tie": 0.5}
    return bt_elo_ratings([(r["system_a"], r["system_b"], y[r["choice"]]) for r in rows], players)


def metric_system_means(rows: list[dict], scores: Scores) -> dict[str, float]:
    topics = {r["topic"] for r in rows}
    by_system: dict[str, list[float]] = {}
    for (topic, system), v in scores.items():
        if topic in topics:
            by_system.setdefault(system, []).append(v)
    return {s: float(np.mean(v)) for s, v in by_system.items()}


def _point(rows: list[dict], scores: Scores) -> dict[str, float]:
    credits = [c for c in (pair_credit(r, scores) for r in rows) if c is not None]
    human = label_ratings(rows)
    metric = metric_system_means(rows, scores)
    common = sorted(set(human) & set(metric))
    out = {"accuracy": float(np.mean(credits)) if credits else math.nan,
           "spearman": math.nan, "kendall": math.nan, "pairs": len(credits), "systems": len(common)}
    if len(common) >= 2:
        h, m = [human[s] for s in common], [metric[s] for s in common]
        if len(set(h)) > 1 and len(set(m)) > 1:
            out["spearman"] = float(stats.spearmanr(h, m).statistic)
            out["kendall"] = float(stats.kendalltau(h, m).statistic)
    return out


def meta_evaluate(rows: list[dict], scores: Scores, rounds: int = 1000, seed: int = 0,
                  level: float = 0.95) -> dict:
    point = _point(rows, scores)
    if point["pairs"] == 0:
        raise UserError("no labelled pair has metric scores for both systems on its topic")
    rng = np.random.default_rng(seed)
    boot: dict[str, list[float]] = {"accuracy": [], "spearman": [], "kendall": []}
    for _ in range(rounds):
        sample = [rows[i] for i in rng.integers(0, len(rows), len(rows))]
        p = _point(sample, scores)
        for k in boot:
            if not math.isnan(p[k]):
                boot[k].append(p[k])
    lo, hi = (1 - level) / 2 * 100, (1 + level) / 2 * 100
    result = {"labels": len(rows), **{k: point[k] for k in ("pairs", "systems")}}
    for k, values in boot.items():
        ci = (float(np.percentile(values, lo)), float(np.percentile(values, hi))) if values else (None, None)
        result[k] = {"value": None if math.isnan(point[k]) else point[k], "ci_low": ci[0], "ci_high": ci[1]}
    result["system_ratings_from_labels"] = label_ratings(rows)
    result["system_metric_means"] = metric_system_means(rows, scores)
    return result
