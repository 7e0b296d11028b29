"""Entry point for LangGraph Studio / ``langgraph dev`` (see langgraph.json at the repo root).

Absolute imports on purpose: the LangGraph server loads this file by path, not as part of the
package. Dependencies come from default Settings (env ``SURVEYGRAPH_*`` / surveygraph.toml);
the server supplies its own checkpointer, so none is attached here. Input: ``{"topic": ...,
"run_dir": ...}`` (``run_dir`` is created when missing).
"""

from __future__ import annotations

from surveygraph.graphs.generation import build_generation_graph
from surveygraph.graphs.runner import build_deps
from surveygraph.settings import load_settings


def make_graph():
    """Graph factory: langgraph.json points at this, so nothing heavy loads at import time."""
    return build_generation_graph(build_deps(load_settings()))
