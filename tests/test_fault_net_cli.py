"""How `generate` reads and stops for a user (issue 31): help names values in words, the progress
shows an ETA from its first line with a clock that never runs back, SIGTERM stops a run as Ctrl-C
does (saved, with the resume command), and `--resume RUN --pdf` builds the PDF a killed TeX left
missing."""

from __future__ import annotations

import re
import shutil
import signal

import pytest
import typer
from typer.testing import CliRunner

from surveygraph.cli import app
from tests.generation_helpers import corpus_home, survey_responder
from tests.scripted_llm import ScriptedChatModel

TOPIC = "Retrieval-Augmented Generation"
PYTHON_TYPE = re.compile(r"<(?:str|int|float|bool|path|file|dir|list\[[^>]*\])(?: range)?>")
BRACED_ARGUMENT = re.compile(r"Usage: .*\{[a-z_]+\}")


def _commands(command, path=()):
    yield path
    for name, sub in getattr(command, "commands", {}).items():
        yield from _commands(sub, (*path, name))


def test_help_names_values_in_words_not_python_types():
    runner = CliRunner()
    for path in _commands(typer.main.get_command(app)):
        text = runner.invoke(app, [*path, "--help"], terminal_width=200).output
        assert not PYTHON_TYPE.search(text), (path, PYTHON_TYPE.search(text).group(0))
        assert not BRACED_ARGUMENT.search(text), (path, BRACED_ARGUMENT.search(text).group(0))
    generate = runner.invoke(app, ["generate", "--help"], terminal_width=200).output
    assert "[OPTIONS] [TOPIC]" in generate
    search = runner.invoke(app, ["corpus", "search", "--help"], terminal_width=200).output
    assert "[OPTIONS] QUERY" in search and re.search(r"--category\s+TEXT", search)


def _scripted(monkeypatch, responder=survey_responder) -> ScriptedChatModel:
    from surveygraph.llm import roles

    model = ScriptedChatModel(responder=responder)
    monkeypatch.setattr(roles, "make_chat_model", lambda spec, settings: model)
    monkeypatch.setenv("SURVEYGRAPH_LLM__CACHE", "false")
    return model


def test_the_eta_comes_with_the_first_step_and_the_clock_never_runs_back(shared_data, monkeypatch, tmp_path):
    """It came 52-79% into a run, once said 2 s with 15 s left, and the clock restarted at the
    outline. Then the run's PDF: `--resume --pdf` on a finished run builds it (TeX killed)."""
    _scripted(monkeypatch)
    runs = tmp_path / "runs"
    done = CliRunner().invoke(app, ["--home", str(corpus_home(shared_data)), "generate", TOPIC, "--sections", "1",
                                    "--subsections", "1", "--out", str(runs)],
                              env={"SURVEYGRAPH_GENERATION__SELF_EVALUATE": "false"})
    assert done.exit_code == 0, done.output[-3000:]
    lines = done.output.splitlines()
    progress = [(i, line) for i, line in enumerate(lines) if re.match(r"\d+% done, \d+ s elapsed", line)]
    first_step = next(i for i, line in enumerate(lines) if line.startswith("• plan:"))
    # right under the first step's line (which may wrap: it says how the topic was read)
    assert progress and progress[0][0] > first_step, "\n".join(lines)
    assert not any(line.startswith("•") for line in lines[first_step + 1:progress[0][0]]), "\n".join(lines)
    assert all("ETA" in line for _, line in progress), progress
    elapsed = [int(re.search(r"(\d+) s elapsed", line).group(1)) for _, line in progress]
    assert elapsed == sorted(elapsed), progress  # never back to 0
    percents = [int(line.split("%")[0]) for _, line in progress]
    assert percents == sorted(percents) and percents[-1] == 100
    (run_dir,) = runs.iterdir()
    assert (run_dir / "manifest.json").is_file() and not (run_dir / "survey.pdf").exists()

    again = CliRunner().invoke(app, ["--home", str(corpus_home(shared_data)), "generate", "--resume", run_dir.name,
                                     "--out", str(runs)])
    said = again.output + str(again.exception or "")
    assert again.exit_code == 2 and "already finished" in said and "--pdf to build its PDF" in said, said
    if not any(shutil.which(engine) for engine in ("lualatex", "xelatex", "pdflatex")):
        pytest.skip("no TeX engine installed: the PDF step is not exercised")
    (run_dir / "build").mkdir()  # what a killed latexmk leaves
    (run_dir / "build" / "survey.aux").write_text("\\relax half", encoding="utf-8")
    pdf = CliRunner().invoke(app, ["--home", str(corpus_home(shared_data)), "generate", "--resume", run_dir.name,
                                   "--out", str(runs), "--pdf"])
    assert pdf.exit_code == 0, pdf.output[-3000:]
    assert str(run_dir / "survey.pdf") in pdf.output and (run_dir / "survey.pdf").stat().st_size > 1000


class _Sentinel(Exception):
    pass


@pytest.mark.fault
def test_sigterm_stops_a_run_as_ctrl_c_does(shared_data, monkeypatch, tmp_path):
    """SIGTERM exited 143 with no message and no resume hint. The model sends it to this process
    in the middle of the run (as a scheduler would); a handler of the test's own catches it if
    generate installs none, so the test fails instead of killing pytest."""
    import os

    calls = []

    def responder(prompt: str) -> str:
        calls.append(prompt)
        if len(calls) == 2:
            os.kill(os.getpid(), signal.SIGTERM)
        return survey_responder(prompt)

    def fallback(signum, frame):
        raise _Sentinel("generate installed no SIGTERM handler")

    _scripted(monkeypatch, responder)
    previous = signal.signal(signal.SIGTERM, fallback)
    runs = tmp_path / "runs"
    try:
        done = CliRunner().invoke(app, ["--home", str(corpus_home(shared_data)), "generate", TOPIC, "--sections", "2",
                                        "--subsections", "1", "--out", str(runs)])
    finally:
        assert signal.signal(signal.SIGTERM, previous) is fallback  # generate put the handler back
    assert not isinstance(done.exception, _Sentinel), done.output[-2000:]
    assert done.exit_code == 143, done.output[-3000:]
    (run_dir,) = runs.iterdir()
    assert f"terminated (SIGTERM): run {run_dir.name} is saved at its last finished step" in done.output
    assert f"resume it with: surveygraph --home {corpus_home(shared_data)} generate --resume {run_dir.name}" \
           in done.output
    assert not (run_dir / "survey.md").exists()
