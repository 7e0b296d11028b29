"""Ingest throughput: load + embed + index the arXiv corpus (or its first N lines) into a fresh home.

    python benchmarks/ingest_bench.py --home /tmp/sg-bench-home --model minilm-static
    python benchmarks/ingest_bench.py --home /tmp/sg-bench-minilm --model minilm --limit 2000

Prints one JSON line: papers, wall seconds for load / embed / index, texts per second, the
process's CPU seconds and the load average (the machine may be shared: compare CPU seconds).
The embedding cache is switched off so the embed time is real encoding work.
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import DEFAULT_DATA, corpus_file, load_average, offline_env  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--home", type=Path, required=True, help="data home; must be empty or absent")
    parser.add_argument("--model", default="minilm-static")
    parser.add_argument("--limit", type=int, default=None, help="only the first N corpus lines")
    parser.add_argument("--models-from", type=Path, default=None,
                        help="a home whose models/ to reuse (skips distilling minilm-static again)")
    args = parser.parse_args()
    offline_env()

    from surveygraph.retrieval.corpus import Corpus
    from surveygraph.retrieval.loaders import load_path
    from surveygraph.settings import load_settings

    if args.home.exists() and any((args.home / "store").glob("*")):
        raise SystemExit(f"{args.home} already has a store; pick an empty --home")
    if args.models_from:
        models = args.models_from / "models"
        (args.home / "models").mkdir(parents=True, exist_ok=True)
        for sub in models.iterdir():
            target = args.home / "models" / sub.name
            if not target.exists():
                shutil.copytree(sub.resolve(), target)  # a copy: the bench home stays self-contained
    source = corpus_file(args.data)
    with tempfile.TemporaryDirectory() as tmp:
        if args.limit:
            source_slice = Path(tmp) / "slice.jsonl"
            with gzip.open(source, "rt", encoding="utf-8") as fh:
                source_slice.write_text("".join(itertools.islice(fh, args.limit)), encoding="utf-8")
            source = source_slice
        settings = load_settings(home=str(args.home), **{"embedding.model": args.model, "embedding.cache": False})
        corpus = Corpus(settings)
        corpus.embedder  # load (or distil) the model outside the timed part
        cpu_started = time.process_time()
        started = time.perf_counter()
        loaded = load_path(source)
        load_seconds = time.perf_counter() - started
        report = corpus.add_papers(loaded.papers, progress=True, source=str(source))
        cpu_seconds = time.process_time() - cpu_started
    result = {
        "model": args.model, "papers": report.read, "added": report.added,
        "load_s": round(load_seconds, 1), "embed_s": round(report.embed_seconds, 1),
        "index_s": round(report.index_seconds, 1),
        "embed_texts_per_s": round(report.added / max(report.embed_seconds, 1e-9), 1),
        "total_s": round(load_seconds + report.embed_seconds + report.index_seconds, 1),
        # CPU seconds of this process (all threads): steadier than wall time on a shared machine.
        "cpu_s": round(cpu_seconds, 1),
        "load": load_average(),
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
