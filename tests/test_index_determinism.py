"""Deterministic retrieval: the same store, query and settings give the same ranked list in every
process; dense search is exact (equals a brute-force cosine ranking, ties by paper id); and a
generation with a scripted model replays byte-identically in a second process."""

from __future__ import annotations

import gzip
import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from surveygraph.retrieval.bm25_index import top_n, tokenize
from surveygraph.retrieval.corpus import Corpus
from surveygraph.retrieval.snapshot import IndexSnapshot, NewRows, update
from surveygraph.settings import load_settings
from tests.index_helpers import cached_static_model, link_static_model

QUERIES = ["large language model agents", "image segmentation", "diffusion models for video"]
_RANKINGS = """
import json, sys
from surveygraph.retrieval.corpus import Corpus
from surveygraph.settings import load_settings
corpus = Corpus(load_settings(home=sys.argv[1]))
out = {}
for query in json.loads(sys.argv[2]):
    for mode in ("dense", "bm25", "hybrid"):
        hits = corpus.search(query, 300, mode=mode, tre=False)
        out[f"{mode}:{query}"] = [(h.paper.paper_id, round(h.score, 7)) for h in hits]
    out[f"tre:{query}"] = [h.paper.paper_id for h in corpus.search(query, 30)]
print(json.dumps(out))
"""


def test_top_n_breaks_ties_by_id_whatever_the_row_order():
    scores = np.array([0.5, 0.9, 0.7, 0.9, 0.7, 0.9], dtype=np.float32)
    ids = ["f", "e", "d", "c", "b", "a"]
    assert [ids[i] for i in top_n(scores, 4, ids.__getitem__)] == ["a", "c", "e", "b"]
    order = [5, 4, 3, 2, 1, 0]  # the same rows inserted in reverse
    assert [ids[order[i]] for i in top_n(scores[order], 4, lambda i: ids[order[i]])] == ["a", "c", "e", "b"]
    assert top_n(scores, 0, ids.__getitem__) == [] and top_n(scores[:0], 3, ids.__getitem__) == []


def test_snapshot_round_trip_and_exact_dense(tmp_path):
    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(50, 8)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    vectors[7] = vectors[3]  # a tie: identical vectors under two ids
    ids = [f"p{i:02d}" for i in range(50)]
    texts = [f"paper {i} about topic {i % 5}" for i in range(50)]
    def rows(part):
        return NewRows(ids=[ids[i] for i in part], tokens=[tokenize(texts[i]) for i in part],
                       years=[2025] * len(part), categories=[["cs.CL"]] * len(part), vectors=vectors[part])

    update(tmp_path, None, add=rows(list(range(0, 50, 2))), model="test", dim=8)  # two segments
    update(tmp_path, IndexSnapshot.load(tmp_path), add=rows(list(range(1, 50, 2))), model="test", dim=8)
    snap = IndexSnapshot.load(tmp_path)
    assert snap.model == "test" and len(snap) == 50 and snap.generation == 2 and len(snap.segments) == 2
    query = vectors[3]
    expected = sorted(range(50), key=lambda i: (-float(vectors[i] @ query), ids[i]))[:10]
    assert [pid for pid, _ in snap.dense(query, 10)] == [ids[i] for i in expected]
    assert [pid for pid, _ in snap.dense(query, 2)] == ["p03", "p07"]
    # Dropping rows rewrites the segments holding them; the two generations before stay for readers.
    update(tmp_path, snap, drop=set(ids[10:]), model="test", dim=8)
    assert sorted(IndexSnapshot.load(tmp_path).ids) == ids[:10]
    assert sorted(p.name for p in (tmp_path / "index").glob("g*")) == ["g000002", "g000003"]


