"""Shared fixtures: where the shared data lives, a throwaway data home, offline env."""

from __future__ import annotations

import os
import sys
import types
from pathlib import Path

import pytest

os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

REPO_ROOT = Path(__file__).resolve().parents[1]

# tests/ is deliberately NOT a package: the repository root is the `surveygraph` package, and a
# tests/__init__.py would make pytest import the root under its folder name. Test helpers are
# importable both as top-level modules (pytest puts tests/ on sys.path) and as `tests.<module>`.
if "tests" not in sys.modules:
    _tests_pkg = types.ModuleType("tests")
    _tests_pkg.__path__ = [str(Path(__file__).resolve().parent)]
    sys.modules["tests"] = _tests_pkg


def _shared_data_dir() -> Path:
    env = os.environ.get("SURVEYGRAPH_SHARED_DATA")
    return Path(env) if env else REPO_ROOT.parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """../shared/data (or $SURVEYGRAPH_SHARED_DATA); tests needing it skip when it is absent."""
    path = _shared_data_dir()
    if not (path / "README.md").is_file():
        pytest.skip(f"shared data not found at {path} (set SURVEYGRAPH_SHARED_DATA to run)")
    return path


@pytest.fixture
def tmp_home(tmp_path, monkeypatch) -> Path:
    """A fresh data home; env vars that could leak a user's configuration are cleared."""
    for key in list(os.environ):
        if key.startswith("SURVEYGRAPH_") and key != "SURVEYGRAPH_SHARED_DATA":
            monkeypatch.delenv(key, raising=False)
    home = tmp_path / "home"
    monkeypatch.setenv("SURVEYGRAPH_HOME", str(home))
    monkeypatch.chdir(tmp_path)
    return home
