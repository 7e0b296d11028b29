"""Fit and check the topic judge on the corpus-wide labelled set, leave-one-topic-out.

    python benchmarks/relevance_bench.py --home <data home with the shared corpus ingested> \
        [--labels tests/data/relevance_corpus_labels.jsonl] [--iterations 1] [--write] [--topics A,B]

The labels were drawn from strata that cover the whole corpus (benchmarks/relevance_sample.py), so
inverse-probability weights (stratum size / sampled) estimate precision and *corpus-wide* recall of
the pool that generation builds (retrieval/literature_pool.py):

1. Every topic's round-0 judge (vocabulary learned from the title seeds; no model involved) gives
   features for its labelled papers; model M0 is fitted on the other topics (threshold: the lowest
   cut with weighted precision >= 0.9 on them).
2. Each iteration builds every topic's full pool with the model fitted without it, reads the final
   judge's features of the labelled papers, and refits leave-one-topic-out on those.
3. The held-out topic's pool, built with its leave-one-out model, is scored: precision = weighted
   share of kept labelled papers that are on topic; recall = weighted share of on-topic labelled
   papers that were kept (papers never retrieved count as missed). 95% intervals by bootstrap
   within strata; the mean's interval by bootstrap over the per-topic replicates.

``--write`` fits on every topic (last iteration's features) and writes the model of the home's index
encoder: retrieval/relevance_model.json (minilm-head, the default) or relevance_model_static.json.

``--heldout FILE`` (e.g. tests/data/relevance_heldout_labels.jsonl: six two-facet topics a user
would type, never fitted on) skips the fit: it builds those topics' pools with the shipped model,
with the facet gate and without (``generation.facet_gate``), and scores them the same way.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import REPO_ROOT, load_average, offline_env  # noqa: E402

LABELS = REPO_ROOT / "tests" / "data" / "relevance_corpus_labels.jsonl"
OLD_STRATUM_SIZE = {"top": 60, "pool": 240, "deep": 700}  # the session-7 set (tests/data/relevance_labels.jsonl)
MIN_PRECISION = 0.9
BOOTSTRAP = 1000


def load_labels(path: Path) -> dict[str, list[dict]]:
    by_topic: dict[str, list[dict]] = defaultdict(list)
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            by_topic[row["topic"]].append(row)
    return dict(by_topic)


def weights_of(rows: list[dict]) -> np.ndarray:
    sampled = defaultdict(int)
    for r in rows:
        sampled[r["stratum"]] += 1
    return np.array([(r.get("stratum_size") or OLD_STRATUM_SIZE[r["stratum"]]) / sampled[r["stratum"]] for r in rows])


def paper_key(arxiv_id: str) -> str:
    return arxiv_id if arxiv_id.startswith("arxiv:") else f"arxiv:{arxiv_id}"


def labelled_features(judge, rows: list[dict], corpus) -> np.ndarray:
    from surveygraph.retrieval.topic_judge import PaperRecord

    ids = [paper_key(r["arxiv_id"]) for r in rows]
    texts, vectors = corpus.texts(ids), corpus.vectors(ids)
    records = [PaperRecord(i, *texts.get(i, ("", "")), vectors.get(i)) for i in ids]
    return judge.features(records)


def metrics(kept: np.ndarray, y: np.ndarray, w: np.ndarray) -> tuple[float, float]:
    tp = float(w[kept & (y == 1)].sum())
    precision = tp / float(w[kept].sum()) if kept.any() else float("nan")
    relevant = float(w[y == 1].sum())
    return precision, (tp / relevant if relevant else float("nan"))


def bootstrap(kept: np.ndarray, y: np.ndarray, w: np.ndarray, strata: np.ndarray, rng) -> np.ndarray:
    """(BOOTSTRAP x 2) precision/recall replicates, rows resampled within their stratum."""
    groups = [np.flatnonzero(strata == s) for s in np.unique(strata)]
    out = np.empty((BOOTSTRAP, 2))
    for b in range(BOOTSTRAP):
        pick = np.concatenate([rng.choice(g, len(g)) for g in groups])
        out[b] = metrics(kept[pick], y[pick], w[pick])
    return out


def fit_without(held: str, features: dict, data: dict):
    from surveygraph.retrieval.topic_judge import best_threshold, fit_model

    train = [t for t in features if t != held]
    x = np.vstack([features[t] for t in train])
    y = np.concatenate([data[t]["y"] for t in train])
    w = np.concatenate([data[t]["w"] for t in train])
    model = fit_model(x, y, w)
    cut = best_threshold(model.probability(x), y, w, min_precision=MIN_PRECISION)
    return fit_model(x, y, w, threshold=cut)


def score_heldout(path: Path, corpus) -> None:
    """The shipped model on topics it was never fitted on, facet gate on and off."""
    from surveygraph.retrieval.literature_pool import PoolOptions, build_literature_pool

    started = time.perf_counter()
    rows_by_topic = load_labels(path)
    print(f"\n# shipped topic judge on held-out topics ({len(rows_by_topic)} topics, "
          f"{sum(map(len, rows_by_topic.values()))} labels; never fitted on)\n")
    print("| topic | facet gate | kept | est. on topic (corpus) | labelled estimate | precision [95%] "
          "| corpus-wide recall [95%] | pool s |")
    print("|---|---|---:|---:|---:|---|---|---:|")
    rng = np.random.default_rng(28)
    means: dict[bool, list] = {True: [], False: []}
    for topic, rows in rows_by_topic.items():
        ids = [paper_key(r["arxiv_id"]) for r in rows]
        y, w = np.array([r["label"] for r in rows]), weights_of(rows)
        strata = np.array([r["stratum"] for r in rows])
        for gate in (False, True):
            pool = build_literature_pool(topic, corpus, options=PoolOptions(facet_gate=gate))
            kept = np.array([i in set(pool.kept) for i in ids])
            precision, recall = metrics(kept, y, w)
            lo, hi = np.nanpercentile(bootstrap(kept, y, w, strata, rng), [2.5, 97.5], axis=0)
            means[gate].append((precision, recall))
            print(f"| {topic} | {'on' if gate else 'off'} | {len(pool.kept)} | {pool.estimate['on_topic']:.0f} | "
                  f"{float(w[y == 1].sum()):.0f} | {precision:.3f} [{lo[0]:.2f}, {hi[0]:.2f}] | "
                  f"{recall:.3f} [{lo[1]:.2f}, {hi[1]:.2f}] | {sum(r.seconds for r in pool.rounds):.1f} |")
    for gate in (False, True):
        values = np.array(means[gate], dtype=float)
        print(f"| **mean** | {'on' if gate else 'off'} | | | | **{np.nanmean(values[:, 0]):.3f}** | "
              f"**{np.nanmean(values[:, 1]):.3f}** | |")
    print(f"\n{time.perf_counter() - started:.0f} s; {load_average()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", required=True)
    parser.add_argument("--labels", type=Path, default=LABELS)
    parser.add_argument("--iterations", type=int, default=1)
    parser.add_argument("--topics", default="")
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--heldout", type=Path, help="score the shipped model on these labels (no fit)")
    parser.add_argument("--no-facet-gate", action="store_true", help="pools without the facet gate (the ablation)")
    args = parser.parse_args()
    offline_env()
    import os

    os.environ["SURVEYGRAPH_HOME"] = args.home
    from surveygraph.retrieval.corpus import Corpus
    from surveygraph.retrieval.literature_pool import PoolOptions, build_literature_pool, round_zero_judge
    from surveygraph.retrieval.topic_judge import FEATURES, best_threshold, fit_model
    from surveygraph.settings import load_settings

    corpus = Corpus(load_settings())
    started = time.perf_counter()
    if args.heldout:
        score_heldout(args.heldout, corpus)
        return
    options = PoolOptions(facet_gate=not args.no_facet_gate)
    labels = load_labels(args.labels)
    if args.topics:
        labels = {t: labels[t] for t in args.topics.split(",")}
    data = {t: {"rows": rows, "y": np.array([r["label"] for r in rows]), "w": weights_of(rows),
                "strata": np.array([r["stratum"] for r in rows]),
                "ids": [paper_key(r["arxiv_id"]) for r in rows]} for t, rows in labels.items()}
    # 1. round-0 features (the judge depends on the seeds only; the model below is not used to judge)
    features = {}
    for topic in data:
        features[topic] = labelled_features(round_zero_judge(topic, corpus), data[topic]["rows"], corpus)
    models = {t: fit_without(t, features, data) for t in data}
    print(f"round-0 features for {len(data)} topics in {time.perf_counter() - started:.0f} s", flush=True)
    # 2. iterations: full pools with the held-out model, features of their final judge
    pools = {}
    for iteration in range(args.iterations):
        for topic in data:
            pools[topic] = build_literature_pool(topic, corpus, model=models[topic], options=options)
            features[topic] = labelled_features(pools[topic].judge, data[topic]["rows"], corpus)
        models = {t: fit_without(t, features, data) for t in data}
        print(f"iteration {iteration + 1} in {time.perf_counter() - started:.0f} s", flush=True)
    # 3. the held-out pools, built with the held-out models, scored
    rng = np.random.default_rng(28)
    table, replicates = [], []
    for topic, d in data.items():
        pool = build_literature_pool(topic, corpus, model=models[topic], options=options)
        kept_set = set(pool.kept)
        kept = np.array([i in kept_set for i in d["ids"]])
        precision, recall = metrics(kept, d["y"], d["w"])
        reps = bootstrap(kept, d["y"], d["w"], d["strata"], rng)
        replicates.append(reps)
        lo, hi = np.nanpercentile(reps, [2.5, 97.5], axis=0)
        table.append({"topic": topic, "kept": len(pool.kept), "candidates": len(pool.probability),
                      "rounds": len(pool.rounds), "estimate": pool.estimate["on_topic"],
                      "labelled_on_topic": round(float(d["w"][d["y"] == 1].sum()), 1),
                      "precision": precision, "recall": recall, "p_ci": (lo[0], hi[0]), "r_ci": (lo[1], hi[1]),
                      "seconds": round(sum(r.seconds for r in pool.rounds), 1), "seed_rule": pool.seed_rule,
                      "facets": [[u.phrase for u in f.units] for f in pool.judge.facets]})
    means = np.nanmean(np.stack(replicates), axis=0)  # per replicate, the mean over topics
    mean_lo, mean_hi = np.nanpercentile(means, [2.5, 97.5], axis=0)
    print(f"\n# topic judge, leave-one-topic-out ({len(data)} topics, {sum(len(d['y']) for d in data.values())} "
          f"labels, {args.iterations} iteration(s)); {time.perf_counter() - started:.0f} s; {load_average()}\n")
    print("| held-out topic | kept | candidates | rounds | est. on topic (corpus) | labelled estimate | precision [95%] "
          "| corpus-wide recall [95%] | pool s |")
    print("|---|---:|---:|---:|---:|---:|---|---|---:|")
    for r in table:
        print(f"| {r['topic']} | {r['kept']} | {r['candidates']} | {r['rounds']} | {r['estimate']:.0f} | "
              f"{r['labelled_on_topic']:.0f} | {r['precision']:.3f} [{r['p_ci'][0]:.2f}, {r['p_ci'][1]:.2f}] | "
              f"{r['recall']:.3f} [{r['r_ci'][0]:.2f}, {r['r_ci'][1]:.2f}] | {r['seconds']} |")
    print(f"| **mean** | | | | | | **{np.nanmean([r['precision'] for r in table]):.3f}** [{mean_lo[0]:.2f}, "
          f"{mean_hi[0]:.2f}] | **{np.nanmean([r['recall'] for r in table]):.3f}** [{mean_lo[1]:.2f}, "
          f"{mean_hi[1]:.2f}] | |")
    for r in table:
        print(f"  {r['topic']}: facets {r['facets']}; seeds: {r['seed_rule']}")
    if args.write:
        x = np.vstack([features[t] for t in data])
        y = np.concatenate([data[t]["y"] for t in data])
        w = np.concatenate([data[t]["w"] for t in data])
        cut = best_threshold(fit_model(x, y, w).probability(x), y, w, min_precision=MIN_PRECISION)
        record = {"labels": str(args.labels.relative_to(REPO_ROOT)) if args.labels.is_relative_to(REPO_ROOT)
                  else str(args.labels), "n_labels": int(len(y)), "topics": sorted(data),
                  "threshold_rule": f"lowest cut with weighted precision >= {MIN_PRECISION} on all topics",
                  "iterations": args.iterations,
                  "loto": {"precision": round(float(np.nanmean([r["precision"] for r in table])), 3),
                           "recall": round(float(np.nanmean([r["recall"] for r in table])), 3),
                           "per_topic": [{"topic": r["topic"], "precision": round(r["precision"], 3),
                                          "recall": round(r["recall"], 3)} for r in table]},
                  "command": "python benchmarks/relevance_bench.py --home <home> --write"}
        from surveygraph.retrieval.topic_judge import model_path_for

        # before the fit: the model keeps a copy of the record (set after it, the encoder was lost and the
        # model no longer said which index it reads)
        record["encoder"] = corpus.settings.embedding.model
        final = fit_model(x, y, w, threshold=cut, record=record)
        out = model_path_for(corpus)  # the model of the encoder this home indexes with
        out.write_text(json.dumps(final.to_dict(), indent=1) + "\n", encoding="utf-8")
        print(f"wrote {out.relative_to(REPO_ROOT)} (threshold {cut:.3f}; features {list(FEATURES)})")


if __name__ == "__main__":
    main()
