"""The paper index end to end: store round trip, filters, within_ids, model mismatch, BM25
equivalence with rank-bm25, and an integration run on a slice of the real arXiv corpus."""

from __future__ import annotations

import gzip
from datetime import date

import numpy as np
import pytest

from surveygraph.errors import UserError
from surveygraph.models import Paper
from surveygraph.retrieval.bm25_index import tokenize
from surveygraph.retrieval.corpus import Corpus
from surveygraph.settings import load_settings
from tests.index_helpers import cached_static_model, link_static_model

PAPERS = [
    Paper(arxiv_id="2501.00001", title="Retrieval-augmented generation for open-domain question answering",
          abstract="We retrieve passages and condition a language model on them.", year=2025, categories=["cs.CL"]),
    Paper(arxiv_id="2401.00002", title="Dense passage retrieval revisited",
          abstract="Dual encoders for retrieval of passages.", year=2024, categories=["cs.IR", "cs.CL"]),
    Paper(arxiv_id="2201.00003", title="Diffusion models for image synthesis",
          abstract="Denoising diffusion probabilistic models generate images.", year=2022, categories=["cs.CV"]),
    Paper(doi="10.1000/xyz", title="Graph neural networks for molecules",
          abstract="Message passing over molecular graphs.", published=date(2023, 5, 1), categories=["cs.LG"]),
    Paper(title="A survey of retrieval augmented language models",
          abstract="Retrieval augmentation reduces hallucination in language models.", categories=[]),
]


@pytest.fixture(scope="session")
def static_model(request):
    return cached_static_model(request.config.cache.mkdir("surveygraph-models"))


@pytest.fixture
def small_corpus(tmp_home, static_model) -> Corpus:
    link_static_model(tmp_home, static_model)
    corpus = Corpus(load_settings(**{"embedding.model": "minilm-static"}))
    report = corpus.add_papers(PAPERS, progress=False, source="test")
    assert (report.read, report.added, report.duplicates) == (5, 5, 0)
    return corpus


def test_round_trip_and_duplicates(small_corpus, tmp_home):
    assert small_corpus.count() == 5
    ids = [p.paper_id for p in PAPERS]
    assert [p.title for p in small_corpus.get(ids[::-1] + ["arxiv:0000.0000"])] == [p.title for p in PAPERS[::-1]]
    assert small_corpus.get([ids[3]])[0].year == 2023  # from `published`
    again = small_corpus.add_papers(
        [PAPERS[0], Paper(title="Dense passage retrieval revisited", abstract="same title, no id")],
        progress=False)
    assert (again.added, again.duplicates) == (0, 2)
    # A fresh Corpus on the same home (a new process) sees everything, BM25 included.
    reopened = Corpus(load_settings(**{"embedding.model": "minilm-static"}))
    assert reopened.count() == 5 and len(reopened.snapshot) == 5
    assert reopened.stats()["embedding_model"] == "minilm-static"


def test_modes_and_ranks(small_corpus):
    for mode in ("hybrid", "dense", "bm25"):
        hits = small_corpus.search("retrieval augmented generation", 2, mode=mode, tre=False)
        assert hits and "etrieval" in hits[0].paper.title, mode
    hybrid = small_corpus.search("retrieval augmented generation", 3, tre=False)
    assert set(hybrid[0].ranks) == {"dense", "bm25"}
    assert all(a.score >= b.score for a, b in zip(hybrid, hybrid[1:]))
    with pytest.raises(UserError):
        small_corpus.search("x", mode="sparse")  # type: ignore[arg-type]


def test_filters(small_corpus):
    hits = small_corpus.search("models", 5, year_range=(2023, 2024), tre=False)
    assert {h.paper.year for h in hits} <= {2023, 2024} and hits
    for mode in ("dense", "bm25"):
        hits = small_corpus.search("retrieval", 5, mode=mode, categories=["cs.IR", "cs.CV"], tre=False)
        assert hits and all({"cs.IR", "cs.CV"} & set(h.paper.categories) for h in hits), mode
    assert small_corpus.search("retrieval", 5, year_range=(1990, 1991), tre=False) == []


def test_within_ids(small_corpus):
    allowed = {PAPERS[2].paper_id, PAPERS[3].paper_id}
    for mode in ("hybrid", "dense", "bm25"):
        hits = small_corpus.search("retrieval augmented generation models", 5, mode=mode, within_ids=allowed, tre=False)
        assert {h.paper.paper_id for h in hits} <= allowed, mode
    dense = small_corpus.search("diffusion images", 5, mode="dense", within_ids=allowed, year_range=(2022, 2022))
    assert [h.paper.paper_id for h in dense] == [PAPERS[2].paper_id]
    assert small_corpus.search("anything", 5, within_ids=set(), tre=False) == []


