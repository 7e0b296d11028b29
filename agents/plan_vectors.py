"""Embeddings for planning: memory M's papers and headings in one space, and the topical filter.

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

from ..memory import paper_from_dump
from ..settings import Settings

Encode = Callable[[list[str]], np.ndarray]


def memory_encoder(settings: Settings) -> Encode:
    from ..retrieval.embeddings import get_embedder

    embedder = get_embedder(settings.with_embedding_model(settings.store.outline_embedding_model))
    return lambda texts: np.asarray(embedder.encode(list(texts)), dtype=float)


def _unit(matrix: np.ndarray) -> np.ndarray:
    return matrix / np.maximum(np.linalg.norm(matrix, axis=-1, keepdims=True), 1e-12)


def topical_mask(similarity: np.ndarray, trusted: np.ndarray) -> tuple[np.ndarray, float]:
    """Papers not far below the topical ones: Tukey's lower fence (Q1 - 1.5 IQR) of the topic
    similarity of ``trusted`` papers (those both retrievers found), or of all when fewer than
    10 are trusted. Returns the keep-mask and the fence."""
    reference = similarity[trusted] if int(trusted.sum()) >= 10 else similarity
    q1, q3 = np.percentile(reference, [25, 75])
    fence = float(q1 - 1.5 * (q3 - q1))
    return similarity >= fence, fence


def floor_inputs(settings: Settings, topic: str, ids: list[str], papers: dict[str, dict],
                 consensus: set[str]) -> tuple[list[str], np.ndarray, Encode, dict]:
    """(ids kept for clustering, their unit vectors, the heading encoder, stats for the manifest)."""
    encode = memory_encoder(settings)
    present = [pid for pid in ids if pid in papers]
    texts = [paper_from_dump(papers[pid]).embedding_text() for pid in present]
    vectors = _unit(encode(texts))
    topic_vec = _unit(encode([topic])[0])
    similarity = vectors @ topic_vec
    keep, fence = topical_mask(similarity, np.array([pid in consensus for pid in present], dtype=bool))
    if int(keep.sum()) < max(4, len(present) // 4):  # never cluster only a sliver of M
        keep = np.ones(len(present), dtype=bool)
    kept = [pid for pid, k in zip(present, keep) if k]
    stats = {"papers_clustered": len(kept), "off_topic_excluded": len(present) - len(kept),
             "topic_similarity_fence": round(fence, 4)}
    return kept, vectors[keep], encode, stats
