"""Packaging and settings: the layout the rest of the suite relies on."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from surveygraph import load_settings
from surveygraph.cli import app

ROOT = Path(__file__).resolve().parents[1]


def test_every_subpackage_is_listed_in_pyproject():
    # pyproject lists packages explicitly (the repo root is the package); a folder with an
    # __init__.py that is not listed would be missing from a non-editable install.
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {"surveygraph"}
    for init in ROOT.rglob("__init__.py"):
        rel = init.parent.relative_to(ROOT)
        if rel.parts and rel.parts[0] in {"tests", "benchmarks", "build", "scripts"}:
            continue
        if rel.parts:
            found.add("surveygraph." + ".".join(rel.parts))
    assert found <= listed, f"not listed in pyproject: {sorted(found - listed)}"


def test_settings_precedence_toml_env_override(tmp_home, monkeypatch):
    cfg = tmp_home.parent / "surveygraph.toml"
    cfg.write_text('[llm]\nwriter = "openai:from-toml"\njudge = "openai:judge-toml"\n[retrieval]\nk = 7\n')
    s = load_settings(cfg)
    assert s.llm.writer == "openai:from-toml" and s.retrieval.k == 7
    monkeypatch.setenv("SURVEYGRAPH_LLM__WRITER", "anthropic:from-env")
    s = load_settings(cfg)
    assert s.llm.writer == "anthropic:from-env" and s.llm.judge == "openai:judge-toml"
    s = load_settings(cfg, **{"llm.writer": "ollama:from-flag", "retrieval.k": None})
    assert s.llm.writer == "ollama:from-flag" and s.retrieval.k == 7
    assert s.llm.for_role("planner") == "local"


def test_home_from_env(tmp_home):
    assert load_settings().home == tmp_home.resolve()
    assert load_settings().runs_dir == tmp_home.resolve() / "runs"


def test_missing_config_is_a_user_error(tmp_home):
    result = CliRunner().invoke(app, ["--config", "nope.toml", "doctor", "--skip-llm"])
    assert result.exit_code != 0
    assert "config file not found" in (result.output + str(result.exception))


def test_invalid_setting_rejected(tmp_home, monkeypatch):
    monkeypatch.setenv("SURVEYGRAPH_RETRIEVAL__K", "zero")
    with pytest.raises(Exception):
        load_settings()


def test_cli_help_lists_commands():
    result = CliRunner().invoke(app, ["--help"])
    assert result.exit_code == 0
    for command in ("corpus", "outlines", "generate", "evaluate", "doctor"):
        assert command in result.output


def test_tests_folder_is_not_a_package():
    # With tests/__init__.py pytest walks up to the repo root (which has an __init__.py, being the
    # surveygraph package) and imports it under the clone's folder name. conftest.py aliases `tests`.
    assert not (ROOT / "tests" / "__init__.py").exists()
