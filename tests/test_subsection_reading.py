"""What a subsection reads (agents/reader.py) from the papers its outline entry placed under it, on a
real corpus slice: the papers naming the heading first, and a short survey citing its whole pool."""

from __future__ import annotations

from pathlib import Path

import pytest

from surveygraph.agents.reader import read_subsection
from surveygraph.graphs.runner import build_deps
from tests.generation_helpers import corpus_home, scripted_models, small_settings

HEADING = "Knowledge Graphs"


@pytest.fixture(scope="module")
def store(shared_data) -> tuple[Path, list[str], list[str]]:
    """The slice's ids split into papers whose title or abstract names knowledge graphs and the rest."""
    from surveygraph.retrieval.corpus import Corpus
    from surveygraph.settings import Settings

    home = corpus_home(shared_data)
    corpus = Corpus(Settings(home=home))
    ids = corpus.sample_ids(corpus.count(), seed=0)  # every paper of the slice
    papers = corpus.get(list(ids))
    naming = [p.paper_id for p in papers if "knowledge graph" in f"{p.title} {p.abstract}".lower()]
    other = [p.paper_id for p in papers if p.paper_id not in set(naming)]
    if len(naming) < 6:
        pytest.skip(f"the corpus slice holds {len(naming)} papers naming {HEADING!r}; the test needs 6")
    return home, naming, other


def _read(home: Path, placed: list[str], named: int, memory: list[str], **generation) -> list[str]:
    _, chat = scripted_models()
    deps = build_deps(small_settings(home, **generation), chat_models=chat)
    task = {"topic": "Retrieval-Augmented Generation", "section_id": "1", "memory": memory, "memory_titles": [],
            "subsection": {"id": "1.1", "title": HEADING, "description": "", "query": HEADING,
                           "paper_ids": placed, "terms": ["knowledge graph"], "named": named, "source": "concepts"}}
    return read_subsection(task, deps)["readings"]["1.1"]["paper_ids"]


def test_with_k_papers_naming_the_heading_only_they_are_read(store):
    home, naming, other = store
    placed = naming[:6] + other[:20]
    chosen = _read(home, placed, 6, naming + other, papers_per_subsection=4, cite_whole_pool_below=0)
    assert len(chosen) == 4 and set(chosen) <= set(naming[:6]), chosen


def test_fewer_than_k_naming_papers_are_all_read_first(store):
    home, naming, other = store
    placed = naming[:2] + other[:20]
    chosen = _read(home, placed, 2, naming + other, papers_per_subsection=4, cite_whole_pool_below=0)
    assert len(chosen) == 4 and set(naming[:2]) <= set(chosen), chosen


def test_a_short_survey_cites_every_paper_placed_under_a_heading(store):
    """A pool of at most ``cite_whole_pool_below`` papers: a subsection reads all its placed papers,
    not K of them (a 39-paper pool cited 8)."""
    home, naming, other = store
    placed = naming[:3] + other[:12]
    memory = naming[:3] + other[:27]  # a 30-paper pool
    assert len(_read(home, placed, 3, memory, papers_per_subsection=4, cite_whole_pool_below=60)) == 15
    assert len(_read(home, placed, 3, memory, papers_per_subsection=4, cite_whole_pool_below=20)) == 4


def test_a_subsection_reads_the_share_of_the_survey_its_outline_gave_it(store):
    """reading_budgets gave it more than K (a subsection holding most of a mid-sized pool): it reads
    that many of its placed papers, those naming the heading first."""
    home, naming, other = store
    placed = naming[:6] + other[:20]
    _, chat = scripted_models()
    deps = build_deps(small_settings(home, papers_per_subsection=4, cite_whole_pool_below=0), chat_models=chat)
    task = {"topic": "Retrieval-Augmented Generation", "section_id": "1", "memory": naming + other, "memory_titles": [],
            "subsection": {"id": "1.1", "title": HEADING, "description": "", "query": HEADING, "paper_ids": placed,
                           "terms": ["knowledge graph"], "named": 6, "source": "concepts", "reading_k": 10}}
    chosen = read_subsection(task, deps)["readings"]["1.1"]["paper_ids"]
    assert len(chosen) == 10 and set(naming[:6]) <= set(chosen) and set(chosen) <= set(placed), chosen


