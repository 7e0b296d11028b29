"""Benchmark the paper sources: load + dedupe the shared arXiv corpus, ingest + search outlines.

    python benchmarks/sources_load.py [--data ../shared/data] [--outlines]

Prints one Markdown table row per measurement with the machine load (``uptime``) next to it.
``--outlines`` also times the Survey Outline DB (MiniLM embeddings, Chroma) in a temporary home.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _load() -> str:
    return "load avg " + " ".join(f"{x:.1f}" for x in os.getloadavg())


def bench_corpus(data: Path) -> None:
    from surveygraph.retrieval.dedupe import dedupe_papers
    from surveygraph.retrieval.loaders import load_path

    path = data / "corpus" / "arxiv_2025_2026.jsonl.gz"
    start = time.perf_counter()
    result = load_path(path)
    loaded = time.perf_counter() - start
    print(f"| load {path.name} | {result.report.read} papers, {result.report.skipped} skipped "
          f"| {loaded:.1f} s ({result.report.read / loaded:,.0f} papers/s) | {_load()} |")
    start = time.perf_counter()
    unique, merged = dedupe_papers(result.papers)
    took = time.perf_counter() - start
    print(f"| dedupe {len(result.papers)} papers | {len(unique)} unique, {merged} merged "
          f"| {took:.2f} s | {_load()} |")


def bench_outlines(data: Path) -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    from surveygraph.retrieval.outlines import OutlineStore
    from surveygraph.settings import load_settings

    folder = data / "weaidb_surveybench" / "HumanSurvey"
    with tempfile.TemporaryDirectory() as home:
        store = OutlineStore(load_settings(home=home))
        start = time.perf_counter()
        report = store.ingest_path(folder)
        took = time.perf_counter() - start
        print(f"| outlines ingest HumanSurvey/ (cold: model load + embed) | {report.added} outlines "
              f"| {took:.1f} s | {_load()} |")
        topics = [line.strip() for line in (data / "surveyforge_surveybench" / "topics.txt")
                  .read_text().splitlines() if line.strip()]
        start = time.perf_counter()
        hits = [store.search(t, 3) for t in topics]
        took = (time.perf_counter() - start) / len(topics)
        print(f"| outlines search k=3 ({len(topics)} SurveyBench topics) | "
              f"{sum(len(h) for h in hits)} hits | {took * 1000:.0f} ms/query | {_load()} |")
        for topic, found in zip(topics, hits):
            print(f"|   {topic} | top-1: {found[0].topic if found else '-'} | | |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--outlines", action="store_true", help="also time the outline DB")
    args = parser.parse_args()
    if not (args.data / "corpus").is_dir():
        raise SystemExit(f"error: shared data not found at {args.data} (pass --data)")
    print("| what | result | time | machine |\n|---|---|---|---|")
    bench_corpus(args.data)
    if args.outlines:
        bench_outlines(args.data)


if __name__ == "__main__":
    main()
