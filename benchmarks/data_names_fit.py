"""Fit and check the evaluation-data name model (agents/data_names.py) on the labelled names.

    python benchmarks/data_names_fit.py [--labels benchmarks/data/labels/evaluation_data_names.jsonl]
        [--write]    # also write agents/data_name_model.json

The labels are (name, abstract) pairs the facet patterns accepted as evaluation data, on the 20
SurveyBench topics' pools, each read by a labeller who did not write the code (guide in the labels
file's header comment of BENCHMARKS.md); the features are stored with them (no abstract text).

Checked leave-one-topic-out with the threshold chosen inside each fold (an inner leave-one-topic-out
over the training topics maximises F0.5: a wrong name in a table costs more than a missing one).
Reported: precision and recall of the names kept, against the patterns alone (everything kept),
with 95% intervals from a bootstrap over topics.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import date
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression

ROOT = Path(__file__).resolve().parent
LABELS = ROOT / "data" / "labels" / "evaluation_data_names.jsonl"
GRID = tuple(round(float(q), 2) for q in np.arange(0.2, 0.75, 0.05))
C = 1.0


def load(path: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    rows = [r for r in rows if r["label"] in ("yes", "no")]  # "unsure" is no evidence either way
    return (np.array([r["features"] for r in rows], dtype=float), np.array([r["label"] == "yes" for r in rows]),
            np.array([r["topic"] for r in rows]))


def _fit(x: np.ndarray, y: np.ndarray) -> LogisticRegression:
    return LogisticRegression(C=C, max_iter=5000, class_weight="balanced").fit(x, y)


def _loto(x: np.ndarray, y: np.ndarray, topics: np.ndarray) -> np.ndarray:
    p = np.zeros(len(y))
    for topic in sorted(set(topics)):
        test = topics == topic
        p[test] = _fit(x[~test], y[~test]).predict_proba(x[test])[:, 1]
    return p


def _f05(y: np.ndarray, keep: np.ndarray) -> float:
    tp = float((keep & y).sum())
    precision, recall = tp / max(keep.sum(), 1), tp / max(y.sum(), 1)
    return 1.25 * precision * recall / max(0.25 * precision + recall, 1e-12)


def choose_threshold(x: np.ndarray, y: np.ndarray, topics: np.ndarray) -> float:
    p = _loto(x, y, topics)
    return max(GRID, key=lambda q: (_f05(y, p >= q), -q))


def nested(x: np.ndarray, y: np.ndarray, topics: np.ndarray) -> tuple[np.ndarray, dict[str, float]]:
    """Which held-out names are kept (outer leave-one-topic-out, inner threshold) and each fold's q."""
    keep = np.zeros(len(y), dtype=bool)
    chosen = {}
    for topic in sorted(set(topics)):
        test = topics == topic
        q = choose_threshold(x[~test], y[~test], topics[~test])
        keep[test] = _fit(x[~test], y[~test]).predict_proba(x[test])[:, 1] >= q
        chosen[topic] = q
    return keep, chosen


def bootstrap(y: np.ndarray, keep: np.ndarray, topics: np.ndarray, n: int = 2000, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    names = sorted(set(topics))
    by = {t: np.flatnonzero(topics == t) for t in names}
    stats = {"precision": [], "recall": []}
    for _ in range(n):
        idx = np.concatenate([by[t] for t in rng.choice(names, len(names))])
        yy, kk = y[idx], keep[idx]
        stats["precision"].append((yy & kk).sum() / max(kk.sum(), 1))
        stats["recall"].append((yy & kk).sum() / max(yy.sum(), 1))
    return {k: (float(np.percentile(v, 2.5)), float(np.percentile(v, 97.5))) for k, v in stats.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--labels", type=Path, default=LABELS)
    parser.add_argument("--write", action="store_true", help="write agents/data_name_model.json")
    args = parser.parse_args(argv)
    x, y, topics = load(args.labels)
    keep, chosen = nested(x, y, topics)
    everything = np.ones(len(y), dtype=bool)
    print(f"# evaluation-data names: {len(y)} labelled ({int(y.sum())} data), {len(set(topics))} topics\n")
    print("| reading | names kept | precision [95%] | recall [95%] |\n|---|---:|---:|---:|")
    for label, k in (("patterns alone (shipped before)", everything), ("patterns + model, leave-one-topic-out", keep)):
        ci = bootstrap(y, k, topics)
        print(f"| {label} | {int(k.sum())} | {(y & k).sum() / max(k.sum(), 1):.3f} [{ci['precision'][0]:.3f}, "
              f"{ci['precision'][1]:.3f}] | {(y & k).sum() / max(y.sum(), 1):.3f} [{ci['recall'][0]:.3f}, {ci['recall'][1]:.3f}] |")
    print(f"\nthresholds chosen inside the folds: {sorted(set(chosen.values()))}")
    if args.write:
        sys.path.insert(0, str(ROOT.parent.parent))
        from surveygraph.agents.data_names import FEATURES, MODEL_PATH

        model = _fit(x, y)
        record = {"features": list(FEATURES), "weights": [round(float(w), 6) for w in model.coef_[0]],
                  "intercept": round(float(model.intercept_[0]), 6), "threshold": choose_threshold(x, y, topics),
                  "fitted": str(date.today()), "labels": len(y), "command": "python benchmarks/data_names_fit.py --write"}
        MODEL_PATH.write_text(json.dumps(record, indent=1) + "\n")
        print(f"wrote {MODEL_PATH} (threshold {record['threshold']})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
