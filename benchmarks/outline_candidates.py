"""Which candidate outline features predict the experts' pairwise outline choices? (model v6 screening)

    python benchmarks/outline_candidates.py [--labels ../shared/data/asg_bench/human_outline_labels.jsonl]

Every candidate is a "higher is better" reading of one outline. For each, on the 643 decided expert
pairs: its own sign accuracy, and the leave-one-discipline-out accuracy of a non-negative pairwise
logistic regression on the model's outline features with and without it (C = 1 and 10). The
candidates are the ones tried for model v6 (BENCHMARKS.md, "Quality model v6"); only
o_section_separation entered the model.
"""

from __future__ import annotations

import json
import sys
from collections import Counter, defaultdict

import numpy as np
from scipy.optimize import minimize

from surveygraph.evaluation.markdown_parser import parse_markdown
from surveygraph.evaluation.quality.dataset import load_outline_labels
from surveygraph.evaluation.quality.features import (GENERIC_HEADINGS, OUTLINE_FEATURES, _outline, _stem,
                                                     clean_heading, content_words, heading_encoder)

LABELS = sys.argv[sys.argv.index("--labels") + 1] if "--labels" in sys.argv else \
    "../shared/data/asg_bench/human_outline_labels.jsonl"


def candidates(text: str, topic: str) -> dict[str, float]:
    survey = parse_markdown(text)
    entries = [(e.level, clean_heading(e.title)) for e in _outline(survey)]
    entries = [(lv, h) for lv, h in entries if h]
    empty = dict.fromkeys(("words_per_heading", "no_topic_echo", "no_repeated_frame", "no_word_overlap_across",
                           "no_close_heading", "topic_similarity"), 0.0)
    if len(entries) < 3:
        return empty
    top = min(lv for lv, _ in entries)
    topic_stems = {_stem(w) for w in content_words(topic)}
    specific = [h for _, h in entries if h not in GENERIC_HEADINGS]
    below = [h for lv, h in entries if lv > top]
    words = np.mean([len(content_words(h)) for h in specific]) if specific else 0.0
    echo = sum(1 for h in below if {_stem(w) for w in content_words(h)} & topic_stems) / len(below) if below else 0.0
    first = Counter(tuple(content_words(h)[:1]) for h in specific if len(content_words(h)) >= 2)
    framed = sum(1 for h in specific if len(content_words(h)) >= 2 and first[tuple(content_words(h)[:1])] >= 3)
    section, owners, kept = -1, [], []
    for level, heading in entries:
        section += level == top
        if heading not in GENERIC_HEADINGS:
            owners.append(section)
            kept.append(heading)
    stems = [{_stem(w) for w in content_words(h)} - topic_stems for h in kept]
    across = sum(1 for i, a in enumerate(stems) if a and any(
        b and owners[j] != owners[i] and len(a & b) / len(a | b) >= 0.5 for j, b in enumerate(stems) if j != i))
    if len(kept) < 2:
        return empty
    vectors = np.asarray(heading_encoder()(kept + [topic]))
    sim = vectors[:-1] @ vectors[:-1].T
    np.fill_diagonal(sim, -1.0)
    return {"words_per_heading": words / (words + 4.0), "no_topic_echo": 1.0 - echo,
            "no_repeated_frame": 1.0 - framed / len(specific) if specific else 0.0,
            "no_word_overlap_across": 1.0 - across / len(kept),
            "no_close_heading": 1.0 - float(np.clip(sim.max(axis=1), 0, 1).mean()),
            "topic_similarity": float((vectors[:-1] @ vectors[-1]).mean())}


def lodo_accuracy(x: np.ndarray, sign: np.ndarray, discipline: np.ndarray, c: float) -> float:
    x = x / x.std(axis=0).clip(1e-9)
    right = 0.0
    for held in sorted(set(discipline)):
        train = discipline != held
        xt, st = x[train], sign[train]

        def loss(w):
            margin = st * (xt @ w)
            grad = -(st / (1 + np.exp(margin))) @ xt / len(st) + w / (c * len(st))
            return np.logaddexp(0, -margin).mean() + w @ w / (2 * c * len(st)), grad

        w = minimize(loss, np.zeros(x.shape[1]), jac=True, method="L-BFGS-B", bounds=[(0, None)] * x.shape[1]).x
        p = x[~train] @ w
        right += np.where(p == 0, 0.5, np.sign(p) == sign[~train]).sum()
    return right / len(sign)


def main() -> None:
    rows = [json.loads(line) for line in open(LABELS, encoding="utf-8")]
    labels = load_outline_labels(LABELS)
    pairs = [(lab, candidates(r["outline_a"], r["topic"]), candidates(r["outline_b"], r["topic"]))
             for lab, r in zip(labels, rows) if lab.choice in ("a", "b")]
    sign = np.array([1.0 if lab.choice == "a" else -1.0 for lab, _, _ in pairs])
    discipline = np.array([lab.discipline for lab, _, _ in pairs])
    base = [n for n in OUTLINE_FEATURES if n != "o_section_separation"]

    def diffs(names: list[str]) -> np.ndarray:
        def value(lab, cand, side, n):
            return (lab.features_a if side == "a" else lab.features_b).get(n, cand.get(n, 0.0))
        return np.array([[value(lab, ca, "a", n) - value(lab, cb, "b", n) for n in names] for lab, ca, cb in pairs])

    print("| candidate | own sign accuracy | per-system mean | LODO, v5 outline features + it (C=1 / C=10) |")
    print("|---|---|---|---|")
    print(f"| (none: v5 outline features) | - | - | {lodo_accuracy(diffs(base), sign, discipline, 1):.3f} / "
          f"{lodo_accuracy(diffs(base), sign, discipline, 10):.3f} |")
    for name in ["o_section_separation", *pairs[0][1]]:
        d = diffs([name])[:, 0]
        own = np.mean(np.where(d == 0, 0.5, np.sign(d) == sign))
        per_system = defaultdict(list)
        for lab, ca, cb in pairs:
            for system, feats, cand in ((lab.system_a, lab.features_a, ca), (lab.system_b, lab.features_b, cb)):
                per_system[system].append(feats.get(name, cand.get(name)))
        means = ", ".join(f"{s} {np.mean(v):.2f}" for s, v in sorted(per_system.items()))
        with_it = diffs(base + [name])
        print(f"| {name} | {own:.3f} | {means} | {lodo_accuracy(with_it, sign, discipline, 1):.3f} / "
              f"{lodo_accuracy(with_it, sign, discipline, 10):.3f} |")


if __name__ == "__main__":
    main()
