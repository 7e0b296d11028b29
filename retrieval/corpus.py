"""The Research Paper DB: ingest papers and search them (dense, BM25, hybrid).

One ``Corpus`` per data home, three stores under ``<home>/store``: the paper table (SQLite, the
record of truth), Chroma (vectors + filter keys) and the published search index (segments of BM25
term frequencies + vectors, ``snapshot.py``), which searches read. Ingest and repair live in
``corpus_ingest.py``: the paper table first, then Chroma and the index, published with one atomic
rename; after a crash at any point, the next ingest (or ``corpus repair``) adds whatever the
other two stores miss. The index records the embedding
model that built it, and a Corpus refuses to mix models.
"""

from __future__ import annotations

import functools
import sys
from concurrent.futures import ThreadPoolExecutor
from collections.abc import Collection, Sequence
from typing import Callable, Literal

import numpy as np

from ..errors import UserError
from ..models import Paper, ScoredPaper
from ..settings import Settings
from .embeddings import Embedder, embedder_id, get_embedder, get_model
from .hybrid import ranks_by_retriever, reciprocal_rank_fusion
from .damage import IndexDamaged
from .locking import StoreWriteLock, home_is_writable, running_writer
from .corpus_ingest import CorpusIngest, IngestReport, StoreCheck  # noqa: F401 - IngestReport re-exported
from .paper_table import PaperTable
from .segments import AnnConfig
from .snapshot import IndexConfig, IndexSnapshot, recorded_model
from .store import PaperCollection, mirror_on
from .tre import temporal_rerank

SearchMode = Literal["hybrid", "dense", "bm25"]


def _split_model_id(model_id: str) -> tuple[str, str]:
    model, _, backend = model_id.partition("@")
    return model, backend or "torch"


def _to_stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


