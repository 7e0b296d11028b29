"""Can the reference titles, read for meaning, lift the reference score's system ranking? (session 12)

    python benchmarks/reference_candidates.py [--data ../shared/data/asg_bench] [--labels FILE]

SurveyLens' reference judge sees the list of reference *titles* only (spec §2.3). Each candidate is
a "higher is better" reading of one draft's list:
- ``title_topic_similarity``: mean cosine of the titles to the topic (bundled MiniLM);
- ``titles_above_background``: share of titles closer to the topic than the 95th percentile of
  the topic's similarity to the other topics' titles (the corpus background of the data itself);
- ``title_coherence``: mean cosine between the list's own titles (one subject, not a scatter);
- ``title_specificity``: share of titles longer than three words ("Data", "Computer Science" are not
  a work's title);
- ``authors_given``: share of entries naming authors. The judge does not see them, so this one
  tests a confound (systems that give authors also choose well), not a cause.
For each: its own system-level ρ (no fitting), then the nested leave-one-discipline-out reference ρ
and overall ρ with it added to the reference model (outline and content held out as shipped).
Last, the overall as a non-negative stacked combination of the three held-out components, its
weights fitted to the overall rubric on the training disciplines' inner held-out predictions.
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import numpy as np
from scipy.optimize import nnls

from surveygraph.evaluation.parsers import parse_survey
from surveygraph.evaluation.quality import train as T
from surveygraph.evaluation.quality.agreement import discipline_rho, rho_interval, system_means
from surveygraph.evaluation.quality.dataset import load_training_set
from surveygraph.evaluation.quality.features import ALL_FEATURES, REFERENCE_FEATURES, heading_encoder

ARGS = dict(zip(sys.argv[1::2], sys.argv[2::2]))
DATA = Path(ARGS.get("--data", "../shared/data/asg_bench"))
LABELS = Path(ARGS.get("--labels", DATA / "human_outline_labels.jsonl"))
COMPONENTS = ("outline", "content", "reference")
_AUTHOR = re.compile(r"[A-Z][a-z]+(?:,\s*[A-Z]\.|\s+[A-Z]\.|\s+et al)|(?:[A-Z]\.\s*){1,2}[A-Z][a-z]+")


def title_lists(drafts) -> dict[tuple[str, str, str], tuple[list[str], list[str]]]:
    out = {}
    for d in drafts:
        survey = parse_survey(d.path, system=d.system, topic=d.topic)
        out[(d.system, d.discipline, d.topic)] = ([(r.title or r.text)[:200] for r in survey.references][:300],
                                                  [r.text for r in survey.references])
    return out


def candidates(lists, encode) -> dict[tuple[str, str, str], dict[str, float]]:
    topics = sorted({k[2] for k in lists})
    topic_vec = dict(zip(topics, encode(topics)))
    vectors = {k: (encode(titles) if titles else np.zeros((0, 384))) for k, (titles, _) in lists.items()}
    background = {}  # the topic against every other topic's titles
    for topic in topics:
        others = np.vstack([v for k, v in vectors.items() if k[2] != topic and len(v)])
        background[topic] = float(np.percentile(others @ topic_vec[topic], 95))
    out = {}
    for key, (titles, entries) in lists.items():
        v, n = vectors[key], len(titles)
        if not n:
            out[key] = dict.fromkeys(("title_topic_similarity", "titles_above_background", "title_coherence",
                                      "title_specificity", "authors_given"), 0.0)
            continue
        sims = v @ topic_vec[key[2]]
        gram = v @ v.T
        out[key] = {"title_topic_similarity": float(sims.mean()),
                    "titles_above_background": float((sims > background[key[2]]).mean()),
                    "title_coherence": float((gram.sum() - n) / (n * (n - 1))) if n > 1 else 0.0,
                    "title_specificity": sum(1 for t in titles if len(t.split()) > 3) / n,
                    "authors_given": sum(1 for e in entries if _AUTHOR.search(e)) / n}
    return out


def use_features(names: tuple[str, ...]) -> None:
    """Point the trainer at ALL_FEATURES + the candidates (the reference model gets them)."""
    every = ALL_FEATURES + names
    T.ALL_FEATURES = every
    T.feature_matrix = lambda drafts, cols=every: np.array([[d.features[n] for n in cols] for d in drafts], float)
    T.COMPONENT_FEATURES["reference"] = REFERENCE_FEATURES + names


def overall_rho(drafts, held, targets) -> tuple[float, list[float]]:
    per = discipline_rho(drafts, np.mean([held[c] for c in COMPONENTS], axis=0), targets, "overall")
    return float(np.mean(list(per.values()))), rho_interval(per)


def stacked(drafts, humans, labels, targets, held, hyper) -> np.ndarray:
    """Overall = w · (held-out components), w ≥ 0 fitted per outer fold on the inner held-out
    component scores of the training disciplines (hyper-parameters as the outer fold chose them)."""
    out = np.zeros(len(drafts))
    for h in sorted({d.discipline for d in drafts}):
        train = [d for d in drafts if d.discipline != h]
        inner = {c: np.zeros(len(train)) for c in COMPONENTS}
        for g in sorted({d.discipline for d in train}):
            rows = [d for d in train if d.discipline != g]
            idx = [i for i, d in enumerate(train) if d.discipline == g]
            for c in COMPONENTS:
                fit_rows = rows + ([x for x in humans if x.discipline not in (h, g)] if c == "reference" else [])
                labs = [lab for lab in labels if lab.discipline not in (h, g)] if c == "outline" else None
                alpha, form, weight = hyper[c][h]
                fit = T.fit_component(fit_rows, targets, c, alpha, labs, form, weight)
                a, b = T.calibration(fit, fit_rows, targets, c)
                inner[c][idx] = np.clip(a + b * T.predict(fit, [train[i] for i in idx]), 1, 5)
        means = {c: system_means(train, inner[c]) for c in COMPONENTS}
        keys = sorted(means["outline"])
        x = np.array([[means[c][k] for c in COMPONENTS] for k in keys])
        y = np.array([targets["overall"][k] for k in keys])
        for disc in {k[1] for k in keys}:
            rows = [i for i, k in enumerate(keys) if k[1] == disc]
            x[rows] -= x[rows].mean(axis=0)
            y[rows] -= y[rows].mean()
        w, _ = nnls(x, y)
        idx = [i for i, d in enumerate(drafts) if d.discipline == h]
        out[idx] = sum(w[j] * held[c][idx] for j, c in enumerate(COMPONENTS))
        print(f"  stacked weights, {h} held out: " + ", ".join(f"{c} {v / w.sum():.2f}" for c, v in zip(COMPONENTS, w)))
    return out


def main() -> None:
    start = time.monotonic()
    drafts, humans, targets, labels = load_training_set(DATA, LABELS)
    found = candidates(title_lists(drafts + humans), heading_encoder())
    names = tuple(next(iter(found.values())))
    for d in drafts + humans:
        d.features.update(found[(d.system, d.discipline, d.topic)])
    print(f"reference lists read in {time.monotonic() - start:.0f}s")
    for name in names:
        x = np.array([d.features[name] for d in drafts])
        single = np.mean(list(discipline_rho(drafts, x, targets, "reference").values()))
        print(f"{name:<24} own reference ρ {single:+.3f}")
    held, hyper = {}, {c: {} for c in COMPONENTS}
    for c in COMPONENTS:
        rows = drafts + (humans if c == "reference" else [])
        result, scores = T.lodo(rows, targets, c, labels if c == "outline" else None)
        held[c] = scores[:len(drafts)]
        for h in result["alpha_per_fold"]:
            hyper[c][h] = (result["alpha_per_fold"][h], result["target_per_fold"][h],
                           result.get("label_weight_per_fold", {}).get(h, 0.0))
        print(f"shipped {c:<9} LODO ρ {result['rho_mean']:+.3f} {result['rho_interval']}", flush=True)
    print(f"shipped overall   LODO ρ {overall_rho(drafts, held, targets)}")
    for name in names:
        use_features((name,))
        result, scores = T.lodo(drafts + humans, targets, "reference")
        trial = {**held, "reference": scores[:len(drafts)]}
        above = result.get("human_surveys_above_systems", {})
        print(f"+ {name:<22} reference ρ {result['rho_mean']:+.3f}  overall ρ {overall_rho(drafts, trial, targets)[0]:+.3f}"
              f"  human lists above {sorted(above.values())}", flush=True)
    use_features(())
    per = discipline_rho(drafts, stacked(drafts, humans, labels, targets, held, hyper), targets, "overall")
    print(f"stacked overall   LODO ρ {np.mean(list(per.values())):+.3f} {rho_interval(per)}")
    print(f"done in {time.monotonic() - start:.0f}s")


if __name__ == "__main__":
    main()
