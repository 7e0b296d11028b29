"""Embeddings for planning: memory M's papers and headings in one space.

Planning embeds with the outline DB's encoder (``store.outline_embedding_model``, contextual
MiniLM by default) rather than the paper index's: the outline DB already uses it for headings,
and on the shared corpus the static index encoder ranks off-topic papers (3-D scene generation
for a RAG topic) as close to the topic as real RAG papers, which would give them sections of
their own. Vectors go through the on-disk embedding cache, so a second run on the same topic
does not re-encode.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ...memory import paper_from_dump
from ...settings import Settings

Encode = Callable[[list[str]], np.ndarray]


def memory_encoder(settings: Settings) -> Encode:
    from ...retrieval.embeddings import get_embedder

    embedder = get_embedder(settings.with_embedding_model(settings.store.outline_embedding_model))
    return lambda texts: np.asarray(embedder.encode(list(texts)), dtype=float)


def _unit(matrix: np.ndarray) -> np.ndarray:
    return matrix / np.maximum(np.linalg.norm(matrix, axis=-1, keepdims=True), 1e-12)


def floor_inputs(settings: Settings, ids: list[str], papers: dict[str, dict]) -> tuple[list[str], np.ndarray, Encode, dict]:
    """(ids to cluster, their unit vectors, the heading encoder, stats for the manifest).

    Which papers are on topic was decided once, when M was built (agents/topic_pool.py)."""
    encode = memory_encoder(settings)
    present = [pid for pid in ids if pid in papers]
    texts = [paper_from_dump(papers[pid]).embedding_text() for pid in present]
    vectors = _unit(encode(texts)) if texts else np.zeros((0, 1))
    return present, vectors, encode, {"papers_clustered": len(present)}
