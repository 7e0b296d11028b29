"""Fit and check the relevance model on the labelled set, leave-one-topic-out.

    python benchmarks/relevance_bench.py --home <data home with the shared corpus ingested> [--write]

For every labelled topic the hybrid retriever ranks the corpus as generation does (the first 300
are the candidate memory M); features come from retrieval/relevance.py. Each topic is held out in
turn: the model is fitted on the other topics, its threshold chosen on them (weighted F0.5), and the
held-out topic's pool precision and recall are estimated with the labelling's sampling weights
(ranks 1-60 all labelled, 61-300 a random 80, 301-1000 a random 30). ``--write`` fits on all topics
and writes retrieval/relevance_model.json with this record.
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

LABELS = REPO_ROOT / "tests" / "data" / "relevance_labels.jsonl"
POOL = 300  # generation.outline_candidates: the candidate memory M
STRATUM_SIZE = {"top": 60, "pool": 240, "deep": 700}


def load_labels(path: Path = LABELS) -> dict[str, list[dict]]:
    by_topic: dict[str, list[dict]] = defaultdict(list)
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            by_topic[row["topic"]].append(row)
    return dict(by_topic)


def sampling_weights(rows: list[dict]) -> np.ndarray:
    counts = defaultdict(int)
    for r in rows:
        counts[r["stratum"]] += 1
    return np.array([STRATUM_SIZE[r["stratum"]] / counts[r["stratum"]] for r in rows])


def topic_features(topic: str, rows: list[dict], corpus, encode) -> tuple[np.ndarray, dict]:
    """Feature rows for the labelled papers of ``topic`` (in label order) and the pool judgment."""
    from surveygraph.retrieval.relevance import PaperText, pool_features, topic_pool_features

    hits = corpus.search(topic, k=1000, mode="hybrid", tre=False)
    papers = [PaperText(h.paper.paper_id, h.paper.title, h.paper.abstract or "") for h in hits]
    by_id = {(h.paper.arxiv_id or h.paper.paper_id): (i, p) for i, (h, p) in enumerate(zip(hits, papers))}
    pool = topic_pool_features(topic, papers[:POOL], encode, corpus.document_frequency, corpus.count())
    key_of = {p.paper_id: key for key, (_, p) in by_id.items()}
    pool_rows = {key_of[pid]: row for pid, row in zip(pool.ids, pool.matrix)}
    deep = [by_id[r["arxiv_id"]][1] for r in rows if r["arxiv_id"] not in pool_rows]
    if deep:
        later = pool_features(deep, encode([p.text for p in deep]), pool.topic_vector, pool.concepts,
                              centroid=pool.centroid)
        pool_rows.update(zip((key_of[pid] for pid in later.ids), later.matrix))
    for r in rows:  # the labels were drawn from this same ranking
        assert by_id[r["arxiv_id"]][0] + 1 == r["rank"], (topic, r["arxiv_id"])
    return np.array([pool_rows[r["arxiv_id"]] for r in rows]), {
        "concepts": [c.to_dict() for c in pool.concepts]}


def pool_metrics(keep: np.ndarray, labels: np.ndarray, weights: np.ndarray, in_pool: np.ndarray) -> dict:
    """Weighted precision / recall of the kept pool within M (ranks 1-300)."""
    k, y, w = keep[in_pool], labels[in_pool], weights[in_pool]
    tp = float(w[k & (y == 1)].sum())
    kept = float(w[k].sum())
    relevant = float(w[y == 1].sum())
    precision = tp / kept if kept else float("nan")
    recall = tp / relevant if relevant else float("nan")
    return {"precision": precision, "recall": recall, "kept": kept, "relevant": relevant}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", required=True, help="data home with the shared corpus ingested")
    parser.add_argument("--write", action="store_true", help="fit on all topics and write relevance_model.json")
    parser.add_argument("--beta", type=float, default=0.5)
    parser.add_argument("--features", default="", help="comma list: fit only these features (variants)")
    args = parser.parse_args()
    offline_env()
    import os

    os.environ["SURVEYGRAPH_HOME"] = args.home
    from surveygraph.retrieval.corpus import Corpus
    from surveygraph.retrieval.embeddings import get_embedder
    from surveygraph.retrieval.relevance import FEATURES, best_threshold, fit_model
    from surveygraph.settings import Settings

    settings = Settings()
    corpus = Corpus(settings)
    embedder = get_embedder(settings.with_embedding_model(settings.store.outline_embedding_model))
    encode = lambda texts: np.asarray(embedder.encode(list(texts)), dtype=float)  # noqa: E731
    started = time.perf_counter()
    labels = load_labels()
    data = {}
    for topic, rows in labels.items():
        matrix, info = topic_features(topic, rows, corpus, encode)
        data[topic] = (matrix, np.array([r["label"] for r in rows]), sampling_weights(rows),
                       np.array([r["stratum"] != "deep" for r in rows]), info)
    columns = [FEATURES.index(f) for f in args.features.split(",")] if args.features else list(range(len(FEATURES)))
    table, pooled = [], defaultdict(list)
    for held in data:
        train = [t for t in data if t != held]
        x = np.vstack([data[t][0][:, columns] for t in train])
        y = np.concatenate([data[t][1] for t in train])
        w = np.concatenate([data[t][2] for t in train])
        model = fit_model(x, y)
        in_pool = np.concatenate([data[t][3] for t in train])
        cut = best_threshold(model.probability(x)[in_pool], y[in_pool], w[in_pool], beta=args.beta)
        mx, my, mw, mpool, info = data[held]
        keep = model.probability(mx[:, columns]) >= cut
        m = pool_metrics(keep, my, mw, mpool)
        everything = pool_metrics(np.ones_like(keep), my, mw, mpool)
        table.append({"topic": held, "threshold": round(cut, 3), **{k: round(v, 3) for k, v in m.items()},
                      "base_precision": round(everything["precision"], 3),
                      "concepts": [c["variants"] for c in info["concepts"]]})
        for key in ("precision", "recall"):
            pooled[key].append(m[key])
    print(f"# relevance LOTO ({len(data)} topics, features {[FEATURES[c] for c in columns]}, beta {args.beta}); "
          f"{time.perf_counter() - started:.0f} s; {load_average()}")
    print("| held-out topic | kept of M (est.) | on-topic in M (est.) | precision | recall | M precision before |")
    print("|---|---:|---:|---:|---:|---:|")
    for row in table:
        print(f"| {row['topic']} | {row['kept']:.0f} | {row['relevant']:.0f} | {row['precision']:.3f} | "
              f"{row['recall']:.3f} | {row['base_precision']:.3f} |")
    print(f"| **mean** | | | **{np.nanmean(pooled['precision']):.3f}** | **{np.nanmean(pooled['recall']):.3f}** | "
          f"{np.mean([r['base_precision'] for r in table]):.3f} |")
    for row in table:
        print(f"  {row['topic']}: concepts {row['concepts']}")
    if args.write:
        x = np.vstack([data[t][0][:, columns] for t in data])
        y = np.concatenate([data[t][1] for t in data])
        w = np.concatenate([data[t][2] for t in data])
        in_pool = np.concatenate([data[t][3] for t in data])
        model = fit_model(x, y)
        cut = best_threshold(model.probability(x)[in_pool], y[in_pool], w[in_pool], beta=args.beta)
        record = {"labels": "tests/data/relevance_labels.jsonl", "n_labels": int(len(y)), "topics": sorted(data),
                  "threshold_rule": f"weighted F{args.beta} on ranks 1-300",
                  "loto": {"precision": round(float(np.nanmean(pooled["precision"])), 3),
                           "recall": round(float(np.nanmean(pooled["recall"])), 3),
                           "per_topic": [{k: row[k] for k in ("topic", "precision", "recall")} for row in table]},
                  "command": "python benchmarks/relevance_bench.py --home <home> --write"}
        final = fit_model(x, y, threshold=cut, record=record)
        out = REPO_ROOT / "retrieval" / "relevance_model.json"
        out.write_text(json.dumps(final.to_dict(), indent=1) + "\n", encoding="utf-8")
        print(f"wrote {out.relative_to(REPO_ROOT)} (threshold {cut:.3f})")


if __name__ == "__main__":
    main()
