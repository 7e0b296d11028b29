"""The evaluation subgraph on small parsed surveys, and the ``evaluate`` command."""

from __future__ import annotations

import json
import sys

import pytest
from typer.testing import CliRunner

from surveygraph.cli import app, main
from surveygraph.evaluation.markdown_parser import parse_markdown
from surveygraph.evaluation.scoring import combine_node, evaluate_survey
from surveygraph.graphs.evaluation import build_evaluation_graph
from surveygraph.models import MetricResult, Survey
from surveygraph.settings import load_settings

HUMAN_MD = """# A Survey of Graph Neural Networks

## 1 Introduction
Graph neural networks learn on graphs [1]. Message passing aggregates neighbours [2].

## 2 Methods
### 2.1 Spectral methods
Spectral convolutions use the graph Laplacian [1].
### 2.2 Spatial methods
Spatial methods aggregate neighbour features directly [2, 3].

## 3 Applications
GNNs are used for molecules and recommendation [3].

## References
[1] Semi-Supervised Classification with Graph Convolutional Networks
[2] Neural Message Passing for Quantum Chemistry
[3] Graph Attention Networks
"""

DRAFT_MD = """# Graph Neural Networks: A Review

## 1 Introduction
Graph neural networks process graph-structured data [1].

## 2 Models
### 2.1 Convolutional models
Graph convolutional networks generalise convolution to graphs [1].
### 2.2 Attention models
Graph attention networks weight neighbours with attention [2].

## References
[1] Semi-supervised classification with graph convolutional networks
[2] Graph Attention Networks
[3] An unrelated paper about cooking
"""


@pytest.fixture
def surveys():
    human = parse_markdown(HUMAN_MD, name="gnn")
    draft = parse_markdown(DRAFT_MD, name="gnn")
    for s in (human, draft):
        s.topic = "Graph Neural Networks"
    return draft, human


@pytest.fixture
def bench_file(tmp_path):
    path = tmp_path / "gnn_bench.json"
    path.write_text(json.dumps({
        "1609.02907": {"arxivId": "1609.02907", "title": "Semi-Supervised Classification with Graph Convolutional Networks"},
        "1710.10903": {"arxivId": "1710.10903", "title": "Graph Attention Networks"},
        "1704.01212": {"arxivId": "1704.01212", "title": "Neural Message Passing for Quantum Chemistry"},
    }))
    return path


def test_graph_fans_out_every_family_in_parallel():
    graph = build_evaluation_graph().get_graph()
    edges = {(e.source, e.target) for e in graph.edges}
    for family in ("structure", "integrity", "coverage", "alignment", "sgsim", "judges"):
        assert ("__start__", family) in edges and (family, "combine") in edges



def test_graph_and_scoring_core_give_the_same_report(tmp_home, surveys, bench_file):
    """graphs/evaluation.py only wires evaluation/scoring.py: both paths, one report."""
    from surveygraph.evaluation.coverage import load_bench_refs
    from surveygraph.evaluation.scoring import embedding_memo, plan_families

    draft, human = surveys
    settings = load_settings()
    embed = embedding_memo(settings)
    core = evaluate_survey(draft, settings, human=human, bench_refs=bench_file, embed=embed, judges=[])
    families, warnings = plan_families(None, human=True, bench=True, judges=False)
    state = {"survey": draft, "human": human, "bench": load_bench_refs(bench_file), "retrieved": None,
             "families": families, "judges": [], "human_judge_scores": None, "results": [], "warnings": warnings}
    graph = build_evaluation_graph().invoke(state, config={"configurable": {"settings": settings, "embed": embed}})
    assert {m.name: m.value for m in graph["report"].metrics} == {m.name: m.value for m in core.metrics}
    assert len(core.metrics) > 20

