"""Reciprocal-rank fusion and TRE against hand-computed cases."""

from __future__ import annotations

import pytest

from surveygraph.models import Paper, ScoredPaper
from surveygraph.retrieval.hybrid import ranks_by_retriever, reciprocal_rank_fusion
from surveygraph.retrieval.tre import temporal_rerank


def test_rrf_hand_computed():
    fused = reciprocal_rank_fusion({"dense": ["a", "b", "c"], "bm25": ["b", "d"]}, k=60)
    scores = dict(fused)
    assert scores["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert scores["a"] == pytest.approx(1 / 61)
    assert scores["d"] == pytest.approx(1 / 62)
    assert scores["c"] == pytest.approx(1 / 63)
    # b (in both) first; a and... a=1/61 > d=1/62 > c=1/63.
    assert [doc for doc, _ in fused] == ["b", "a", "d", "c"]


def test_rrf_ties_keep_first_seen_order_and_k_zero():
    fused = reciprocal_rank_fusion({"x": ["a", "b"], "y": ["b", "a"]}, k=0)
    assert [doc for doc, _ in fused] == ["a", "b"]
    assert fused[0][1] == pytest.approx(1.0 + 0.5)


def test_rrf_repeated_id_counts_once_and_empty_input():
    assert reciprocal_rank_fusion({"x": ["a", "a", "b"]}, k=1) == [("a", 0.5), ("b", pytest.approx(1 / 4))]
    assert reciprocal_rank_fusion({}) == []
    assert reciprocal_rank_fusion({"x": []}) == []


def test_ranks_by_retriever():
    assert ranks_by_retriever({"dense": ["a", "b"], "bm25": ["b"]}) == {
        "a": {"dense": 1}, "b": {"dense": 2, "bm25": 1}}


def _hit(name: str, year: int | None, score: float, cites: int | None = None) -> ScoredPaper:
    return ScoredPaper(paper=Paper(title=name, year=year, citation_count=cites), score=score)


def _titles(hits):
    return [h.paper.title for h in hits]


def test_tre_proportional_buckets_unknown_citations_keep_score_order():
    # Buckets (2-year, aligned): 2024-25 has 4 papers, 2022-23 has 2 -> K=3: 4/6*3=2, 2/6*3=1.
    cands = [_hit("a", 2025, .9), _hit("b", 2022, .8), _hit("c", 2024, .7),
             _hit("d", 2023, .6), _hit("e", 2025, .5), _hit("f", 2024, .4)]
    assert _titles(temporal_rerank(cands, 3)) == ["a", "b", "c"]


def test_tre_most_cited_first_within_bucket():
    cands = [_hit("a", 2025, .9, 1), _hit("b", 2024, .8, 50), _hit("c", 2025, .7, 10),
             _hit("d", 2021, .6, 0), _hit("e", 2020, .5, 5)]
    # 2024-25: a, b, c (3/5*2=1.2 -> 1) ; 2020-21: d, e (0.8 -> 0, remainder .8 > .2 -> +1).
    assert _titles(temporal_rerank(cands, 2)) == ["b", "e"]


def test_tre_known_counts_before_unknown_in_bucket():
    cands = [_hit("a", 2025, .9), _hit("b", 2025, .8, 3), _hit("c", 2025, .7)]
    assert _titles(temporal_rerank(cands, 2)) == ["a", "b"]  # b (known) then a (best unknown), input order
    assert _titles(temporal_rerank(cands, 1)) == ["b"]


def test_tre_k_not_divisible_total_is_exact():
    # Three equal buckets of 2, K=4: quotas 4/3 each -> 1,1,1 + one leftover to the first bucket.
    cands = [_hit("a", 2025, .9), _hit("b", 2023, .8), _hit("c", 2021, .7),
             _hit("d", 2025, .6), _hit("e", 2023, .5), _hit("f", 2021, .4)]
    kept = temporal_rerank(cands, 4)
    assert len(kept) == 4
    assert _titles(kept) == ["a", "b", "c", "d"]


def test_tre_unknown_year_is_own_bucket_and_one_bucket_is_score_order():
    cands = [_hit("a", None, .9), _hit("b", 2025, .8), _hit("c", None, .7), _hit("d", 2025, .6)]
    assert _titles(temporal_rerank(cands, 2)) == ["a", "b"]
    same = [_hit(n, 2025, s) for n, s in (("x", .9), ("y", .8), ("z", .7))]
    assert _titles(temporal_rerank(same, 2)) == ["x", "y"]


def test_tre_edge_cases():
    assert temporal_rerank([], 5) == []
    assert temporal_rerank([_hit("a", 2025, 1.0)], 0) == []
    assert _titles(temporal_rerank([_hit("a", 2025, 1.0)], 5)) == ["a"]
    with pytest.raises(ValueError):
        temporal_rerank([_hit("a", 2025, 1.0)], 1, bucket_years=0)
