"""Checklist construction from a human survey: extractive groups, the grounding check that sends
an unusable judge-written group to the extractive fallback, tables, and the CLI's model-free mode."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from tests.scripted_llm import ScriptedChatModel
from surveygraph.errors import UserError
from surveygraph.evaluation.judges.base import make_judge
from surveygraph.evaluation.judges.checklist import checklist_results, load_tasks
from surveygraph.evaluation.judges.checklist_build import generate_task
from surveygraph.evaluation.judges.checklist_extract import (
    clean_heading, entity_counts, grounded, table_captions, table_group,
)
from surveygraph.evaluation.markdown_parser import parse_markdown
from surveygraph.settings import load_settings

HUMAN = """# Graph Neural Networks: A Survey

## 1 INTRODUCTION
GNNs are everywhere. We survey GNNs.

## 2 ARCHITECTURES
GNNs come in several families.

### 2.1 Spectral Methods
ChebNet [3] approximates filters with Chebyshev polynomials; GCN [4] simplifies ChebNet to one hop.
ChebNet and GCN are the reference spectral GNNs. $\\hat{A} = D^{-1/2} A D^{-1/2}$ defines GCN.

### 2.2 Spatial Methods
GraphSAGE [5] samples neighbours and MPNN [6] frames message passing. GraphSAGE scales to large graphs.

### 2.3 Attention Methods
GAT [7] learns attention over neighbours, and GATv2 [8] fixes its static attention.

## 3 APPLICATIONS
GNNs are used in chemistry and recommendation.

### 3.1 Chemistry
SchNet [9] predicts molecular properties; DimeNet [10] adds directional messages.

### 3.2 Recommendation
PinSage [11] recommends pins; LightGCN [12] simplifies GCN for collaborative filtering.

## 4 CONCLUSION
GNNs matter.

