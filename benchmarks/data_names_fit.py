"""Fit and check the evaluation-data name model (agents/data_names.py) on the labelled names.

    python benchmarks/data_names_fit.py [--labels benchmarks/data/labels/evaluation_data_names.jsonl]
        [--write]    # also write agents/data_name_model.json

The labels are (name, abstract) pairs the facet patterns accepted as evaluation data, on the 20
SurveyBench topics' pools, each read by a labeller who did not write the code (the guide is quoted in
BENCHMARKS.md, "Evaluation data names"); the features are stored with them (no abstract text).
Checked leave-one-topic-out with the threshold chosen inside each fold (benchmarks/_label_fit.py);
reported against the patterns alone (every name kept), with 95% intervals over topics.
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
sys.path.insert(0, str(ROOT))
from _label_fit import choose_threshold, nested, report  # noqa: E402

LABELS = ROOT / "data" / "labels" / "evaluation_data_names.jsonl"
C = 1.0


def load(path: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    rows = [r for r in rows if r["label"] in ("yes", "no")]  # "unsure" is no evidence either way
    return (np.array([r["features"] for r in rows], dtype=float), np.array([r["label"] == "yes" for r in rows]),
            np.array([r["topic"] for r in rows]))


def _fit(x: np.ndarray, y: np.ndarray) -> LogisticRegression:
    return LogisticRegression(C=C, max_iter=5000, class_weight="balanced").fit(x, y)


def fitter(x: np.ndarray, y: np.ndarray):
    def fit(train: np.ndarray):
        model = _fit(x[train], y[train])
        return lambda rows: model.predict_proba(x[rows])[:, 1]
    return fit


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--labels", type=Path, default=LABELS)
    parser.add_argument("--write", action="store_true", help="write agents/data_name_model.json")
    args = parser.parse_args(argv)
    x, y, topics = load(args.labels)
    keep, chosen = nested(fitter(x, y), y, topics)
    report("evaluation-data names", y, keep, topics, chosen, "patterns alone (shipped before)")
    if args.write:
        sys.path.insert(0, str(ROOT.parent.parent))
        from surveygraph.agents.data_names import FEATURES, MODEL_PATH

        model = _fit(x, y)
        record = {"features": list(FEATURES), "weights": [round(float(w), 6) for w in model.coef_[0]],
                  "intercept": round(float(model.intercept_[0]), 6),
                  "threshold": choose_threshold(fitter(x, y), np.arange(len(y)), y, topics),
                  "fitted": str(date.today()), "labels": len(y), "command": "python benchmarks/data_names_fit.py --write"}
        MODEL_PATH.write_text(json.dumps(record, indent=1) + "\n")
        print(f"wrote {MODEL_PATH} (threshold {record['threshold']})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
