"""The Chroma side of the paper index: client, collection (which remembers its embedding model),
batched, idempotent writes of papers with their vectors and filterable metadata.

Searches read the published index generation (``snapshot.py``), not Chroma: an embedded Chroma
(PersistentClient) opened by a second process while an ingest writes it was corrupted for good
(SIGSEGV on every later open). So the embedded collection is opened only by writers, under the
store's write lock (``locking.py``). Writes are upserts, so a repair can replay them."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from contextlib import contextmanager
from typing import Any

import numpy as np

from ..errors import UserError
from ..models import Paper
from ..settings import Settings
from .damage import ChromaDamaged, write_failure
from .locking import crash_point

MAX_ADD_BATCH = 5000  # Chroma's own limit here is ~5.4k rows per call
_GET_BATCH = 5000
HNSW_BATCH = 5000
HNSW_SYNC = 5000
CATEGORY_PREFIX = "cat:"
MODEL_KEY = "embedding_model"
DIM_KEY = "embedding_dim"


def chroma_client(settings: Settings):
    """PersistentClient under ``<home>/store/chroma``, or HttpClient when ``store.chroma_url`` is set."""
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    chroma_settings = ChromaSettings(anonymized_telemetry=False)
    url = settings.store.chroma_url
    if url:
        from urllib.parse import urlparse

        parsed = urlparse(url)
        if not parsed.hostname:
            raise UserError(f"store.chroma_url is not a URL: {url!r} (e.g. http://localhost:8000)")
        try:
            return chromadb.HttpClient(host=parsed.hostname, port=parsed.port or 8000,
                                       ssl=parsed.scheme == "https", settings=chroma_settings)
        except Exception as exc:  # chromadb raises plain ValueError/ConnectionError here
            raise UserError(f"cannot reach the Chroma server at {url}: {exc}") from exc
    path = settings.store_dir / "chroma"
    path.mkdir(parents=True, exist_ok=True)
    return chromadb.PersistentClient(path=str(path), settings=chroma_settings)


def paper_metadata(paper: Paper) -> dict[str, Any]:
    """Chroma metadata: only the keys the filters use (the paper itself is in the PaperTable).

    ``year`` is 0 when unknown, so every record has a metadata key and no year range matches it;
    Chroma metadata values are scalars, so each category becomes a boolean key ``cat:<name>``.
    """
    meta: dict[str, Any] = {"year": paper.year or 0}
    for category in paper.categories:
        meta[CATEGORY_PREFIX + category] = True
    return meta


def forget_embedded_client(path: Path) -> None:
    """Drop chromadb's per-process client of the directory ``path`` (it keeps one per path, also
    one that failed to start): after that directory failed to open or was set aside, the next
    client there must start afresh. Other directories' clients (the outline DB) stay."""
    from chromadb.api.shared_system_client import SharedSystemClient

    for cache in ("_identifier_to_system", "_identifier_to_refcount"):
        getattr(SharedSystemClient, cache, {}).pop(str(path), None)


def mirror_on(settings: Settings) -> bool:
    """Whether ingests keep the Chroma mirror: ``store.chroma_mirror``, or a server named."""
    return bool(settings.store.chroma_mirror or settings.store.chroma_url)


class PaperCollection:
    """One Chroma collection of papers built with one embedding model."""

    def __init__(self, settings: Settings):
        self._where = settings.store.chroma_url or str(settings.store_dir / "chroma")
        self._embedded = not settings.store.chroma_url
        with self._said():
            self._client = chroma_client(settings)
            self._name = settings.store.collection
            self._collection = self._open_existing()

    @contextmanager
    def _said(self):
        """Chroma's own errors in one line: an embedded directory that no longer reads (a cut or
        overwritten chroma.sqlite3, a damaged HNSW file) is ChromaDamaged, which names the repair."""
        try:
            yield
        except UserError:
            raise
        except Exception as exc:  # noqa: BLE001 - chromadb raises its own, sqlite's and Rust's errors
            if write_failure(exc):
                raise  # a full disk is not damage: the writer says so (corpus_ingest.py)
            why = f"{type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}"
            if self._embedded:
                forget_embedded_client(Path(self._where))  # chromadb keeps a failed client per path
                raise ChromaDamaged(self._where, why) from exc
            raise UserError(f"the Chroma server at {self._where} failed: {why}") from exc

    def _open_existing(self):
        from chromadb.errors import NotFoundError

        try:
            return self._client.get_collection(self._name, embedding_function=None)
        except NotFoundError:
            return None
        except Exception as exc:  # older chromadb raised ValueError for a missing collection
            if "does not exist" in str(exc):
                return None
            raise

    @property
    def exists(self) -> bool:
        return self._collection is not None

    @property
    def model(self) -> str | None:
        return (self._collection.metadata or {}).get(MODEL_KEY) if self._collection else None

    @property
    def dim(self) -> int | None:
        return (self._collection.metadata or {}).get(DIM_KEY) if self._collection else None

    def create(self, model: str, dim: int) -> None:
        with self._said():
            self._create(model, dim)

    def _create(self, model: str, dim: int) -> None:
        self._collection = self._client.get_or_create_collection(
            self._name, metadata={MODEL_KEY: model, DIM_KEY: dim}, embedding_function=None,
            # Chroma's defaults write the whole HNSW index to disk every 1,000 additions, which
            # made a 75k-paper ingest slow down as it grew; our adds come in batches of <= 5k.
            # Additions not yet written are replayed from Chroma's log at every cold start, so the
            # threshold stays at one batch (50k left ~25k papers to replay: ~30 s per start).
            configuration={"hnsw": {"batch_size": HNSW_BATCH, "sync_threshold": HNSW_SYNC}},
        )

    def count(self) -> int:
        with self._said():
            return self._collection.count() if self._collection else 0

    def all_ids(self) -> set[str]:
        found: set[str] = set()
        if not self._collection:
            return found
        with self._said():
            for offset in range(0, self.count(), _GET_BATCH):
                found.update(self._collection.get(limit=_GET_BATCH, offset=offset, include=[])["ids"])
        return found

    def delete(self, ids: Sequence[str]) -> None:
        with self._said():
            for start in range(0, len(ids), _GET_BATCH):
                self._collection.delete(ids=list(ids[start:start + _GET_BATCH]))

    def add(self, papers: Sequence[Paper], vectors: np.ndarray) -> None:
        with self._said():
            self._add(papers, vectors)

    def _add(self, papers: Sequence[Paper], vectors: np.ndarray) -> None:
        step = min(MAX_ADD_BATCH, self._client.get_max_batch_size())
        for start in range(0, len(papers), step):
            chunk = papers[start:start + step]
            self._collection.upsert(  # upsert: a repair may replay a batch a crash interrupted
                ids=[p.paper_id for p in chunk],
                embeddings=vectors[start:start + step],
                # No documents: the paper JSON is in the metadata already, and Chroma would build
                # a full-text index over documents that search never uses (it doubled the store).
                metadatas=[paper_metadata(p) for p in chunk],
            )
            crash_point("chroma")
