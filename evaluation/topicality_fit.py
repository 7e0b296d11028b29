"""Fit the topicality gate (``evaluation/data/topicality_gate.json``) on the shared ASG-Bench drafts.

    python -m surveygraph.evaluation.topicality_fit --data ../shared/data/asg_bench

Every draft (nine systems and the human surveys) is read against its own topic (label 1) and
against every other topic of the benchmark (label 0: other topics of its discipline and of the
others). A reading is a mean of cosines, so it is the cosine of the topic with the mean of the part's
unit vectors (the outline: the vector of its headings read as one text): each draft is encoded
once and read against any topic by one dot product.
One logistic curve per component maps its reading (t_outline, t_content, t_reference) to
P(on topic), with the classes weighted equally. Reported: leave-one-discipline-out AUC against
same-discipline and cross-discipline topics, the held-out P of own-topic drafts, and how many
own-topic drafts it would call off-topic. ``flag_below`` is the 5th percentile of the human surveys'
own references' (and headings') similarity to their topic: a reference the self-evaluation lists as
off-topic is less related to the topic than 95% of what the experts cited.
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
import time
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score

from ..errors import UserError
from .topicality import COMPONENT_READING, GATE_PATH, _unit, outline_text, survey_parts

PARTS = {"t_outline": "headings", "t_content": "sentences", "t_reference": "references"}
FLAG_QUANTILE = 0.05
HUMAN = "HumanSurvey"
POSITIVES = "human"  # see training_mask; "all" is reported beside it
NEGATIVES = "other_discipline"  # see training_mask; "all" is reported in BENCHMARKS.md


@dataclass
class DraftReading:
    system: str
    discipline: str
    topic: str
    means: dict[str, np.ndarray | None]  # part -> mean unit vector (None when the part is empty)
    items: dict[str, np.ndarray]  # human surveys: each reference's / heading's unit vector


def read_drafts(root: Path, encode, *, progress: bool = True) -> tuple[list[DraftReading], dict[tuple[str, str], np.ndarray]]:
    from .parsers import parse_survey

    files = sorted(p for folder in sorted(root.iterdir()) if folder.is_dir() for p in folder.glob("*__*.md"))
    if not files:
        raise UserError(f"no <system>/<discipline>__<topic>.md drafts under {root}")
    topics = sorted({(p.stem.split("__", 1)[0].lower(), p.stem.split("__", 1)[1]) for p in files})
    topic_vec = dict(zip(topics, _unit(np.asarray(encode([t for _, t in topics]), dtype=np.float32))))
    out, start = [], time.monotonic()
    for i, path in enumerate(files, 1):
        discipline, topic = path.stem.split("__", 1)
        survey = parse_survey(path, system=path.parent.name, topic=topic)
        parts = survey_parts(survey)
        means, items = {}, {}
        for reading, key in PARTS.items():
            texts = parts[key]
            if not texts:
                means[key] = None
                continue
            vectors = _unit(np.asarray(encode(texts), dtype=np.float32))
            means[key] = vectors.mean(axis=0)
            if key == "headings":  # read whole, as topicality.read_topicality does
                means[key] = _unit(np.asarray(encode([outline_text(texts)]), dtype=np.float32))[0]
            if path.parent.name == HUMAN and key in ("references", "headings"):
                items[key] = vectors
        out.append(DraftReading(path.parent.name, discipline.lower(), topic, means, items))
        if progress and (i % 50 == 0 or i == len(files)):
            rate = (time.monotonic() - start) / i
            print(f"read {i}/{len(files)} drafts · ETA {rate * (len(files) - i):.0f}s", file=sys.stderr)
    return out, topic_vec


def relative(cos_all: np.ndarray) -> np.ndarray:
    """Each topic's cosine minus the mean cosine to the *other* background topics (last axis):
    what a part says about this topic beyond what it says about any topic."""
    n = cos_all.shape[-1]
    return cos_all - (cos_all.sum(axis=-1, keepdims=True) - cos_all) / (n - 1)


def pair_rows(drafts: list[DraftReading], topic_vec: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(readings [n, 3], label, same-discipline flag, draft index) for every (draft, topic) pair;
    the benchmark's topics are each other's background."""
    keys = sorted(topic_vec)
    t_matrix = np.stack([topic_vec[k] for k in keys])
    xs, ys, same, idx = [], [], [], []
    for d_i, d in enumerate(drafts):
        # an empty part is no reading at all (NaN, left out of that component's fit), as at scoring time
        cols = [relative(t_matrix @ d.means[PARTS[r]]) if d.means[PARTS[r]] is not None else np.full(len(keys), np.nan)
                for r in COMPONENT_READING.values()]
        for k_i, key in enumerate(keys):
            xs.append([c[k_i] for c in cols])
            ys.append(1 if key == (d.discipline, d.topic) else 0)
            same.append(key[0] == d.discipline)
            idx.append(d_i)
    return np.array(xs), np.array(ys), np.array(same), np.array(idx)