## REFERENCES
[1] A paper
"""


def human_survey():
    return parse_markdown(HUMAN, name="human")


def test_extractive_task_has_topic_and_structure_groups_without_a_model():
    task = generate_task(human_survey(), "Graph Neural Networks", None, construction="extractive")
    assert task["construction"] == {"mode": "extractive", "llm_groups": 0, "extractive_groups": 3}
    general = [g for g in task["checklist"] if not g["strict"]]
    [strict] = [g for g in task["checklist"] if g["strict"]]
    assert [g["group_name"] for g in general] == ["Architectures", "Applications"]  # intro/conclusion skipped
    items = [r["content"] for g in general for sg in g["sub_groups"] for r in sg["requirements"]]
    assert "The article should mention GraphSAGE when discussing Spatial Methods." in items
    assert not any("GNN" in i for i in items)  # generic: in the title and in most sections
    assert not any("hat" in i or "A D" in i for i in items)  # formulas are not names
    # the taxonomy: the section with the most subsections; its question names the categories
    # but not the members the items ask for (DeepSynth's over-specification filter)
    assert strict["group_name"] == "Taxonomy: Architectures" and strict["clip_factor"] == 0.8
    prompt = strict["detailed_prompt"]
    assert "Spectral Methods, Spatial Methods and Attention Methods" in prompt
    members = {sg["sub_group_name"]: [r["content"] for r in sg["requirements"]] for sg in strict["sub_groups"]}
    assert any("GraphSAGE" in r for r in members["Spatial Methods"])
    assert not any(e in prompt for e in ("ChebNet", "GraphSAGE", "GAT"))


def test_entity_and_heading_rules():
    counts = entity_counts("GPT-4 and Self-RAG beat R-CNN; Multi-Head attention, LLM-generated text, "
                           "Section IV-B, Markov Decision ProcessesThe model.\nTABLE I SUMMARY OF METHODS AND DATA")
    assert set(counts) == {"GPT-4", "Self-RAG", "R-CNN"}
    assert clean_heading("3.1.2 Spatial Graph Convolution Operators.") == "Spatial Graph Convolution Operators"
    assert clean_heading("2 OVERVIEW OF RAG", "RAG is ... of") == "Overview of RAG"
    assert clean_heading("3.3.1 Concatenation- based Graph Attention.") == "Concatenation-based Graph Attention"


def test_grounding_rejects_copied_or_invented_requirements():
    source = "ChebNet approximates spectral filters with Chebyshev polynomials."
    assert grounded("The article should explain that ChebNet uses Chebyshev polynomials.", source)
    assert not grounded("The article should mention diffusion models for image synthesis.", source)
    assert not grounded("1", source)


def junk_responder(prompt: str) -> str:
    """What the bundled 270M model tends to write: names like "1", prompt text, off-source claims."""
    if "building an evaluation checklist" in prompt:
        return json.dumps({"group_name": "1", "sub_groups": [
            {"sub_group_name": "Requirements", "requirements": ["this sub-group's requirement is not covered here",
                                                                "The survey mentions transformers for video."]}]})
    if "building a structure checklist" in prompt:
        return json.dumps({"group_name": "Taxonomy", "detailed_prompt": "Construct a table of the methods.",
                           "sub_groups": [{"sub_group_name": "Video", "requirements": ["Covers video transformers."]}]})
    raise AssertionError(prompt[:200])


def good_responder(prompt: str) -> str:
    if "building an evaluation checklist" in prompt:
        return json.dumps({"group_name": "Methods", "sub_groups": [
            {"sub_group_name": "Spectral", "requirements": [
                "The article should explain that ChebNet approximates filters with Chebyshev polynomials.",
                "The article should mention that GraphSAGE samples neighbours.",
                "The article should mention that PinSage recommends pins."]}]})
    return junk_responder(prompt)


def _judge(tmp_home, responder):
    import surveygraph.llm as llm

    model = ScriptedChatModel(responder=responder)
    settings = load_settings()
    return make_judge(settings, llm.build_role_clients(settings, chat_models={"judge": model}), use_log=False)


def test_auto_mode_replaces_unusable_judge_groups_with_extracted_ones(tmp_home):
    task = generate_task(human_survey(), "Graph Neural Networks", _judge(tmp_home, junk_responder))
    assert task["construction"] == {"mode": "auto", "llm_groups": 0, "extractive_groups": 3}
    assert all(g["group_name"] != "1" for g in task["checklist"])
    with pytest.raises(UserError, match="no checklist group"):
        generate_task(human_survey(), "Graph Neural Networks", _judge(tmp_home, junk_responder), construction="llm")


def test_auto_mode_keeps_grounded_judge_groups_and_drops_their_ungrounded_items(tmp_home):
    task = generate_task(human_survey(), "Graph Neural Networks", _judge(tmp_home, good_responder))
    # the Architectures section confirms ChebNet and GraphSAGE but not PinSage (an Applications item);
    # in Applications only PinSage is grounded, too little for a group, so it is extracted instead
    first = task["checklist"][0]
    assert first["construction"] == "llm"
    assert [r["content"] for r in first["sub_groups"][0]["requirements"]] == [
        "The article should explain that ChebNet approximates filters with Chebyshev polynomials.",
        "The article should mention that GraphSAGE samples neighbours."]
    assert task["construction"]["llm_groups"] == 1 and task["construction"]["extractive_groups"] == 2


def test_table_anchor_gives_one_subgroup_per_row_and_skips_bare_marks():
    text = ("Intro.\n\nTable 2: Dataset comparison\n| Dataset | Year | Size | Open |\n|---|---|---|---|\n"
            "| KITTI | 2012 | 15k | ✓ |\n| nuScenes | 2019 | 40k | ✓ |\n\nAfter.")
    [(table, caption)] = table_captions(text)
    assert caption == "Table 2: Dataset comparison"
    group = table_group(table, caption, 6, 4)
    assert group["strict"] and "compares Dataset based on Year, Size, Open" in group["detailed_prompt"]
    kitti = group["sub_groups"][0]
    assert kitti["sub_group_name"] == "KITTI"
    assert [r["content"] for r in kitti["requirements"]] == [
        'In the table "Table 2: Dataset comparison", report that KITTI has Year: 2012.',
        'In the table "Table 2: Dataset comparison", report that KITTI has Size: 15k.']


def test_precision_with_nothing_mentioned_is_zero_and_says_why():
    task = {"task_id": "t", "checklist": [{"group_name": "g", "strict": False, "sub_groups": [
        {"sub_group_name": "s", "requirements": [{"content": "x", "reward": 1.0}],
         "eval_result": ["not_mentioned"]}]}]}
    precision = {r.name: r for r in checklist_results(task)}["checklist.precision"]
    assert precision.value == 0.0 and precision.details == {"scale": "0-100", "defined": False}
    assert "0/0" in precision.rationale and "zero_division" in precision.rationale


def test_cli_extractive_mode_needs_no_model(tmp_home, tmp_path, monkeypatch):
    import surveygraph.llm as llm
    from surveygraph.cli import app

    def no_model(*a, **k):
        raise AssertionError("extractive construction must not build a judge model")

    monkeypatch.setattr(llm, "build_role_clients", no_model)
    human = tmp_path / "GNN.md"
    human.write_text(HUMAN)
    out_file = tmp_path / "tasks.jsonl"
    res = CliRunner().invoke(app, ["checklist", "generate", str(human), "--out", str(out_file),
                                   "--construction", "extractive"])
    assert res.exit_code == 0, res.output
    assert "0 written by the judge, 3 extracted" in res.output
    assert load_tasks(out_file)[0]["construction"]["mode"] == "extractive"
    bad = CliRunner().invoke(app, ["checklist", "generate", str(human), "--out", str(tmp_path / "b.jsonl"),
                                   "--construction", "magic"])
    assert isinstance(bad.exception, UserError) and "--construction" in str(bad.exception)


def test_extractive_checklists_for_every_weaidb_human_survey(shared_data):
    folder = shared_data / "weaidb_surveybench" / "HumanSurvey"
    from surveygraph.evaluation.parsers import parse_survey

    for path in sorted(folder.glob("*.md")):
        task = generate_task(parse_survey(path), path.stem, None, construction="extractive")
        general = [g for g in task["checklist"] if not g["strict"]]
        strict = [g for g in task["checklist"] if g["strict"]]
        n_items = sum(len(sg["requirements"]) for g in task["checklist"] for sg in g["sub_groups"])
        assert len(general) >= 2 and len(strict) == 1 and n_items >= 15, (path.stem, len(general), n_items)


def test_checklist_scores_are_on_the_percent_scale_for_human_as_perfect():
    from surveygraph.evaluation.scoring import _scale_max

    task = {"task_id": "t", "checklist": [{"group_name": "g", "strict": False, "sub_groups": [
        {"sub_group_name": "s", "requirements": [{"content": "x", "reward": 1.0}] * 4,
         "eval_result": ["not_mentioned"] * 4}]}]}
    # a 0 score would otherwise be taken for a 0-1 scale, and HP would pull it towards 1, not 100
    assert all(_scale_max(r) == 100.0 for r in checklist_results(task))
