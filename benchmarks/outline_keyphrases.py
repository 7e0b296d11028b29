"""Which keyphrase method finds the concepts a field's own survey uses as headings? (issue 29)

    python benchmarks/outline_keyphrases.py --pool-cache /tmp/ot/pools --home <data home> [--top 15]

For each tuning topic with a cached pool (benchmarks/outline_taxonomy.py --pool-cache), every
method proposes its ``--top`` phrases for the whole pool; a phrase *hits* when all its content words
occur in one heading of the topic's human outline (SurveyBench HumanSurvey; tuning topics only,
and only to score: generation never sees the same-topic outline). Reported: hits, one-word phrases
and seconds. Methods: YAKE (statistical, per text), KeyBERT on the bundled MiniLM (MMR diversity),
class-based TF-IDF of the pool against a background sample (BERTopic's c-TF-IDF, as agents/outline/
names.py implements it), and the concept index of agents/outline/concepts.py (support x field prior
x lift). Needs ``pip install keybert yake`` (not dependencies of the package).
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import DEFAULT_DATA, load_average, offline_env  # noqa: E402
from outline_taxonomy import TUNING  # noqa: E402


def human_headings(data: Path, topic: str) -> list[str]:
    import re

    for item in json.loads((data / "weaidb_surveybench" / "HumanSurvey" / "outlines.json").read_text()):
        if item["topic"] == topic:
            return [re.sub(r"^\s*[\d.]+\s*", "", line).strip() for line in item["outline"].splitlines() if line.strip()]
    return []


def hits(phrases: list[str], headings: list[str]) -> int:
    from surveygraph.evaluation.headings import heading_phrases, text_stems

    heads = [text_stems(h) for h in headings]
    count = 0
    for phrase in phrases:
        words = set().union(*heading_phrases(phrase)) if heading_phrases(phrase) else set()
        count += bool(words) and any(words <= h for h in heads)
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pool-cache", required=True)
    parser.add_argument("--home", required=True)
    parser.add_argument("--data", default=str(DEFAULT_DATA))
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args()
    offline_env()
    import numpy as np
    import yake
    from keybert import KeyBERT
    from sklearn.feature_extraction.text import CountVectorizer

    from surveygraph.agents.outline.concepts import PhraseIndex, candidate_concepts, concept_score
    from surveygraph.agents.outline.names import class_terms, topic_words
    from surveygraph.retrieval.embeddings import get_embedder
    from surveygraph.retrieval.outline_kb import OutlineKB
    from surveygraph.settings import Settings, load_settings

    settings = Settings(home=args.home)
    kb = OutlineKB.load(settings)
    embedder = get_embedder(load_settings(**{"embedding.model": "minilm"}))

    class Minilm:  # KeyBERT's backend interface, on the bundled model (never a hub download)
        def embed(self, documents, verbose=False):
            return np.asarray(embedder.encode(list(documents)))

    from keybert.backend import BaseEmbedder

    backend = type("Bundled", (BaseEmbedder,), {"embed": Minilm.embed})()
    keybert = KeyBERT(model=backend)
    print(f"# keyphrase methods against the human headings ({load_average()}, top {args.top})")
    print("| topic | pool | YAKE hits / one-word | KeyBERT hits / one-word | c-TF-IDF hits / one-word | "
          "concepts (no KB) | concepts (KB prior + lift) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    totals: dict[str, list] = {}
    for topic in TUNING:
        cached = Path(args.pool_cache) / f"{topic}.pkl"
        if not cached.is_file():
            continue
        state = pickle.loads(cached.read_bytes())
        papers = [state["papers"][i] for i in state["memory"] if i in state["papers"]]
        texts = [f"{p.get('title', '')}. {p.get('abstract', '')}" for p in papers]
        headings = human_headings(Path(args.data), topic)
        banned = topic_words(topic)
        results = {}
        started = time.perf_counter()
        extractor = yake.KeywordExtractor(n=3, top=args.top)
        scored = extractor.extract_keywords(" ".join(texts)[:200_000])
        results["yake"] = ([k for k, _ in scored][: args.top], time.perf_counter() - started)
        started = time.perf_counter()
        joined = " ".join(p.get("title", "") for p in papers) + " " + " ".join(texts)[:60_000]
        found = keybert.extract_keywords(joined, keyphrase_ngram_range=(1, 3), stop_words="english",
                                         use_mmr=True, diversity=0.6, top_n=args.top,
                                         vectorizer=CountVectorizer(ngram_range=(1, 3), stop_words="english", min_df=1))
        results["keybert"] = ([k for k, _ in found], time.perf_counter() - started)
        started = time.perf_counter()
        # c-TF-IDF: this pool is one class, every other cached topic's pool another (BERTopic's setting)
        others = [[f"{q.get('title', '')}. {q.get('abstract', '')}" for q in pickle.loads(f.read_bytes())["papers"].values()]
                  for f in sorted(Path(args.pool_cache).glob("*.pkl")) if f != cached]
        terms = class_terms([texts, *others], banned, n_terms=args.top,
                            titles=[[p.get("title", "") for p in papers], *[[] for _ in others]])[0]
        results["ctfidf"] = (terms[: args.top], time.perf_counter() - started)
        for label, prior in (("concepts", False), ("concepts_kb", True)):
            started = time.perf_counter()
            index = PhraseIndex([p.get("title", "") for p in papers], [p.get("abstract", "") for p in papers], banned)
            concepts = candidate_concepts(index, min_support=max(2, round(0.01 * len(papers))),
                                          kb_counts=kb.phrase_counts([topic]) if (kb and prior) else None,
                                          background=kb.background if (kb and prior) else None)
            ranked = sorted(concepts, key=lambda c: (-concept_score(c), c.key))[: args.top]
            results[label] = ([c.form for c in ranked], time.perf_counter() - started)
        cells = []
        for label in ("yake", "keybert", "ctfidf", "concepts", "concepts_kb"):
            phrases, seconds = results[label]
            h, one = hits(phrases, headings), sum(len(p.split()) == 1 for p in phrases)
            totals.setdefault(label, []).append((h, one, seconds))
            cells.append(f"{h} / {one} ({seconds:.1f} s)")
        print(f"| {topic} | {len(papers)} | " + " | ".join(cells) + " |", flush=True)
        print(f"<!-- {topic}: " + json.dumps({k: v[0] for k, v in results.items()}) + " -->")
    cells = [f"{sum(h for h, _, _ in v)} / {sum(o for _, o, _ in v)}" for v in totals.values()]
    print(f"| **all** | | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