def test_self_evaluation_without_human_or_bench_is_structure_and_integrity_only(tmp_home, surveys):
    draft, _ = surveys
    report = evaluate_survey(draft, load_settings())
    families = {m.family for m in report.metrics}
    assert families == {"structure", "integrity", "quality"}  # quality: offline, needs no human/encoder
    assert report.get("structure.references").value == 3.0
    assert report.get("integrity.uncited_references").value == 1.0  # [3] is never cited


def test_full_report_on_small_surveys(tmp_home, surveys, bench_file):
    draft, human = surveys
    # tau_mode "paper": the assertion below is about SurveyLens' fixed τ = 0.95.
    report = evaluate_survey(draft, load_settings(**{"evaluation.tau_mode": "paper"}), human=human,
                             bench_refs=bench_file)
    values = report.flat()
    for name in ("sam_r", "ra_align_f1", "ra_align_f1.outline", "ra_align_f1.content", "ra_align_f1.reference",
                 "tau_maxsim", "sgsim.sigma", "sgsim.sigma.outline", "sgsim.sigma.content",
                 "sgsim.sigma.reference", "structure.ratio.words"):
        assert isinstance(values[name], float), name
    assert values["sam_r"] == pytest.approx(2 / 3)  # two of three references are benchmark papers
    # The two reference titles shared verbatim (up to case) pass τ = 0.95.
    assert report.get("ra_align_f1.reference").details["matches"] == 2
    assert 0.0 < values["sgsim.sigma"] <= 1.0


def test_identical_survey_and_chroma_l2_variant(tmp_home, surveys):
    draft, human = surveys
    cosine = evaluate_survey(human, load_settings(), human=human, metrics=["alignment", "sgsim"])
    assert cosine.flat()["sgsim.sigma"] == pytest.approx(1.0, abs=1e-5)
    assert cosine.get("ra_align_f1.outline").details["recall"] == pytest.approx(1.0)
    cos_draft = evaluate_survey(draft, load_settings(), human=human, metrics=["sgsim"]).flat()
    l2_draft = evaluate_survey(draft, load_settings(**{"evaluation.sim_mode": "chroma_l2"}),
                               human=human, metrics=["sgsim"]).flat()
    # s = 2cos - 1 is monotone, so the top-N set is the same and σ_l2 = 2σ_cos - 1.
    for comp in ("outline", "content", "reference"):
        key = f"sgsim.sigma.{comp}"
        assert l2_draft[key] == pytest.approx(2 * cos_draft[key] - 1, abs=1e-5)


def test_requested_family_without_its_input_is_skipped_with_a_warning(tmp_home, surveys):
    draft, _ = surveys
    report = evaluate_survey(draft, load_settings(), metrics=["structure", "alignment"])
    assert {m.family for m in report.metrics} == {"structure"}
    assert any("alignment" in w for w in report.warnings)


def test_combine_folds_sigma_into_judge_scores():
    results = [
        MetricResult(name="sgsim.sigma.outline", family="similarity", value=0.5),
        MetricResult(name="sgsim.sigma.content", family="similarity", value=0.25),
        MetricResult(name="sgsim.sigma.reference", family="similarity", value=0.0),
        MetricResult(name="sam_o", family="rubric", value=80.0, details={"scale_max": 100}),
        MetricResult(name="content.coverage", family="rubric", value=3.0, details={"scale": "1-5"}),
        MetricResult(name="sgsim.supportiveness", family="rubric", value=40.0, details={"scale": "0-100"}),
    ]
    state = {"survey": Survey(title="t"), "results": results, "warnings": [],
             "human_judge_scores": {"sam_o": 70.0, "content.coverage": 5.0}}
    flat = combine_node(state)["report"].flat()
    assert flat["sam_o.hp"] == pytest.approx(0.5 * 100 + 0.5 * 80)
    assert flat["sam_o.balanced"] == pytest.approx(0.5 * 70 + 0.5 * 80)
    assert flat["content.coverage.hp"] == pytest.approx(0.25 * 5 + 0.75 * 3)
    assert flat["content.coverage.balanced"] == pytest.approx(0.25 * 5 + 0.75 * 3)
    assert flat["sgsim.supportiveness.hp"] == pytest.approx(40.0)  # σ_reference = 0
    assert "sgsim.supportiveness.balanced" not in flat  # no human score for it


