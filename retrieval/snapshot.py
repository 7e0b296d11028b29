"""Immutable generations of the search index: BM25 + the paper vectors, published atomically.

Layout under ``<store>/index/``::

    CURRENT              the name of the live generation, e.g. "g000007" (replaced by one rename)
    g000007/manifest.json, index.pkl, weights.npz, tokens.pkl, vectors.npy

A writer builds a new generation in a temporary directory, fsyncs every file, renames the
directory into place and then swaps ``CURRENT`` (write to a temporary file, fsync, rename, fsync
the directory). A crash at any moment leaves either the old or the new generation live, never a
mix. Readers load the generation ``CURRENT`` names and never lock or write, so searches work
next to an ingest and on a read-only home. The previous generation is kept for readers that
were loading it while the swap happened.

Dense search is exact (one matrix-vector product over the stored unit vectors, tens of ms at
75k papers) with ties broken by paper id: the same store, query and settings give the same ranked
list in every process. Chroma's HNSW index answered approximately, and each process rebuilt the
part of it not yet persisted from Chroma's log in its own order, so lists differed between
processes below rank ~100 (see docs/corpus.md).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .bm25_index import BM25Index, top_n
from .locking import crash_point, fsync_dir

INDEX_DIR = "index"
CURRENT = "CURRENT"
_KEEP = 2  # live + previous generation
_LOAD_ATTEMPTS = 3


class IndexSnapshot:
    """One loaded generation: ``bm25.ids[i]`` is the paper of row i of ``vectors``."""

    def __init__(self, bm25: BM25Index, vectors: np.ndarray, *, model: str | None, generation: int):
        self.bm25 = bm25
        self.vectors = vectors
        self.model = model
        self.generation = generation

    @property
    def ids(self) -> list[str]:
        return self.bm25.ids

    @property
    def dim(self) -> int:
        return int(self.vectors.shape[1]) if self.vectors.ndim == 2 else 0

    def __len__(self) -> int:
        return len(self.bm25)

    # --- reading ------------------------------------------------------------------------
    @classmethod
    def load(cls, store_dir: Path) -> "IndexSnapshot | None":
        """The live generation, or None when none was ever published."""
        root = Path(store_dir) / INDEX_DIR
        for attempt in range(_LOAD_ATTEMPTS):
            try:
                name = (root / CURRENT).read_text().strip()
            except FileNotFoundError:
                return None
            try:
                return cls._load_dir(root / name)
            except FileNotFoundError:
                # A writer published a newer generation and removed this one while we read it.
                if attempt == _LOAD_ATTEMPTS - 1:
                    raise
        return None

    @classmethod
    def _load_dir(cls, directory: Path) -> "IndexSnapshot":
        manifest = json.loads((directory / "manifest.json").read_text())
        bm25 = BM25Index.load(directory)
        # mmap: processes share the page cache, and opening reads nothing until a search.
        vectors = np.load(directory / "vectors.npy", mmap_mode="r")
        if len(bm25) != manifest["count"] or vectors.shape[0] != manifest["count"]:
            raise RuntimeError(f"index generation {directory} is inconsistent: run `surveygraph corpus repair`")
        return cls(bm25, vectors, model=manifest.get("model"), generation=int(manifest["generation"]))

    # --- dense search -------------------------------------------------------------------
    def dense(self, vector: np.ndarray, n: int, *, rows: np.ndarray | None = None,
              mask: np.ndarray | None = None) -> list[tuple[str, float]]:
        """Top ``n`` (id, cosine) over all rows, or ``rows``, or the rows a ``mask`` allows."""
        if rows is not None and mask is not None:
            rows = rows[mask[rows]]
        elif mask is not None:
            rows = np.flatnonzero(mask)
        matrix = self.vectors if rows is None else self.vectors[rows]
        if len(matrix) == 0:
            return []
        scores = np.asarray(matrix @ np.asarray(vector, dtype=np.float32), dtype=np.float32)
        row_ids = np.arange(len(self.ids)) if rows is None else rows
        ids = self.ids
        return [(ids[row_ids[i]], float(scores[i])) for i in top_n(scores, n, lambda i: ids[row_ids[i]])]

    def vectors_for(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        found = {}
        for pid in ids:
            row = self.bm25.row(pid)
            if row is not None:
                found[pid] = np.asarray(self.vectors[row], dtype=np.float32)
        return found


def publish(store_dir: Path, *, ids: Sequence[str], tokens: list[list[str]], years: Sequence[int | None],
            categories: Sequence[Sequence[str]], titles: Sequence[str], vectors: np.ndarray,
            model: str) -> IndexSnapshot:
    """Write a new generation holding exactly these rows and make it the live one."""
    root = Path(store_dir) / INDEX_DIR
    root.mkdir(parents=True, exist_ok=True)
    generation = 1 + max((int(p.name[1:]) for p in root.glob("g*") if p.name[1:].isdigit()), default=0)
    name = f"g{generation:06d}"
    tmp = root / f".tmp-{name}-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    bm25 = BM25Index.build(root / name, ids, tokens, years, categories, titles)
    bm25.write(tmp, tokens)
    crash_point("index-save")  # half a generation on disk, not published
    vectors = np.ascontiguousarray(vectors, dtype=np.float32).reshape(len(ids), -1)
    with (tmp / "vectors.npy").open("wb") as fh:
        np.save(fh, vectors)
        fh.flush()
        os.fsync(fh.fileno())
    manifest = {"generation": generation, "count": len(ids), "model": model, "dim": int(vectors.shape[1])}
    with (tmp / "manifest.json").open("w") as fh:
        json.dump(manifest, fh)
        fh.flush()
        os.fsync(fh.fileno())
    fsync_dir(tmp)
    tmp.rename(root / name)
    fsync_dir(root)
    crash_point("index-renamed")  # complete generation on disk, CURRENT still names the old one
    pointer = root / f".{CURRENT}.tmp"
    with pointer.open("w") as fh:
        fh.write(name + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    pointer.replace(root / CURRENT)
    fsync_dir(root)
    crash_point("published")
    _collect_garbage(root, name)
    return IndexSnapshot(bm25, vectors, model=model, generation=generation)


def _collect_garbage(root: Path, live: str) -> None:
    """Drop generations older than the previous one and temporary directories of crashed writers
    (only writers call this, under the store's write lock)."""
    generations = sorted(p for p in root.glob("g*") if p.is_dir() and p.name[1:].isdigit())
    keep = {p.name for p in generations[-_KEEP:]} | {live}
    for path in generations:
        if path.name not in keep:
            shutil.rmtree(path, ignore_errors=True)
    for path in root.glob(".tmp-*"):
        shutil.rmtree(path, ignore_errors=True)
