"""Does the topicality gate keep the quality score's system ranking, and what does it do per draft?

    python benchmarks/quality_meaning.py --data ../shared/data/asg_bench --readings /tmp/read_minilm.pkl

For every ASG-Bench draft: the learned form scores (shipped model) and P(on topic) per component from
a gate fitted *without the draft's discipline* (leave-one-discipline-out), then:
- per-discipline Spearman ρ of system means against SurveyLens' rubric, form only vs gated;
- each system's and the human surveys' mean reference score, form only vs gated (SurveyLens' rubric
  puts human reference lists first: 3.13 against at most 2.83 for a system);
- per draft, scored against a topic of another discipline: the drop of each component.
Writes benchmarks/results/quality_meaning.md.
"""

from __future__ import annotations

import argparse
import pickle
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from surveygraph.evaluation.quality.dataset import load_drafts, load_reference_scores  # noqa: E402
from surveygraph.evaluation.quality.model import COMPONENTS, load_model, score_features  # noqa: E402
from surveygraph.evaluation.topicality import COMPONENT_READING, gated, on_topic_probability  # noqa: E402
from surveygraph.evaluation import topicality_fit as fit  # noqa: E402
from surveygraph.evaluation.topicality_fit import HUMAN, DraftReading, _fit, pair_rows, training_mask  # noqa: E402

FITTED = ("outline", "content", "reference")


def heldout_gates(drafts, topic_vec):
    """discipline -> component -> (intercept, slope) fitted on the other disciplines."""
    x, y, same, idx = pair_rows(drafts, topic_vec)
    disc = np.array([drafts[i].discipline for i in idx])
    usable = training_mask(drafts, y, idx, fit.POSITIVES, same, fit.NEGATIVES)
    out = {}
    for held in sorted(set(disc)):
        train = (disc != held) & usable
        out[held] = {}
        for col, component in enumerate(COMPONENT_READING):
            rows = train & ~np.isnan(x[:, col])
            m = _fit(x[rows, col], y[rows])
            out[held][component] = {"intercept": float(m.intercept_[0]), "slope": float(m.coef_[0][0])}
    return out, x, y, idx


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, default=Path("../shared/data/asg_bench"))
    parser.add_argument("--readings", type=Path, required=True, help="pickle written by topicality_fit --readings")
    parser.add_argument("--negatives", choices=("all", "other_discipline"), default=None)
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name("results") / "quality_meaning.md")
    args = parser.parse_args(argv)
    import __main__
    __main__.DraftReading = DraftReading  # the pickle names the class by its defining module
    drafts, topic_vec = pickle.loads(args.readings.read_bytes())
    if args.negatives:
        fit.NEGATIVES = args.negatives
    model = load_model()
    targets = load_reference_scores()
    systems = {s for s, _ in targets["overall"]} | {HUMAN}
    feats = {(d.system, d.discipline.lower(), d.topic): d.features
             for d in load_drafts(args.data, systems, progress=False)}
    gates, x, y, idx = heldout_gates(drafts, topic_vec)
    keys = sorted(topic_vec)
    rows = []  # (draft, form scores, gated own-topic scores, gated other-discipline scores)
    for d_i, d in enumerate(drafts):
        f = feats.get((d.system, d.discipline, d.topic))
        if f is None:
            continue
        form = score_features(f, model)
        sel = idx == d_i
        readings, labels = x[sel], y[sel]
        own = readings[labels == 1][0]
        other = [readings[k] for k, key in enumerate(keys) if key[0] != d.discipline]
        g = gates[d.discipline]

        def gate_all(reading):  # no reading (an empty part): form only, as read_quality does
            s = {c: form[c] if np.isnan(reading[i]) else gated(form[c], on_topic_probability(reading[i], g[c]))
                 for i, c in enumerate(FITTED)}
            s["overall"] = float(np.mean([s[c] for c in FITTED]))
            return s
        rows.append((d, form, gate_all(own), [gate_all(r) for r in other]))
    lines = ["## Quality that reads the topic (issue 19)", "",
             "`python benchmarks/quality_meaning.py --data ../shared/data/asg_bench --readings <topicality_fit "
             "readings>`: every ASG-Bench draft (9 systems + the human surveys) with the shipped model's form "
             "scores and the topicality gate fitted leave-one-discipline-out (MiniLM readings relative to the "
             "benchmark's other topics).", ""]
    lines += ["### System ranking against SurveyLens' rubric (mean per-discipline Spearman ρ)", "",
              "| component | form only | gated by P(on topic) |", "|---|---|---|"]
    for component in COMPONENTS:
        rhos = {"form": [], "gated": []}
        for disc in sorted({r[0].discipline for r in rows}):
            cell = defaultdict(lambda: {"form": [], "gated": []})
            for d, form, own, _ in rows:
                if d.discipline == disc and d.system != HUMAN:
                    cell[d.system]["form"].append(form[component])
                    cell[d.system]["gated"].append(own[component])
            names = sorted(s for s in cell if (s, disc) in targets[component])
            truth = [targets[component][(s, disc)] for s in names]
            for kind in rhos:
                rhos[kind].append(spearmanr([np.mean(cell[s][kind]) for s in names], truth).statistic)
        lines.append(f"| {component} | {np.mean(rhos['form']):+.3f} | {np.mean(rhos['gated']):+.3f} |")
    lines += ["", "### Mean score per system (all six disciplines)", "",
              "| system | P(on topic) outline / content / reference | reference form | reference gated | overall form | overall gated |",
              "|---|---|---|---|---|---|"]
    by_system = defaultdict(list)
    for d, form, own, _ in rows:
        by_system[d.system].append((form, own))
    for system, vals in sorted(by_system.items(), key=lambda kv: -np.mean([v[1]["reference"] for v in kv[1]])):
        p = [np.mean([(o[c] - 1) / (f[c] - 1) if f[c] > 1 else 1.0 for f, o in vals]) for c in FITTED]
        lines.append(f"| {system} | {p[0]:.2f} / {p[1]:.2f} / {p[2]:.2f} | "
                     f"{np.mean([f['reference'] for f, _ in vals]):.2f} | {np.mean([o['reference'] for _, o in vals]):.2f} | "
                     f"{np.mean([f['overall'] for f, _ in vals]):.2f} | {np.mean([o['overall'] for _, o in vals]):.2f} |")
    lines += ["", "### Scored against a topic of another discipline (per draft, mean over those topics)", "",
              "| component | own topic (gated) | other discipline's topic | mean drop | drafts dropping ≥ 1.0 (≥ 1.5 overall) |",
              "|---|---|---|---|---|"]
    for component in COMPONENTS:
        own = np.array([r[2][component] for r in rows])
        other = np.array([np.mean([o[component] for o in r[3]]) for r in rows])
        need = 1.5 if component == "overall" else 1.0
        lines.append(f"| {component} | {own.mean():.2f} | {other.mean():.2f} | {(own - other).mean():.2f} | "
                     f"{int(((own - other) >= need).sum())} of {len(rows)} |")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
