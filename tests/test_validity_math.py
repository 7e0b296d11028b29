"""The validity harness's numbers on tiny hand-computed cases (no models, no data)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from surveygraph.evaluation.leaderboard import Leaderboard
from surveygraph.evaluation.validity import (HarnessRun, ReferenceScores, is_baseline, label_credits, measure,
                                             metric_component, normalize_discipline, read_labels)
from surveygraph.evaluation.validity_stats import (DisciplineData, concordance, pairwise_accuracy, spearman,
                                                   validity)
from surveygraph.models import EvaluationReport, MetricResult


def test_spearman_by_hand():
    # ranks x = 1 2 3 4, y = 1 2 4 3: sum d^2 = 2, rho = 1 - 6*2 / (4*15) = 0.8
    assert spearman([1, 2, 3, 4], [10, 20, 40, 30]) == pytest.approx(0.8)
    assert spearman([4, 3, 2, 1], [1, 2, 3, 4]) == pytest.approx(-1.0)
    assert math.isnan(spearman([1, 1, 1], [1, 2, 3]))  # a constant metric has no ranking
    # a system without a metric value is left out: (1, 2, 3) vs (1, 2, 3)
    assert spearman([1, np.nan, 2, 3], [5, 0, 6, 7]) == pytest.approx(1.0)


def test_concordance_by_hand():
    assert concordance([1, 2, 3, 4], [10, 20, 40, 30]) == (pytest.approx(5 / 6), 6)
    # a metric tie earns half a pair: 5.5 / 6
    assert concordance([1, 1, 3, 4], [1, 2, 3, 4]) == (pytest.approx(5.5 / 6), 6)
    # reference ties are not pairs: only (0, 2) and (1, 2) count, both in order
    assert concordance([1, 2, 3], [1, 1, 2]) == (pytest.approx(1.0), 2)


def _disc(means, ref, per_topic=None):
    return DisciplineData([f"s{i}" for i in range(len(means))], np.array(means, float), np.array(ref, float),
                          None if per_topic is None else np.array(per_topic, float))


def test_pooled_rho_is_the_mean_of_disciplines_and_concordance_pools_pairs():
    result = validity({"a": _disc([1, 2, 3, 4], [10, 20, 40, 30]),  # rho 0.8, 5 of 6 pairs
                       "b": _disc([3, 1, 2], [1, 2, 3])},  # rho -0.5, pairs: (0,1) no, (0,2) no, (1,2) yes
                      rounds=50)
    assert result["disciplines"]["a"]["rho"] == pytest.approx(0.8)
    assert result["disciplines"]["b"]["rho"] == pytest.approx(-0.5)
    assert result["disciplines"]["b"]["concordance"] == pytest.approx(1 / 3)
    assert result["pooled"]["rho"] == pytest.approx((0.8 - 0.5) / 2)
    assert result["pooled"]["concordance"] == pytest.approx((5 + 1) / (6 + 3))
    assert result["pooled"]["n_disciplines"] == 2
    # no per-topic values: no per-discipline interval, the pooled one resamples disciplines
    assert result["disciplines"]["a"]["rho_ci"] == [None, None]
    assert result["pooled"]["ci_method"] == "disciplines resampled"
    lo, hi = result["pooled"]["rho_ci"]
    assert -0.5 <= lo <= hi <= 0.8


def test_topic_bootstrap_interval_contains_the_point_and_is_reproducible():
    rng = np.random.default_rng(1)
    truth = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    per_topic = truth[:, None] + rng.normal(0, 1.5, size=(5, 12))
    data = {"a": _disc(per_topic.mean(axis=1), truth, per_topic)}
    r1, r2 = validity(data, rounds=300, seed=3), validity(data, rounds=300, seed=3)
    assert r1 == r2
    row = r1["disciplines"]["a"]
    assert row["rho_ci"][0] <= row["rho"] <= row["rho_ci"][1]
    assert row["rho_ci"][1] - row["rho_ci"][0] > 0  # noisy topics: a real interval
    assert r1["pooled"]["ci_method"] == "topics resampled within each discipline"


def test_pairwise_accuracy_counts_ties_as_half():
    result = pairwise_accuracy([1.0, 0.0, 0.5, 1.0], rounds=100)
    assert result["accuracy"] == pytest.approx(0.625)
    assert result["n_labels"] == 4
    assert pairwise_accuracy([])["accuracy"] is None


def test_metric_components_and_disciplines():
    assert metric_component("ra_align_f1.outline") == "outline"
    assert metric_component("quality.reference") == "reference"
    assert metric_component("quality.overall") == "overall"
    assert metric_component("sgsim.sigma.content") == "content"
    assert metric_component("structure.sections") == "outline"
    assert metric_component("tau_maxsim.union") == "overall"
    assert metric_component("surveylens.overall") == "overall"
    assert normalize_discipline("Edu") == "education" and normalize_discipline("Biology") == "biology"


def _board(values: dict[str, dict[str, dict[str, float]]]) -> Leaderboard:
    """system -> topic -> metric -> value, as a leaderboard of reports."""
    systems = list(values)
    topics = list(next(iter(values.values())))
    reports = {s: {t: EvaluationReport(system=s, topic=t, metrics=[
        MetricResult(name=m, family="structure", value=v) for m, v in by_metric.items()])
        for t, by_metric in by_topic.items()} for s, by_topic in values.items()}
    return Leaderboard(systems=systems, topics=topics, reports=reports, union_maxsim={}, ranking=systems)


def test_measure_on_a_hand_built_run(tmp_path):
    # discipline x, two topics; metric m: A 1,3 (mean 2), B 2,2 (2), C 5,5 (5); reference A<B<C.
    board = _board({"A": {"x__t1": {"m": 1.0}, "x__t2": {"m": 3.0}},
                    "B": {"x__t1": {"m": 2.0}, "x__t2": {"m": 2.0}},
                    "C": {"x__t1": {"m": 5.0}, "x__t2": {"m": 5.0}}})
    run = HarnessRun(boards={"x": board})
    ref = ReferenceScores(tmp_path / "ref.csv", {"t_overall": {"x": {"A": 1.0, "B": 2.0, "C": 3.0}}})
    labels_path = tmp_path / "labels.jsonl"
    labels_path.write_text(
        '{"discipline": "X", "topic": "t1", "system_a": "A", "system_b": "B", "choice": "b", '
        '"outline_a": "1\\n2\\n3", "outline_b": "1"}\n'
        '{"discipline": "X", "topic": "t2", "system_a": "A", "system_b": "C", "choice": "a", '
        '"outline_a": "1", "outline_b": "1\\n2"}\n'
        '{"discipline": "X", "topic": "t2", "system_a": "B", "system_b": "C", "choice": "tie"}\n'
        '{"discipline": "Y", "topic": "t9", "system_a": "B", "system_b": "C", "choice": "a"}\n')
    rows, unmatched = read_labels(labels_path, run)
    assert (len(rows), unmatched) == (3, 1)
    results = measure(run, ref, rows, rounds=50)
    row = results["m"]["by_component"]["overall"]["disciplines"]["x"]
    # means (2, 2, 5) vs (1, 2, 3): ranks (1.5, 1.5, 3) -> rho = 0.866; pairs AB tie, AC, BC in order
    assert row["rho"] == pytest.approx(math.sqrt(3) / 2)
    assert row["concordance"] == pytest.approx(2.5 / 3)
    # labels: t1 A=1 < B=2, choice b -> 1; t2 A=3 < C=5, choice a -> 0; tie -> 0.5
    assert label_credits(run, rows, "m") == {"x": [1.0, 0.0, 0.5]}
    assert results["m"]["labels"]["pooled"]["accuracy"] == pytest.approx(0.5)
    # "more lines wins" on the labels' own outlines: t1 a has 3 lines vs 1, choice b -> 0;
    # t2 a 1 vs 2, choice a -> 0; the third row has no outlines (0 vs 0) but is a human tie -> 0.5
    lines = results["baseline.label_outline_lines"]["labels"]["pooled"]
    assert lines["accuracy"] == pytest.approx(0.5 / 3)


def test_raw_structure_counts_are_baselines():
    assert is_baseline("structure.sections") and is_baseline("structure.words")
    assert not is_baseline("structure.ratio.sections") and not is_baseline("ra_align_f1")
