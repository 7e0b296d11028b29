"""Aggregation math of the judges against hand-computed cases."""

from __future__ import annotations

import math

import numpy as np
import pytest

from surveygraph.evaluation.bradley_terry import fit_aspect_weights
from surveygraph.evaluation.judges.base import approx_tokens, trim_lines, trim_sections
from surveygraph.evaluation.judges.checklist import benchmark_scores, group_score, task_scores
from surveygraph.evaluation.judges.sgsim_judges import (
    evenly_spaced, hierarchy_score, normalized_levels, outline_tree,
)
from surveygraph.evaluation.judges.surveylens import learn_weights, rubric_weights, s_rub
from surveygraph.models import Survey, SurveySection


def test_outline_tree_uses_nearest_smaller_level():
    #           0  1  2  3  4  5
    levels = [1, 2, 3, 3, 2, 1]
    assert outline_tree(levels) == {0: [1, 4], 1: [2, 3]}
    assert normalized_levels([2, 3, 3, 2]) == [1, 2, 2, 1]


def test_hierarchy_weights_by_hand():
    # Dmax = 3: a level-1 parent weighs 3/3, a level-2 parent 2/3.
    # H = 100 * (1.0*0.5 + 2/3*1.0) / (1 + 2/3) = 100 * (7/6) / (5/3) = 70
    assert hierarchy_score([(1, 0.5), (2, 1.0)], d_max=3) == pytest.approx(70.0)
    assert hierarchy_score([], d_max=3) == 100.0


def test_s_rub_and_equal_weight_fallback():
    weights, source = rubric_weights(None, "outline")
    assert weights == pytest.approx([1 / 3] * 3) and source.startswith("equal")
    # x = (5, 3, 4): x̄ = (1, .6, .8); S = 5 * (1 + .6 + .8)/3 = 4.0
    assert s_rub(weights, [5, 3, 4]) == pytest.approx(4.0)
    # the paper's worked contribution: 5 × 0.6 × 4.2/5 = 2.52
    assert s_rub([0.6], [4.2]) == pytest.approx(2.52)
    assert s_rub([0.5, 0.5], [1, 1]) == pytest.approx(1.0)


def _group(labels: list[list[str]], strict=False, clip=None) -> dict:
    g = {"group_name": "g", "strict": strict, "weight": 1.0, "sub_groups": [
        {"sub_group_name": f"s{i}", "requirements": [{"content": "r", "reward": 1.0}] * len(lab),
         "eval_result": lab} for i, lab in enumerate(labels)]}
    if clip is not None:
        g["clip_factor"] = clip
    return g


C, N, I = "mentioned_correct", "not_mentioned", "mentioned_incorrect"


def test_deepsynth_group_scores_by_hand():
    # general: 3 correct of 5 -> 3/5
    s, cnt = group_score(_group([[C, C, N], [C, N]], clip=1.0))
    assert s == pytest.approx(0.6) and cnt == {"c": 3, "i": 0, "n": 2}
    # strict clip 0.8: 4 correct of 5 -> min(1, 4/4) = 1 (saturation)
    assert group_score(_group([[C, C, C, C, N]], strict=True, clip=0.8))[0] == pytest.approx(1.0)
    # negative group: 1 correct, 3 incorrect of 4 -> (1-3)/4 = -0.5; floored -> 0
    neg = _group([[C, I], [I, I]], clip=1.0)
    assert group_score(neg)[0] == pytest.approx(-0.5)
    assert group_score(neg, floor_at_zero=True)[0] == 0.0
    # clip_factor missing on a strict group defaults to 0.8
    assert group_score(_group([[C, N, N, N, N]], strict=True))[0] == pytest.approx(1 / 4)
    # missing eval_result counts as all not_mentioned
    g = _group([[C]])
    del g["sub_groups"][0]["eval_result"]
    assert group_score(g)[0] == 0.0


