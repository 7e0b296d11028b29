"""Embeddings for planning: memory M's papers, the topic and the headings in one space.

Planning uses the paper index's own space: every paper of M already has its stored vector there
(``corpus.vectors``), so a pool of 1,500 papers costs a lookup, not 1,500 abstracts through the
full-text MiniLM (that took ~3 minutes of a 5-minute plan on two cores for 620 papers). The topic,
headings and any paper the index lacks are encoded with the index's encoder (`minilm-head` by
default since session 21, `minilm-static` in older homes: a few hundred short strings in well under
a second). Which papers are on topic was decided when M was built (agents/topic_pool.py), so the
space only has to place papers among headings of one field (benchmarks/results/outline_taxonomy.md,
"speed" and "Session 21").
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ...memory import paper_from_dump
from ...settings import Settings

Encode = Callable[[list[str]], np.ndarray]


def memory_encoder(settings: Settings) -> Encode:
    """The paper index's encoder (with the on-disk embedding cache): topic, headings, KB surveys."""
    from ...retrieval.embeddings import get_embedder

    embedder = get_embedder(settings)
    return lambda texts: np.asarray(embedder.encode(list(texts)), dtype=float)


def _unit(matrix: np.ndarray) -> np.ndarray:
    return matrix / np.maximum(np.linalg.norm(matrix, axis=-1, keepdims=True), 1e-12)


def floor_inputs(settings: Settings, corpus: Any, ids: list[str],
                 papers: dict[str, dict]) -> tuple[list[str], np.ndarray, Encode, dict]:
    """(ids to organise, their unit vectors, the heading encoder, stats for the manifest)."""
    encode = memory_encoder(settings)
    present = [pid for pid in ids if pid in papers]
    stored = corpus.vectors(present) if hasattr(corpus, "vectors") and present else {}
    missing = [pid for pid in present if pid not in stored]
    if missing:  # papers the index lacks (a store without vectors, a test double): encode their texts
        stored = {**stored, **dict(zip(missing, encode([paper_from_dump(papers[p]).embedding_text() for p in missing])))}
    vectors = _unit(np.stack([np.asarray(stored[p], dtype=float) for p in present])) if present else np.zeros((0, 1))
    return present, vectors, encode, {"papers_clustered": len(present), "papers_encoded": len(missing)}
