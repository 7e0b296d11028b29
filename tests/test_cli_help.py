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
    assert f"(now: {tmp_path / 'team-home'})" in " ".join(text.split()).replace("│ ", "")
