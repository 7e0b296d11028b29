"""The evaluation graph: the scoring core's metric families as parallel LangGraph nodes.

START fans out to the requested family nodes (structure, integrity, coverage, alignment, sgsim,
quality, judges); each appends ``MetricResult``s to the state; ``combine`` folds the SGSimEval σ
into judge scores and builds the ``EvaluationReport``. The work lives in
``evaluation/scoring.py`` (whose ``evaluate_survey`` runs the same functions without a graph);
this module only wires it, for LangGraph Studio, the server and callers composing graphs.
Invoke with ``config={"configurable": {"settings": ..., "embed": EmbeddingMemo}}``.
"""

from __future__ import annotations

from langgraph.graph import END, START, StateGraph

from ..evaluation.scoring import (FAMILIES, EvaluationState, alignment_node, combine_node, coverage_node,
                                  integrity_node, judges_node, quality_node, sgsim_node, structure_node)


def _route(state: EvaluationState) -> list[str]:
    return [f for f in state["families"] if f in FAMILIES] or ["combine"]


def build_evaluation_graph():
    """Compile the evaluation graph; the state holds survey, human, bench, families, judges
    (``evaluation.scoring.evaluate_survey`` builds it the same way)."""
    graph = StateGraph(EvaluationState)
    nodes = {"structure": structure_node, "integrity": integrity_node, "coverage": coverage_node,
             "alignment": alignment_node, "sgsim": sgsim_node, "quality": quality_node, "judges": judges_node}
    for name, fn in nodes.items():
        graph.add_node(name, fn)
        graph.add_edge(name, "combine")
    graph.add_node("combine", combine_node)
    graph.add_conditional_edges(START, _route, [*nodes, "combine"])
    graph.add_edge("combine", END)
    # checkpointer=False: composed into a checkpointed graph it must not inherit the parent's
    # checkpointer, which would try to serialise its config (settings, the embedding memo and its
    # lock) - "cannot pickle '_thread.lock'" on LangGraph server thread runs.
    return graph.compile(checkpointer=False)
