"""Leave-one-topic-out checks shared by the small learned checks' fit scripts
(benchmarks/data_names_fit.py, benchmarks/limitations_fit.py).

``fit(train) -> predict(rows) -> probabilities`` is all a check provides: the threshold is chosen
inside each fold by an inner leave-one-topic-out over the training topics, maximising F0.5 (a wrong
item printed costs more than a missing one), and the outer fold reads the held-out topic with it.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

GRID = tuple(round(float(q), 2) for q in np.arange(0.2, 0.75, 0.05))
Fit = Callable[[np.ndarray], Callable[[np.ndarray], np.ndarray]]  # training rows -> (rows -> P(yes))


def loto(fit: Fit, rows: np.ndarray, topics: np.ndarray) -> np.ndarray:
    p = np.zeros(len(rows))
    for topic in sorted(set(topics[rows])):
        test = rows[topics[rows] == topic]
        p[np.isin(rows, test)] = fit(rows[topics[rows] != topic])(test)
    return p


def f05(y: np.ndarray, keep: np.ndarray) -> float:
    tp = float((keep & y).sum())
    precision, recall = tp / max(keep.sum(), 1), tp / max(y.sum(), 1)
    return 1.25 * precision * recall / max(0.25 * precision + recall, 1e-12)


def choose_threshold(fit: Fit, rows: np.ndarray, y: np.ndarray, topics: np.ndarray) -> float:
    p = loto(fit, rows, topics)
    return max(GRID, key=lambda q: (f05(y[rows], p >= q), -q))


def nested(fit: Fit, y: np.ndarray, topics: np.ndarray) -> tuple[np.ndarray, dict[str, float]]:
    """Which items of each held-out topic are kept, and the threshold each fold chose."""
    every = np.arange(len(y))
    keep = np.zeros(len(y), dtype=bool)
    chosen = {}
    for topic in sorted(set(topics)):
        train, test = every[topics != topic], every[topics == topic]
        q = choose_threshold(fit, train, y, topics)
        keep[test] = fit(train)(test) >= q
        chosen[topic] = q
    return keep, chosen


def bootstrap(y: np.ndarray, keep: np.ndarray, topics: np.ndarray, n: int = 2000, seed: int = 0) -> dict:
    """95% intervals of precision and recall of the kept items, resampling topics."""
    rng = np.random.default_rng(seed)
    names = sorted(set(topics))
    by = {t: np.flatnonzero(topics == t) for t in names}
    stats: dict[str, list[float]] = {"precision": [], "recall": []}
    for _ in range(n):
        idx = np.concatenate([by[t] for t in rng.choice(names, len(names))])
        yy, kk = y[idx], keep[idx]
        stats["precision"].append((yy & kk).sum() / max(kk.sum(), 1))
        stats["recall"].append((yy & kk).sum() / max(yy.sum(), 1))
    return {k: (float(np.percentile(v, 2.5)), float(np.percentile(v, 97.5))) for k, v in stats.items()}


def report(title: str, y: np.ndarray, keep: np.ndarray, topics: np.ndarray, chosen: dict[str, float],
           before: str) -> None:
    everything = np.ones(len(y), dtype=bool)
    print(f"# {title}: {len(y)} labelled ({int(y.sum())} yes), {len(set(topics))} topics\n")
    print("| reading | kept | precision [95%] | recall [95%] |\n|---|---:|---:|---:|")
    for label, k in ((before, everything), ("with the learned check, leave-one-topic-out", keep)):
        ci = bootstrap(y, k, topics)
        print(f"| {label} | {int(k.sum())} | {(y & k).sum() / max(k.sum(), 1):.3f} [{ci['precision'][0]:.3f}, "
              f"{ci['precision'][1]:.3f}] | {(y & k).sum() / max(y.sum(), 1):.3f} [{ci['recall'][0]:.3f}, "
              f"{ci['recall'][1]:.3f}] |")
    print(f"\nthresholds chosen inside the folds: {sorted(set(chosen.values()))}")
