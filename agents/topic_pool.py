"""The topic's pool: which retrieved papers are about the topic, and how big a survey they make.

Planning retrieves the candidate memory M for the topic; retrieval/relevance.py judges each
candidate (lexical coverage of the topic's concepts, dense similarity to the topic and to the
on-topic centroid; a model fitted on the labelled relevance set). Only kept papers become M, so
every later step (outline, section memories, sub-query retrieval within M) sees on-topic papers
only. The survey's shape follows what is kept: fewer on-topic papers, fewer subsections; too few,
a clear stop instead of padding.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..errors import UserError
from ..memory import remember_papers
from ..retrieval.relevance import PaperText, TopicConcept, judge_pool, keep_against
from .deps import GenerationDeps
from .outline.vectors import memory_encoder

MIN_ON_TOPIC = 5  # below this the corpus cannot support a survey of the topic at all


@dataclass
class TopicPool:
    ids: list[str]  # kept papers, in retrieval order
    dumps: dict[str, dict]
    record: dict  # for state['relevance'] and the manifest
    shape: dict  # {"sections", "subsections", "reason"}
    notes: list[dict] = field(default_factory=list)  # fallbacks to record (short survey, relevance off)


def _paper_text(paper_id: str, dump: dict) -> PaperText:
    return PaperText(paper_id, dump.get("title") or "", dump.get("abstract") or "")


def survey_shape(kept: int, deps: GenerationDeps) -> dict:
    """Sections x subsections the kept papers can fill: about ``papers_per_subsection`` distinct
    papers per subsection, never more than the configured shape."""
    settings = deps.settings.generation
    wanted = settings.sections * settings.subsections
    fillable = max(1, kept // settings.papers_per_subsection)
    total = min(wanted, fillable)
    sections = max(1, min(settings.sections, math.ceil(total / settings.subsections)))
    subsections = max(1, min(settings.subsections, math.ceil(total / sections)))
    reason = ("as configured" if total == wanted else
              f"{kept} on-topic papers fill about {fillable} subsection(s) of {settings.papers_per_subsection} papers")
    return {"sections": sections, "subsections": subsections, "reason": reason}


def topic_pool(topic: str, hits: list, deps: GenerationDeps) -> TopicPool:
    """Judge the candidates ``hits`` (ranked) and keep the on-topic ones."""
    ids, dumps = remember_papers(hits)
    settings = deps.settings.generation
    if not settings.relevance:
        shape = survey_shape(len(ids), deps)
        return TopicPool(ids, dumps, {"enabled": False, "candidates": len(ids), "kept": len(ids)}, shape,
                         [{"node": "gather_topic_context", "reason": "relevance filter off "
                           "(generation.relevance=false): every retrieved candidate enters the pool"}])
    encode = memory_encoder(deps.settings)
    judgment = judge_pool(topic, [_paper_text(i, dumps[i]) for i in ids], encode, deps.corpus.document_frequency,
                          deps.corpus.count())
    kept = judgment.kept_ids()
    span = deps.corpus.year_span() if hasattr(deps.corpus, "year_span") else None
    record = {"enabled": True, **judgment.summary(), "corpus": {"papers": deps.corpus.count(),
                                                                "years": list(span) if span else None},
              "reference": {"centroid": [round(float(x), 5) for x in judgment.features.centroid],
                            "topic_vector": [round(float(x), 5) for x in judgment.features.topic_vector]}}
    concepts = " + ".join(c["phrase"] for c in record["concepts"])
    if len(kept) < MIN_ON_TOPIC:
        raise UserError(
            f"the paper store holds too little on {topic!r}: {len(kept)} of the {len(ids)} closest papers are "
            f"about it (concepts read from the topic: {concepts}). Ingest papers on the topic "
            "(`surveygraph corpus fetch arxiv ...` or `corpus ingest`) or name the topic as its literature does")
    shape = survey_shape(len(kept), deps)
    notes = []
    if shape["reason"] != "as configured":
        notes.append({"node": "gather_topic_context", "reason": f"short survey: only {len(kept)} of {len(ids)} "
                      f"candidates are on topic; {shape['sections']} section(s) x {shape['subsections']} "
                      "subsection(s) instead of padding with off-topic papers"})
    return TopicPool(kept, {pid: dumps[pid] for pid in kept}, record, shape, notes)


def shape_of(state: dict, deps: GenerationDeps) -> tuple[int, int]:
    """(sections, subsections) for this run: the pool's shape, or the settings for older states."""
    shape = state.get("shape") or {}
    settings = deps.settings.generation
    return int(shape.get("sections") or settings.sections), int(shape.get("subsections") or settings.subsections)


def on_topic(record: dict | None, hits: list, deps: GenerationDeps) -> list:
    """``hits`` found after planning (store-wide reads) that the pool's judge keeps; ``record`` is
    the run's relevance record (state['relevance'])."""
    record = record or {}
    reference = record.get("reference")
    if not record.get("enabled") or not reference or not hits:
        return hits
    keep = keep_against([TopicConcept.from_dict(c) for c in record["concepts"]], np.array(reference["topic_vector"]),
                        np.array(reference["centroid"]),
                        [PaperText(h.paper.paper_id, h.paper.title, h.paper.abstract or "") for h in hits],
                        memory_encoder(deps.settings))
    return [h for h, k in zip(hits, keep) if k]
