"""Query latency over an existing index: p50/p95 per mode, plus MR (within a 1,500-paper memory).

    python benchmarks/query_latency.py --home /tmp/sg-bench-home

Queries are realistic subsection queries: "<topic> <heading>" for the headings of the 20 human
outlines in weaidb_surveybench (capped by --queries). One warm-up query loads the encoder first.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import DEFAULT_DATA, load_average, offline_env  # noqa: E402

_NUMBER = re.compile(r"^\s*[\d.]+\s*")


def outline_queries(data: Path, limit: int) -> list[str]:
    outlines = json.loads((data / "weaidb_surveybench" / "HumanSurvey" / "outlines.json").read_text())
    queries = []
    for item in outlines:
        for line in item["outline"].splitlines():
            heading = _NUMBER.sub("", line).strip()
            if heading and heading.lower() not in {"introduction", "conclusion", "references"}:
                queries.append(f"{item['topic']}: {heading}")
    step = max(1, len(queries) // limit)
    return queries[::step][:limit]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--home", type=Path, required=True, help="a data home with an index")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("-k", type=int, default=10)
    args = parser.parse_args()
    offline_env()

    from surveygraph.retrieval.corpus import Corpus
    from surveygraph.settings import load_settings

    corpus = Corpus(load_settings(home=str(args.home)))
    queries = outline_queries(args.data, args.queries)
    started = time.perf_counter()
    corpus.search("warm up", args.k)
    warmup = time.perf_counter() - started
    memory = [h.paper.paper_id for h in corpus.search("large language models", 1500, mode="bm25", tre=False)]
    runs = {
        "hybrid+tre": dict(mode="hybrid", tre=True),
        "hybrid": dict(mode="hybrid", tre=False),
        "dense": dict(mode="dense", tre=False),
        "bm25": dict(mode="bm25", tre=False),
        "hybrid+tre within 1500 (MR)": dict(mode="hybrid", tre=True, within_ids=memory),
        "hybrid years 2026 + cs.CL": dict(mode="hybrid", tre=True, year_range=(2026, 2026), categories=["cs.CL"]),
    }
    result = {"papers": corpus.count(), "model": corpus.settings.embedding.model, "queries": len(queries),
              "k": args.k, "warmup_s": round(warmup, 2), "memory_size": len(memory)}
    for name, options in runs.items():
        timings = []
        for query in queries:
            t0 = time.perf_counter()
            corpus.search(query, args.k, **options)
            timings.append((time.perf_counter() - t0) * 1000)
        result[name] = {"p50_ms": round(statistics.median(timings), 1),
                        "p95_ms": round(percentile(timings, 95), 1), "max_ms": round(max(timings), 1)}
        print(name, result[name], file=sys.stderr)
    result["load"] = load_average()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
