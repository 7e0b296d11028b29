"""Retrieval recall on SurveyForge's 10 SurveyBench topics.

Pool = arXiv corpus papers + every benchmark reference (``ref_bench/<topic>_bench.json``) added
**title-only** (the benchmark gives arXiv id and title; most references predate the 2025-26 corpus,
so without them nothing would be findable). Query = the topic name. Recall@K = share of the topic's
benchmark references among the top K. Modes: bm25, dense, hybrid (RRF), hybrid+TRE.

    # full corpus as distractors (copies an existing full index, adds the titles to the copy)
    python benchmarks/retrieval_recall.py --base-home /tmp/sg-bench-home --work /tmp/sg-recall --models minilm-static
    # both encoders on the same small pool (first 2,000 corpus lines + the titles)
    python benchmarks/retrieval_recall.py --sample 2000 --work /tmp/sg-recall-small --models minilm-static,minilm
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import DEFAULT_DATA, corpus_file, load_average, offline_env  # noqa: E402

CUTOFFS = (100, 500)


def benchmark_sets(data: Path):
    from surveygraph.models import Paper

    root = data / "surveyforge_surveybench"
    topics = [t.strip() for t in (root / "topics.txt").read_text().splitlines() if t.strip()]
    gold: dict[str, set[str]] = {}
    papers: dict[str, Paper] = {}
    for topic in topics:
        refs = json.loads((root / "ref_bench" / f"{topic}_bench.json").read_text())
        gold[topic] = set()
        for key, ref in refs.items():
            paper = Paper(arxiv_id=ref.get("arxivId") or key, title=ref.get("title") or "", source="surveybench")
            if paper.title:
                papers.setdefault(paper.paper_id, paper)
                gold[topic].add(paper.paper_id)
    return topics, gold, list(papers.values())


def build_pool(home: Path, model: str, base_home: Path | None, sample: int | None, data: Path,
               bench_papers, candidates: int, models_from: Path | None):
    from surveygraph.retrieval.corpus import Corpus
    from surveygraph.retrieval.loaders import paper_from_record
    from surveygraph.settings import load_settings

    if home.exists():
        shutil.rmtree(home)
    if base_home is not None:
        shutil.copytree(base_home / "store", home / "store")
    models_from = models_from or base_home
    if models_from is not None and (models_from / "models").exists():
        shutil.copytree(models_from / "models", home / "models", symlinks=True)
    settings = load_settings(home=str(home), **{"embedding.model": model, "retrieval.candidates": candidates})
    corpus = Corpus(settings)
    if base_home is None:
        with gzip.open(corpus_file(data), "rt", encoding="utf-8") as fh:
            records = [json.loads(line) for line in itertools.islice(fh, sample)]
        corpus.add_papers([paper_from_record(r) for r in records], progress=True, source="corpus sample")
    report = corpus.add_papers(bench_papers, progress=True, source="surveybench titles")
    return corpus, report


def recall_rows(corpus, topics, gold):
    rows = {}
    max_k = max(CUTOFFS)
    for mode in ("bm25", "dense", "hybrid"):
        per_topic = []
        for topic in topics:
            ids = [h.paper.paper_id for h in corpus.search(topic, max_k, mode=mode, tre=False)]
            per_topic.append({k: len(set(ids[:k]) & gold[topic]) / len(gold[topic]) for k in CUTOFFS})
        rows[mode] = per_topic
    per_topic = []
    for topic in topics:
        per_topic.append({k: len({h.paper.paper_id for h in corpus.search(topic, k, mode="hybrid", tre=True)}
                                 & gold[topic]) / len(gold[topic]) for k in CUTOFFS})
    rows["hybrid+tre"] = per_topic
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--work", type=Path, required=True, help="scratch dir for the pool indexes")
    parser.add_argument("--base-home", type=Path, default=None, help="copy this full-corpus index as the pool")
    parser.add_argument("--sample", type=int, default=2000, help="corpus lines when no --base-home")
    parser.add_argument("--models", default="minilm-static")
    parser.add_argument("--models-from", type=Path, default=None,
                        help="a home whose models/ to reuse (skips distilling minilm-static again)")
    parser.add_argument("--candidates", type=int, default=1500, help="per-retriever candidates before fusion")
    args = parser.parse_args()
    offline_env()

    topics, gold, bench_papers = benchmark_sets(args.data)
    results = {"topics": len(topics), "benchmark_titles": len(bench_papers), "models": {}}
    for model in args.models.split(","):
        started = time.perf_counter()
        corpus, report = build_pool(args.work / model, model, args.base_home, args.sample, args.data,
                                    bench_papers, args.candidates, args.models_from)
        rows = recall_rows(corpus, topics, gold)
        summary = {mode: {f"R@{k}": round(sum(t[k] for t in per) / len(per), 4) for k in CUTOFFS}
                   for mode, per in rows.items()}
        summary["pool_size"] = corpus.count()
        summary["titles_added"] = report.added
        summary["seconds"] = round(time.perf_counter() - started, 1)
        results["models"][model] = summary
        print(model, json.dumps(summary), file=sys.stderr)
    results["load"] = load_average()
    print(json.dumps(results))


if __name__ == "__main__":
    main()
