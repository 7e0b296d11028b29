"""The shipped SurveyLens reference scores and calibration files load and hold the spec's values."""

from __future__ import annotations

import json

import pytest

from surveygraph.evaluation.calibration import CALIBRATION_DIR, COMPONENTS, load_calibration
from surveygraph.evaluation.validity import PACKAGE_VALIDITY, REFERENCE_CSV, load_reference_scores

ASG_SYSTEMS = {"AutoSurvey2", "Autosurvey", "Gemini", "InteractiveSurvey", "LLMxMapReduce_V2", "Qwen",
               "SciSage", "SurveyForge", "SurveyX"}
SIX = {"education", "medicine", "biology", "physics", "engineering", "business"}


def test_shipped_reference_csv_matches_the_spec():
    ref = load_reference_scores(REFERENCE_CSV)
    assert set(ref.tables) == {"table2_overall", "table16_outline", "table17_content", "table18_reference",
                               "table4_ra_align_f1", "table4_tau_maxsim"}
    assert ASG_SYSTEMS <= ref.systems and {"Qwen3-Max", "Gemini-3-Pro"} <= ref.systems
    assert SIX <= ref.disciplines and len(ref.disciplines) == 10
    # spot checks against ../specs/surveylens.md §6 (folder names: AutoSurvey -> Autosurvey, ...)
    assert ref.scores("overall", "education")["Autosurvey"] == 3.29
    assert ref.scores("outline", "medicine")["SurveyForge"] == 4.73
    assert ref.scores("content", "physics")["Qwen"] == 4.69  # Qwen DR
    assert ref.scores("reference", "business")["LLMxMapReduce_V2"] == 1.79  # LLM×MapReduce-V2
    assert ref.tables["table4_tau_maxsim"]["biology"]["Gemini"] == 0.38  # Gemini DR
    assert ref.tables["table4_ra_align_f1"]["computer_science"]["SciSage"] == 0.18
    # 6 tables x 11 systems x 10 disciplines, no "Avg" rows or columns
    assert sum(len(s) for by_disc in ref.tables.values() for s in by_disc.values()) == 660


def test_shipped_reference_csv_is_package_data():
    text = (REFERENCE_CSV.parents[2] / "pyproject.toml").read_text()
    assert "data/*.csv" in text and "data/calibration/*.json" in text


@pytest.mark.parametrize("encoder", ["minilm", "minilm-static"])
def test_shipped_calibrations_load_and_say_how_they_were_made(encoder):
    data = load_calibration(encoder)
    assert data is not None, f"no calibration shipped for {encoder} in {CALIBRATION_DIR}"
    assert data["encoder"] == encoder and data["false_match_rate"] == 0.01
    for comp in COMPONENTS:
        block = data["components"][comp]
        assert 0.0 < data["tau"][comp] < 1.0
        # the threshold separates: same-topic entries pass far more often than unrelated ones
        assert block["hit_rate_same_topic"] > 2 * block["hit_rate_unrelated"]
        assert block["unrelated_quantiles"]["0.5"] < data["tau"][comp]
    assert "generated_by" in data and "rule" in data


def test_package_validity_summary_schema():
    if not PACKAGE_VALIDITY.exists():
        pytest.skip("no package validity.json shipped yet")
    data = json.loads(PACKAGE_VALIDITY.read_text())
    assert {"generated_by", "date", "encoder", "metrics"} <= set(data)
    for name, row in data["metrics"].items():
        assert row["component"] in ("outline", "content", "reference", "overall"), name
        assert set(row) >= {"rho", "rho_ci", "concordance", "n_disciplines", "pairwise_accuracy"}
