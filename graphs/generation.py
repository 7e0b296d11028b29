"""The generation graph: plan -> read -> write -> polish -> export -> self-evaluation.

Wiring only: node bodies live in ``surveygraph.agents``. Subsections fan out with ``Send`` (to
read, then to write); ``max_concurrency`` bounds the parallel branches. A run that already has
an outline in its input skips planning, and only subsections without a reading/draft are sent,
which is what ``--rerun-section`` and resuming rely on.
"""

from __future__ import annotations

import functools
import time
from typing import Any, Callable

from langgraph.graph import END, START, StateGraph
from langgraph.types import Send

from ..agents.deps import GenerationDeps
from ..agents.exporter import export_survey
from ..agents.framer import write_frame
from ..agents.illustrate import illustrate
from ..agents.planner import gather_topic_context, plan_sections, plan_subsections
from ..agents.polisher import polish_sections
from ..agents.reader import read_subsection
from ..agents.topic_pool import known_names, written_terms
from ..agents.self_eval import self_evaluate
from ..agents.writer import write_subsection
from ..memory import PaperMemory
from .state import GenerationState

NODES = (
    "gather_topic_context", "plan_sections", "plan_subsections", "dispatch_reads", "read_subsection",
    "dispatch_writes", "write_subsection", "polish_sections", "illustrate", "write_frame", "export_survey",
    "self_evaluate",
)


def _timed(name: str, fn: Callable[[dict, GenerationDeps], dict], deps: GenerationDeps) -> Callable[[dict], dict]:
    """Bind deps and add the node's wall time to state['timings']."""

    @functools.wraps(fn)
    def node(state: dict) -> dict:
        started = time.perf_counter()
        update = fn(state, deps) or {}
        update["timings"] = {name: time.perf_counter() - started}
        return update

    return node


def _passthrough(state: dict, deps: GenerationDeps) -> dict:
    """Join point before a fan-out (the routing happens on its outgoing edge)."""
    return {}


def route_start(state: GenerationState) -> str:
    return "dispatch_reads" if state.get("outline") else "gather_topic_context"


def send_reads(state: GenerationState) -> list[Send] | str:
    memory = PaperMemory.from_state(state)
    readings = state.get("readings") or {}
    sends = [
        Send("read_subsection", {
            "topic": state["topic"], "section_id": section["id"], "subsection": sub,
            "memory": memory.overall, "memory_titles": memory.section_titles(section["id"]),
            "relevance": state.get("relevance") or {},
            "budget_exhausted": bool(state.get("budget_exhausted")),
        })
        for section in state["outline"] for sub in section["subsections"] if sub["id"] not in readings
    ]
    return sends or "dispatch_writes"


def send_writes(state: GenerationState) -> list[Send] | str:
    papers, readings, drafts = state.get("papers") or {}, state.get("readings") or {}, state.get("drafts") or {}
    terms = sorted(written_terms(state["topic"], state.get("relevance"), papers))
    sends = [
        Send("write_subsection", {
            "topic": state["topic"], "section_title": section["title"], "subsection": sub,
            "papers": [papers[pid] for pid in readings.get(sub["id"], {}).get("paper_ids", []) if pid in papers],
            "topic_terms": terms,
            "known_names": known_names(state.get("relevance")).to_record(),
            "budget_exhausted": bool(state.get("budget_exhausted")),
        })
        for section in state["outline"] for sub in section["subsections"] if sub["id"] not in drafts
    ]
    return sends or "polish_sections"


def build_generation_graph(deps: GenerationDeps, checkpointer: Any = None, *, input_schema: Any = None,
                           output_schema: Any = None, context_schema: Any = None,
                           open_run: Callable[[dict], dict] | None = None,
                           wrap_node: Callable[[Callable], Callable] | None = None):
    """Compile the graph with ``deps`` bound into every node.

    The LangGraph server entry (graphs/studio.py) passes typed ``input_schema`` / ``output_schema`` /
    ``context_schema`` (so Studio shows a form and clients see what a run returns), an ``open_run``
    node that creates the run folder first, and ``wrap_node`` (applied to every node) to turn user errors into ones the server reports."""
    wrap = wrap_node or (lambda fn: fn)
    bodies = {
        "gather_topic_context": gather_topic_context, "plan_sections": plan_sections,
        "plan_subsections": plan_subsections, "dispatch_reads": _passthrough,
        "read_subsection": read_subsection, "dispatch_writes": _passthrough,
        "write_subsection": write_subsection, "polish_sections": polish_sections, "illustrate": illustrate,
        "write_frame": write_frame, "export_survey": export_survey, "self_evaluate": self_evaluate,
    }
    graph = StateGraph(GenerationState, context_schema, input_schema=input_schema, output_schema=output_schema)
    for name in NODES:
        graph.add_node(name, wrap(_timed(name, bodies[name], deps)))
    first = START
    if open_run is not None:
        graph.add_node("open_run", wrap(open_run))
        graph.add_edge(START, "open_run")
        first = "open_run"
    graph.add_conditional_edges(first, route_start, ["gather_topic_context", "dispatch_reads"])
    graph.add_edge("gather_topic_context", "plan_sections")
    graph.add_edge("plan_sections", "plan_subsections")
    graph.add_edge("plan_subsections", "dispatch_reads")
    graph.add_conditional_edges("dispatch_reads", send_reads, ["read_subsection", "dispatch_writes"])
    graph.add_edge("read_subsection", "dispatch_writes")
    graph.add_conditional_edges("dispatch_writes", send_writes, ["write_subsection", "polish_sections"])
    graph.add_edge("write_subsection", "polish_sections")
    graph.add_edge("polish_sections", "illustrate")  # tables + figure (no-op when generation.illustrate is off)
    graph.add_edge("illustrate", "write_frame")
    graph.add_edge("write_frame", "export_survey")
    graph.add_edge("export_survey", "self_evaluate")
    graph.add_edge("self_evaluate", END)
    return graph.compile(checkpointer=checkpointer, name="surveygraph-generation")
