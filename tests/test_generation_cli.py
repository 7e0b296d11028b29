"""`surveygraph generate` / `ablate` from the command line (scripted model, real corpus slice)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from surveygraph.cli import app
from surveygraph.llm import roles
from tests.generation_helpers import corpus_home, use_scripted_model

TOPIC = "Retrieval-Augmented Generation for Large Language Models"
SMALL = ["--sections", "2", "--subsections", "1"]


@pytest.fixture
def scripted(monkeypatch):
    return use_scripted_model(monkeypatch)


def test_empty_store_and_bad_options_are_one_line_errors(tmp_home, monkeypatch):
    monkeypatch.setenv("SURVEYGRAPH_SHARED_DATA", str(tmp_home.parent / "no-shared-data"))  # nothing to set up from
    runner = CliRunner()
    empty = runner.invoke(app, ["generate", TOPIC])
    assert empty.exit_code == 2 and "corpus ingest" in empty.output and "no shared data" in empty.output
    bad = runner.invoke(app, ["generate", TOPIC, "--outline-demos", "sometimes"])
    assert bad.exit_code == 2 and "related, random or none" in bad.output
    rerun = runner.invoke(app, ["generate", "--rerun-section", "1.1"])
    assert rerun.exit_code == 2 and "--resume" in rerun.output
    missing = runner.invoke(app, ["generate", "--resume", "nope"])
    assert missing.exit_code == 2 and "no run 'nope'" in missing.output
    assert "Traceback" not in empty.output + bad.output + rerun.output + missing.output


def test_generate_resume_and_rerun_from_cli(shared_data, scripted, tmp_path):
    home = corpus_home(shared_data)
    runner = CliRunner()
    out = tmp_path / "runs"
    result = runner.invoke(app, ["--home", str(home), "generate", TOPIC, "--out", str(out), "--no-tre",
                                 "--concurrency", "1", *SMALL])
    assert result.exit_code == 0, result.output
    assert "no model configured: using the bundled local model" in result.output
    assert "write 1.1: written" in result.output  # per-section progress
    survey_md = Path(result.stdout.strip().splitlines()[-1])
    assert survey_md.name == "survey.md" and survey_md.is_file()
    run_dir = survey_md.parent
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["settings"]["generation"]["tre"] is False and manifest["settings"]["generation"]["sections"] == 2

    again = runner.invoke(app, ["--home", str(home), "generate", "--resume", run_dir.name, "--out", str(out)])
    assert again.exit_code == 2 and "already finished" in again.output
    rerun = runner.invoke(app, ["--home", str(home), "generate", "--resume", run_dir.name, "--out", str(out),
                                "--rerun-section", "2.1"])
    assert rerun.exit_code == 0, rerun.output
    assert len([p for p in out.iterdir() if p.is_dir()]) == 2


def test_ablate_writes_tables_with_input_coverage(shared_data, scripted, tmp_path):
    home = corpus_home(shared_data)
    bench = shared_data / "surveyforge_surveybench" / "ref_bench" / f"{TOPIC}_bench.json"
    result = CliRunner().invoke(app, ["--home", str(home), "ablate", TOPIC, "--variants", "full,no-mr",
                                      "--bench-refs", str(bench), "--out", str(tmp_path), *SMALL])
    assert result.exit_code == 0, result.output
    table = Path(result.stdout.strip().splitlines()[-1])
    rows = list(csv.DictReader((table.parent / "ablation.csv").open()))
    assert [r["variant"] for r in rows] == ["full", "no-mr"]
    assert all(r["input_coverage"] != "" and 0.0 <= float(r["input_coverage"]) <= 1.0 for r in rows)
    assert all(int(r["papers_retrieved"]) > 0 and int(r["tokens_in"]) > 0 for r in rows)
    assert "| variant |" in table.read_text()


def test_langgraph_json_loads_the_studio_graph(shared_data, scripted, monkeypatch):
    import importlib.util

    root = Path(__file__).resolve().parents[1]
    spec = json.loads((root / "langgraph.json").read_text())["graphs"]["generation"]
    module_name, attr = spec.split(":")  # a module path: the server finds it from any folder
    monkeypatch.setenv("SURVEYGRAPH_HOME", str(corpus_home(shared_data)))
    # loaded afresh under another name: the module reads its settings at import
    module_spec = importlib.util.spec_from_file_location("studio_entry", importlib.util.find_spec(module_name).origin)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    graph = getattr(module, attr)  # compiled at import (the server imports in a worker thread)
    assert {"open_run", "plan_sections", "read_subsection", "write_subsection", "polish_sections",
            "self_evaluate"} <= set(graph.get_graph().nodes)


def test_generate_self_evaluation_runs_the_selected_judges(shared_data, monkeypatch, tmp_path):
    from tests.generation_helpers import survey_responder
    from tests.scripted_llm import ScriptedChatModel
    from tests.test_judges_run import responder as judge_responder

    def both(prompt: str) -> str:  # writer prompts carry a TASK line, judge prompts do not
        return survey_responder(prompt) if "TASK: " in prompt else judge_responder(prompt)

    model = ScriptedChatModel(responder=both)
    monkeypatch.setattr(roles, "make_chat_model", lambda spec, settings: model)
    monkeypatch.setenv("SURVEYGRAPH_LLM__CACHE", "false")
    home = corpus_home(shared_data)
    human = tmp_path / "human.md"
    human.write_text("# RAG: a survey\n\n## Retrieval\n\nDense retrieval with DPR [1].\n\n"
                     "## Generation\n\nFusion-in-Decoder reads passages [2].\n\n## References\n\n"
                     "[1] Dense Passage Retrieval\n[2] Fusion-in-Decoder\n")
    runner = CliRunner()
    bad = runner.invoke(app, ["--home", str(home), "generate", TOPIC, "--judges", "sam,vibes"])
    assert bad.exit_code == 2 and "vibes" in bad.output
    result = runner.invoke(app, ["--home", str(home), "generate", TOPIC, "--out", str(tmp_path / "runs"),
                                 "--concurrency", "1", "--judges", "sam", "--human", str(human), *SMALL])
    assert result.exit_code == 0, result.output
    assert "judges sam on 2 survey(s)" in result.output  # the cost estimate comes before the run
    assert "self-evaluation: 5 judge calls" in result.output  # progress while the judges work
    run_dir = Path(result.stdout.strip().splitlines()[-1]).parent
    metrics = {m["name"]: m for m in json.loads((run_dir / "evaluation.json").read_text())["metrics"]}
    assert metrics["sam_o"]["value"] == 82 and metrics["sam_c.avg"]["value"] == 70
    assert json.loads((run_dir / "run.json").read_text())["human"] == str(human)



def test_generate_on_an_empty_home_sets_up_the_embedded_default_from_the_shared_data(shared_data, tmp_path):
    """The README's main job in one command: an empty data home is filled from the shared data
    (here a 200-paper slice laid out like it), with what was done said, and the survey is written."""
    import gzip
    import json
    import os
    import shutil
    import subprocess
    import sys

    from tests.generation_helpers import rag_papers

    shared = tmp_path / "shared" / "data"
    (shared / "corpus").mkdir(parents=True)
    with gzip.open(shared / "corpus" / "arxiv_2025_2026.jsonl.gz", "wt", encoding="utf-8") as fh:
        for paper in rag_papers(shared_data, 200):
            fh.write(json.dumps({"arxiv_id": paper.arxiv_id, "title": paper.title, "abstract": paper.abstract,
                                 "authors": paper.authors, "categories": paper.categories,
                                 "announced": f"{paper.year}-06-01"}) + "\n")
    outlines = shared / "weaidb_surveybench" / "HumanSurvey"
    outlines.mkdir(parents=True)
    shutil.copy(shared_data / "weaidb_surveybench" / "HumanSurvey" / "outlines.json", outlines / "outlines.json")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SURVEYGRAPH_")}
    env.update(SURVEYGRAPH_HOME=str(tmp_path / "home"), SURVEYGRAPH_SHARED_DATA=str(shared), HF_HUB_OFFLINE="1",
               TRANSFORMERS_OFFLINE="1", ANONYMIZED_TELEMETRY="False", SURVEYGRAPH_GENERATION__SELF_EVALUATE="false")
    done = subprocess.run([sys.executable, "-m", "surveygraph", "generate", TOPIC, "--sections", "2",
                           "--subsections", "1"], capture_output=True, text=True, env=env, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    said = " ".join(done.stderr.split())
    assert "is empty: setting up the embedded default from" in said
    assert "ingested 200 papers from" in said and "ingested 20 human outlines from" in said
    assert list((tmp_path / "home" / "runs").glob("*/survey.md"))
    again = subprocess.run([sys.executable, "-m", "surveygraph", "generate", TOPIC, "--sections", "2",
                            "--subsections", "1"], capture_output=True, text=True, env=env, timeout=900)
    assert again.returncode == 0 and "setting up" not in again.stderr  # once only


def test_each_subsection_reads_the_papers_its_heading_was_named_from(shared_data, tmp_path):
    """With MR, a subsection reads only the papers its outline entry holds: among them when there are
    more than K (MS and TRE choose within M_ij), all of them otherwise; re-retrieving by the
    heading's words put other domains' papers under "Medicine and Healthcare" (issue 17's final
    reading), and filling up to K did the same under "Law and Public Policy"."""
    import surveygraph as sg

    run = sg.generate(TOPIC, home=str(corpus_home(shared_data)), out=str(tmp_path), sections=2, subsections=2,
                      self_evaluate=False)
    state, k = run.state, 8
    checked = 0
    for section in state["outline"]:
        for sub in section["subsections"]:
            placed, read = set(sub.get("paper_ids") or []), state["readings"][sub["id"]]
            if len(placed) >= k:
                assert set(read["paper_ids"]) <= placed, (sub["title"], read["paper_ids"])
                assert read["placed"] == len(read["paper_ids"])
                checked += 1
            elif placed:
                assert set(read["paper_ids"]) == placed, sub["title"]  # all of them and nothing else
    assert checked >= 1


def test_the_progress_line_says_how_the_topic_was_read():
    """A user whose words the field does not use ("making up facts" for hallucination) sees which
    words every kept paper had to name, and which were taken as wording."""
    from surveygraph.cli.generate import describe_update

    relevance = {"facets": [{"phrase": "stopping chatbots like ChatGPT", "units": [{"phrase": "chatbot or chatgpt"}],
                             "phrasing": ["stopping"]},
                            {"phrase": "making up facts", "units": [{"phrase": "fact"}], "phrasing": []}],
                 "facets_not_asked": ["photos"]}
    line = describe_update("gather_topic_context", {"memory": ["a", "b"], "demos": [], "relevance": relevance})
    assert line == ("plan: 2 papers in memory M, 0 demo outlines; topic read as 'chatbot or chatgpt' + 'fact' "
                    "(not asked of papers: stopping, photos)")
    assert describe_update("gather_topic_context", {"memory": [], "demos": []}) == "plan: 0 papers in memory M, 0 demo outlines"
