"""The Python API and the command line checked as a user misuses them (issue 31): every option is
validated before anything is written or loaded, with the CLI's ranges, as one UserError line; a
failed start leaves no run folder; nothing a user has is overwritten."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

import surveygraph as sg
from surveygraph.cli import app
from surveygraph.api import make_settings
from surveygraph.errors import UserError

pytestmark = pytest.mark.fault

TOPIC = "Retrieval-Augmented Generation"
NOWHERE = Path("/proc/surveygraph-no-folder-can-be-made-here")  # mkdir fails with ENOENT, even as root


def _one_line(result) -> str:
    """The one error line of a CLI run (a UserError that `surveygraph`'s main() prints as one
    line reaches CliRunner as the exception itself)."""
    if isinstance(result.exception, UserError):
        assert "\n" not in str(result.exception)
        return f"error: {result.exception}"
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert result.exit_code == 2 and len(errors) == 1 and "Traceback" not in result.output, result.output[-2000:]
    return errors[0]


def test_a_home_no_folder_can_be_made_at_is_one_line(tmp_path):
    if not Path("/proc/self").exists():
        pytest.skip("needs /proc (Linux)")
    with pytest.raises(UserError, match=f"cannot create the data home {NOWHERE}"):
        sg.generate(TOPIC, home=NOWHERE)
    with pytest.raises(UserError, match="cannot create the data home"):
        sg.evaluate("# T\n\n## Intro\n\nRetrieval grounds generation [1].\n", home=NOWHERE / "sub")
    line = _one_line(CliRunner().invoke(app, ["--home", str(NOWHERE), "generate", TOPIC]))
    assert "cannot create the data home" in line
    made = tmp_path / "a" / "b" / "home"
    make_settings(home=made)  # a home that can be made is fine, and nothing is left behind
    assert not (tmp_path / "a").exists()


def test_option_ranges_are_the_clis(tmp_path):
    for options, where in (({"tau": 5}, "evaluation.tau"), ({"tau": -0.1}, "evaluation.tau"),
                           ({"max_tokens": 0}, "llm.max_tokens"), ({"sections": 0}, "generation.sections"),
                           ({"timeout": 0}, "llm.timeout")):
        with pytest.raises(UserError, match=f"invalid setting {where}"):
            make_settings(home=tmp_path / "home", **options)
    draft = tmp_path / "draft.md"
    draft.write_text("# T\n\n## Intro\n\nRetrieval grounds generation [1].\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["--home", str(tmp_path / "home"), "evaluate", str(draft), "--tau", "5"])
    assert "invalid setting evaluation.tau" in _one_line(result)
    result = CliRunner().invoke(app, ["--home", str(tmp_path / "home"), "generate", TOPIC, "--max-tokens", "0"])
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output


def test_a_malformed_config_file_is_one_line(tmp_path):
    config = tmp_path / "surveygraph.toml"
    config.write_text("[generation]\nsections = [\n", encoding="utf-8")
    with pytest.raises(UserError, match=f"the settings file {config} is not valid TOML"):
        sg.generate(TOPIC, config=config, home=tmp_path / "home")
    line = _one_line(CliRunner().invoke(app, ["--home", str(tmp_path / "home"), "--config", str(config),
                                              "generate", TOPIC]))
    assert "is not valid TOML" in line


def test_bad_arguments_fail_at_once_and_leave_no_run_folder(tmp_path):
    home, runs = tmp_path / "home", tmp_path / "runs"
    for call, message in (
            (lambda: sg.generate(123, home=home), "the topic must be text, not int"),
            (lambda: sg.generate(TOPIC, on_progress="x", home=home, out=runs), "on_progress must be a function"),
            (lambda: sg.generate(TOPIC, judges=["vibes"], home=home, out=runs), "unknown judge: vibes"),
            (lambda: sg.generate(TOPIC, chat_models=["m"], home=home, out=runs), "chat_models must map"),
            (lambda: sg.evaluate("# T\n\n## A\n\nText.\n", judges=["vibes"], home=home), "unknown judge: vibes"),
            (lambda: sg.evaluate("# T\n\n## A\n\nText.\n", judges="sam", home=home), "as a list, not str"),
            (lambda: sg.leaderboard(tmp_path, tmp_path, on_progress=3, home=home), "on_progress must be a function")):
        started = time.monotonic()
        with pytest.raises(UserError, match=message):
            call()
        assert time.monotonic() - started < 5  # before any store or model loads
    assert not runs.exists()


def test_out_that_is_a_file_is_one_line_and_names_no_run(tmp_path):
    taken = tmp_path / "notes.txt"
    taken.write_text("mine", encoding="utf-8")
    with pytest.raises(UserError, match=r"the runs folder \(--out\) is a file, not a folder"):
        sg.generate(TOPIC, out=taken, home=tmp_path / "home")
    result = CliRunner().invoke(app, ["--home", str(tmp_path / "home"), "generate", TOPIC, "--out", str(taken)])
    assert "is a file, not a folder" in _one_line(result)
    assert "resume" not in result.output and taken.read_text(encoding="utf-8") == "mine"


def test_leaderboard_out_holding_files_needs_force_as_in_the_cli(tmp_path):
    board = tmp_path / "board"
    board.mkdir()
    (board / "leaderboard.md").write_text("my earlier board", encoding="utf-8")
    with pytest.raises(UserError, match="is not empty; pass force=True"):
        sg.leaderboard(tmp_path / "systems", tmp_path / "human", out=board, home=tmp_path / "home")
    assert (board / "leaderboard.md").read_text(encoding="utf-8") == "my earlier board"


def test_a_checkpointer_that_cannot_open_leaves_no_run_folder(shared_data, tmp_path, monkeypatch):
    """A bad --checkpointer URL failed after runs/<id>/run.json was written: a run with no
    checkpoint, which --resume cannot find."""
    from tests.generation_helpers import corpus_home, use_scripted_model

    use_scripted_model(monkeypatch)
    runs = tmp_path / "runs"
    with pytest.raises(UserError, match="generation.checkpointer must be a postgresql:// URL"):
        sg.generate(TOPIC, home=corpus_home(shared_data), out=runs, sections=1, subsections=1,
                    checkpointer="mysql://127.0.0.1/x")
    assert not runs.exists() or not any(runs.iterdir())
    result = CliRunner().invoke(app, ["--home", str(corpus_home(shared_data)), "generate", TOPIC, "--sections", "1",
                                      "--subsections", "1", "--out", str(runs), "--checkpointer", "mysql://127.0.0.1/x"])
    assert "must be a postgresql:// URL" in _one_line(result)
    assert not any(runs.iterdir()) and "resume" not in result.output


@pytest.mark.timeout(60)
def test_evaluate_reads_a_path_as_the_cli_does(tmp_path):
    """sg.evaluate parsed whatever a path held: a file of control characters was scored (zeros that
    look like a result), and a pipe or /dev/zero was read until memory ran out. The CLI's reader
    (evaluation.inputs.read_survey: a size cap and a text check) refuses both in one line."""
    import os

    from surveygraph.errors import NotASurvey

    garbled = tmp_path / "garbled.md"
    garbled.write_text("# Retrieval\n\n## Intro\n\n" + " ".join("word\x07" for _ in range(500)) + "\n", encoding="utf-8")
    good = "# Retrieval\n\n## Intro\n\nRetrieval grounds generation in documents [1].\n"
    home = tmp_path / "home"
    with pytest.raises(NotASurvey, match=f"{garbled} is not a survey: not UTF-8 text"):
        sg.evaluate(garbled, home=home, metrics=["structure"])
    with pytest.raises(NotASurvey, match="not UTF-8 text"):
        sg.evaluate(good, human=garbled, home=home, metrics=["structure"])
    pipe = tmp_path / "pipe.md"
    os.mkfifo(pipe)  # never written to: reading it would wait forever
    with pytest.raises(NotASurvey, match="not a regular file"):
        sg.evaluate(pipe, home=home, metrics=["structure"])
