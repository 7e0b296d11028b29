"""Hand-computed checks of the LLM-free metric formulas (alignment, τ-MaxSim, σ, HP/B, outline paths)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from surveygraph.evaluation.alignment import ra_align_f1, redundancy_weights, similarity, tau_maxsim
from surveygraph.evaluation.sgsim import (
    balanced, content_units, human_as_perfect, outline_units, reference_units, sigma,
)
from surveygraph.models import OutlineEntry, Reference, Survey, SurveySection


def entries(*pairs):
    return [OutlineEntry(level=level, title=title) for level, title in pairs]


# --- RA-AlignF1 ---------------------------------------------------------------------------
def test_ra_align_f1_hungarian_beats_greedy_and_applies_redundancy():
    # Greedy would take (0,0) and leave e1 unmatched; the assignment maximising the summed
    # margin pairs e0-g1 and e1-g0 (0.03 + 0.03 > 0.04).
    sim_gh = np.array([[0.99, 0.98], [0.98, 0.10]])
    sim_gg = np.array([[1.0, 0.5], [0.5, 1.0]])
    out = ra_align_f1(sim_gh, sim_gg, tau=0.95, lam=1.0)
    assert sorted((i, j) for i, j, _ in out["pairs"]) == [(0, 1), (1, 0)]
    omega = math.exp(-0.5)
    assert out["precision"] == pytest.approx(omega)
    assert out["recall"] == pytest.approx(1.0)
    assert out["f1"] == pytest.approx(2 * omega / (omega + 1))


def test_ra_align_f1_more_generated_than_human_with_lambda():
    sim_gh = np.array([[0.96, 0.0], [0.0, 0.97], [0.2, 0.3]])
    sim_gg = np.array([[1.0, 0.2, 0.4], [0.2, 1.0, 0.1], [0.4, 0.1, 1.0]])
    out = ra_align_f1(sim_gh, sim_gg, tau=0.95, lam=1.0)
    p = (math.exp(-0.4) + math.exp(-0.2)) / 3
    assert out["precision"] == pytest.approx(p)
    assert out["recall"] == pytest.approx(1.0)
    assert out["f1"] == pytest.approx(2 * p / (p + 1))
    out2 = ra_align_f1(sim_gh, sim_gg, tau=0.95, lam=2.0)
    assert out2["precision"] == pytest.approx((math.exp(-0.8) + math.exp(-0.4)) / 3)


def test_ra_align_f1_single_generated_entry_has_no_redundancy_penalty():
    out = ra_align_f1(np.array([[0.96, 0.99]]), np.array([[1.0]]), tau=0.95)
    assert [(i, j) for i, j, _ in out["pairs"]] == [(0, 1)]
    assert out["precision"] == pytest.approx(1.0)
    assert out["recall"] == pytest.approx(0.5)
    assert out["f1"] == pytest.approx(2 / 3)


def test_ra_align_f1_no_matches_and_empty_inputs():
    sim_gh = np.array([[0.90, 0.94], [0.5, 0.1]])
    out = ra_align_f1(sim_gh, np.eye(2), tau=0.95)
    assert out == {"f1": 0.0, "precision": 0.0, "recall": 0.0, "pairs": []}
    assert ra_align_f1(np.zeros((0, 3)), np.zeros((0, 0)))["f1"] == 0.0
    assert ra_align_f1(np.zeros((2, 0)), np.eye(2))["f1"] == 0.0
    # a lower τ lets the same entries match
    assert ra_align_f1(sim_gh, np.eye(2) * 0, tau=0.9)["recall"] == pytest.approx(0.5)


def test_redundancy_weights_use_max_over_other_entries():
    w = redundancy_weights(np.array([[1.0, 0.2, 0.7], [0.2, 1.0, 0.1], [0.7, 0.1, 1.0]]), lam=1.0)
    assert w == pytest.approx([math.exp(-0.7), math.exp(-0.2), math.exp(-0.7)])
    assert redundancy_weights(np.array([[1.0]])).tolist() == [1.0]


# --- τ-MaxSim ----------------------------------------------------------------------------
def test_tau_maxsim_with_and_without_rescale():
    sim = np.array([[0.97, 0.5], [0.90, 0.96], [0.2, 0.1]])
    assert tau_maxsim(sim, tau=0.95) == pytest.approx(0.01)
    assert tau_maxsim(sim, tau=0.95, rescale=True) == pytest.approx(0.2)
    assert tau_maxsim(sim, tau=0.9) == pytest.approx(0.13 / 3)
    assert tau_maxsim(np.zeros((0, 2))) == 0.0
    assert tau_maxsim(np.zeros((2, 0))) == 0.0


# --- similarity modes --------------------------------------------------------------------
def test_similarity_cosine_and_chroma_l2():
    a = np.array([[2.0, 0.0]])  # not unit length: normalised first
    b = np.array([[0.6, 0.8], [1.0, 0.0]])
    assert similarity(a, b) == pytest.approx(np.array([[0.6, 1.0]]))
    # 1 - ||a-b||^2 = 1 - (0.16 + 0.64) = 0.2 = 2*0.6 - 1
    assert similarity(a, b, "chroma_l2") == pytest.approx(np.array([[0.2, 1.0]]))
    assert similarity(np.zeros((0, 2)), b).shape == (0, 2)
    with pytest.raises(ValueError):
        similarity(a, b, "dot")


# --- σ and its combinations -----------------------------------------------------------------
def test_sigma_top_n_and_fewer_units():
    sim = np.array([[0.9, 0.1], [0.5, 0.7], [0.3, 0.2]])
    assert sigma(sim, 2) == pytest.approx(0.8)
    assert sigma(sim, 5) == pytest.approx((0.9 + 0.7 + 0.3) / 3)
    assert sigma(sim, 1) == pytest.approx(0.9)
    assert sigma(np.zeros((0, 4)), 5) == 0.0
    assert sigma(np.zeros((3, 0)), 5) == 0.0


def test_human_as_perfect_and_balanced():
    assert human_as_perfect(3.0, 0.4, 5.0) == pytest.approx(3.8)
    assert human_as_perfect(60.0, 0.5, 100.0) == pytest.approx(80.0)
    assert balanced(3.0, 0.4, 4.0) == pytest.approx(3.4)
    assert balanced(4.5, 0.5, 3.5) == pytest.approx(4.0)  # a worse human pulls the score down
    assert human_as_perfect(2.0, 1.0, 5.0) == 5.0 and balanced(2.0, 0.0, 5.0) == 2.0


# --- SGSimEval units -----------------------------------------------------------------------
def test_outline_units_insert_topic_root_and_drop_short_paths():
    outline = entries((1, "Intro"), (1, "Methods"), (2, "A"), (2, "B"), (3, "B1"), (1, "Conclusion"))
    assert outline_units(outline, "Topic") == ["Topic > Methods > A", "Topic > Methods > B > B1"]


def test_outline_units_merge_sibling_leaves_under_single_root():
    outline = entries((1, "Root"), (2, "S1"), (3, "a"), (3, "b"), (2, "S2"), (2, "S3"), (3, "c"))
    assert outline_units(outline, "ignored") == ["Root > S1 > a > b", "Root > S3 > c"]


def test_outline_units_normalise_levels_and_edge_cases():
    # Headings starting at level 2 (no '#' title): level 2 becomes the single root.
    assert outline_units(entries((2, "Title"), (3, "S"), (4, "x")), "T") == ["Title > S > x"]
    assert outline_units([], "T") == []
    assert outline_units(entries((1, "Only")), "T") == []
    assert outline_units(entries((1, "a"), (1, "b")), "T") == []  # flat: paths of length 2 only


def test_content_and_reference_units():
    survey = Survey(
        sections=[SurveySection(heading="Intro", level=2, text="Body one."),
                  SurveySection(heading="", level=1, text="")],
        references=[Reference(key="1", text="[1] Attention is all you need"),
                    Reference(key="2", title="BERT"), Reference(key="3")])
    assert content_units(survey) == ["## Intro\nBody one."]
    assert reference_units(survey) == ["[1] Attention is all you need", "BERT"]
    assert content_units(Survey()) == [] and reference_units(Survey()) == []