def test_segments_merge_when_a_size_tier_fills(tmp_path):
    from surveygraph.retrieval.snapshot import IndexConfig

    config = IndexConfig(merge_factor=3, max_segment_rows=1000)
    rng = np.random.default_rng(1)
    snap, n = None, 0
    for step in range(7):
        vectors = rng.normal(size=(4, 8)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        snap = update(tmp_path, snap, add=NewRows(ids=[f"p{n + i:03d}" for i in range(4)],
                                                  tokens=[["word", f"w{n + i}"] for i in range(4)],
                                                  years=[2020 + step] * 4, categories=[[f"c{step}"]] * 4,
                                                  vectors=vectors), model="test", dim=8, config=config)
        n += 4
    # 7 adds of 4 rows with factor 3: [12, 12, 4] (4+4+4 merged twice), then nothing pending.
    assert sorted(len(s) for s in snap.segments) == [4, 12, 12]
    assert sorted(snap.ids) == [f"p{i:03d}" for i in range(28)]
    assert snap.category_counts() == {f"c{s}": 4 for s in range(7)}
    mask = snap.filter_mask((2021, 2022), ["c1", "c2", "c5"])
    assert sorted(snap.ids[i] for i in np.flatnonzero(mask)) == [f"p{i:03d}" for i in range(4, 12)]
    assert snap.document_frequency(["word", "w3"]) == {"word": 28, "w3": 1}
    live = {s.name for s in snap.segments} | {s.name for s in IndexSnapshot.load(tmp_path).segments}
    on_disk = {p.name for p in (tmp_path / "index" / "segments").iterdir()}
    assert on_disk - live <= on_disk  # merged-away segments go once no kept generation lists them
    previous = json.loads((tmp_path / "index" / sorted(p.name for p in (tmp_path / "index").glob("g*"))[0]
                           / "manifest.json").read_text())["segments"]
    assert on_disk == live | set(previous)


@pytest.fixture(scope="module")
def home(shared_data, tmp_path_factory) -> Path:
    with gzip.open(shared_data / "corpus" / "arxiv_2025_2026.jsonl.gz", "rt", encoding="utf-8") as fh:
        lines = list(itertools.islice(fh, 2500))
    folder = tmp_path_factory.mktemp("determinism")
    (folder / "slice.jsonl").write_text("".join(lines), encoding="utf-8")
    home = folder / "home"
    link_static_model(home, cached_static_model())
    Corpus(load_settings(home=str(home), **{"embedding.model": "minilm-static"})).ingest_path(
        folder / "slice.jsonl", progress=False)
    return home


@pytest.mark.data
def test_same_rankings_in_two_processes(home):
    runs = [subprocess.run([sys.executable, "-c", _RANKINGS, str(home), json.dumps(QUERIES)],
                           capture_output=True, text=True, timeout=300, check=True,
                           env={**os.environ, "PYTHONHASHSEED": str(seed)}) for seed in (1, 2)]
    first, second = (json.loads(r.stdout) for r in runs)
    assert first == second
    assert all(len(first[f"dense:{q}"]) == 300 for q in QUERIES)


@pytest.mark.data
def test_dense_is_exact(home):
    """Dense search returns the true top-k by cosine (no approximate-neighbour misses), scores
    equal to the cosine, best first, ties by id."""
    from surveygraph.retrieval.embeddings import get_model

    corpus = Corpus(load_settings(home=str(home)))
    snap = corpus.snapshot
    matrix = np.vstack([np.asarray(seg.vectors, dtype=np.float64) for seg in snap.segments])
    for query in QUERIES:
        cosine = matrix @ get_model(corpus.settings).encode([query])[0].astype(np.float64)
        hits = corpus.search(query, 300, mode="dense", tre=False)
        rows = [snap.row(h.paper.paper_id) for h in hits]
        np.testing.assert_allclose([h.score for h in hits], cosine[rows], atol=1e-5)
        keys = [(-round(h.score, 12), h.paper.paper_id) for h in hits]
        assert keys == sorted(keys)
        outside = np.delete(cosine, rows)
        assert cosine[rows].min() >= outside.max() - 1e-5  # nothing better was left out


_GENERATE = """
import sys, types
from pathlib import Path
tests_dir = Path(sys.argv[1])
sys.modules["tests"] = types.ModuleType("tests")
sys.modules["tests"].__path__ = [str(tests_dir)]
sys.path.insert(0, str(tests_dir))
from surveygraph.llm import roles
from tests.generation_helpers import scripted_models
model, _ = scripted_models()
roles.make_chat_model = lambda spec, settings: model
from surveygraph.cli import main
sys.argv = ["surveygraph", "--home", sys.argv[2], "generate", sys.argv[3], "--out", sys.argv[4],
            "--sections", "2", "--subsections", "1"]
main()
"""


@pytest.mark.data
def test_generation_replays_byte_identically_in_another_process(shared_data, tmp_path):
    """Same store, topic, settings and (scripted, cached) model answers: the second process writes
    the same survey.md, byte for byte."""
    from tests.generation_helpers import corpus_home

    home = corpus_home(shared_data)
    topic = "Retrieval-Augmented Generation for Large Language Models"
    surveys = []
    for attempt in range(2):
        out = tmp_path / f"runs{attempt}"
        # Different hash seeds: set/dict-of-str iteration order must not reach the survey.
        env = {**os.environ, "PYTHONHASHSEED": str(attempt + 1)}
        run = subprocess.run([sys.executable, "-c", _GENERATE, str(Path(__file__).parent), str(home), topic, str(out)],
                             capture_output=True, text=True, timeout=600, env=env)
        assert run.returncode == 0, run.stderr[-3000:]
        (survey,) = out.glob("*/survey.md")
        surveys.append(survey.read_bytes())
    if surveys[0] != surveys[1]:
        import difflib

        diff = difflib.unified_diff(surveys[0].decode().splitlines(), surveys[1].decode().splitlines(), lineterm="", n=1)
        pytest.fail("survey.md differs between processes:\n" + "\n".join(list(diff)[:60]))


def test_large_segments_search_through_ivf_and_scanning_every_list_is_exact(tmp_path):
    """A segment at or above ann_min_rows gets a faiss IVF index; probing every one of its
    4 sqrt(n) lists returns the exact top k, probing few returns a subset of real neighbours."""
    from surveygraph.retrieval.segments import AnnConfig
    from surveygraph.retrieval.snapshot import IndexConfig

    rng = np.random.default_rng(3)
    vectors = rng.normal(size=(400, 16)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    ids = [f"p{i:03d}" for i in range(400)]
    rows = NewRows(ids=ids, tokens=[["w"]] * 400, years=[2025] * 400, categories=[["cs.CL"]] * 400, vectors=vectors)
    update(tmp_path, None, add=rows, model="test", dim=16, config=IndexConfig(ann=AnnConfig(min_rows=100, nprobe=80)))
    assert (tmp_path / "index" / "segments" / "s000001" / "ivf.faiss").is_file()
    for nprobe, exact in ((80, True), (4, False)):
        snap = IndexSnapshot.load(tmp_path, IndexConfig(ann=AnnConfig(min_rows=100, nprobe=nprobe, exact_below=0)))
        for q in vectors[:5]:
            truth = sorted(range(400), key=lambda i: (-float(vectors[i] @ q), ids[i]))[:10]
            got = snap.dense(q, 10)
            if exact:
                assert [pid for pid, _ in got] == [ids[i] for i in truth]
            else:
                assert got and all(abs(s - float(vectors[ids.index(pid)] @ q)) < 1e-5 for pid, s in got)
        again = IndexSnapshot.load(tmp_path, IndexConfig(ann=AnnConfig(min_rows=100, nprobe=nprobe, exact_below=0)))
        assert again.dense(vectors[7], 10) == snap.dense(vectors[7], 10)
    # Below store.ann_exact_below papers (default 500k) the exact scan answers, IVF or not.
    small = IndexSnapshot.load(tmp_path, IndexConfig(ann=AnnConfig(min_rows=100, nprobe=1)))
    truth = sorted(range(400), key=lambda i: (-float(vectors[i] @ vectors[9]), ids[i]))[:10]
    assert [pid for pid, _ in small.dense(vectors[9], 10)] == [ids[i] for i in truth]
