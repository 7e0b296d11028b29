"""The recall-first pool on real corpus papers (../shared/data): rounds that widen the pool, a judge
that keeps labelled on-topic papers and leaves the rest, honest sizes, and a survey of a mixed
corpus that cites on-topic papers only."""

from __future__ import annotations

import gzip
import json
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

DATA = Path(__file__).parent / "data"
SESSION7_LABELS = DATA / "relevance_labels.jsonl"  # 9 topics, drawn from the old retriever's ranks
CORPUS_LABELS = DATA / "relevance_corpus_labels.jsonl"  # 21 topics, drawn corpus-wide (stratified)
RAG = "Retrieval-Augmented Generation for Large Language Models"
REC = "Large Language Models for Recommendation"
GNN = "Graph Neural Networks"


def labels(path: Path = CORPUS_LABELS) -> dict[str, list[dict]]:
    by_topic: dict[str, list[dict]] = defaultdict(list)
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            by_topic[row["topic"]].append(row)
    return dict(by_topic)


def corpus_records(shared_data: Path, wanted: set[str], every: int = 0) -> list[dict]:
    """Corpus records whose id is wanted, plus every ``every``-th record (a real background)."""
    found = []
    with gzip.open(shared_data / "corpus" / "arxiv_2025_2026.jsonl.gz", "rt", encoding="utf-8") as handle:
        for n, line in enumerate(handle):
            record = json.loads(line)
            if record["arxiv_id"] in wanted or (every and n % every == 0):
                found.append(record)
    return found


@pytest.fixture(scope="module")
def mid_store(shared_data, tmp_path_factory):
    """A 15k-paper store: every paper labelled for three topics plus every 6th corpus paper; large
    enough (> 5 x the 2,000-paper background) for the learned judge."""
    from surveygraph.retrieval.corpus import Corpus
    from surveygraph.retrieval.loaders import paper_from_record
    from surveygraph.settings import Settings

    by_topic = labels()
    wanted = {r["arxiv_id"] for t in (RAG, REC, GNN) for r in by_topic[t]}
    settings = Settings(home=tmp_path_factory.mktemp("pool-home"))
    corpus = Corpus(settings)
    corpus.add_papers([paper_from_record(r) for r in corpus_records(shared_data, wanted, every=6)], progress=False)
    return corpus


@pytest.mark.data
@pytest.mark.slow
@pytest.mark.parametrize("topic", [RAG, pytest.param(REC, marks=pytest.mark.xfail(strict=True, reason=(
    "known defect (benchmarks/results/topic_pool.md): in this 15k-paper store the LLM4Rec pool keeps "
    "language-model papers without recommendation (precision 0.32, recall 0.87 with the facet gate; 0.78 on "
    "the full corpus, leave-one-topic-out)"))), GNN])
def test_pool_keeps_labelled_on_topic_papers_and_leaves_the_rest(mid_store, topic):
    """On the corpus-wide labelled papers in the store (unweighted): most kept papers are on topic
    and a fair share of the on-topic ones is kept. The shipped model was fitted on these labels
    among others, so this guards the pool's behaviour; the held-out figures (leave-one-topic-out,
    weighted for corpus-wide recall) are benchmarks/results/topic_pool.md's."""
    from surveygraph.retrieval.literature_pool import build_literature_pool

    pool = build_literature_pool(topic, mid_store)
    kept = set(pool.kept)
    rows = labels()[topic]
    y = np.array([r["label"] for r in rows])
    k = np.array([f"arxiv:{r['arxiv_id']}" in kept for r in rows])
    precision = (k & (y == 1)).sum() / max(k.sum(), 1)
    recall = (k & (y == 1)).sum() / max((y == 1).sum(), 1)
    assert precision >= 0.8 and recall >= 0.3, (topic, precision, recall, len(kept))
    assert len(pool.rounds) >= 2 and pool.rounds[-1].candidates > pool.rounds[0].candidates  # rounds widened it
    assert pool.estimate["low"] <= pool.estimate["on_topic"] <= pool.estimate["high"]


