"""Features of the offline quality score on small hand-made surveys (values computed by hand)."""

from __future__ import annotations

from pathlib import Path

import pytest

from surveygraph.evaluation.markdown_parser import parse_markdown
from surveygraph.evaluation.parsers import parse_survey
from surveygraph.evaluation.quality.features import (ALL_FEATURES, has_citation, outline_features, saturate,
                                                     survey_features)

FIXTURE = Path(__file__).parent / "fixtures" / "quality" / "small_survey.md"
TOPIC = "Retrieval-Augmented Generation for Large Language Models"


def small_survey():
    return parse_survey(FIXTURE, topic=TOPIC)


def test_every_feature_is_bounded_and_named():
    features = survey_features(small_survey())
    assert list(features) == list(ALL_FEATURES)
    assert all(0.0 <= v <= 1.0 for v in features.values()), features


def test_outline_features_by_hand():
    f = survey_features(small_survey())
    # 7 distinct headings; "2 Retrieval Strategies" has no text of its own but cited sub-sections
    assert f["o_sections"] == pytest.approx(saturate(7, 20.0)) == pytest.approx(7 / 27)
    assert f["o_depth"] == pytest.approx(2 / 4)
    assert f["o_subsection_share"] == pytest.approx(2 / 7)
    assert f["o_balance"] == 0.0  # both sub-sections under one of five top sections
    assert f["o_heading_uniqueness"] == 1.0
    # topic words: retrieval augmented generation large language models; headings name 2 of 6
    assert f["o_topic_coverage"] == pytest.approx(2 / 6)
    # non-topic heading words (introduction, strategies, dense, passage, sparse, hybrid, fusion,
    # evaluation, conclusion) each appear in one heading only
    assert f["o_heading_vocabulary"] == 1.0


def test_heading_vocabulary_counts_words_used_once():
    survey = parse_markdown("# T\n## Graph Methods\n## Graph Attention\n## Spectral Methods\n")
    survey.topic = "Graph Neural Networks"
    # beyond the topic: methods ×2, attention, spectral -> 2 of 4 word uses are said once
    assert outline_features(survey, None)["o_heading_vocabulary"] == pytest.approx(2 / 4)


def test_content_and_reference_features_by_hand():
    f = survey_features(small_survey())
    assert f["c_citation_density"] == 1.0 and f["c_substance_share"] == 1.0  # every sentence cites
    assert f["c_sentence_novelty"] == 1.0
    assert f["c_cited_sentences"] == pytest.approx(saturate(15, 150.0))
    assert f["c_cited_sections"] == 1.0
    assert f["r_references"] == pytest.approx(saturate(10, 50.0))
    assert f["r_cited_share"] == 1.0 and f["r_valid_markers"] == 1.0 and f["r_unique_refs"] == 1.0
    assert f["r_year_known"] == 1.0
    assert f["r_recency"] == pytest.approx(0.9)  # 2009 is more than 5 years before 2024
    assert f["r_review_titles"] == pytest.approx(2 / 10)  # [1] "Survey of ...", [4] "...: A Survey"


def test_review_titles_count_distinct_titles_and_whole_words():
    refs = ("[1] Graph neural networks: a review of methods. 2020.\n"
            "[2] Graph neural networks: a review of methods. 2020.\n"
            "[3] Surveying reviewers for graph benchmarks. 2021.\n"
            "[4] An introduction to spectral graph theory. 1997.\n")
    survey = parse_markdown("# T\n## Methods\n\nGraphs are studied [1][3][4].\n\n## References\n\n" + refs)
    survey.topic = "Graph Neural Networks"
    # the repeated entry counts once; "Surveying reviewers" names no review -> 2 of 3 distinct titles
    assert survey_features(survey)["r_review_titles"] == pytest.approx(2 / 3)


def test_duplicated_headings_and_uncited_text_are_waste():
    text = FIXTURE.read_text()
    body, refs = text.split("## References")
    padded = body + "## 4 Evaluation\n\nThis part restates the above in general terms. It adds no source.\n\n" \
        + "## References" + refs
    f = survey_features(parse_markdown(padded) .model_copy(update={"topic": TOPIC}))
    base = survey_features(small_survey())
    assert f["o_heading_uniqueness"] == pytest.approx(1 / (1 + 1 / 7))
    assert f["o_sections"] == base["o_sections"]  # the duplicate heading adds no section
    assert f["c_citation_density"] < 1.0 and f["c_substance_share"] < 1.0


def test_outline_only_counts_every_heading():
    survey = parse_markdown("# T\n## Intro\n## Methods A\n### Sub 1\n### Sub 2\n## Methods B\n### Sub 3\n## Intro\n")
    f = outline_features(survey, None)
    assert f["o_sections"] == pytest.approx(saturate(6, 20.0))
    assert f["o_heading_uniqueness"] == pytest.approx(1 / (1 + 1 / 6))
    assert 0.0 < f["o_balance"] <= 1.0


@pytest.mark.parametrize("sentence,cited", [
    ("Dense retrieval works [2].", True), ("Fusion helps [1, 4-6].", True),
    ("Gemini style [cite: 1, 9].", True), ("As shown (Smith et al., 2020).", True),
    ("Karpukhin et al. (2020) trained it.", True), ("No source here.", False), ("In 2020 it grew.", False)])
def test_citation_markers(sentence, cited):
    assert has_citation(sentence) is cited