def test_model_mismatch_is_refused_or_adopted(small_corpus, tmp_home):
    with pytest.raises(UserError, match="minilm-static"):
        Corpus(load_settings(**{"embedding.model": "minilm"}))
    # Not chosen explicitly: the store's model is used.
    assert Corpus(load_settings()).settings.embedding.model == "minilm-static"


def test_empty_store_search_is_user_error(tmp_home):
    with pytest.raises(UserError, match="empty"):
        Corpus(load_settings(**{"embedding.model": "minilm-static"})).search("anything")


def test_bm25_over_segments_matches_rank_bm25_over_the_whole(tmp_path):
    """Papers added in three steps (three segments, corpus-wide statistics merged at each add)
    score exactly as rank-bm25 over all of them at once, including the epsilon floor of terms
    in more than half the papers and an empty paper."""
    from rank_bm25 import BM25Okapi

    from surveygraph.retrieval.snapshot import IndexSnapshot, NewRows, update

    texts = ["retrieval augmented generation models", "dense retrieval of passages passages models",
             "image diffusion models", "generation of images with diffusion models", "graph neural networks",
             "", "models models of retrieval", "diffusion for graph generation"]
    tokens = [tokenize(t) for t in texts]
    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(len(texts), 4)).astype(np.float32)
    snap = None
    for part in ([0, 1, 2], [3, 4, 5], [6, 7]):
        snap = update(tmp_path, snap, add=NewRows(ids=[f"d{i}" for i in part], tokens=[tokens[i] for i in part],
                                                  years=[2025] * len(part), categories=[["cs.CL"]] * len(part),
                                                  vectors=vectors[part]), model="test", dim=4)
    assert len(snap.segments) == 3
    okapi = BM25Okapi([t or ["\0"] for t in tokens])
    for query in ("diffusion generation passages", "models", "graph graph retrieval", "unseen words"):
        expected = okapi.get_scores(tokenize(query))
        got = dict(IndexSnapshot.load(tmp_path).bm25(query, 100))
        for i, score in enumerate(expected):
            if score > 0:
                assert got[f"d{i}"] == pytest.approx(score, rel=1e-9)
            else:
                assert f"d{i}" not in got
    assert snap.document_frequency(["model", "diffusion", "nothing"]) == {"model": 5, "diffusion": 3, "nothing": 0}


# --- integration on the real corpus ------------------------------------------------------------

RAG_MARKERS = ("retrieval-augmented", "retrieval augmented")


