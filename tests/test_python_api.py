"""The Python API: the README's ```python snippets run as written, plus its error handling.

The snippets run in one namespace (as a reader pastes them one after the other), in a tmp folder
holding the files they name (human.md, systems/, human/), against a data home with a real corpus
slice set via SURVEYGRAPH_HOME. The chat model is the scripted survey model (tests/scripted_llm.py).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import surveygraph as sg
from surveygraph.llm import roles
from tests.generation_helpers import corpus_home, scripted_models

README = Path(__file__).resolve().parents[1] / "README.md"

HUMAN = """# Retrieval-Augmented Generation: A Survey

## Introduction

Retrieval-augmented generation grounds the outputs of language models in retrieved evidence [1].

## Retrieval

Dense passage retrieval embeds questions and passages in one space [1]. Sparse retrievers such as
BM25 remain strong baselines for keyword-heavy queries [2].

## Generation

Fusion-in-decoder reads many retrieved passages at once and improves open-domain answers [3].

## References

[1] Dense Passage Retrieval for Open-Domain Question Answering
[2] The Probabilistic Relevance Framework: BM25 and Beyond
[3] Leveraging Passage Retrieval with Generative Models for Open Domain Question Answering
"""


def python_snippets() -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", README.read_text(encoding="utf-8"), re.M | re.S)


def _system_survey(heading: str, sentence: str) -> str:
    return (f"# RAG\n\n## {heading}\n\n{sentence} [1].\n\n## Generation\n\nGenerators read passages [2].\n\n"
            "## References\n\n[1] Dense Passage Retrieval for Open-Domain Question Answering\n"
            "[2] Leveraging Passage Retrieval with Generative Models for Open Domain Question Answering\n")


@pytest.fixture
def reader_folder(shared_data, tmp_path, monkeypatch):
    """The files the README's snippets name, a corpus home via env, the scripted model."""
    model, _ = scripted_models()
    monkeypatch.setattr(roles, "make_chat_model", lambda spec, settings: model)
    for key in ("SURVEYGRAPH_CONFIG",):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("SURVEYGRAPH_HOME", str(corpus_home(shared_data)))
    monkeypatch.setenv("SURVEYGRAPH_LLM__CACHE", "false")
    monkeypatch.setenv("SURVEYGRAPH_GENERATION__OUTLINE_DEMOS", "none")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "human.md").write_text(HUMAN)
    (tmp_path / "human").mkdir()
    (tmp_path / "human" / "rag.md").write_text(HUMAN)
    for system, heading, sentence in (("close", "Retrieval", "Dense passage retrieval embeds questions and passages"),
                                      ("far", "Cooking", "Bread needs flour, water and time")):
        (tmp_path / "systems" / system).mkdir(parents=True)
        (tmp_path / "systems" / system / "rag.md").write_text(_system_survey(heading, sentence))
    return tmp_path


def test_readme_python_snippets_run_as_written(reader_folder, capsys):
    snippets = python_snippets()
    assert len(snippets) >= 3, "the README shows generate, evaluate and leaderboard"
    namespace: dict = {}
    for snippet in snippets:
        exec(compile(snippet, str(README), "exec"), namespace)  # noqa: S102 - the README's own code
    run, report, board = namespace["run"], namespace["report"], namespace["board"]
    assert isinstance(run, sg.Run) and run.markdown.is_file() and run.markdown.parent.parent.name == "runs"
    assert run.json.is_file() and run.tex.is_file() and run.bib.is_file()
    assert len(run.survey.sections) >= 2 and run.manifest["settings"]["generation"]["sections"] == 2
    assert run.evaluation is not None and run.evaluation.metrics
    assert 0.0 <= report.get("ra_align_f1").value <= 1.0
    assert board.ranking[0] == "close"  # the survey that shares the human survey's content wins
    assert (reader_folder / "board" / "leaderboard.md").is_file()
    printed = capsys.readouterr().out
    assert "plan: sections" in printed  # on_progress=print got the progress lines
    assert str(run.markdown) in printed


