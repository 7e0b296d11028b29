"""Lexical engines compared on the same tokens (issue 18's "chosen with measurements"): the
segmented BM25 of retrieval/snapshot.py against SQLite FTS5 (an incremental engine already in
every Python), at one corpus size.

    python benchmarks/lexical_engines.py --corpus /tmp/scale/synthetic-300000.jsonl.gz --add 5000

Both index title + abstract tokenised by retrieval.bm25_index.tokenize (FTS5 gets the tokens
joined by spaces). Reports build time, the time to add --add more papers, query p50/p95 for the
top 200 over realistic subsection queries, and how many of FTS5's top 200 are ours (FTS5's bm25()
has k1 = 1.2 and no idf floor, ours is rank-bm25's Okapi with k1 = 1.5: different rankings).
Vectors are not part of this comparison (a 1-dimensional zero vector per paper).
"""

from __future__ import annotations

import argparse
import gzip
import json
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import DEFAULT_DATA, load_average  # noqa: E402
from query_latency import outline_queries, percentile  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--add", type=int, default=5000)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = parser.parse_args()
    from surveygraph.retrieval.bm25_index import tokenize
    from surveygraph.retrieval.snapshot import IndexSnapshot, NewRows, update

    ids, tokens = [], []
    with gzip.open(args.corpus, "rt", encoding="utf-8") as fh:
        for line in fh:
            record = json.loads(line)
            ids.append(f"arxiv:{record['arxiv_id']}")
            tokens.append(tokenize(f"{record.get('title', '')}. {record.get('abstract', '')}"))
    base, extra = len(ids) - args.add, args.add
    queries = outline_queries(args.data, 60)
    out: dict = {"papers": base, "add": extra, "load": load_average()}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)

        def rows(lo: int, hi: int) -> NewRows:
            return NewRows(ids=ids[lo:hi], tokens=tokens[lo:hi], years=[2025] * (hi - lo), categories=[[]] * (hi - lo),
                           vectors=np.zeros((hi - lo, 1), np.float32))

        started = time.perf_counter()
        snap = None
        for lo in range(0, base, 20000):
            snap = update(root / "seg", snap, add=rows(lo, min(base, lo + 20000)), model="none", dim=1)
        out["segments_build_s"] = round(time.perf_counter() - started, 1)
        started = time.perf_counter()
        snap = update(root / "seg", IndexSnapshot.load(root / "seg"), add=rows(base, base + extra), model="none", dim=1)
        out["segments_add_s"] = round(time.perf_counter() - started, 2)
        times, ours = [], {}
        for q in queries:
            t = time.perf_counter(); ours[q] = [pid for pid, _ in snap.bm25(q, 200)]; times.append(time.perf_counter() - t)
        out["segments_p50_ms"] = round(1000 * percentile(times, 50), 1)
        out["segments_p95_ms"] = round(1000 * percentile(times, 95), 1)

        db = sqlite3.connect(root / "fts.sqlite")
        db.execute("CREATE VIRTUAL TABLE fts USING fts5(pid UNINDEXED, body, tokenize='unicode61')")
        started = time.perf_counter()
        for lo in range(0, base, 20000):
            db.executemany("INSERT INTO fts (pid, body) VALUES (?, ?)",
                           [(ids[i], " ".join(tokens[i])) for i in range(lo, min(base, lo + 20000))])
            db.commit()
        out["fts5_build_s"] = round(time.perf_counter() - started, 1)
        started = time.perf_counter()
        db.executemany("INSERT INTO fts (pid, body) VALUES (?, ?)", [(ids[i], " ".join(tokens[i])) for i in range(base, base + extra)])
        db.commit()
        out["fts5_add_s"] = round(time.perf_counter() - started, 2)
        times, overlap = [], []
        for q in queries:
            terms = sorted(set(tokenize(q)))
            match = " OR ".join(f'"{t}"' for t in terms)
            t = time.perf_counter()
            got = [r[0] for r in db.execute("SELECT pid FROM fts WHERE fts MATCH ? ORDER BY bm25(fts) LIMIT 200", (match,))]
            times.append(time.perf_counter() - t)
            overlap.append(len(set(got) & set(ours[q])) / max(1, len(ours[q])))
        out["fts5_p50_ms"] = round(1000 * percentile(times, 50), 1)
        out["fts5_p95_ms"] = round(1000 * percentile(times, 95), 1)
        out["fts5_top200_shared_with_ours"] = round(float(np.mean(overlap)), 3)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