@pytest.mark.data
@pytest.mark.slow
@pytest.mark.parametrize("topic", [RAG, GNN])
def test_the_pool_holds_the_last_round_s_papers_each_at_the_threshold(mid_store, topic):
    """Each round's judge learns from the previous round's kept papers, and one learned from the
    most confident of them may keep fewer (RAG on the full corpus: 389 in round 0, 232 in round 1):
    the pool holds every paper the last round kept, plus those an earlier round kept that the last
    judge still reads at STILL_ON_TOPIC, and every kept paper's recorded probability reached the
    threshold. (Not "never smaller than any round's kept set": with the session-31 model RAG kept
    167 in round 0 and 166 in the last round here, and the one paper it dropped reads below
    STILL_ON_TOPIC.)"""
    from surveygraph.retrieval.literature_pool import build_literature_pool

    pool = build_literature_pool(topic, mid_store)
    assert len(pool.rounds) >= 2
    assert len(pool.kept) >= pool.rounds[-1].kept, [r.kept for r in pool.rounds]
    assert all(pool.probability[i] >= pool.threshold for i in pool.kept)
    assert len(pool.kept) == len(set(pool.kept))


@pytest.mark.data
@pytest.mark.slow
def test_a_two_facet_topic_keeps_papers_on_both_facets(mid_store):
    """LLMs for recommendation: papers labelled off topic that are about language models but not
    about recommendation (the store's bulk) stay out; the pool is not the language-model pool.
    (A known defect until session 21: with minilm-static vectors 11 of 90 such papers were kept,
    0.12; the minilm-head index and the model refitted on it keep at most a tenth.)"""
    from surveygraph.retrieval.literature_pool import build_literature_pool
    from surveygraph.retrieval.facet_reading import read_facets

    pool = build_literature_pool(REC, mid_store)
    kept = set(pool.kept)
    facets = pool.judge.facets
    rows = [r for r in labels()[REC] if r["label"] == 0]
    texts = mid_store.texts([f"arxiv:{r['arxiv_id']}" for r in rows])
    one_facet = []
    for r in rows:
        title, abstract = texts.get(f"arxiv:{r['arxiv_id']}", ("", ""))
        shares = [read_facets([f], title, abstract).text_min for f in facets]
        if max(shares) >= 1.0 > min(shares):
            one_facet.append(f"arxiv:{r['arxiv_id']}" in kept)
    assert len(facets) == 2 and len(one_facet) >= 20 and len(kept) >= 30
    assert np.mean(one_facet) <= 0.1, (np.mean(one_facet), len(one_facet))


@pytest.mark.data
@pytest.mark.slow
def test_survey_of_a_mixed_corpus_cites_on_topic_papers(shared_data, tmp_path):
    """60 papers labelled on topic for RAG mixed with 300 papers labelled on topic for topics that are
    not about language models: the default job (bundled model, floors) cites at least 90% RAG papers
    (a store this small is judged by its words: agents/topic_pool.py)."""
    from surveygraph.graphs.runner import build_deps, start_run
    from surveygraph.retrieval.corpus import Corpus
    from surveygraph.retrieval.loaders import paper_from_record
    from surveygraph.settings import Settings

    by_topic = labels(SESSION7_LABELS)
    rag = [r["arxiv_id"] for r in sorted(by_topic[RAG], key=lambda r: r["rank"]) if r["label"] == 1][:60]
    unrelated_topics = [t for t in by_topic if "Language Model" not in t]
    others = [r["arxiv_id"] for t in sorted(unrelated_topics) for r in by_topic[t] if r["label"] == 1]
    other = others[:: max(1, len(others) // 300)][:300]
    settings = Settings(home=tmp_path / "home", generation={"self_evaluate": False})
    Corpus(settings).add_papers([paper_from_record(r) for r in corpus_records(shared_data, set(rag) | set(other))],
                                progress=False)
    result = start_run(RAG, build_deps(settings), runs_dir=tmp_path / "runs")
    assert result.finished
    survey = json.loads((result.run_dir / "survey.json").read_text(encoding="utf-8"))
    cited = [ref.get("arxiv_id") for ref in survey["references"]]
    on_topic = sum(a in set(rag) for a in cited)
    assert len(cited) >= 20 and on_topic / len(cited) >= 0.9, (on_topic, len(cited))


@pytest.mark.data
def test_a_store_of_forty_papers_keeps_those_naming_the_topic(shared_data, tmp_path):
    """Below five background samples the pool reads the facets' words; a 40-paper store raised
    'too few ... background papers to learn a topic' while learning the facets' vocabularies."""
    from surveygraph.retrieval.corpus import Corpus
    from surveygraph.retrieval.literature_pool import build_literature_pool
    from surveygraph.settings import Settings
    from tests.generation_helpers import rag_papers

    store = Corpus(Settings(home=tmp_path / "home"))
    store.add_papers(rag_papers(shared_data, 40), progress=False)
    pool = build_literature_pool("Retrieval-Augmented Generation", store)
    assert 20 <= len(pool.kept) <= 40 and pool.estimate["rule"].startswith("small store")
    assert pool.record()["rule"] == "every facet named (small store)"
