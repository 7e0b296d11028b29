"""Scale benchmark (issue 18): ingest, incremental add, disk and queries at growing corpus sizes.

    python benchmarks/scale_bench.py --sizes 75000 300000 1000000 --work /tmp/scale [--add 5000]

For each size: a synthetic corpus (benchmarks/synthetic_corpus.py: copies of the shared arXiv
corpus) is ingested into a fresh home by `surveygraph corpus ingest` in its own process (wall
time and peak RSS from /usr/bin/time), then --add more papers are ingested into the same home,
then queries run in a third process: p50/p95 per mode over realistic subsection queries, and the
dense recall@100 of the IVF search against the exact scan of the same store. Default settings
(embedding cache on, embedded Chroma mirror on), minilm-static encoder. One JSON line per size;
--markdown appends a table row per size to a file.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import DEFAULT_DATA, load_average, offline_env  # noqa: E402
from query_latency import outline_queries, percentile  # noqa: E402

HERE = Path(__file__).resolve().parent

_QUERIES = r"""
import json, sys, time
import numpy as np
from surveygraph.retrieval.corpus import Corpus
from surveygraph.retrieval.embeddings import get_model
from surveygraph.settings import load_settings
home, queries = sys.argv[1], json.loads(sys.argv[2])
corpus = Corpus(load_settings(home=home))
corpus.search("warm up the encoder", k=10)
out = {}
for mode in ("hybrid", "dense", "bm25"):
    times = []
    for q in queries:
        t = time.perf_counter(); corpus.search(q, k=10, mode=mode, tre=False); times.append(time.perf_counter() - t)
    out[mode] = times
snap, model = corpus.snapshot, get_model(corpus.settings)
recalls, exact_times = [], []
for q in queries:
    v = model.encode([q])[0]
    approx = {pid for pid, _ in snap.dense(v, 100)}
    t = time.perf_counter(); exact = {pid for pid, _ in snap.dense(v, 100, exact=True)}; exact_times.append(time.perf_counter() - t)
    recalls.append(len(approx & exact) / max(1, len(exact)))
out["recall100"] = recalls
out["exact_dense"] = exact_times
# nprobe sweep (the setting store.ann_nprobe is chosen from this): recall@100 and dense latency
vectors = [model.encode([q])[0] for q in queries]
exact_lists = [{pid for pid, _ in snap.dense(v, 100, exact=True)} for v in vectors]
sweep = {}
for nprobe in (16, 32, 48, 64, 96):
    for seg in snap.segments:
        if seg._has_ivf:
            seg._index().nprobe = nprobe
    rec, times = [], []
    for v, exact in zip(vectors, exact_lists):
        t = time.perf_counter(); got = {pid for pid, _ in snap.dense(v, 100)}; times.append(time.perf_counter() - t)
        rec.append(len(got & exact) / max(1, len(exact)))
    sweep[nprobe] = {"recall_mean": sum(rec) / len(rec), "recall_min": min(rec), "times": times}