def test_options_are_settings_fields_and_mistakes_are_user_errors(reader_folder):
    from surveygraph.api import make_settings

    settings = make_settings(sections=2, llm="openai:gpt-4o-mini", tau=0.9, generation__tre=False,
                             home=str(reader_folder / "elsewhere"))
    assert settings.generation.sections == 2 and settings.llm.default == "openai:gpt-4o-mini"
    assert settings.evaluation.tau == 0.9 and settings.generation.tre is False
    assert settings.home == (reader_folder / "elsewhere").resolve()
    with pytest.raises(sg.UserError, match="did you mean sections"):
        sg.generate("RAG", sectoins=2)
    with pytest.raises(sg.UserError, match="invalid setting generation.sections"):
        sg.generate("RAG", sections=0)
    with pytest.MonkeyPatch.context() as patch, pytest.raises(sg.UserError, match="paper store .* is empty"):
        patch.setenv("SURVEYGRAPH_SHARED_DATA", str(reader_folder / "no-shared-data"))
        sg.generate("RAG", home=str(reader_folder / "empty-home"))
    with pytest.raises(sg.UserError, match="survey not found"):
        sg.evaluate("no-such-file.md")
    with pytest.raises(sg.UserError, match="unknown metric families: vibes"):
        sg.evaluate("human.md", metrics=["vibes"])


def test_import_is_lazy_and_python_dash_m_works():
    code = "import sys, surveygraph; print(sorted(m for m in ('torch', 'langgraph', 'chromadb') if m in sys.modules))"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == "[]", proc.stdout + proc.stderr
    proc = subprocess.run([sys.executable, "-m", "surveygraph", "--help"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "generate" in proc.stdout and "Usage: surveygraph" in proc.stdout


def test_ctrl_c_in_generate_names_the_run_and_resume_finishes_it(reader_folder, monkeypatch):
    from surveygraph.graphs import generation
    from surveygraph.graphs.runner import RunInterrupted

    real_frame = generation.write_frame

    def ctrl_c(state, deps):
        raise KeyboardInterrupt

    monkeypatch.setattr(generation, "write_frame", ctrl_c)
    with pytest.raises(RunInterrupted) as stopped:
        sg.generate("Retrieval-Augmented Generation", sections=1, subsections=1, out="runs")
    assert isinstance(stopped.value, KeyboardInterrupt)
    run_dir = stopped.value.run_dir
    assert run_dir.parent == (reader_folder / "runs").resolve() and not (run_dir / "survey.md").exists()
    monkeypatch.setattr(generation, "write_frame", real_frame)
    lines: list[str] = []
    run = sg.resume(run_dir, on_progress=lines.append)
    assert run.run_id == stopped.value.run_id and run.markdown.is_file()
    assert not any(line.startswith(("plan:", "read ", "write ")) for line in lines), lines  # not redone


def test_evaluate_refuses_an_empty_file_like_the_cli(tmp_path):
    """issue 20: sg.evaluate(empty.md) returned zeros where `surveygraph evaluate` exits 4."""
    import surveygraph as sg
    from surveygraph.errors import NotASurvey

    empty = tmp_path / "empty.md"
    empty.write_text("", encoding="utf-8")
    headings_only = tmp_path / "headings.md"
    headings_only.write_text("# Title\n\n## Introduction\n\n## Methods\n", encoding="utf-8")
    for path in (empty, headings_only):
        with pytest.raises(NotASurvey, match="is not a survey"):
            sg.evaluate(path, home=tmp_path / "home")


def test_a_file_as_home_is_one_clear_error_as_in_the_cli(tmp_path):
    """issue 20: home=<file> raised NotADirectoryError from deep inside the embedding cache."""
    import surveygraph as sg
    from surveygraph.errors import UserError

    survey = tmp_path / "survey.md"
    survey.write_text("# T\n\n## Intro\n\nRetrieval grounds generation [1].\n\n## References\n\n[1] A. 2020.\n")
    not_a_folder = tmp_path / "home.txt"
    not_a_folder.write_text("x")
    for home in (not_a_folder, not_a_folder / "sub"):
        with pytest.raises(UserError, match="is a file, not a folder"):
            sg.evaluate(survey, home=home)
