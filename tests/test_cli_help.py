"""Help output a user reads: no value placeholder after on/off flags, the effective data home."""

from __future__ import annotations

import os
import subprocess
import sys


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
    assert "<path>" in rows["--out"] and "<str>" in rows["--resume"]
    assert "<" not in rows["--no-tre"].split("Top-K")[0]


def test_home_help_names_the_home_in_effect(tmp_path):
    text = _help(SURVEYGRAPH_HOME=str(tmp_path / "team-home"))
    assert f"(default: {tmp_path / 'team-home'})" in " ".join(text.split()).replace("│ ", "")


def test_the_first_eta_comes_from_the_last_runs_measured_step_costs(tmp_path):
    """The bar counts expected seconds per step, taken from the newest finished run's manifest."""
    import json

    from surveygraph.cli.generate import CLOSING, PER_SUBSECTION, measured_step_costs

    assert set(measured_step_costs(tmp_path / "none").values()) == {1.0}  # no run yet: equal weights
    run = tmp_path / "runs" / "a-run"
    run.mkdir(parents=True)
    timings = {"read_subsection": 6.0, "write_subsection": 30.0, "polish_sections": 2.0, "illustrate": 1.0,
               "write_frame": 4.0, "export_survey": 0.5, "self_evaluate": 0.0}
    (run / "manifest.json").write_text(json.dumps({"timings_s": timings,
                                                   "subsection_status": {"1.1": "ok", "1.2": "ok", "2.1": "ok"}}))
    costs = measured_step_costs(tmp_path / "runs")
    assert costs["read_subsection"] == 2.0 and costs["write_subsection"] == 10.0  # per subsection
    assert costs["write_frame"] == 4.0 and costs["self_evaluate"] == 0.01  # at least a sliver
    assert set(costs) == {*PER_SUBSECTION, *CLOSING}