def _fit(x: np.ndarray, y: np.ndarray) -> LogisticRegression:
    return LogisticRegression(class_weight="balanced", C=1e4, max_iter=1000).fit(x.reshape(-1, 1), y)


def training_mask(drafts: list[DraftReading], y: np.ndarray, idx: np.ndarray, positives: str,
                  same: np.ndarray | None = None, negatives: str = "all") -> np.ndarray:
    """Which pairs train the curve. Positives: every own-topic pair, or (positives="human") only the
    human surveys' - a system's draft under its own topic may itself be off-topic. Negatives: every
    other topic, or (negatives="other_discipline") only topics of other disciplines - a sibling topic
    of the same discipline is partly the same subject, and the gate is there for the survey that is
    not about its topic at all."""
    keep_pos = np.ones(len(y), dtype=bool) if positives == "all" else np.array([drafts[i].system == HUMAN for i in idx])
    keep_neg = np.ones(len(y), dtype=bool) if negatives == "all" or same is None else ~same
    return ((y == 1) & keep_pos) | ((y == 0) & keep_neg)


def lodo(drafts: list[DraftReading], x: np.ndarray, y: np.ndarray, same: np.ndarray, idx: np.ndarray,
         positives: str = POSITIVES, negatives: str = NEGATIVES) -> dict:
    """Per component: held-out AUC (same- and other-discipline negatives) and own-topic P."""
    disc = np.array([drafts[i].discipline for i in idx])
    usable = training_mask(drafts, y, idx, positives, same, negatives)
    out = {}
    for col, (component, _reading) in enumerate(COMPONENT_READING.items()):
        read = ~np.isnan(x[:, col])
        probs = np.full(len(y), np.nan)
        for held in sorted(set(disc)):
            train, test = (disc != held) & usable & read, (disc == held) & read
            model = _fit(x[train, col], y[train])
            probs[test] = model.predict_proba(x[test, col].reshape(-1, 1))[:, 1]
        y_c, same_c, idx_c, probs = y[read], same[read], idx[read], probs[read]
        own = probs[y_c == 1]
        systems = sorted({d.system for d in drafts})
        per_system = {s: float(np.mean([p for p, i in zip(own, idx_c[y_c == 1]) if drafts[i].system == s]))
                      for s in systems if any(drafts[i].system == s for i in idx_c[y_c == 1])}
        out[component] = {
            "auc_same_discipline": float(roc_auc_score(y_c[(y_c == 1) | same_c], probs[(y_c == 1) | same_c])),
            "auc_other_disciplines": float(roc_auc_score(y_c[(y_c == 1) | ~same_c], probs[(y_c == 1) | ~same_c])),
            "own_topic_p_mean": float(own.mean()),
            "own_topic_p_below_half": int((own < 0.5).sum()),
            "own_topic_drafts": int(len(own)),
            "drafts_without_reading": int(len(drafts) - len(own)),
            "other_discipline_p_mean": float(probs[(y_c == 0) & ~same_c].mean()),
            "same_discipline_p_mean": float(probs[(y_c == 0) & same_c].mean()),
            "own_topic_p_mean_per_system": per_system,
        }
    return out