out["nprobe_sweep"] = sweep
out["segments"] = [len(s) for s in snap.segments]
print(json.dumps(out))
"""


def timed(cmd: list[str], env: dict) -> tuple[float, int, str]:
    """(wall seconds, peak RSS in KiB, stderr tail) of one command run under /usr/bin/time."""
    started = time.perf_counter()
    proc = subprocess.run(["/usr/bin/time", "-f", "MAXRSS %M", *cmd], capture_output=True, text=True, env=env)
    wall = time.perf_counter() - started
    rss = next((int(line.split()[1]) for line in proc.stderr.splitlines() if line.startswith("MAXRSS")), 0)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return wall, rss, proc.stderr[-400:]


def du_mib(path: Path) -> float:
    total = sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.exists() else 0
    return total / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--sizes", type=int, nargs="+", default=[75_000, 300_000, 1_000_000])
    parser.add_argument("--add", type=int, default=5000)
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--work", type=Path, default=Path("/tmp/scale"))
    parser.add_argument("--keep", action="store_true", help="keep the homes (they are large)")
    parser.add_argument("--markdown", type=Path, default=None)
    parser.add_argument("--queries-only", type=Path, default=None, metavar="HOME",
                        help="only the query measurements, on an existing home (e.g. one kept by --keep)")
    args = parser.parse_args()
    offline_env()
    env = {**os.environ}
    queries = outline_queries(args.data, args.queries)
    if args.queries_only:
        proc = subprocess.run([sys.executable, "-c", _QUERIES, str(args.queries_only), json.dumps(queries)],
                              capture_output=True, text=True, env=env, check=True)
        q = json.loads(proc.stdout.strip().splitlines()[-1])
        print(json.dumps({
            "home": str(args.queries_only), "segments": q["segments"],
            **{f"{m}_p50_ms": round(1000 * percentile(q[m], 50), 1) for m in ("hybrid", "dense", "bm25")},
            **{f"{m}_p95_ms": round(1000 * percentile(q[m], 95), 1) for m in ("hybrid", "dense", "bm25")},
            "exact_dense_p50_ms": round(1000 * percentile(q["exact_dense"], 50), 1),
            "exact_dense_p95_ms": round(1000 * percentile(q["exact_dense"], 95), 1),
            "dense_recall100_mean": round(sum(q["recall100"]) / len(q["recall100"]), 4),
            "dense_recall100_min": round(min(q["recall100"]), 4),
            "nprobe_sweep": {k: {"recall_mean": round(v["recall_mean"], 4), "p95_ms": round(1000 * percentile(v["times"], 95), 1)}
                             for k, v in q["nprobe_sweep"].items()},
            "queries": len(queries), "load": load_average()}))
        return
    args.work.mkdir(parents=True, exist_ok=True)
    for size in args.sizes:
        corpus_path = args.work / f"synthetic-{size}.jsonl.gz"
        add_path = args.work / f"synthetic-{size}-add{args.add}.jsonl.gz"
        for path, n, skip in ((corpus_path, size, 0), (add_path, args.add, size)):
            if not path.exists():
                subprocess.run([sys.executable, str(HERE / "synthetic_corpus.py"), "--data", str(args.data),
                                "--papers", str(n), "--skip", str(skip), "--out", str(path)], check=True)
        home = args.work / f"home-{size}"
        shutil.rmtree(home, ignore_errors=True)
        cli = [sys.executable, "-m", "surveygraph", "--home", str(home), "corpus", "ingest"]
        ingest_s, ingest_kib, _ = timed([*cli, str(corpus_path), "--embedding-model", "minilm-static"], env)
        store_mib, cache_mib = du_mib(home / "store"), du_mib(home / "cache")
        add_s, add_kib, _ = timed([*cli, str(add_path)], env)
        query_proc = subprocess.run([sys.executable, "-c", _QUERIES, str(home), json.dumps(queries)],
                                    capture_output=True, text=True, env=env, check=True)
        q = json.loads(query_proc.stdout.strip().splitlines()[-1])
        row = {
            "papers": size, "ingest_s": round(ingest_s, 1), "ingest_peak_mib": round(ingest_kib / 1024),
            "ingest_kib_per_paper": round(ingest_kib / size, 2),
            f"add{args.add}_s": round(add_s, 1), f"add{args.add}_peak_mib": round(add_kib / 1024),
            "store_mib": round(store_mib), "cache_mib": round(cache_mib),
            "disk_kib_per_paper": round((store_mib + cache_mib) * 1024 / size, 2),
            **{f"{m}_p50_ms": round(1000 * percentile(q[m], 50), 1) for m in ("hybrid", "dense", "bm25")},
            **{f"{m}_p95_ms": round(1000 * percentile(q[m], 95), 1) for m in ("hybrid", "dense", "bm25")},
            "exact_dense_p50_ms": round(1000 * percentile(q["exact_dense"], 50), 1),
            "dense_recall100_mean": round(sum(q["recall100"]) / len(q["recall100"]), 4),
            "dense_recall100_min": round(min(q["recall100"]), 4),
            "segments": q["segments"], "queries": len(queries), "load": load_average(),
            "nprobe_sweep": {k: {"recall_mean": round(v["recall_mean"], 4), "recall_min": round(v["recall_min"], 4),
                                 "p95_ms": round(1000 * percentile(v["times"], 95), 1)}
                             for k, v in q["nprobe_sweep"].items()},
        }
        print(json.dumps(row), flush=True)
        if args.markdown:
            with args.markdown.open("a") as fh:
                fh.write(json.dumps(row) + "\n")
        if not args.keep:
            shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
