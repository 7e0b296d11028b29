"""Relevance: the topic's concepts, the shipped model on the labelled set, and a survey of a mixed
corpus that cites only on-topic papers. Real corpus papers throughout (../shared/data)."""

from __future__ import annotations

import gzip
import json
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from surveygraph.retrieval.bm25_index import tokenize
from surveygraph.retrieval.relevance import (
    PaperText, concept_phrases, judge_pool, load_model, mine_acronyms,
)

LABELS = Path(__file__).parent / "data" / "relevance_labels.jsonl"
RAG = "Retrieval-Augmented Generation for Large Language Models"
STRATUM_SIZE = {"top": 60, "pool": 240, "deep": 700}  # the labelling's sampling (docs/relevance_labelling.md)


def labels() -> dict[str, list[dict]]:
    by_topic: dict[str, list[dict]] = defaultdict(list)
    for line in LABELS.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        by_topic[row["topic"]].append(row)
    return dict(by_topic)


def test_labelled_set_is_large_enough_and_well_formed():
    by_topic = labels()
    rows = [r for topic_rows in by_topic.values() for r in topic_rows]
    assert len(rows) >= 1500 and len(by_topic) >= 8
    assert all(r["label"] in (0, 1) and r["stratum"] in STRATUM_SIZE for r in rows)
    assert len({(r["topic"], r["arxiv_id"]) for r in rows}) == len(rows)
    for topic, topic_rows in by_topic.items():  # every topic has both kinds (3DGS nearly all positive)
        assert 0 < sum(r["label"] for r in topic_rows) <= len(topic_rows), topic


def test_topic_splits_into_concepts_at_connectors_not_at_and():
    assert concept_phrases(RAG) == ["Retrieval-Augmented Generation", "Large Language Models"]
    assert concept_phrases("Integrated Sensing and Communication") == ["Integrated Sensing and Communication"]
    assert concept_phrases("LLM-based Multi-Agent Systems") == ["LLM", "Multi-Agent Systems"]
    assert concept_phrases("Hallucination in Large Language Models") == ["Hallucination", "Large Language Models"]


def test_acronyms_are_mined_only_where_the_text_defines_them():
    texts = ["Vision-Language-Action (VLA) models map images to actions.",
             "We study vision-language-action (VLA) models for manipulation.",
             "Large language models (GPT-4) are used."]
    assert mine_acronyms(tokenize("Vision-Language-Action Models"), texts) == ["vla"]
    assert mine_acronyms(tokenize("Large Language Models"), texts) == []  # GPT-4 does not start like it


@pytest.fixture(scope="module")
def corpus_texts(shared_data) -> tuple[dict[str, PaperText], dict[str, int], int]:
    """Title/abstract of every labelled paper, and document frequencies over the whole corpus."""
    wanted = {r["arxiv_id"] for rows in labels().values() for r in rows}
    found: dict[str, PaperText] = {}
    df: dict[str, int] = defaultdict(int)
    n = 0
    with gzip.open(shared_data / "corpus" / "arxiv_2025_2026.jsonl.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            record = json.loads(line)
            n += 1
            text = f"{record.get('title', '')}. {record.get('abstract', '')}"
            for token in set(tokenize(text)):
                df[token] += 1
            if record["arxiv_id"] in wanted:
                found[record["arxiv_id"]] = PaperText(record["arxiv_id"], record.get("title", ""),
                                                      record.get("abstract", ""))
    return found, dict(df), n


@pytest.fixture(scope="module")
def encode():
    from surveygraph.retrieval.embeddings import get_embedder
    from surveygraph.settings import load_settings

    embedder = get_embedder(load_settings(**{"embedding.model": "minilm", "embedding.cache": False}))
    return lambda texts: np.asarray(embedder.encode(list(texts)), dtype=float)


@pytest.mark.data
def test_shipped_model_keeps_on_topic_papers_of_every_labelled_topic(corpus_texts, encode):
    """The candidate memory M (ranks 1-300) of each labelled topic, judged by the shipped model:
    weighted precision and recall against the labels. In-sample for the shipped fit; the
    leave-one-topic-out figures are in BENCHMARKS.md (precision 0.89, recall 0.79)."""
    texts, df, n = corpus_texts
    model = load_model()
    precisions, recalls, before = [], [], []
    for topic, rows in labels().items():
        pool = sorted((r for r in rows if r["stratum"] != "deep"), key=lambda r: r["rank"])
        judged = judge_pool(topic, [texts[r["arxiv_id"]] for r in pool], encode,
                            lambda terms: {t: df.get(t, 0) for t in terms}, n, model=model)
        y = np.array([r["label"] for r in pool])
        counts = {s: sum(r["stratum"] == s for r in pool) for s in ("top", "pool")}
        w = np.array([STRATUM_SIZE[r["stratum"]] / counts[r["stratum"]] for r in pool])
        keep = judged.keep
        precisions.append(float(w[keep & (y == 1)].sum() / max(w[keep].sum(), 1e-9)))
        recalls.append(float(w[keep & (y == 1)].sum() / max(w[y == 1].sum(), 1e-9)))
        before.append(float(w[y == 1].sum() / w.sum()))
    assert np.mean(precisions) >= 0.85 and min(precisions) >= 0.7, precisions
    assert np.mean(recalls) >= 0.7, recalls
    assert np.mean(precisions) >= np.mean(before) + 0.25  # the unfiltered M: 0.53


@pytest.mark.data
@pytest.mark.slow
def test_survey_of_a_mixed_corpus_cites_on_topic_papers(shared_data, tmp_path):
    """60 papers labelled on topic for RAG mixed with 300 papers labelled on topic for topics that are
    not about language models (papers of the LLM topics can themselves be RAG papers: HalluGuard is
    both): the default job (bundled model, floors) cites at least 90% RAG papers, and shrinks to fit."""
    from surveygraph.graphs.runner import build_deps, start_run
    from surveygraph.retrieval.corpus import Corpus
    from surveygraph.retrieval.loaders import paper_from_record
    from surveygraph.settings import Settings

    by_topic = labels()
    rag = [r["arxiv_id"] for r in sorted(by_topic[RAG], key=lambda r: r["rank"]) if r["label"] == 1][:60]
    unrelated_topics = [t for t in by_topic if "Language Model" not in t]
    others = [r["arxiv_id"] for t in sorted(unrelated_topics) for r in by_topic[t] if r["label"] == 1]
    other = others[:: max(1, len(others) // 300)][:300]
    wanted = set(rag) | set(other)
    records = []
    with gzip.open(shared_data / "corpus" / "arxiv_2025_2026.jsonl.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            record = json.loads(line)
            if record["arxiv_id"] in wanted:
                records.append(record)
    settings = Settings(home=tmp_path / "home", generation={"self_evaluate": False})
    Corpus(settings).add_papers([paper_from_record(r) for r in records], progress=False)
    result = start_run(RAG, build_deps(settings), runs_dir=tmp_path / "runs")
    assert result.finished
    survey = json.loads((result.run_dir / "survey.json").read_text(encoding="utf-8"))
    cited = [ref.get("arxiv_id") for ref in survey["references"]]
    on_topic = sum(a in set(rag) for a in cited)
    assert len(cited) >= 20 and on_topic / len(cited) >= 0.9, (on_topic, len(cited))
    relevance = result.state["relevance"]
    assert relevance["kept"] <= 80  # the pool shrank to what is on topic ...
    assert len(result.state["outline"]) * 3 >= len([s for sec in result.state["outline"] for s in sec["subsections"]])
    manifest = json.loads((result.run_dir / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["outcome"]["exit_code"] == 0