class Corpus(CorpusIngest):
    def __init__(self, settings: Settings, *, notify: Callable[[str], None] | None = None):
        self._store_dir = settings.store_dir
        store = settings.store
        self._index_config = IndexConfig(ann=AnnConfig(min_rows=store.ann_min_rows, nprobe=store.ann_nprobe,
                                                       exact_below=store.ann_exact_below),
                                          merge_factor=store.merge_factor, max_segment_rows=store.max_segment_rows)
        self._notify = notify or _to_stderr
        self._lock = StoreWriteLock(self._store_dir, on_wait=self._notify)
        self._papers = PaperTable(self._store_dir / "papers.sqlite", read_only=True)
        self._writer_table: PaperTable | None = None
        self._chroma: PaperCollection | None = None
        self._snapshot: IndexSnapshot | None = None
        self._snapshot_loaded = False
        self.settings = settings
        if settings.store.chroma_url:  # a server is safe to share; fail fast on a bad URL
            self._chroma = PaperCollection(settings)
        self.settings = self._settings_for_store(settings)

    # --- setup ----------------------------------------------------------------------------
    def _where(self) -> str:
        return self.settings.store.chroma_url or str(self._store_dir)

    def _stored_model(self) -> str | None:
        try:
            if self.snapshot is not None:
                return self.snapshot.model
        except IndexDamaged:  # searches say so; `corpus repair` rebuilds it with the model it had
            self._snapshot_loaded = False
            return recorded_model(self._store_dir)
        if mirror_on(self.settings) and (self._chroma is not None or (self._store_dir / "chroma").is_dir()):
            if not home_is_writable(self._store_dir):
                return None  # an old-layout store on a read-only home: searching it says what to do
            with self._lock:  # embedded Chroma is opened by one process at a time
                return self.collection.model
        return None

    def _settings_for_store(self, settings: Settings) -> Settings:
        """Adopt the store's embedding model unless the user chose one; refuse a different one."""
        stored, requested = self._stored_model(), embedder_id(settings)
        if stored is None or stored == requested:
            return settings
        explicit = bool({"model", "backend"} & settings.embedding.model_fields_set)
        if explicit:
            raise UserError(
                f"the paper index at {self._where()} was built with embedding model {stored!r}, not "
                f"{requested!r}: use --embedding-model {stored}, or a fresh --home to index with {requested!r}"
            )
        model, backend = _split_model_id(stored)
        embedding = settings.embedding.model_copy(update={"model": model, "backend": backend})
        return settings.model_copy(update={"embedding": embedding})

    @property
    def embedder(self) -> Embedder:
        return get_embedder(self.settings)

    @property
    def collection(self) -> PaperCollection:
        """The Chroma collection; the embedded one only under the write lock (see store.py)."""
        if self._chroma is None:
            self._chroma = PaperCollection(self.settings)
        return self._chroma

    @property
    def snapshot(self) -> IndexSnapshot | None:
        if not self._snapshot_loaded:
            self._snapshot = IndexSnapshot.load(self._store_dir, self._index_config)
            self._snapshot_loaded = True
        return self._snapshot

    def _reload(self) -> None:
        self._snapshot_loaded = False

    def _table(self) -> PaperTable:
        if self._writer_table is None:
            self._writer_table = PaperTable(self._store_dir / "papers.sqlite")
        return self._writer_table

    def _searchable(self) -> IndexSnapshot:
        """The live index; built from the paper table first when there is none yet (a store of an
        older version, or a first ingest killed before it published)."""
        snap = self.snapshot
        if snap is None and self._papers.count() > 0:
            writer = running_writer(self._store_dir)
            if writer is not None:
                raise UserError(f"the paper index at {self._store_dir} is being built by an ingest (pid {writer}): "
                                f"search again when it has finished")
            if not home_is_writable(self._store_dir):
                raise UserError(f"the paper index at {self._store_dir} has no search index yet (an older "
                                f"layout, or an interrupted ingest) and the home is read-only: run "
                                f"`surveygraph corpus repair` once with write access")
            self._notify(f"building the search index of {self._store_dir} from its paper table (once)...")
            self.repair(progress=True)
            snap = self.snapshot
        if snap is None or len(snap) == 0:
            raise UserError(
                f"the paper index at {self._where()} is empty: run `surveygraph corpus ingest PATH` first"
            )
        return snap

    # --- ingest ---------------------------------------------------------------------------
    def check(self) -> StoreCheck:
        """Counts and id differences of the three stores. Chroma is read under the write lock (it
        waits for a running ingest); on a read-only home it is not opened."""
        if not mirror_on(self.settings):
            self._reload()
            return self._check_locked(chroma=False)
        if not home_is_writable(self._store_dir) and not self.settings.store.chroma_url:
            return self._check_locked(chroma=False)
        with self._lock:
            self._reload()
            return self._check_locked()

    def _check_locked(self, chroma: bool = True) -> StoreCheck:
        sql = set(self._papers.ids())
        index = set(self.snapshot.ids) if self.snapshot is not None else set()
        stored = self.collection.all_ids() if chroma else None
        note = "" if chroma else ("off (store.chroma_mirror)" if not mirror_on(self.settings)
                                  else "not opened (read-only home)")
        return StoreCheck(
            papers=len(sql), index=len(index), chroma=None if stored is None else len(stored), chroma_note=note,
            missing_from_index=sorted(sql - index), extra_in_index=sorted(index - sql),
            missing_from_chroma=sorted(sql - stored) if stored is not None else [],
            extra_in_chroma=sorted(stored - sql) if stored is not None else [],
        )

    def index_gap(self) -> tuple[int, str | None]:
        """Papers in the paper table that searches cannot find (0 when the stores agree), and the
        pid of an ingest running now (then the gap is its work in progress, not damage)."""
        snap = self.snapshot
        gap = max(0, self._papers.count() - (len(snap) if snap is not None else 0))
        return gap, running_writer(self._store_dir) if gap else None

    # --- search ---------------------------------------------------------------------------
    def search(self, query: str, k: int = 10, *, mode: SearchMode = "hybrid",
               year_range: tuple[int, int] | None = None, categories: list[str] | None = None,
               within_ids: Collection[str] | None = None, tre: bool | None = None) -> list[ScoredPaper]:
        """Top-k papers for ``query``; see docs/corpus.md for modes, filters and TRE."""
        if mode not in ("hybrid", "dense", "bm25"):
            raise UserError(f"unknown search mode {mode!r}: use hybrid, dense or bm25")
        snap = self._searchable()
        cfg = self.settings.retrieval
        use_tre = cfg.tre if tre is None else tre
        pool = k * cfg.tre_pool_factor if use_tre else k
        n_candidates = max(cfg.candidates, pool)
        mask = snap.filter_mask(year_range, categories)
        rows = snap.rows_for(within_ids) if within_ids is not None else None
        def dense() -> list[tuple[str, float]]:
            # Queries skip the on-disk cache: one query encodes faster than a cache write commits,
            # and a read-only home has no cache to write.
            vector = get_model(self.settings).encode([query])[0]
            return snap.dense(vector, n_candidates, rows=rows, mask=mask)

        def bm25() -> list[tuple[str, float]]:
            return snap.bm25(query, n_candidates, rows=rows, mask=mask)

        rankings: dict[str, list[tuple[str, float]]] = {}
        if mode == "hybrid":  # both retrievers at once: numpy and faiss release the GIL
            # One BLAS thread each: two retrievers on 2 cores plus BLAS's own threads spinning
            # took hybrid p95 from 77 to ~100 ms at 1M papers (BENCHMARKS.md "Scale").
            with _blas_threads().limit(limits=1, user_api="blas"), ThreadPoolExecutor(max_workers=2) as workers:
                pending = workers.submit(bm25)
                rankings["dense"] = dense()
                rankings["bm25"] = pending.result()
        else:
            rankings[mode] = dense() if mode == "dense" else bm25()
        id_lists = {name: [pid for pid, _ in hits] for name, hits in rankings.items()}
        fused = (reciprocal_rank_fusion(id_lists, cfg.rrf_k) if mode == "hybrid" else rankings[mode])[:pool]
        papers = self._papers.get([pid for pid, _ in fused])
        ranks = ranks_by_retriever(id_lists)
        hits = [ScoredPaper(paper=papers[pid], score=score, ranks=ranks.get(pid, {}))
                for pid, score in fused if pid in papers]
        if use_tre:
            hits = temporal_rerank(hits, k, bucket_years=cfg.tre_bucket_years)
        return hits[:k]

    # --- pool building: ids, vectors and texts without building Paper objects ------------------
    def rank_ids(self, query: str, k: int, *, mode: Literal["dense", "bm25"]) -> list[str]:
        """Top-k ids for ``query`` by one engine: what pool building asks many times per run."""
        snap = self._searchable()
        if mode == "bm25":
            return [pid for pid, _ in snap.bm25(query, k)]
        return [pid for pid, _ in snap.dense(self.encode_query(query), k)]

    def nearest_ids(self, vector: np.ndarray, k: int) -> list[str]:
        """Top-k ids by cosine to ``vector`` (a vector of the index's embedding space)."""
        return [pid for pid, _ in self._searchable().dense(np.asarray(vector, dtype=np.float32), k)]

    def encode_query(self, text: str) -> np.ndarray:
        return np.asarray(get_model(self.settings).encode([text])[0], dtype=np.float32)

    def encode_texts(self, texts: Sequence[str]) -> np.ndarray:
        """The index's embedding of each text, one batch (words and phrases read by meaning)."""
        return np.asarray(get_model(self.settings).encode(list(texts)), dtype=np.float32)

    def vectors(self, paper_ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The index's stored embedding of each id (unit vectors; unknown ids left out)."""
        return self._searchable().vectors_for(paper_ids)

    def sample_ids(self, n: int, *, seed: int) -> list[str]:
        """``n`` ids drawn uniformly from the searchable papers (the same ones for the same seed)."""
        snap = self._searchable()
        rows = np.sort(np.random.default_rng(seed).choice(len(snap), size=min(n, len(snap)), replace=False))
        found = []
        for segment, local in zip(snap.segments, snap._locate(rows)):
            found.extend(segment.id_at(int(r)) for r in local)
        return found

    def texts(self, paper_ids: Sequence[str]) -> dict[str, tuple[str, str]]:
        """(title, abstract) per id, read straight from the paper table (validated when ingested)."""
        return self._papers.texts(paper_ids)

    # --- reading --------------------------------------------------------------------------
    def get(self, paper_ids: Sequence[str]) -> list[Paper]:
        """Papers for ids, in the given order; unknown ids are left out."""
        found = self._papers.get(paper_ids)
        return [found[pid] for pid in paper_ids if pid in found]

    def year_span(self) -> tuple[int, int] | None:
        """Earliest and latest publication year among searchable papers (None when unknown)."""
        years = self._searchable().years
        known = years[years > 0]
        return (int(known.min()), int(known.max())) if len(known) else None

    def document_frequency(self, terms: Sequence[str]) -> dict[str, int]:
        """How many searchable papers contain each BM25 term (relevance weights concepts by it)."""
        snap = self._searchable()
        return snap.document_frequency(terms)

    def count(self) -> int:
        """Papers a search can find."""
        snap = self.snapshot
        if snap is None and self._papers.count() > 0:
            snap = self._searchable()
        return len(snap) if snap is not None else 0

    def stats(self) -> dict:
        snap = self.snapshot
        if snap is None and self._papers.count() > 0:
            snap = self._searchable()  # an older store: build its index first
        years, counts = np.unique(snap.years if snap is not None else np.zeros(0, np.int32), return_counts=True)
        category_counts = snap.category_counts() if snap is not None else {}
        top = sorted(category_counts.items(), key=lambda kv: -kv[1])[:10]
        return {
            "papers": self._papers.count(),
            "bm25_documents": len(snap) if snap is not None else 0,  # = searchable papers; differs from papers only after a crash
            "embedding_model": snap.model if snap is not None else None,
            "embedding_dim": snap.dim if snap is not None else None,
            "store": self.settings.store.chroma_url or str(self._store_dir),
            "collection": self.settings.store.collection,
            "index_generation": snap.generation if snap is not None else None,
            "years": {("unknown" if y == 0 else int(y)): int(c) for y, c in zip(years, counts)},
            "top_categories": dict(top),
        }


@functools.lru_cache(maxsize=1)
def _blas_threads():
    """threadpoolctl's controller, built once (it inspects the loaded libraries)."""
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()
