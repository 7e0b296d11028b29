"""Draw the corpus-wide relevance sample: candidates that do not come from our own retrieval.

    python benchmarks/relevance_sample.py --home <data home with the shared corpus> \
        --designs tests/data/relevance_designs.json --out /tmp/relevance_sample.jsonl [--per-topic 200]

Issue 28 asks for recall measured against the whole corpus, not inside our pool. For each topic of
the designs file (written by a search designer who never saw the relevance code: facets, three
phrasings, boolean keyword queries that together should miss little), every corpus paper falls in
exactly one stratum:

- ``kq``: matched by a keyword query AND among the top 200 of some phrasing (BM25 or dense);
- ``k``: matched by a keyword query only;
- ``q``: among the top 200 of some phrasing only;
- ``near``: none of these, but among the 5,000 papers closest to the phrasings by TF-IDF cosine
  (word and bigram, an engine the generator does not use);
- ``far``: everything else.

A seeded random sample is drawn from each stratum (``ALLOCATION`` shares of ``--per-topic``); each
row records its stratum's size and sample size, so pool precision and corpus-wide recall can be
estimated with inverse-probability weights (benchmarks/relevance_bench.py). The phrasings' and the
keyword queries' own ranks are never shown to the labeller (rows are shuffled, no stratum shown).
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import DEFAULT_DATA, corpus_file, load_average, offline_env  # noqa: E402

TOP = 200  # per phrasing and engine
NEAR = 5000  # TF-IDF neighbourhood outside the other strata
ALLOCATION = {"kq": 0.30, "k": 0.25, "q": 0.15, "near": 0.15, "far": 0.15}


def load_corpus(data: Path) -> tuple[list[str], list[str]]:
    ids, texts = [], []
    with gzip.open(corpus_file(data), "rt", encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            ids.append(row["arxiv_id"])
            texts.append(f"{row['title']}. {row['abstract']}")
    return ids, texts


def keyword_hits(queries: list[list[str]], texts: list[str]) -> set[int]:
    patterns = [[re.compile(p, re.IGNORECASE) for p in query] for query in queries]
    return {i for i, text in enumerate(texts) if any(all(p.search(text) for p in query) for query in patterns)}


def phrasing_hits(phrasings: list[str], corpus, row_of: dict[str, int]) -> set[int]:
    found: set[int] = set()
    for phrasing in phrasings:
        for mode in ("bm25", "dense"):
            for hit in corpus.search(phrasing, k=TOP, mode=mode, tre=False):
                row = row_of.get(hit.paper.arxiv_id or "")
                if row is not None:
                    found.add(row)
    return found


def strata_of(design: dict, texts: list[str], tfidf, matrix, corpus, row_of) -> dict[str, np.ndarray]:
    keyword = keyword_hits(design["keyword_queries"], texts)
    phrased = phrasing_hits([design["topic"], *design["phrasings"]], corpus, row_of)
    query = tfidf.transform([" ".join([design["topic"], *design["phrasings"]])])
    cosine = np.asarray((matrix @ query.T).todense()).ravel()
    taken = keyword | phrased
    order = [int(r) for r in np.argsort(-cosine, kind="stable") if int(r) not in taken]
    near = set(order[:NEAR])
    everything = set(range(len(texts)))
    return {"kq": np.array(sorted(keyword & phrased)), "k": np.array(sorted(keyword - phrased)),
            "q": np.array(sorted(phrased - keyword)), "near": np.array(sorted(near)),
            "far": np.array(sorted(everything - taken - near))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", required=True)
    parser.add_argument("--designs", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--per-topic", type=int, default=200)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--seed", type=int, default=28)
    args = parser.parse_args()
    offline_env()
    import os

    os.environ["SURVEYGRAPH_HOME"] = args.home
    from sklearn.feature_extraction.text import TfidfVectorizer

    from surveygraph.retrieval.corpus import Corpus
    from surveygraph.settings import load_settings

    started = time.perf_counter()
    ids, texts = load_corpus(args.data)
    row_of = {f"{i}": r for r, i in enumerate(ids)}
    corpus = Corpus(load_settings())
    tfidf = TfidfVectorizer(ngram_range=(1, 2), min_df=3, max_df=0.3, sublinear_tf=True, stop_words="english",
                            dtype=np.float32)
    matrix = tfidf.fit_transform(texts)
    designs = json.loads(args.designs.read_text(encoding="utf-8"))
    rng = np.random.default_rng(args.seed)
    rows = []
    for design in designs:
        strata = strata_of(design, texts, tfidf, matrix, corpus, row_of)
        sizes = {}
        for name, share in ALLOCATION.items():
            members = strata[name]
            n = min(len(members), int(round(share * args.per_topic)))
            sizes[name] = len(members)
            for row in rng.choice(members, n, replace=False) if n else []:
                rows.append({"topic": design["topic"], "arxiv_id": ids[int(row)], "stratum": name,
                             "stratum_size": int(len(members)), "stratum_sample": int(n)})
        print(f"{design['topic']}: " + ", ".join(f"{k} {v}" for k, v in sizes.items()), flush=True)
    args.out.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    print(f"{len(rows)} rows -> {args.out} in {time.perf_counter() - started:.0f} s ({load_average()})")


if __name__ == "__main__":
    main()
