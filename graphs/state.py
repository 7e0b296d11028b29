"""Typed state of the generation graph.

Everything in the state is plain JSON-able data (dicts, lists, str, numbers) so the SQLite
checkpointer can store it and a resumed run sees exactly what the crashed one had. Papers live
once in ``papers`` (id -> Paper dump); everything else refers to them by ``paper_id``.
"""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict


def merge_dicts(left: dict | None, right: dict | None) -> dict:
    """Reducer for keyed results written by parallel branches (later keys win)."""
    return {**(left or {}), **(right or {})}


def add_timings(left: dict | None, right: dict | None) -> dict:
    """Reducer summing seconds per node over parallel branches."""
    total = dict(left or {})
    for node, seconds in (right or {}).items():
        total[node] = round(total.get(node, 0.0) + seconds, 4)
    return total


def any_true(left: bool | None, right: bool | None) -> bool:
    return bool(left) or bool(right)


class SubsectionPlan(TypedDict, total=False):
    id: str  # "2.3" = section 2, subsection 3
    title: str
    description: str
    query: str
    # From the outline floor: the cluster's papers (most central first), its key phrases, and
    # where the heading came from ("clusters", "human-outline"; "model" for model headings).
    paper_ids: list[str]
    terms: list[str]
    source: str
    named: int  # how many of paper_ids (the first ones) name the heading's phrase
    reading_k: int  # papers the subsection reads (agents/reader.py reading_budgets; default K)


class SectionPlan(TypedDict, total=False):
    id: str  # "2"
    title: str
    description: str
    query: str
    subsections: list[SubsectionPlan]
    paper_ids: list[str]  # outline floor: the section's cluster (becomes M_i)
    terms: list[str]
    source: str


class GenerationState(TypedDict, total=False):
    # --- input ---------------------------------------------------------------------------
    topic: str
    run_id: str
    run_dir: str
    # --- plan: memory M (overall) and M_i (per section), demonstration outlines ---------------
    papers: Annotated[dict[str, dict], merge_dicts]  # paper_id -> Paper.model_dump(mode="json")
    memory: list[str]  # M: on-topic paper ids retrieved for the topic (P_R)
    section_memory: Annotated[dict[str, list[str]], merge_dicts]  # section id -> M_i
    # the pool's record (agents/topic_pool.py): facets, rounds, candidates/kept, threshold, estimate,
    # kept probabilities and the seeds the judge learned from (to judge store-wide reads the same way)
    relevance: dict
    shape: dict  # {"sections", "subsections", "reason"}: what the on-topic pool can fill
    outline_floor: list[dict]  # the deterministic outline (clusters of M); used unless the model's is valid
    demos: list[dict]  # HumanOutline dumps used as demonstrations (P_S)
    outline: list[SectionPlan]
    # --- read (SANA) and write, one entry per subsection id ---------------------------------
    readings: Annotated[dict[str, dict], merge_dicts]  # {subqueries, paper_ids, candidates}
    drafts: Annotated[dict[str, dict], merge_dicts]  # {text, keys: {"1": paper_id}, status, error}
    # "<node>:<item>" -> the gate's decision between model text and the floor (agents/gate.py)
    gate: Annotated[dict[str, dict], merge_dicts]
    # --- polish, export, self-evaluation -----------------------------------------------------
    survey: dict  # Survey dump plus run fields
    integrity: dict  # citation checks: dropped markers per subsection, totals
    export: dict  # file paths written
    evaluation: dict  # EvaluationReport dump
    # --- run bookkeeping ------------------------------------------------------------------
    fallbacks: Annotated[list[dict], operator.add]  # every deterministic fallback taken
    failures: Annotated[list[dict], operator.add]  # LLM calls that failed for good
    timings: Annotated[dict[str, float], add_timings]  # seconds per node (summed over branches)
    budget_exhausted: Annotated[bool, any_true]


class ReadTask(TypedDict):
    """Payload of one ``Send`` to ``read_subsection``: only what SANA needs, as ids and titles."""

    topic: str
    section_id: str
    subsection: SubsectionPlan
    memory: list[str]  # M, for memory-scoped retrieval (MR)
    memory_titles: list[str]  # titles of M_i, for memory-guided sub-queries (MS)
    relevance: dict  # the pool's judgment, to judge store-wide reads (MR off) the same way
    budget_exhausted: bool


class WriteTask(TypedDict):
    """Payload of one ``Send`` to ``write_subsection``: the subsection and its chosen papers."""

    topic: str
    section_title: str
    subsection: SubsectionPlan
    papers: list[dict]  # Paper dumps, in the order the reader ranked them
    budget_exhausted: bool
