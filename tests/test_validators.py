"""Validators for model output: real bad outputs of the bundled 270M model are rejected with
reasons, real human headings and real abstracts are accepted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from surveygraph.agents.planner import TITLE_CAP, checked_entries
from surveygraph.agents.outline.headings import validate_heading
from surveygraph.agents.validators import trim_incomplete, validate_prose

FIXTURES = Path(__file__).parent / "fixtures" / "local_model_outputs"
TOPIC = "Retrieval-Augmented Generation for Large Language Models"


def _calls(name: str) -> list[dict]:
    return json.loads((FIXTURES / f"{name}.json").read_text())["calls"]


def test_issue_examples_are_rejected():
    issue = json.loads((FIXTURES / "issue_examples.json").read_text())
    reasons = validate_prose(issue["abstract"])
    assert any("instruction echo" in r for r in reasons) and any("questions" in r for r in reasons)
    assert validate_heading(issue["section_titles"][0], topic=TOPIC, taken=set())
    for title in issue["subsection_titles"]:
        assert any("cut" in r for r in validate_heading(title, topic=TOPIC, taken=set(), cap=TITLE_CAP)), title


@pytest.mark.parametrize("node,field,n", [("plan_sections", "sections", 5), ("plan_subsections", "subsections", 3)])
def test_real_local_planner_outputs_do_not_make_an_outline(node, field, n):
    """Every real planner answer of the local model leaves fewer than n valid headings, and each
    rejection carries a reason (what the manifest records)."""
    for call in _calls(node):
        kept, rejected = checked_entries(call["output"][field], n, topic=TOPIC, taken=set(), prompt_titles=set())
        assert len(kept) < n
        assert rejected and all(r["reasons"] for r in rejected)


def test_specific_real_defects_are_named():
    outputs = [item["title"] for node in ("plan_sections", "plan_subsections") for call in _calls(node)
               for item in next(iter(call["output"].values()))]
    reasons = {t: validate_heading(t, topic=TOPIC, taken=set(), cap=TITLE_CAP) for t in outputs}
    assert "repeats the topic verbatim" in reasons["Retrieval-Augmented Generation for Large Language Models (RAG)"]
    assert "a frame heading (added by the pipeline)" in reasons["Introduction"]
    cut = "Learning to Extract Rational Evidence via Reinforcement Learning for Retrieval-A"
    assert any("cap" in r for r in reasons[cut])
    year_tag = "Retrieval-Augmented Generation for Structured Enterprise and Internal Data (2025"
    assert "unbalanced parentheses or quotes" in reasons[year_tag]


def test_real_local_frame_outputs_are_rejected():
    for call in _calls("write_frame"):
        assert validate_prose(trim_incomplete(call["output"]), min_words=15), call["output"][:80]


def test_duplicates_and_copied_titles_are_rejected():
    taken = {"dense retrieval"}
    assert "duplicate of another heading" in validate_heading("Dense Retrieval", topic=TOPIC, taken=taken)
    assert "duplicate of another heading" in validate_heading("Retrieval, Dense", topic=TOPIC, taken=taken)
    copied = {"graphrag on consumer hardware"}
    assert "copies a paper title from the prompt" in validate_heading(
        "GraphRAG on Consumer Hardware", topic=TOPIC, taken=set(), copied_titles=copied)


@pytest.mark.parametrize("title", ["Section 1 - Search Queries", "Here is the outline", "Write a survey",
                                   "**Dense Retrieval**", '{"title": "Graphs"}', "1. Dense Retrieval",
                                   "What is RAG?", "Graph RAG and", "Multi-Hop Reasoning (GraphRAG", "Retrieval ..."])
def test_echoes_debris_and_cuts(title):
    assert validate_heading(title, topic=TOPIC, taken=set())


def test_human_headings_are_accepted(shared_data):
    """At most 1% of the 20 human surveys' first- and second-level headings are rejected."""
    from surveygraph.agents.outline.headings import FRAME_HEADINGS
    from surveygraph.models import normalize_title
    from surveygraph.retrieval.outlines import outlines_from_json

    outlines = outlines_from_json(shared_data / "weaidb_surveybench" / "HumanSurvey" / "outlines.json")
    headings = [(e.title, o.topic) for o in outlines for e in o.entries
                if e.level <= 2 and normalize_title(e.title) not in FRAME_HEADINGS]
    rejected = [t for t, topic in headings if validate_heading(t, topic=topic, taken=set())]
    assert len(headings) > 400 and len(rejected) <= 0.01 * len(headings), rejected