def build_gate(drafts: list[DraftReading], topic_vec: dict, encoder: str, command: str) -> dict:
    x, y, same, idx = pair_rows(drafts, topic_vec)
    gate: dict = {"version": "1", "encoder": encoder, "date": date.today().isoformat(), "command": command,
                  "training_data": {"drafts": len(drafts), "systems": sorted({d.system for d in drafts}),
                                    "topics": len(topic_vec), "pairs": int(len(y)), "own_topic_pairs": int(y.sum())},
                  "method": "logistic regression of each component's topic reading on own-topic (1) vs "
                            "other-topic (0) pairs, classes weighted equally",
                  "positives": POSITIVES, "lodo": lodo(drafts, x, y, same, idx),
                  "lodo_other_positives": lodo(drafts, x, y, same, idx, "all" if POSITIVES == "human" else "human"),
                  "components": {}}
    usable = training_mask(drafts, y, idx, POSITIVES, same, NEGATIVES)
    for col, (component, reading) in enumerate(COMPONENT_READING.items()):
        rows = usable & ~np.isnan(x[:, col])
        model = _fit(x[rows, col], y[rows])
        gate["components"][component] = {"reading": reading, "intercept": float(model.intercept_[0]),
                                         "slope": float(model.coef_[0][0])}
    keys = sorted(topic_vec)
    t_matrix = np.stack([topic_vec[k] for k in keys])
    gate["background_topics"] = [topic for _, topic in keys]
    flags = {}
    for key in ("references", "headings"):
        values = []
        for d in (d for d in drafts if d.system == HUMAN and key in d.items):
            values.extend(relative(d.items[key] @ t_matrix.T)[:, keys.index((d.discipline, d.topic))].tolist())
        flags[key] = float(np.quantile(values, FLAG_QUANTILE))
    gate["flag_below"] = flags
    gate["flag_quantile"] = FLAG_QUANTILE
    return gate


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m surveygraph.evaluation.topicality_fit",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data/asg_bench"))
    parser.add_argument("--encoder", default="minilm",
                        help="sentence encoder (default minilm: a minilm-static gate separates topics far less "
                             "well, LODO AUC 0.72-0.80 against 0.87-0.95; BENCHMARKS.md)")
    parser.add_argument("--out", type=Path, default=GATE_PATH)
    parser.add_argument("--readings", type=Path, default=None,
                        help="pickle of the encoded drafts: written after reading, reused when present")
    args = parser.parse_args(argv)
    from ..settings import load_settings
    from .scoring import embedding_memo

    settings = load_settings()
    encoder = args.encoder
    settings = settings.model_copy(update={"evaluation": settings.evaluation.model_copy(update={"embedding_model": encoder})})
    try:
        if not args.data.is_dir():
            raise UserError(f"ASG-Bench folder not found: {args.data}")
        if args.readings and args.readings.is_file():
            drafts, topic_vec = pickle.loads(args.readings.read_bytes())
        else:
            drafts, topic_vec = read_drafts(args.data, embedding_memo(settings))
            if args.readings:
                args.readings.write_bytes(pickle.dumps((drafts, topic_vec)))
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    command = f"python -m surveygraph.evaluation.topicality_fit --data ../shared/data/asg_bench --encoder {encoder}"
    gate = build_gate(drafts, topic_vec, encoder, command)
    tmp = args.out.with_suffix(".tmp")
    tmp.write_text(json.dumps(gate, indent=1) + "\n", encoding="utf-8")
    tmp.replace(args.out)
    for component, row in gate["lodo"].items():
        print(f"{component:<10} LODO AUC same-discipline {row['auc_same_discipline']:.3f} · other disciplines "
              f"{row['auc_other_disciplines']:.3f} · own-topic P {row['own_topic_p_mean']:.3f} "
              f"({row['own_topic_p_below_half']}/{row['own_topic_drafts']} below 0.5)")
    print(f"flag below: {gate['flag_below']}\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