def _write_surveys(tmp_path):
    draft, human = tmp_path / "draft.md", tmp_path / "human.md"
    draft.write_text(DRAFT_MD)
    human.write_text(HUMAN_MD)
    return draft, human


def test_evaluate_cli_formats_and_no_overwrite(tmp_home, tmp_path, bench_file):
    draft, human = _write_surveys(tmp_path)
    runner = CliRunner()
    res = runner.invoke(app, ["evaluate", str(draft), "--human", str(human), "--bench-refs", str(bench_file)])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert {m["name"] for m in data["metrics"]} >= {"sam_r", "ra_align_f1", "sgsim.sigma", "structure.words"}
    out_md = tmp_path / "report.md"
    res = runner.invoke(app, ["evaluate", str(draft), "--format", "md", "--out", str(out_md)])
    assert res.exit_code == 0 and out_md.read_text().startswith("# Evaluation")
    out_html = tmp_path / "report.html"
    res = runner.invoke(app, ["evaluate", str(draft), "--human", str(human), "--format", "html",
                              "--out", str(out_html), "--tau", "0.9"])
    assert res.exit_code == 0
    html = out_html.read_text()
    assert "<svg" in html and "ra_align_f1" in html and "<script src" not in html


def _run_main(monkeypatch, capsys, *args):
    monkeypatch.setattr(sys, "argv", ["surveygraph", *args])
    with pytest.raises(SystemExit) as exc:
        main()
    return exc.value.code, capsys.readouterr().err


def test_evaluate_user_errors(tmp_home, tmp_path, monkeypatch, capsys):
    draft, _ = _write_surveys(tmp_path)
    code, err = _run_main(monkeypatch, capsys, "evaluate", str(tmp_path / "missing.md"))
    assert code == 2 and "not found" in err
    code, err = _run_main(monkeypatch, capsys, "evaluate", str(draft), "--metrics", "alignment")
    assert code == 2 and "--human" in err
    code, err = _run_main(monkeypatch, capsys, "evaluate", str(draft), "--metrics", "bogus")
    assert code == 2 and "unknown metric family" in err
    existing = tmp_path / "keep.json"
    existing.write_text("mine")
    code, err = _run_main(monkeypatch, capsys, "evaluate", str(draft), "--out", str(existing))
    assert code == 2 and "--force" in err and existing.read_text() == "mine"
    code, err = _run_main(monkeypatch, capsys, "evaluate", str(draft), "--format", "pdf")
    assert code == 2 and "format" in err


def test_judges_node_adds_hp_and_balanced_with_a_scripted_judge(tmp_home, surveys, monkeypatch):
    from tests.scripted_llm import ScriptedChatModel
    import surveygraph.llm as llm

    def responder(prompt: str) -> str:
        # SAM-O (outline) and SAM-C (content, side by side with the human survey); the human
        # survey judged alone gets a different SAM-O score so Balanced differs from HP.
        if "Outline quality only" in prompt or "outline quality only" in prompt:
            return '{"notes": "ok", "score": %d}' % (90 if "Spectral methods" in prompt else 60)
        return '{"notes": "ok", "score": 70}'

    model = ScriptedChatModel(responder=responder)
    real = llm.build_role_clients
    monkeypatch.setattr(llm, "build_role_clients", lambda settings, **kw: real(settings, chat_models={"judge": model}))
    draft, human = surveys
    report = evaluate_survey(draft, load_settings(), human=human, judges=["sam"], metrics=["sgsim"])
    flat = report.flat()
    s_o = flat["sgsim.sigma.outline"]
    assert flat["sam_o"] == 60.0
    assert flat["sam_o.hp"] == pytest.approx(s_o * 100 + (1 - s_o) * 60)
    assert flat["sam_o.balanced"] == pytest.approx(s_o * 90 + (1 - s_o) * 60)
