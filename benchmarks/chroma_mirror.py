"""The Chroma mirror on the full corpus: ingest time, peak memory and store size with and without
it, and query latency of Chroma's HNSW next to the search index that serves queries.

    python benchmarks/chroma_mirror.py --work /tmp/mirror-bench [--data ../shared/data] [--queries 100]

Each mode ingests the 74,728-paper corpus into a fresh data home with the real command line
(``surveygraph corpus ingest``) under ``/usr/bin/time``, so the peak memory is the process's own
(maximum resident set). The minilm-static model comes from the per-user model cache, and each
home starts with an empty embedding cache, so both modes embed every paper. Then, in the mirrored
home, the same query vectors (titles of papers drawn with a fixed seed) go to Chroma's collection
(``query``) and to the search index (``IndexSnapshot.dense``).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import DEFAULT_DATA, corpus_file, load_average, offline_env  # noqa: E402


def _du(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def ingest(home: Path, corpus: Path, mirror: bool) -> dict:
    if home.exists():
        shutil.rmtree(home)
    home.mkdir(parents=True)
    env = {**os.environ, "SURVEYGRAPH_STORE__CHROMA_MIRROR": "true" if mirror else "false"}
    load_before = load_average()
    command = ["/usr/bin/time", "-f", "TIME %e %M", sys.executable, "-m", "surveygraph", "--home", str(home),
               "corpus", "ingest", str(corpus)]
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise SystemExit(done.stderr[-2000:])
    seconds, max_kb = next(line.split()[1:] for line in done.stderr.splitlines() if line.startswith("TIME "))
    store = home / "store"
    return {"mirror": mirror, "seconds": float(seconds), "peak_mb": int(max_kb) / 1024,
            "store_mb": _du(store) / 1e6, "chroma_mb": _du(store / "chroma") / 1e6 if (store / "chroma").is_dir() else 0.0,
            "summary": next((line for line in done.stderr.splitlines() if line.startswith("read ")), ""),
            "load_before": load_before, "load_after": load_average()}


def query_latency(home: Path, corpus: Path, n_queries: int) -> dict:
    from surveygraph.retrieval.corpus import Corpus
    from surveygraph.retrieval.embeddings import get_model
    from surveygraph.settings import load_settings

    with gzip.open(corpus, "rt", encoding="utf-8") as fh:
        titles = [json.loads(line)["title"] for line in fh]
    queries = random.Random(7).sample(titles, n_queries)
    settings = load_settings(home=str(home), **{"store.chroma_mirror": True})
    corpus_index = Corpus(settings)
    vectors = get_model(corpus_index.settings).encode(queries)
    snap = corpus_index.snapshot
    with corpus_index._lock:  # the embedded Chroma is opened under the write lock only (store.py)
        collection = corpus_index.collection._collection
        started = time.perf_counter()
        collection.query(query_embeddings=vectors[:1], n_results=10, include=[])
        chroma_first = time.perf_counter() - started
        chroma, chroma_ids = [], []
        for vector in vectors:
            started = time.perf_counter()
            hit = collection.query(query_embeddings=vector[None, :], n_results=10, include=[])
            chroma.append(time.perf_counter() - started)
            chroma_ids.append(hit["ids"][0])
    index, index_ids = [], []
    for vector in vectors:
        started = time.perf_counter()
        hits = snap.dense(vector, 10)
        index.append(time.perf_counter() - started)
        index_ids.append([pid for pid, _ in hits])
    overlap = statistics.mean(len(set(a) & set(b)) / 10 for a, b in zip(chroma_ids, index_ids))

    def p(values: list[float], q: float) -> float:
        return 1000 * sorted(values)[min(len(values) - 1, int(q * len(values)))]

    return {"queries": n_queries, "chroma_first_ms": 1000 * chroma_first, "chroma_p50_ms": p(chroma, 0.5),
            "chroma_p95_ms": p(chroma, 0.95), "index_p50_ms": p(index, 0.5), "index_p95_ms": p(index, 0.95),
            "top10_overlap": overlap, "load": load_average()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--work", type=Path, required=True, help="folder for the two data homes (deleted first)")
    parser.add_argument("--queries", type=int, default=100)
    args = parser.parse_args()
    offline_env()
    corpus = corpus_file(args.data)
    rows = [ingest(args.work / ("mirror-on" if mirror else "mirror-off"), corpus, mirror) for mirror in (False, True)]
    print("| Chroma mirror | ingest wall time | peak memory (max RSS) | store on disk | of which Chroma | load before / after |")
    print("|---|---:|---:|---:|---:|---|")
    for row in rows:
        print(f"| {'on' if row['mirror'] else 'off (default)'} | {row['seconds']:.0f} s | {row['peak_mb']:,.0f} MB | "
              f"{row['store_mb']:,.0f} MB | {row['chroma_mb']:,.0f} MB | {row['load_before']} / {row['load_after']} |")
    for row in rows:
        print(f"<!-- {row['summary']} -->")
    latency = query_latency(args.work / "mirror-on", corpus, args.queries)
    print()
    print(f"Dense top-10 over {latency['queries']} title queries, one process ({latency['load']}): Chroma HNSW "
          f"p50 {latency['chroma_p50_ms']:.1f} ms, p95 {latency['chroma_p95_ms']:.1f} ms (first query "
          f"{latency['chroma_first_ms']:.0f} ms); search index p50 {latency['index_p50_ms']:.1f} ms, p95 "
          f"{latency['index_p95_ms']:.1f} ms; top-10 overlap {latency['top10_overlap']:.3f}.")


if __name__ == "__main__":
    main()
