"""The numbers of the validity harness: Spearman ρ and pairwise concordance of a metric's system
ranking against reference system scores, per discipline and pooled, with bootstrap intervals.

Inputs per discipline: a systems × topics matrix of one metric's per-topic values (NaN =
missing) and the reference score of each system. A system's metric score is its mean over
topics. Definitions (hand-checkable, see tests/test_validity_math.py):

- ρ: Spearman correlation (average ranks for ties) between the systems' metric means and their
  reference scores; NaN when either side is constant or fewer than 3 systems remain.
- concordance: over the system pairs whose reference scores differ, the share the metric orders
  the same way; a metric tie counts 1/2. 0.5 = chance, 1 = the reference order.
- pooled ρ: the mean of the per-discipline ρ (each discipline is one ranking task); pooled
  concordance: over all pairs of all disciplines.
- intervals: percentile bootstrap (default 1000 rounds, 95%) that resamples *topics* with
  replacement within each discipline and recomputes the system means; the pooled interval
  resamples every discipline's topics in the same round. A metric with no per-topic values
  (τ-MaxSim over cross-topic unions) gets no per-discipline interval; its pooled interval
  resamples disciplines instead.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
from scipy.stats import rankdata

LEVEL = 0.95


@dataclass
class DisciplineData:
    """One metric in one discipline: ``per_topic`` is systems × topics (None when the metric only
    has a per-system value), ``means`` the per-system values, ``reference`` the reference scores."""

    systems: list[str]
    means: np.ndarray
    reference: np.ndarray
    per_topic: np.ndarray | None = None


def _batch_spearman(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Row-wise Spearman of each row of ``x`` (B × S) with ``y`` (S); NaN for constant rows."""
    x = np.atleast_2d(x)
    if x.shape[1] < 3:
        return np.full(x.shape[0], math.nan)
    rx = rankdata(x, axis=1)
    ry = rankdata(y)
    rx = rx - rx.mean(axis=1, keepdims=True)
    ry = ry - ry.mean()
    denom = np.sqrt((rx ** 2).sum(axis=1) * (ry ** 2).sum())
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = (rx @ ry) / denom
    rho[denom == 0] = math.nan
    return rho


def spearman(x, y) -> float:
    """Spearman ρ over the systems where both values are known."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    keep = ~(np.isnan(x) | np.isnan(y))
    return float(_batch_spearman(x[keep][None, :], y[keep])[0])


def _batch_concordance(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, int]:
    """(credit per row, number of pairs): pairs i<j with y_i != y_j; credit 1 same order,
    1/2 metric tie, 0 reversed."""
    x = np.atleast_2d(x)
    i, j = np.triu_indices(len(y), k=1)
    ref = np.sign(y[i] - y[j])
    keep = ref != 0
    i, j, ref = i[keep], j[keep], ref[keep]
    if len(i) == 0:
        return np.full(x.shape[0], math.nan), 0
    got = np.sign(x[:, i] - x[:, j])
    credit = np.where(got == 0, 0.5, (got == ref).astype(float)).sum(axis=1)
    return credit, len(i)


def concordance(x, y) -> tuple[float, int]:
    """(share of concordant reference-ordered pairs, number of pairs) over systems with both values."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    keep = ~(np.isnan(x) | np.isnan(y))
    credit, n = _batch_concordance(x[keep][None, :], y[keep])
    return (float(credit[0] / n) if n else math.nan), n


def _usable(d: DisciplineData) -> DisciplineData:
    """Systems with a reference score and a metric value only."""
    keep = ~(np.isnan(d.reference) | np.isnan(d.means))
    return DisciplineData([s for s, k in zip(d.systems, keep) if k], d.means[keep], d.reference[keep],
                          None if d.per_topic is None else d.per_topic[keep])


def _resampled_means(d: DisciplineData, rounds: int, rng: np.random.Generator) -> np.ndarray | None:
    """rounds × systems means over topics resampled with replacement (a system with no value in
    a resample keeps its full-sample mean)."""
    if d.per_topic is None or d.per_topic.shape[1] < 2:
        return None
    n_topics = d.per_topic.shape[1]
    idx = rng.integers(0, n_topics, size=(rounds, n_topics))
    sampled = d.per_topic[:, idx]  # S × B × T
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN slices: handled below
        means = np.nanmean(sampled, axis=2).T  # B × S
    return np.where(np.isnan(means), d.means[None, :], means)


def _interval(values: np.ndarray) -> tuple[float | None, float | None]:
    values = values[~np.isnan(values)]
    if values.size < 10:
        return None, None
    lo, hi = (1 - LEVEL) / 2 * 100, (1 + LEVEL) / 2 * 100
    return float(np.percentile(values, lo)), float(np.percentile(values, hi))


