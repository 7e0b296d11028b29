"""``surveygraph leaderboard`` end to end on real weAIDB surveys (2 topics × 4 systems)."""

from __future__ import annotations

import csv
import json
import math
import sys

import pytest
from typer.testing import CliRunner

from surveygraph.cli import app, main
from surveygraph.evaluation.leaderboard import RANK_METRICS, discover

SYSTEMS = {"AutoSurvey", "SurveyForge", "LLMxMR-V2", "OpenAI_DeepResearch"}
TOPICS = ["Generative Diffusion Models", "Vision Transformers"]
# Every one of these must be a number for every (system, topic).
PER_TOPIC_METRICS = [
    "ra_align_f1", "ra_align_f1.outline", "ra_align_f1.content", "ra_align_f1.reference",
    "tau_maxsim", "tau_maxsim.outline", "tau_maxsim.content", "tau_maxsim.reference",
    "sgsim.sigma", "sgsim.sigma.outline", "sgsim.sigma.content", "sgsim.sigma.reference",
    "sam_r", "sam_r.recall", "structure.words", "structure.references", "structure.ratio.words",
    "structure.ratio.references", "integrity.references", "integrity.uncited_references",
    "quality.overall", "quality.outline", "quality.content", "quality.reference",
]


@pytest.fixture
def fast_embeddings(monkeypatch):
    # Short inputs keep the cold MiniLM pass small enough for a unit test; the benchmark uses
    # the default (256 tokens).
    monkeypatch.setenv("SURVEYGRAPH_EMBEDDING__MAX_SEQ_LENGTH", "16")


def test_leaderboard_end_to_end(shared_data, tmp_home, tmp_path, fast_embeddings):
    weaidb = shared_data / "weaidb_surveybench"
    out = tmp_path / "lb"
    res = CliRunner().invoke(app, [
        "leaderboard", str(weaidb), "--human-dir", str(weaidb / "HumanSurvey"),
        "--bench-refs-dir", str(shared_data / "surveyforge_surveybench" / "ref_bench"),
        "--topics", ",".join(TOPICS), "--out", str(out)])
    assert res.exit_code == 0, res.output + repr(res.exception)
    assert {p.name for p in out.iterdir()} == {"leaderboard.md", "leaderboard.csv", "leaderboard.json",
                                               "report.html"}
    data = json.loads((out / "leaderboard.json").read_text())
    assert set(data["systems"]) == SYSTEMS and data["topics"] == TOPICS
    for system in SYSTEMS:
        for topic in TOPICS:
            flat = {m["name"]: m["value"] for m in data["reports"][system][topic]["metrics"]}
            for metric in PER_TOPIC_METRICS:
                value = flat.get(metric)
                assert isinstance(value, float) and math.isfinite(value), (system, topic, metric, value)
        union = data["union_maxsim"][system]
        assert all(isinstance(union[k], float) for k in
                   ("tau_maxsim.union", "tau_maxsim.union.outline", "tau_maxsim.union.content"))
    summary = {row["system"]: row for row in data["summary"]}
    assert [row["rank"] for row in data["summary"]] == [1, 2, 3, 4]
    # ranked by the offline quality score by default, with intervals over topics
    assert data["rank_by"] == "quality.overall"
    overall = [summary[s]["quality.overall"] for s in data["systems"]]
    assert overall == sorted(overall, reverse=True)
    assert all(lo <= summary[s]["quality.overall"] <= hi
               for s in SYSTEMS for lo, hi in [data["intervals"][s]["quality.overall"]])
    assert all(isinstance(summary[s][m], float) for s in SYSTEMS for m in RANK_METRICS)

    rows = list(csv.DictReader((out / "leaderboard.csv").open()))
    assert len(rows) == len(SYSTEMS) * (len(TOPICS) + 1)
    assert all(row["sgsim.sigma"] != "" for row in rows)
    md = (out / "leaderboard.md").read_text()
    from surveygraph.sanitize import markdown_cell

    # names are written as literal Markdown text ("OpenAI\\_DeepResearch" reads OpenAI_DeepResearch)
    assert "| rank | system |" in md and all(markdown_cell(s) in md for s in SYSTEMS) and "### sam_r" in md
    html = (out / "report.html").read_text()
    assert html.startswith("<!DOCTYPE html>") and html.count("<svg") >= len(RANK_METRICS)
    # self-contained: nothing loaded from elsewhere (the user may be offline)
    assert not any(f'{attr}="http' in html for attr in ("src", "href")) and "<script src" not in html
    assert all(t in html for t in TOPICS)
    # every ranked system printed on stdout, best first
    assert [line.split(". ", 1)[1].split("  ")[0] for line in res.stdout.strip().splitlines()] == data["systems"]


