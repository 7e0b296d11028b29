"""The leaderboard ranks by quality.overall, with 95% intervals over topics and validity columns;
the self-evaluation reports the quality score with a verdict."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from surveygraph.cli import app
from surveygraph.evaluation.quality import validity as validity_mod

FIXTURE = Path(__file__).parent / "fixtures" / "quality" / "small_survey.md"
POOR = """# {topic}

## Introduction

This topic is important. Many people work on it. It has grown a lot in recent years.

## Discussion

There are many methods. Some are better than others. More work is needed.

## References

[1] An unrelated paper. 2001.
"""


@pytest.fixture
def board_root(tmp_path) -> Path:
    root = tmp_path / "bench"
    for folder in ("good", "poor", "HumanSurvey"):
        (root / folder).mkdir(parents=True)
    text = FIXTURE.read_text()
    for topic in ("t1", "t2", "t3"):
        (root / "HumanSurvey" / f"{topic}.md").write_text(text)
        (root / "good" / f"{topic}.md").write_text(text.replace("[10]", "[10]" if topic == "t1" else "[10, 2]"))
        (root / "poor" / f"{topic}.md").write_text(POOR.format(topic=topic))
    return root


@pytest.fixture
def validity_file(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "validity.json"
    path.write_text(json.dumps({"generated_by": "test", "date": "2026-01-01", "encoder": "minilm", "metrics": {
        "quality.overall": {"component": "overall", "rho": 0.81, "rho_ci": [0.6, 0.95], "concordance": 0.8,
                            "n_disciplines": 6, "pairwise_accuracy": None}}}))
    monkeypatch.setattr(validity_mod, "VALIDITY_PATH", path)
    validity_mod.load_validity.cache_clear()
    yield path
    validity_mod.load_validity.cache_clear()


def _run(root: Path, out: Path, *extra: str):
    return CliRunner().invoke(app, ["leaderboard", str(root), "--human-dir", str(root / "HumanSurvey"),
                                    "--out", str(out), "--metrics", "structure,integrity", *extra])


def test_leaderboard_ranks_by_quality_with_intervals_and_validity(board_root, tmp_path, tmp_home, validity_file):
    out = tmp_path / "lb"
    res = _run(board_root, out)
    assert res.exit_code == 0, res.output + repr(res.exception)
    lines = res.stdout.strip().splitlines()
    assert lines[0].startswith("1. good  (quality.overall ") and lines[1].startswith("2. poor  (")
    data = json.loads((out / "leaderboard.json").read_text())
    assert data["rank_by"] == "quality.overall" and data["systems"] == ["good", "poor"]
    summary = {row["system"]: row for row in data["summary"]}
    assert summary["good"]["quality.overall"] > summary["poor"]["quality.overall"]
    lo, hi = data["intervals"]["good"]["quality.overall"]
    assert lo <= summary["good"]["quality.overall"] <= hi
    assert data["validity"]["quality.overall"].startswith("ρ 0.81 [0.60, 0.95]; LODO ρ 0.")
    assert data["validity"]["quality.outline"].startswith("not validated; LODO ρ 0.")
    assert data["validity"]["structure.ratio.words"] == "not validated"
    md = (out / "leaderboard.md").read_text()
    assert "Rank = mean quality.overall" in md and "validity (ρ vs SurveyLens rubric)" in md
    assert "ρ 0.81 [0.60, 0.95]" in md and "not validated" in md
    assert f"[{lo:.2f}, {hi:.2f}]" in md and "### quality.overall" in md
    html = (out / "report.html").read_text()
    assert "ρ 0.81 [0.60, 0.95]" in html and "not validated" in html and f"[{lo:.2f}, {hi:.2f}]" in html


def test_rank_by_alignment_is_labelled_reference_alignment(board_root, tmp_path, tmp_home, validity_file):
    out = tmp_path / "lb"
    res = _run(board_root, out, "--rank-by", "alignment")
    assert res.exit_code == 0, res.output + repr(res.exception)
    assert "reference alignment" in (out / "leaderboard.md").read_text()
    assert json.loads((out / "leaderboard.json").read_text())["rank_by"].startswith("reference alignment")
    assert "mean alignment rank" in res.stdout


def test_unknown_rank_by_is_a_user_error(board_root, tmp_path, tmp_home):
    from surveygraph.errors import UserError

    res = _run(board_root, tmp_path / "lb", "--rank-by", "votes")
    assert isinstance(res.exception, UserError) and "--rank-by" in str(res.exception)


def test_missing_validity_file_shows_not_validated(tmp_path, monkeypatch):
    monkeypatch.setattr(validity_mod, "VALIDITY_PATH", tmp_path / "absent.json")
    validity_mod.load_validity.cache_clear()
    try:
        assert validity_mod.validity_label("quality.overall") == "not validated"
    finally:
        validity_mod.load_validity.cache_clear()


def test_bootstrap_interval_brackets_the_mean():
    lo, hi = validity_mod.bootstrap_interval([1.0, 2.0, 3.0, 4.0])
    assert 1.0 <= lo < 2.5 < hi <= 4.0
    assert validity_mod.bootstrap_interval([2.0]) == (2.0, 2.0)
    assert validity_mod.bootstrap_interval([]) is None


def test_self_evaluation_reports_quality_with_a_verdict(tmp_path, tmp_home, monkeypatch):
    from surveygraph.agents import self_eval
    from surveygraph.evaluation.parsers import parse_survey
    from surveygraph.settings import Settings

    survey = parse_survey(FIXTURE, topic="Retrieval-Augmented Generation for Large Language Models")
    monkeypatch.setattr(self_eval, "build_survey", lambda state: survey)
    monkeypatch.setattr(self_eval, "manifest", lambda view, deps: {})
    deps = SimpleNamespace(settings=Settings(), evaluate=None, human=None, bench_refs=None, on_judgment=None)
    update = self_eval.self_evaluate({"run_dir": str(tmp_path), "topic": survey.topic}, deps)
    quality = update["evaluation"]["quality"]
    assert set(quality["scores"]) == {"overall", "outline", "content", "reference"}
    assert quality["verdict"].startswith("quality.overall") and "reference systems" in quality["verdict"]
    names = {m["name"] for m in update["evaluation"]["metrics"]}
    assert {"quality.overall", "quality.outline", "quality.content", "quality.reference"} <= names
    md = (tmp_path / "evaluation.md").read_text()
    assert "## Quality" in md and quality["verdict"] in md


def test_self_evaluation_says_when_the_content_is_the_extractive_floor(tmp_path, tmp_home, monkeypatch):
    from surveygraph.agents import self_eval
    from surveygraph.evaluation.parsers import parse_survey
    from surveygraph.settings import Settings

    survey = parse_survey(FIXTURE, topic="Retrieval-Augmented Generation for Large Language Models")
    monkeypatch.setattr(self_eval, "build_survey", lambda state: survey)
    monkeypatch.setattr(self_eval, "manifest", lambda view, deps: {})
    deps = SimpleNamespace(settings=Settings(), evaluate=None, human=None, bench_refs=None, on_judgment=None)
    gate = {"write_subsection:1.1": {"step": "write_subsection", "winner": "floor"},
            "write_subsection:1.2": {"step": "write_subsection", "winner": "model"},
            "write_abstract:": {"step": "write_abstract", "winner": "floor"}}
    update = self_eval.self_evaluate({"run_dir": str(tmp_path), "topic": survey.topic, "gate": gate}, deps)
    caveat = update["evaluation"]["quality"]["caveat"]
    assert caveat.startswith("note: 1 of 2 subsections are the extractive floor")
    assert caveat in (tmp_path / "evaluation.md").read_text()
    all_model = {"write_subsection:1.1": {"step": "write_subsection", "winner": "model"}}
    update = self_eval.self_evaluate({"run_dir": str(tmp_path), "topic": survey.topic, "gate": all_model}, deps)
    assert "caveat" not in update["evaluation"]["quality"]
    assert "extractive floor" not in (tmp_path / "evaluation.md").read_text()
    all_floor = {"write_subsection:1.1": {"step": "write_subsection", "winner": "floor"}}
    update = self_eval.self_evaluate({"run_dir": str(tmp_path), "topic": survey.topic, "gate": all_floor}, deps)
    text = (tmp_path / "evaluation.md").read_text()
    assert "this survey is an annotated reading list, not a synthesis" in update["evaluation"]["quality"]["caveat"]
    assert "annotated reading list, not a synthesis" in text


def test_self_evaluation_quotes_the_blind_readers_of_the_offline_default(tmp_path):
    """Where the offline job stands with readers, from the stored panels' latest version: the
    mean reader score of our drafts against the four systems', and how often ours was last."""
    import json

    from surveygraph.evaluation.reader_standing import reader_standing

    def panel(topic, ours, others, last):
        drafts = [{"system": "surveygraph", "overall": ours}] + [
            {"system": s, "overall": v} for s, v in zip(("AutoSurvey", "SurveyForge", "LLMxMR-V2", "OpenAI_DeepResearch"),
                                                       others)]
        ranking = [d["system"] for d in sorted(drafts, key=lambda d: -d["overall"])]
        if last:
            ranking = [s for s in ranking if s != "surveygraph"] + ["surveygraph"]
        return {"topic": topic, "ours": {"commit": "abc1234"}, "drafts": drafts, "ranking": ranking}

    assert reader_standing(tmp_path) is None  # no panels stored: nothing to quote
    for version, panels in (("v1", [panel("A", 3.0, (2.0, 2.0, 2.0, 2.0), False)]),
                            ("v2", [panel("A", 1.5, (2.5, 3.0, 2.0, 2.5), True),
                                    panel("B", 2.5, (2.0, 3.0, 3.0, 2.0), False)])):
        (tmp_path / version).mkdir()
        for p in panels:
            (tmp_path / version / f"{p['topic']}.json").write_text(json.dumps(p))
    line = reader_standing(tmp_path)
    assert "reader panels v2" in line and "2 topics" in line and "scored 2.00 on average (1.50-2.50)" in line
    assert "against 2.50 for the four SurveyBench systems' drafts, last on 1 of 2 topics" in line