def test_deepsynth_task_and_benchmark_by_hand():
    general = _group([[C, C, N, N]], clip=1.0)                   # 0.5
    negative = _group([[I, I, C, N]], clip=1.0)                  # -0.25
    strict = _group([[C, C, C, N, N]], strict=True, clip=0.8)    # 3/4 = 0.75
    task = {"checklist": [general, negative, strict]}
    scores, cnt = task_scores(task)
    assert scores["gen"] == pytest.approx((0.5 - 0.25) / 2)
    assert scores["con"] == pytest.approx(0.75)
    assert scores["all"] == pytest.approx((0.5 - 0.25 + 0.75) / 3)
    floored, _ = task_scores(task, floor_at_zero=True)
    assert floored["all"] == pytest.approx((0.5 + 0 + 0.75) / 3)
    no_strict = {"checklist": [general]}
    bench = benchmark_scores([task, no_strict])
    assert bench["overall"] == pytest.approx(100 * ((0.5 - 0.25 + 0.75) / 3 + 0.5) / 2)
    assert bench["constraint"] == pytest.approx(75.0)  # only tasks with strict groups
    c, i = cnt["c"] + 2, cnt["i"]
    assert bench["precision"] == pytest.approx(100 * c / (c + i))


def test_bt_aspect_weights_recover_the_deciding_aspect():
    rng = np.random.default_rng(0)
    # preferences decided by aspect 0 only; aspects 1-2 are noise
    x = rng.integers(1, 6, size=(300, 2, 3)) / 5.0
    win = np.where((x[:, 0, 0] >= x[:, 1, 0])[:, None], x[:, 0], x[:, 1])
    lose = np.where((x[:, 0, 0] >= x[:, 1, 0])[:, None], x[:, 1], x[:, 0])
    w = fit_aspect_weights(win, lose, alpha=0.01)
    assert w.sum() == pytest.approx(1.0) and (w >= 0).all()
    assert w[0] > 0.6 and w[0] == w.max()
    assert fit_aspect_weights(np.zeros((0, 3)), np.zeros((0, 3))) == pytest.approx([1 / 3] * 3)
    # all preferences contradict every aspect: weights hit 0 -> uniform fallback
    assert fit_aspect_weights(np.full((5, 2), 0.2), np.full((5, 2), 1.0)) == pytest.approx([0.5, 0.5])


def test_learn_weights_writes_per_component_weights():
    rows = [{"component": "outline",
             "winner": {"Substantive Integrity": 5, "Structural Coherence": 3, "Formal Precision": 3},
             "loser": {"Substantive Integrity": 2, "Structural Coherence": 3, "Formal Precision": 3}}] * 10
    learned = learn_weights({"discipline": "cs"}, rows)
    w, source = rubric_weights(learned, "outline")
    assert source.startswith("bradley-terry") and w[0] == max(w) and sum(w) == pytest.approx(1.0)
    assert rubric_weights(learned, "content")[0] == pytest.approx([0.2] * 5)  # no pairs: uniform


def test_trimming_keeps_every_heading_within_budget():
    survey = Survey(sections=[SurveySection(heading=f"Section {i}", text="word " * 5000) for i in range(8)])
    text = trim_sections(survey, 800)
    assert all(f"Section {i}" in text for i in range(8))
    assert approx_tokens(text) <= 800 * 1.1
    lines = trim_lines([f"ref {i}" for i in range(100)], 50)
    assert lines.endswith("more not shown]") and "ref 0" in lines
    assert evenly_spaced(list(range(10)), 3) == [0, 3, 6] and evenly_spaced([1, 2], 5) == [1, 2]
    assert not math.isnan(approx_tokens("abc"))


def test_rationale_falls_back_to_what_the_number_means():
    from surveygraph.evaluation.judges.base import rationale_of

    assert rationale_of(["", " "], "4.0/5 on the rubric") == "4.0/5 on the rubric (the judge gave no usable note)"
    assert rationale_of(["", "clear outline"], "x") == "clear outline"
    assert rationale_of(["1", "10 points"], "35.0/100 on the SAM-C rubric") == \
        "35.0/100 on the SAM-C rubric (the judge gave no usable note: '1')"
    assert rationale_of(["100 points, 350 points, 200 points"], "x").startswith("x (the judge gave no usable")


def test_generated_placeholders_are_dropped():
    from surveygraph.evaluation.judges.checklist_build import GeneratedGroup, _group_dict

    copied = GeneratedGroup.model_validate({"group_name": "...", "sub_groups": [
        {"sub_group_name": "...", "requirements": ["The article should ...", "..."]}]})
    assert _group_dict(copied, False, 3, 4) is None
    real = GeneratedGroup.model_validate({"group_name": "Pooling", "sub_groups": [
        {"sub_group_name": "Global", "requirements": ["The article should describe global pooling.", "x"]}]})
    assert _group_dict(real, False, 3, 4)["sub_groups"][0]["requirements"] == [
        {"content": "The article should describe global pooling.", "reward": 1.0}]
