"""Does the pool hold when a user phrases the topic differently? (issue 28, item 4)

    python benchmarks/phrasing_robustness.py --home <data home> --phrasings tests/data/topic_phrasings.json \
        [--generate] [--topics A,B]

The phrasings file (written by someone who never saw the pool code: a list of {"topic", "phrasings"})
gives each topic as a user would type it, three or more ways. For each topic the pool is built for
every phrasing (retrieval/literature_pool.py, the shipped model); the table gives the kept sizes, the
mean and minimum pairwise Jaccard overlap of the kept pools, and with ``--generate`` the cited works
of the default survey for each phrasing (a full survey cites at least 60 works, or every on-topic
paper the pool holds when that is fewer).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import REPO_ROOT, load_average, offline_env  # noqa: E402

FULL = 60


def jaccard(a: set, b: set) -> float:
    return len(a & b) / len(a | b) if a | b else 1.0


def cited_works(phrasing: str, home: str) -> tuple[int | str, int]:
    import surveygraph as sg
    from surveygraph.errors import UserError

    try:
        run = sg.generate(phrasing, home=home, generation__self_evaluate=False)
    except UserError as error:
        return f"refused: {str(error)[:80]}", 0
    return len(run.survey.references), len(run.state.get("memory") or [])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", required=True)
    parser.add_argument("--phrasings", type=Path, default=REPO_ROOT / "tests" / "data" / "topic_phrasings.json")
    parser.add_argument("--topics", default="")
    parser.add_argument("--generate", action="store_true")
    args = parser.parse_args()
    offline_env()
    import os

    os.environ["SURVEYGRAPH_HOME"] = args.home
    from surveygraph.retrieval.corpus import Corpus
    from surveygraph.retrieval.literature_pool import build_literature_pool
    from surveygraph.settings import load_settings

    corpus = Corpus(load_settings())
    entries = json.loads(args.phrasings.read_text(encoding="utf-8"))
    if args.topics:
        entries = [e for e in entries if e["topic"] in args.topics.split(",")]
    started = time.perf_counter()
    print("| topic | phrasings | kept per phrasing | Jaccard mean | Jaccard min | cited per phrasing | full surveys |")
    print("|---|---:|---|---:|---:|---|---:|")
    passed = 0
    for entry in entries:
        pools = {p: set(build_literature_pool(p, corpus).kept) for p in entry["phrasings"]}
        pairs = [jaccard(pools[a], pools[b]) for a, b in itertools.combinations(pools, 2)]
        cited, full = "", ""
        if args.generate:
            results = [cited_works(p, args.home) for p in entry["phrasings"]]
            cited = ", ".join(str(c) for c, _ in results)
            n_full = sum(isinstance(c, int) and (c >= FULL or c >= memory) for c, memory in results)
            full = f"{n_full}/{len(results)}"
        mean, low = sum(pairs) / len(pairs), min(pairs)
        passed += low >= 0.5 and (not args.generate or full.startswith(f"{len(entry['phrasings'])}/"))
        print(f"| {entry['topic']} | {len(pools)} | {', '.join(str(len(v)) for v in pools.values())} | "
              f"{mean:.2f} | {low:.2f} | {cited} | {full} |", flush=True)
    print(f"\n{passed} of {len(entries)} topics hold (every pair of kept pools at Jaccard >= 0.5"
          f"{' and every phrasing a full survey' if args.generate else ''}); "
          f"{time.perf_counter() - started:.0f} s; {load_average()}")


if __name__ == "__main__":
    main()
