"""Help output a user reads: no value placeholder after on/off flags, the effective data home."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest


def _help(*args: str, **env: str) -> str:
    environ = {**os.environ, "COLUMNS": "160", **env}
    done = subprocess.run([sys.executable, "-m", "surveygraph", *args, "--help"], capture_output=True, text=True,
                          env=environ, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_flags_show_no_type_and_options_with_values_keep_theirs():
    text = _help("generate")
    assert "<bool>" not in text
    rows = {line.split()[1]: line for line in text.splitlines() if line.startswith("│ --")}
    assert "PATH" in rows["--out"] and "TEXT" in rows["--resume"]
    assert "<" not in rows["--no-tre"].split("Top-K")[0]


def test_home_help_names_the_home_in_effect(tmp_path):
    text = _help(SURVEYGRAPH_HOME=str(tmp_path / "team-home"))
    assert f"(default: {tmp_path / 'team-home'})" in " ".join(text.split()).replace("│ ", "")


def test_the_first_eta_comes_from_the_last_runs_measured_step_costs(tmp_path):
    """The bar counts expected seconds per step: the wall time of each step of the newest finished,
    not resumed run (manifest step_wall_s), per subsection for reads and writes."""
    import json

    from surveygraph.cli.run_progress import DEFAULT_STEP_SECONDS, STEPS, measured_step_costs

    assert measured_step_costs(tmp_path / "none") == DEFAULT_STEP_SECONDS  # no run yet
    wall = {"gather_topic_context": 12.0, "plan_sections": 1.0, "plan_subsections": 0.5, "read_subsection": 6.0,
            "write_subsection": 30.0, "polish_sections": 2.0, "illustrate": 1.0, "write_frame": 4.0,
            "export_survey": 0.5, "self_evaluate": 0.0}
    status = {"subsection_status": {"1.1": "ok", "1.2": "ok", "2.1": "ok"}}
    for name, extra in (("a-run", {}), ("b-resumed", {"resumed": True})):
        run = tmp_path / "runs" / name
        run.mkdir(parents=True)
        (run / "manifest.json").write_text(json.dumps({"step_wall_s": {k: v * 9 for k, v in wall.items()}
                                                       if extra else wall, **status, **extra}))
    costs = measured_step_costs(tmp_path / "runs")  # the resumed run (newer) saw only part of its run
    assert costs["read_subsection"] == 2.0 and costs["write_subsection"] == 10.0  # per subsection
    assert costs["gather_topic_context"] == 12.0 and costs["self_evaluate"] == 0.01  # at least a sliver
    assert set(costs) == set(STEPS)


def test_a_read_only_data_home_is_one_line_for_commands_that_write(tmp_path):
    """Issue 20: `generate` and `outlines ingest` on a read-only home printed Chroma's traceback
    ("attempt to write a readonly database"). A read-only bind mount makes the home read-only
    even for root; where mounting is not allowed the test says so and skips."""
    import shutil
    import subprocess

    if shutil.which("mount") is None:
        pytest.skip("no mount command")
    source, home = tmp_path / "source", tmp_path / "home"
    (source / "store").mkdir(parents=True)
    home.mkdir()
    if subprocess.run(["mount", "--bind", str(source), str(home)], capture_output=True).returncode != 0:
        pytest.skip("bind mounts are not permitted here (needs root with CAP_SYS_ADMIN)")
    try:
        if subprocess.run(["mount", "-o", "remount,bind,ro", str(home)], capture_output=True).returncode != 0:
            pytest.skip("read-only remount not permitted here")
        env = {k: v for k, v in os.environ.items() if not k.startswith("SURVEYGRAPH_")}
        env.update(SURVEYGRAPH_HOME=str(home), SURVEYGRAPH_SHARED_DATA=str(tmp_path / "none"))
        for args, action in ((["generate", "Graph Neural Networks"], "generate"),
                             (["outlines", "ingest", str(tmp_path)], "outlines ingest")):
            done = subprocess.run([sys.executable, "-m", "surveygraph", *args], capture_output=True, text=True,
                                  env=env, timeout=300)
            assert done.returncode == 2, done.stderr[-2000:]
            assert f"is read-only, and {action} writes to it" in " ".join(done.stderr.split())
            assert "Traceback" not in done.stderr
    finally:
        subprocess.run(["umount", str(home)], capture_output=True)


def test_read_only_failures_are_recognised_through_their_causes():
    import errno

    from surveygraph.cli.common import read_only_failure

    try:
        try:
            raise RuntimeError("error returned from database: (code: 8) attempt to write a readonly database")
        except RuntimeError as inner:
            raise ValueError("opening the store failed") from inner
    except ValueError as outer:
        assert read_only_failure(outer)
    assert read_only_failure(OSError(errno.EROFS, "Read-only file system"))
    assert not read_only_failure(ValueError("something else"))