def test_discover_skips_the_human_dir_and_matches_bench_files(shared_data):
    weaidb = shared_data / "weaidb_surveybench"
    inputs = discover(weaidb, weaidb / "HumanSurvey",
                      bench_refs_dir=shared_data / "surveyforge_surveybench" / "ref_bench")
    assert set(inputs.systems) == SYSTEMS  # HumanSurvey is inside ROOT but is not a system
    assert len(inputs.topics) == 20 and "outlines" not in inputs.topics
    assert len(inputs.system_files) == 80
    assert len(inputs.bench_files) == 10 and "Vision Transformers" in inputs.bench_files


def _run_main(monkeypatch, capsys, *args):
    monkeypatch.setattr(sys, "argv", ["surveygraph", *args])
    with pytest.raises(SystemExit) as exc:
        main()
    return exc.value.code, capsys.readouterr().err


def test_leaderboard_user_errors(shared_data, tmp_home, tmp_path, monkeypatch, capsys):
    weaidb = shared_data / "weaidb_surveybench"
    human = str(weaidb / "HumanSurvey")
    full = tmp_path / "full"
    full.mkdir()
    (full / "mine.txt").write_text("keep")
    code, err = _run_main(monkeypatch, capsys, "leaderboard", str(weaidb), "--human-dir", human, "--out", str(full))
    assert code == 2 and "--force" in err and (full / "mine.txt").read_text() == "keep"
    out = str(tmp_path / "o")
    code, err = _run_main(monkeypatch, capsys, "leaderboard", str(tmp_path / "nope"), "--human-dir", human, "--out", out)
    assert code == 2 and "not a folder" in err
    code, err = _run_main(monkeypatch, capsys, "leaderboard", str(weaidb), "--human-dir", human, "--out", out,
                          "--systems", "AutoSurvey,Nope")
    assert code == 2 and "Nope" in err
    code, err = _run_main(monkeypatch, capsys, "leaderboard", str(weaidb), "--human-dir", human, "--out", out,
                          "--topics", "Not A Topic")
    assert code == 2 and "Not A Topic" in err
    code, err = _run_main(monkeypatch, capsys, "leaderboard", str(weaidb), "--human-dir", human, "--out", out,
                          "--metrics", "coverage")
    assert code == 2 and "--bench-refs-dir" in err


def test_evaluate_judge_llm_flag_reaches_the_judge(tmp_home, tmp_path):
    from typer.testing import CliRunner

    from surveygraph.cli import app
    from surveygraph.errors import UserError

    draft = tmp_path / "tiny.md"
    draft.write_text("# T\n\n## Intro\n\nText [1].\n\n## References\n\n[1] A paper title\n")
    result = CliRunner().invoke(app, ["evaluate", str(draft), "--judges", "sam",
                                      "--judge-llm", "nosuchprovider:model"])
    assert result.exit_code != 0
    assert isinstance(result.exception, UserError) and "nosuchprovider" in str(result.exception)


def test_leaderboard_reads_every_survey_s_topic_in_one_encoder_call(shared_data, tmp_home, monkeypatch):
    """One encoder call per survey padded a batch to each survey's long outline text (a cold
    90-draft leaderboard took 281 s); the leaderboard encodes every survey's topic-reading texts
    at once, and each survey's quality score then reads them from the memo."""
    import hashlib

    import numpy as np

    from surveygraph.evaluation import scoring
    from surveygraph.evaluation.leaderboard import run_leaderboard
    from surveygraph.settings import load_settings

    calls: list[int] = []

    def fake_encode(texts):
        calls.append(len(texts))
        return np.array([np.frombuffer(hashlib.sha256(t.encode()).digest(), dtype=np.uint8)[:16] / 255.0 + 0.01
                         for t in texts], dtype=np.float32)

    memo = scoring.EmbeddingMemo(fake_encode)
    monkeypatch.setattr(scoring, "gate_encoder", lambda _config: memo)
    weaidb = shared_data / "weaidb_surveybench"
    board = run_leaderboard(discover(weaidb, weaidb / "HumanSurvey", topics=TOPICS), load_settings(),
                            judges=[], metrics=["quality"])
    assert len(calls) == 1 and calls[0] > 8 * 50  # eight surveys' headings, references and sentences
    overall = [board.reports[s][t].flat()["quality.overall"] for s in SYSTEMS for t in TOPICS]
    assert all(isinstance(v, float) and 1.0 <= v <= 5.0 for v in overall)