def test_self_evaluation_quotes_the_newest_panels_on_user_phrasings(tmp_path):
    """The c-panels (a user's phrasings, read after the v-panels) are stored anonymised: the
    letters' key and the reader's components per letter. The newest of them is what the
    self-evaluation quotes, ours strictly below every other draft counting as last (a tie is not)."""
    import json

    from surveygraph.evaluation.reader_standing import reader_standing

    (tmp_path / "v14").mkdir()
    (tmp_path / "v14" / "A.json").write_text(json.dumps({"ours": {"commit": "abc1234"}, "ranking": ["x", "surveygraph"],
                                                         "drafts": [{"system": "surveygraph", "overall": 1.0},
                                                                    {"system": "x", "overall": 2.0}]}))
    (tmp_path / "c20").mkdir()

    def lettered(ident, scores):
        letters = {letter: system for letter, (system, _) in zip("ABCDE", scores)}
        verdict = {"drafts": {letter: {"outline": v, "content": v, "reference": v, "reasons": "."}
                              for letter, (_, v) in zip("ABCDE", scores)}}
        (tmp_path / "c20" / f"{ident}.key.json").write_text(json.dumps({"letters": letters}))
        (tmp_path / "c20" / f"{ident}.verdict.json").write_text(json.dumps(verdict))

    lettered("a", [("SurveyForge", 3.0), ("surveygraph", 2.0), ("AutoSurvey", 2.0)])  # tied for last: not last
    lettered("b", [("surveygraph", 1.0), ("SurveyForge", 3.0), ("AutoSurvey", 2.0)])
    # another reading kept beside the panels (an outline A/B: no letters, no drafts) is no panel; it
    # made the self-evaluation fail with KeyError 'letters' (session 32)
    (tmp_path / "c20" / "ab.key.json").write_text(json.dumps({"Some Topic": {"X": "old", "Y": "new"}}))
    (tmp_path / "c20" / "ab.verdict.json").write_text(json.dumps({"topics": {"Some Topic": {"better": "X"}}}))
    (tmp_path / "c20" / "list.key.json").write_text(json.dumps(["A", "B"]))
    (tmp_path / "c20" / "list.verdict.json").write_text(json.dumps(["X"]))
    line = reader_standing(tmp_path)
    assert "reader panels c20" in line and "topics as users phrase them, 2 panels" in line
    assert "scored 1.50 on average (1.00-2.00)" in line and "against 2.50" in line and "last on 1 of 2" in line