@pytest.fixture(scope="session")
def arxiv_slice(shared_data, tmp_path_factory):
    """~2,000 real papers: the first 1,800 lines plus up to 200 later RAG papers."""
    path = tmp_path_factory.mktemp("slice") / "slice.jsonl"
    lines: list[str] = []
    rag = 0
    with gzip.open(shared_data / "corpus" / "arxiv_2025_2026.jsonl.gz", "rt", encoding="utf-8") as fh:
        for number, line in enumerate(fh):
            if number < 1800:
                lines.append(line)
            elif any(m in line.lower() for m in RAG_MARKERS):
                lines.append(line)
                rag += 1
                if rag == 200:
                    break
    path.write_text("".join(lines), encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def real_corpus(arxiv_slice, static_model, tmp_path_factory, request) -> Corpus:
    home = tmp_path_factory.mktemp("home")
    link_static_model(home, static_model)
    settings = load_settings(home=str(home), **{"embedding.model": "minilm-static"})
    corpus = Corpus(settings)
    report = corpus.ingest_path(arxiv_slice, progress=False)
    assert report.read == 2000 and report.added + report.duplicates == 2000 and report.added > 1900
    return corpus


def test_integration_finds_rag_papers(real_corpus):
    for mode in ("hybrid", "dense", "bm25"):
        hits = real_corpus.search("retrieval-augmented generation for large language models", 10, mode=mode)
        mentioning = sum("retriev" in (h.paper.title + h.paper.abstract).lower() for h in hits)
        assert len(hits) == 10 and mentioning >= 8, (mode, mentioning)


def test_integration_filters_and_memory(real_corpus):
    hits = real_corpus.search("image segmentation", 10, categories=["cs.CV"])
    assert all("cs.CV" in h.paper.categories for h in hits)
    memory = [h.paper.paper_id for h in real_corpus.search("language models", 300, tre=False)]
    assert len(memory) == 300
    scoped = real_corpus.search("retrieval-augmented generation", 10, within_ids=memory)
    assert scoped and {h.paper.paper_id for h in scoped} <= set(memory)


def test_unreachable_chroma_server_is_user_error(tmp_home):
    settings = load_settings(**{"store.chroma_url": "http://127.0.0.1:9"})
    with pytest.raises(UserError, match="Chroma server"):
        Corpus(settings)
    with pytest.raises(UserError, match="not a URL"):
        Corpus(load_settings(**{"store.chroma_url": "localhost"}))


def test_dense_filters_are_exact(small_corpus):
    """A filtered dense search equals the unfiltered exact ranking with the filter applied."""
    everything = small_corpus.search("retrieval", 5, mode="dense", tre=False)
    filtered = small_corpus.search("retrieval", 5, mode="dense", categories=["cs.CL"], tre=False)
    assert [h.paper.paper_id for h in filtered] == [
        h.paper.paper_id for h in everything if "cs.CL" in h.paper.categories]
    assert len(filtered) == 2


def test_ingest_streams_in_batches_and_adds_leave_existing_segments_alone(tmp_home, static_model, tmp_path):
    """issue 18: a JSONL file is indexed ingest_batch papers at a time (one segment each), a later
    add writes only its own segment (the earlier segment files are not rewritten), and a search
    over all segments equals rank-bm25 over the whole corpus."""
    import json
    import os

    from rank_bm25 import BM25Okapi

    link_static_model(tmp_home, static_model)
    settings = load_settings(**{"embedding.model": "minilm-static", "store.ingest_batch": 100})
    topics = ["retrieval augmented generation", "diffusion image synthesis", "graph neural network molecules"]
    records = [{"arxiv_id": f"2501.{i:05d}", "title": f"Paper {i} on {topics[i % 3]}",
                "abstract": f"We study {topics[i % 3]} in setting {i}.", "categories": ["cs.LG"], "year": 2025}
               for i in range(250)]
    source = tmp_path / "papers.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in records))
    corpus = Corpus(settings)
    report = corpus.ingest_path(source, progress=False)
    assert (report.read, report.added) == (250, 250)
    segments = corpus.snapshot.segments
    assert [len(s) for s in segments] == [100, 100, 50]
    before = {p: os.stat(p).st_mtime_ns for s in segments for p in s.directory.iterdir()}
    more = tmp_path / "more.jsonl"
    more.write_text("".join(json.dumps({**r, "arxiv_id": f"2502.{i:05d}", "title": r["title"] + " again"}) + "\n"
                            for i, r in enumerate(records[:30])))
    again = Corpus(settings).ingest_path(more, progress=False)
    assert again.added == 30 and again.repaired == 0
    reopened = Corpus(settings)
    assert [len(s) for s in reopened.snapshot.segments] == [100, 100, 50, 30]
    assert {p: os.stat(p).st_mtime_ns for p in before} == before  # not rewritten
    ids = [f"arxiv:2501.{i:05d}" for i in range(250)] + [f"arxiv:2502.{i:05d}" for i in range(30)]
    stored = {p.paper_id: p.embedding_text() for p in reopened.get(ids)}
    okapi = BM25Okapi([tokenize(stored[i]) for i in ids])
    expected = okapi.get_scores(tokenize("graph neural molecules setting 7"))
    hits = reopened.search("graph neural molecules setting 7", k=20, mode="bm25", tre=False)
    assert [h.paper.paper_id for h in hits] == [ids[i] for i in sorted(range(len(ids)), key=lambda i: (-expected[i], ids[i]))[:20]]
    assert [h.score for h in hits] == pytest.approx(sorted(expected, reverse=True)[:20], rel=1e-9)


def test_a_first_layout_paper_table_is_migrated_by_the_first_writer(tmp_home, static_model):
    import sqlite3

    link_static_model(tmp_home, static_model)
    settings = load_settings(**{"embedding.model": "minilm-static"})
    db_path = settings.store_dir / "papers.sqlite"
    db_path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(db_path)
    db.execute("CREATE TABLE papers (id TEXT PRIMARY KEY, json TEXT NOT NULL) WITHOUT ROWID")
    db.executemany("INSERT INTO papers VALUES (?, ?)", [(p.paper_id, p.model_dump_json(exclude_none=True)) for p in PAPERS])
    db.commit()
    db.close()
    corpus = Corpus(settings)
    assert corpus.count() == 5  # the first search builds the index from the migrated table
    again = corpus.add_papers([PAPERS[1].model_copy(update={"arxiv_id": None, "doi": "10.1/other"})], progress=False)
    assert (again.added, again.duplicates) == (0, 1)  # found by its title through the new index
    columns = [r[1] for r in sqlite3.connect(db_path).execute("PRAGMA table_info(papers)")]
    assert "title_key" in columns