def test_reading_budgets_fill_the_survey_from_the_subsections_with_most_papers_left():
    from surveygraph.agents.reader import reading_budgets

    def outline(*placed):
        return [{"id": "1", "subsections": [{"id": f"1.{i}", "paper_ids": [f"p{i}-{j}" for j in range(n)]}
                                            for i, n in enumerate(placed, 1)]}]

    # 73 papers under four subsections, 55 of them under one: 8 + 8 + 4 + 5 = 25 cited with K alone
    budgets = reading_budgets(outline(55, 9, 4, 5), 8, 60)
    assert budgets["1.3"] == budgets["1.4"] == 8  # fewer placed than K: all of them, as before
    assert budgets["1.2"] in (8, 9) and budgets["1.1"] > 8
    assert sum(min(b, n) for b, n in zip(budgets.values(), (55, 9, 4, 5))) == 60
    # the survey never reads more than its outline placed, and 0 (or a target met already) keeps K
    assert sum(min(b, n) for b, n in zip(reading_budgets(outline(20, 9), 8, 60).values(), (20, 9))) == 29
    assert set(reading_budgets(outline(55, 9), 8, 0).values()) == {8}
    assert set(reading_budgets(outline(30, 30, 30, 30, 30, 30, 30, 30), 8, 60).values()) == {8}
    # a model's outline (no placed papers) keeps K; a merged subsection K times what it stands for
    merged = [{"id": "1", "subsections": [{"id": "1.1", "paper_ids": [], "merged": 1},
                                          {"id": "1.2", "paper_ids": ["a"] * 40, "merged": 2}]}]
    assert reading_budgets(merged, 8, 0) == {"1.1": 8, "1.2": 16}


def test_reading_budgets_read_no_more_papers_placed_by_nearness_than_papers_naming_the_heading():
    """A subsection two of whose 20 placed papers name its heading reads four, not K = 8 ("2.3
    Positional Encodings" cited eight works, one naming it); the survey's target is met from the
    unread papers naming a heading first (25 under 1.2), then from the most placed papers left."""
    from surveygraph.agents.reader import reading_budgets

    outline = [{"id": "1", "subsections": [{"id": "1.1", "paper_ids": [f"a{j}" for j in range(20)], "named": 2},
                                          {"id": "1.2", "paper_ids": [f"b{j}" for j in range(30)], "named": 25}]}]
    assert reading_budgets(outline, 8, 0) == {"1.1": 4, "1.2": 8}
    assert reading_budgets(outline, 8, 29) == {"1.1": 4, "1.2": 25}
    assert reading_budgets(outline, 8, 30) == {"1.1": 5, "1.2": 25}


def test_candidates_are_ranked_by_their_fit_to_the_queries_fused_with_their_closeness_to_the_topic():
    """topic_fused: reciprocal-rank fusion of the retrieval order and the order by cosine to the topic
    (the cited works of ten c29 runs were no closer to the topic than the pool papers left out)."""
    from types import SimpleNamespace

    import numpy as np

    from surveygraph.agents.reader import topic_fused
    from surveygraph.models import Paper, ScoredPaper
    from surveygraph.settings import Settings

    at = {"a": [0.9, 0.1], "b": [0.0, 1.0], "c": [0.5, 0.5], "d": [1.0, 0.0]}
    candidates = [ScoredPaper(paper=Paper(paper_id=f"arxiv:2501.0000{n}", title=f"Paper {name}"), score=1.0 / n)
                  for n, name in enumerate("abcd", 1)]
    name_of = {c.paper.paper_id: c.paper.title[-1] for c in candidates}
    corpus = SimpleNamespace(vectors=lambda ids: {i: np.array(at[name_of[i]]) for i in ids},
                             encode_query=lambda text: np.array([1.0, 0.0]))

    def order(**generation) -> list[str]:
        deps = SimpleNamespace(settings=Settings(generation=generation), corpus=corpus)
        return [name_of[c.paper.paper_id] for c in topic_fused(candidates, "a topic", deps)]

    assert order(topic_fusion=False) == ["a", "b", "c", "d"]
    fused = order()
    assert fused[0] == "a" and fused.index("d") < fused.index("b"), fused  # last by queries, first by topic


def test_the_papers_read_are_the_closer_to_the_topic_with_topic_fusion(store):
    import numpy as np

    from surveygraph.retrieval.corpus import Corpus
    from surveygraph.settings import Settings

    home, naming, other = store
    corpus = Corpus(Settings(home=home))
    topic = corpus.encode_query("Retrieval-Augmented Generation")

    def closeness(ids: list[str]) -> float:
        found = corpus.vectors(ids)
        return float(np.mean([found[i] @ topic / np.linalg.norm(found[i]) for i in ids]))

    on = _read(home, naming, len(naming), naming + other, papers_per_subsection=4, cite_whole_pool_below=0)
    off = _read(home, naming, len(naming), naming + other, papers_per_subsection=4, cite_whole_pool_below=0,
                topic_fusion=False)
    assert len(on) == len(off) == 4 and closeness(on) >= closeness(off), (on, off)