def _nan_to_none(v: float) -> float | None:
    return None if v is None or math.isnan(v) else float(v)


def validity(per_discipline: dict[str, DisciplineData], *, rounds: int = 1000, seed: int = 0) -> dict:
    """{"disciplines": {name: row}, "pooled": row}; a row holds rho, rho_ci, concordance,
    concordance_ci, n_systems, n_pairs (and n_disciplines for the pooled row)."""
    rng = np.random.default_rng(seed)
    rows, boot_rho, boot_credit, pair_counts = {}, [], [], []
    point_rho, point_credit = [], []
    for name, raw in sorted(per_discipline.items()):
        d = _usable(raw)
        rho = spearman(d.means, d.reference)
        conc, n_pairs = concordance(d.means, d.reference)
        row = {"rho": _nan_to_none(rho), "rho_ci": [None, None], "concordance": _nan_to_none(conc),
               "concordance_ci": [None, None], "n_systems": len(d.systems), "n_pairs": n_pairs,
               "n_topics": 0 if d.per_topic is None else int(d.per_topic.shape[1])}
        means = _resampled_means(d, rounds, rng) if len(d.systems) >= 3 else None
        if means is not None:
            b_rho = _batch_spearman(means, d.reference)
            b_credit, _ = _batch_concordance(means, d.reference)
            row["rho_ci"] = list(_interval(b_rho))
            row["concordance_ci"] = list(_interval(b_credit / n_pairs if n_pairs else b_credit * math.nan))
            boot_rho.append(b_rho)
            boot_credit.append(b_credit)
        rows[name] = row
        valid = bool(n_pairs) and not math.isnan(conc)
        point_credit.append(conc * n_pairs if valid else 0.0)  # aligned with point_rho
        pair_counts.append(n_pairs if valid else 0)
        point_rho.append(rho)
    pooled = _pooled(point_rho, point_credit, pair_counts, boot_rho, boot_credit, rows, rng, rounds)
    return {"disciplines": rows, "pooled": pooled}


def _pooled(point_rho, point_credit, pair_counts, boot_rho, boot_credit, rows, rng, rounds) -> dict:
    rhos = np.array(point_rho, float)
    n_disc = int((~np.isnan(rhos)).sum())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        rho = float(np.nanmean(rhos)) if n_disc else math.nan
    total_pairs = int(sum(pair_counts))
    conc = sum(point_credit) / total_pairs if total_pairs else math.nan
    pooled = {"rho": _nan_to_none(rho), "rho_ci": [None, None], "concordance": _nan_to_none(conc),
              "concordance_ci": [None, None], "n_disciplines": n_disc, "n_pairs": total_pairs,
              "n_systems": max((r["n_systems"] for r in rows.values()), default=0),
              "ci_method": "none"}
    all_topic_level = boot_rho and len(boot_rho) == len(rows)
    if all_topic_level:  # stratified topic bootstrap: the same round in every discipline
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            b_rho = np.nanmean(np.vstack(boot_rho), axis=0)
        b_conc = np.sum(np.vstack(boot_credit), axis=0) / total_pairs if total_pairs else None
        pooled["ci_method"] = "topics resampled within each discipline"
    elif n_disc >= 2:  # per-system values only: resample disciplines
        idx = rng.integers(0, len(rhos), size=(rounds, len(rhos)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            b_rho = np.nanmean(rhos[idx], axis=1)
        credits, counts = np.array(point_credit, float), np.array(pair_counts, float)
        sums = counts[idx].sum(axis=1)
        b_conc = np.where(sums > 0, credits[idx].sum(axis=1) / np.maximum(sums, 1), math.nan)
        pooled["ci_method"] = "disciplines resampled"
    else:
        return pooled
    pooled["rho_ci"] = list(_interval(b_rho))
    if b_conc is not None:
        pooled["concordance_ci"] = list(_interval(np.asarray(b_conc, float)))
    return pooled


def pairwise_accuracy(credits: list[float], *, rounds: int = 1000, seed: int = 0) -> dict:
    """Mean of per-label credits (meta_eval.pair_credit: 1 agree, 0 disagree, 1/2 human tie)
    with a percentile bootstrap over label rows."""
    values = np.asarray(credits, float)
    if values.size == 0:
        return {"accuracy": None, "accuracy_ci": [None, None], "n_labels": 0}
    rng = np.random.default_rng(seed)
    boot = values[rng.integers(0, values.size, size=(rounds, values.size))].mean(axis=1)
    return {"accuracy": float(values.mean()), "accuracy_ci": list(_interval(boot)), "n_labels": int(values.size)}