def test_real_abstracts_are_accepted_as_prose(shared_data):
    """Abstracts of real papers (survey-like prose) pass: at least 95% of 200. Abstracts with a link
    are left out: a link is noise in a survey paragraph, and the validator says so."""
    import gzip

    abstracts = []
    with gzip.open(shared_data / "corpus" / "arxiv_2025_2026.jsonl.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            text = json.loads(line)["abstract"]
            if len(text.split()) >= 120 and "http" not in text and "github" not in text.lower():
                abstracts.append(text)
            if len(abstracts) == 200:
                break
    rejected = [a for a in abstracts if validate_prose(a)]
    assert len(rejected) <= 10, [(a[:80], validate_prose(a)) for a in rejected[:5]]


def test_trim_incomplete_keeps_complete_sentences():
    assert trim_incomplete("Dense retrievers embed queries. Sparse ones match terms and") == "Dense retrievers embed queries."
    assert trim_incomplete("A complete sentence.") == "A complete sentence."


def test_real_introduction_from_the_main_job_is_rejected():
    """The 270M model's introduction that an early gate let through (exclamations, 'you', a bullet)."""
    record = json.loads((FIXTURES / "main_run_introduction.json").read_text())
    reasons = validate_prose(record["output"], min_words=60)
    assert "exclamations (not survey prose)" in reasons and "addresses the reader ('you')" in reasons


def test_subsection_must_add_to_its_section_and_copied_titles_count_without_subtitle():
    """From the main job: the model's subsection "Graph Retrieval-Augmented Generation for Large
    Language Models" under the section "Graph Retrieval-Augmented Generation"."""
    from surveygraph.agents.planner import prompt_title_keys

    kept, rejected = checked_entries([{"title": "Graph Retrieval-Augmented Generation for Large Language Models"}], 1,
                                     topic=TOPIC, taken=set(), prompt_titles=set(),
                                     parent="Graph Retrieval-Augmented Generation")
    assert not kept and "adds nothing to its section's heading and the topic" in rejected[0]["reasons"]
    keys = prompt_title_keys([{"title": "RouteRAG: Efficient Retrieval-Augmented Generation from Text and Graph"}])
    kept, rejected = checked_entries([{"title": "Efficient Retrieval-Augmented Generation from Text and Graph"}], 1,
                                     topic=TOPIC, taken=set(), prompt_titles=keys)
    assert not kept and "copies a paper title from the prompt" in rejected[0]["reasons"]


def test_plural_variant_of_a_taken_heading_is_a_duplicate():
    # read in the offline RAG survey: "Knowledge Graph" and "Knowledge Graphs" as sibling subsections
    from surveygraph.agents.outline.headings import validate_heading

    assert "duplicate of another heading" in validate_heading("Knowledge Graphs", topic="RAG", taken={"knowledge graph"})
    assert validate_heading("Process Mining", topic="RAG", taken={"knowledge graph"}) == []


def test_a_related_surveys_title_is_no_heading_of_this_survey():
    """The 270M model offered "Efficient Inference for Large Language Models", the title of a related
    survey its prompt showed, as a subsection of a RAG survey; it was kept and the survey read 5 works."""
    from surveygraph.agents.planner import _demo_views, checked_entries, prompt_title_keys

    demos = [{"title": "A Survey on Efficient Inference for Large Language Models",
              "entries": [{"level": 1, "title": "Model Compression"}]}]
    shown = prompt_title_keys(_demo_views(demos, 2))
    kept, rejected = checked_entries([{"title": "Efficient Inference for Large Language Models"},
                                      {"title": "Dense Passage Retrieval"}], 2,
                                     topic="Retrieval-Augmented Generation for Large Language Models", taken=set(),
                                     prompt_titles=shown, parent="Methods for Retrieval-Augmented Generation")
    assert [k["title"] for k in kept] == ["Dense Passage Retrieval"]
    assert rejected and rejected[0]["title"] == "Efficient Inference for Large Language Models"