def test_evaluate_reports_show_each_metric_with_its_validity(tmp_path, tmp_home, validity_file):
    md = tmp_path / "r.md"
    res = CliRunner().invoke(app, ["evaluate", str(FIXTURE), "--metrics", "structure,quality",
                                   "--format", "md", "--out", str(md)])
    assert res.exit_code == 0, res.output
    rows = {line.split("|")[1].strip(): line.split("|")[3].strip() for line in md.read_text().splitlines()
            if line.startswith("| quality.") or line.startswith("| structure.")}
    lodo = json.loads(Path(validity_mod.__file__).with_name("model_v6.json").read_text())["cv"]["overall"]["rho_mean"]
    assert rows["quality.overall"] == f"ρ 0.81 [0.60, 0.95]; LODO ρ {lodo:.2f}"
    assert rows["structure.words"] == "not validated"  # absent from this validity file
    html = tmp_path / "r.html"
    res = CliRunner().invoke(app, ["evaluate", str(FIXTURE), "--metrics", "quality", "--format", "html",
                                   "--out", str(html)])
    assert res.exit_code == 0 and f"ρ 0.81 [0.60, 0.95]; LODO ρ {lodo:.2f}" in html.read_text()


def test_self_evaluation_lists_each_metric_with_its_validity(tmp_path, tmp_home, monkeypatch, validity_file):
    from surveygraph.agents import self_eval
    from surveygraph.evaluation.parsers import parse_survey
    from surveygraph.settings import Settings

    survey = parse_survey(FIXTURE, topic="Retrieval-Augmented Generation for Large Language Models")
    monkeypatch.setattr(self_eval, "build_survey", lambda state: survey)
    monkeypatch.setattr(self_eval, "manifest", lambda view, deps: {})
    deps = SimpleNamespace(settings=Settings(), evaluate=None, human=None, bench_refs=None, on_judgment=None)
    self_eval.self_evaluate({"run_dir": str(tmp_path), "topic": survey.topic}, deps)
    lines = (tmp_path / "evaluation.md").read_text().splitlines()
    table = lines[lines.index("```") + 1:]  # the metric block, after the verdict
    overall = next(line for line in table if line.startswith("quality.overall "))
    assert overall.endswith("ρ 0.81 [0.60, 0.95]; LODO ρ " + overall.rsplit(" ", 1)[1])
    assert any(line.startswith("structure.words ") and line.endswith("not validated") for line in lines)
