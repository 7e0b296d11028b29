"""The Research Paper DB: ingest papers and search them (dense, BM25, hybrid).

One ``Corpus`` per data home, three stores under ``<home>/store``: the paper table (SQLite, the
record of truth), Chroma (vectors + filter keys) and the published search index (BM25 + vectors,
``snapshot.py``), which searches read. An ingest holds the store's write lock, writes the paper
table first and then brings Chroma and the index in line with it (``_reconcile``), publishing
the index with one atomic rename last: after a crash at any point, the next ingest (or
``corpus repair``) adds whatever the other two stores miss. The index records the embedding
model that built it, and a Corpus refuses to mix models.
"""

from __future__ import annotations

import functools
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from collections.abc import Collection, Iterable, Sequence
from pathlib import Path
from typing import Callable, Literal

import numpy as np
from pydantic import BaseModel, Field

from ..errors import UserError
from ..models import Paper, ScoredPaper
from ..settings import Settings
from .bm25_index import tokenize
from .dedupe import dedupe_papers
from .embeddings import Embedder, _Progress, embedder_id, get_embedder, get_model
from .hybrid import ranks_by_retriever, reciprocal_rank_fusion
from .locking import StoreWriteLock, crash_point, home_is_writable, running_writer
from .paper_table import PaperTable, title_key
from .segments import AnnConfig
from .snapshot import IndexConfig, IndexSnapshot, NewRows, update
from .store import PaperCollection
from .tre import temporal_rerank

SearchMode = Literal["hybrid", "dense", "bm25"]


class IngestReport(BaseModel):
    source: str = ""
    read: int = 0
    added: int = 0
    duplicates: int = 0
    skipped: int = 0
    skipped_lines: list[int] = Field(default_factory=list)
    reasons: list[str] = Field(default_factory=list)  # why records were skipped (first few hundred)
    truncated: str | None = None  # set when the input ended early (e.g. a truncated .gz)
    invalid_fields: int = 0  # papers kept with an identifier dropped (arXiv id, DOI, category, year)
    repaired: int = 0  # papers an earlier, interrupted ingest had left out of Chroma or the index
    embed_seconds: float = 0.0
    index_seconds: float = 0.0


class StoreCheck(BaseModel):
    """The three stores' counts and the ids each one misses (``doctor``, ``corpus repair``)."""

    papers: int
    index: int
    chroma: int | None  # None: not checked (read-only home)
    missing_from_index: list[str] = Field(default_factory=list)
    extra_in_index: list[str] = Field(default_factory=list)
    missing_from_chroma: list[str] = Field(default_factory=list)
    extra_in_chroma: list[str] = Field(default_factory=list)

    @property
    def consistent(self) -> bool:
        return not (self.missing_from_index or self.extra_in_index
                    or self.missing_from_chroma or self.extra_in_chroma)


def _split_model_id(model_id: str) -> tuple[str, str]:
    model, _, backend = model_id.partition("@")
    return model, backend or "torch"


def _to_stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


class Corpus:
    def __init__(self, settings: Settings, *, notify: Callable[[str], None] | None = None):
        self._store_dir = settings.store_dir
        store = settings.store
        self._index_config = IndexConfig(ann=AnnConfig(min_rows=store.ann_min_rows, nprobe=store.ann_nprobe),
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
        if self.snapshot is not None:
            return self.snapshot.model
        if self._chroma is not None or (self._store_dir / "chroma").is_dir():
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
    def ingest_path(self, path: Path, *, progress: bool = True) -> IngestReport:
        """Load a JSONL(.gz) / JSON / BibTeX / PDF file or PDF folder and add its papers (JSONL is
        read as a stream: memory is bounded by ``store.ingest_batch``, not by the file)."""
        from .loaders import count_lines, detect_format, stream_path

        path = Path(path).expanduser()
        if not path.exists():
            raise UserError(f"no such file or directory: {path}")
        total = count_lines(path) if progress and detect_format(path) == "jsonl" else None
        batches, loaded = stream_path(path, fulltext_dir=self._store_dir / "fulltext",
                                      batch=self.settings.store.ingest_batch)
        report = self.add_papers(batches, progress=progress, source=str(path), total=total, batched=True)
        report.read = loaded.read
        report.skipped = loaded.skipped
        report.skipped_lines = list(loaded.skipped_lines)
        report.reasons = list(loaded.reasons)
        report.truncated = loaded.truncated
        report.invalid_fields = loaded.invalid_fields
        return report

    def _new_papers(self, papers: list[Paper]) -> list[Paper]:
        """Papers whose id is not stored and whose title matches no stored paper (unless both
        carry different arXiv ids: distinct papers can share a title)."""
        table = self._table()
        stored_ids = table.existing([p.paper_id for p in papers])
        by_title = table.ids_by_title([title_key(p) or "" for p in papers])
        fresh = []
        for paper in papers:
            if paper.paper_id in stored_ids:
                continue
            other = by_title.get(title_key(paper) or "")
            if other is not None and not (paper.arxiv_id and other.startswith("arxiv:") and other != paper.paper_id):
                continue
            fresh.append(paper)
        return fresh

    def add_papers(self, papers: Iterable, *, progress: bool = True, source: str = "",
                   total: int | None = None, batched: bool = False) -> IngestReport:
        """Embed and store papers not already in the store (duplicates are counted, not added),
        ``store.ingest_batch`` at a time, after repairing whatever an earlier interrupted ingest
        left out of Chroma or the index. ``batched``: ``papers`` yields lists of papers."""
        step = self.settings.store.ingest_batch
        if total is None and not batched and isinstance(papers, list):
            total = len(papers)
        batches = papers if batched else _chunks(papers, step)
        report = IngestReport(source=source)
        with self._lock:
            self._reload()  # another ingest may have published while we waited for the lock
            started = time.perf_counter()
            report.repaired = self._reconcile({}, progress)
            report.index_seconds += time.perf_counter() - started
            bar = _Progress(progress, total or 0, "ingesting")
            try:
                for batch in batches:
                    for chunk in _chunks(batch, step):
                        self._add_batch(chunk, report)
                        bar.advance(len(chunk))
            finally:
                bar.close()
        return report

    def _add_batch(self, incoming: list[Paper], report: IngestReport) -> None:
        unique, merged_away = dedupe_papers(incoming)
        fresh = self._new_papers(unique)
        report.read += len(incoming)
        report.duplicates += merged_away + len(unique) - len(fresh)
        if not fresh:
            return
        started = time.perf_counter()
        vectors = self.embedder.encode([p.embedding_text() for p in fresh], progress=False)
        report.embed_seconds += time.perf_counter() - started
        crash_point("embedded")
        started = time.perf_counter()
        self._table().add(fresh)  # the record of truth first: a crash after it loses nothing
        crash_point("sqlite")
        self._write_derived(fresh, vectors)
        report.added += len(fresh)
        report.index_seconds += time.perf_counter() - started

    def _write_derived(self, papers: list[Paper], vectors: np.ndarray) -> None:
        """Add papers already in the paper table to Chroma and publish them in the index."""
        collection = self.collection
        if not collection.exists:
            collection.create(self.embedder.name, self.embedder.dim)
        collection.add(papers, vectors)
        self._snapshot = update(
            self._store_dir, self.snapshot,
            add=NewRows(ids=[p.paper_id for p in papers], tokens=[tokenize(p.embedding_text()) for p in papers],
                        years=[p.year or 0 for p in papers], categories=[list(p.categories) for p in papers],
                        vectors=np.asarray(vectors, dtype=np.float32)),
            model=self._index_model(), dim=self.embedder.dim, config=self._index_config)
        self._snapshot_loaded = True

    def _index_model(self) -> str:
        snap = self.snapshot
        return snap.model if snap is not None and snap.model else self.embedder.name

    def repair(self, *, progress: bool = True, rebuild_chroma: bool = False) -> StoreCheck:
        """Bring Chroma and the search index in line with the paper table; returns what was wrong.
        ``rebuild_chroma``: set an embedded Chroma aside (``chroma.broken-<time>``) and rebuild it
        from the index's vectors, for a Chroma directory that no longer opens."""
        with self._lock:
            self._reload()
            if rebuild_chroma and not self.settings.store.chroma_url and (self._store_dir / "chroma").is_dir():
                (self._store_dir / "chroma").rename(self._store_dir / f"chroma.broken-{int(time.time())}")
                self._chroma = None
            before = self._check_locked()
            self._reconcile({}, progress, full=not before.consistent)
        return before

    def _reconcile(self, known: dict[str, np.ndarray], progress: bool, full: bool = False) -> int:
        """Add to / remove from Chroma and the index what differs from the paper table (under
        the write lock). The counts are compared first: they agree after every completed ingest,
        and comparing id sets costs time and memory in proportion to the corpus. Vectors come
        from ``known``, the live index, or the (cached) embedder. Returns how many papers were
        added to either store."""
        table, snap, collection = self._table(), self.snapshot, self.collection
        papers_count = table.count()
        index_count = len(snap) if snap is not None else 0
        if not full and papers_count == index_count == collection.count() and (snap is not None or not papers_count):
            return 0
        sql_ids = [pid for chunk in table.iter_ids() for pid in chunk]
        sql_set = set(sql_ids)
        index_ids = set(snap.ids) if snap is not None else set()
        if not collection.exists and sql_ids:
            collection.create(self.embedder.name, self.embedder.dim)
        chroma_ids = collection.all_ids()
        missing_chroma = [i for i in sql_ids if i not in chroma_ids]
        extra_chroma = sorted(chroma_ids - sql_set)
        missing_index = set(i for i in sql_ids if i not in index_ids)
        extra_index = index_ids - sql_set
        del sql_set, chroma_ids, index_ids
        if extra_chroma:  # only an older version could leave vectors without a paper record
            collection.delete(extra_chroma)
        if extra_index or (snap is None and not missing_index and sql_ids):
            snap = self._snapshot = update(self._store_dir, snap, drop=extra_index, model=self._index_model(),
                                           dim=self.embedder.dim, config=self._index_config)
        need = sorted(set(missing_chroma) | missing_index)
        bar = _Progress(progress, len(need), "repairing the index")
        step = self.settings.store.ingest_batch
        chroma_missing = set(missing_chroma)
        try:
            for start in range(0, len(need), step):
                chunk = need[start:start + step]
                papers = self._table().get(chunk)
                vectors = {pid: known[pid] for pid in chunk if pid in known}
                if self.snapshot is not None:
                    vectors.update(self.snapshot.vectors_for([pid for pid in chunk if pid not in vectors]))
                rest = [pid for pid in chunk if pid not in vectors]
                if rest:
                    vectors.update(zip(rest, self.embedder.encode([papers[pid].embedding_text() for pid in rest])))
                to_chroma = [pid for pid in chunk if pid in chroma_missing]
                if to_chroma:
                    collection.add([papers[pid] for pid in to_chroma], np.vstack([vectors[pid] for pid in to_chroma]))
                to_index = [pid for pid in chunk if pid in missing_index]
                if to_index:
                    rows = [papers[pid] for pid in to_index]
                    self._snapshot = update(
                        self._store_dir, self.snapshot,
                        add=NewRows(ids=to_index, tokens=[tokenize(p.embedding_text()) for p in rows],
                                    years=[p.year or 0 for p in rows], categories=[list(p.categories) for p in rows],
                                    vectors=np.vstack([vectors[pid] for pid in to_index])),
                        model=self._index_model(), dim=self.embedder.dim, config=self._index_config)
                    self._snapshot_loaded = True
                bar.advance(len(chunk))
        finally:
            bar.close()
        return len(need)

    def check(self) -> StoreCheck:
        """Counts and id differences of the three stores. Chroma is read under the write lock (it
        waits for a running ingest); on a read-only home it is not opened."""
        if not home_is_writable(self._store_dir) and not self.settings.store.chroma_url:
            return self._check_locked(chroma=False)
        with self._lock:
            self._reload()
            return self._check_locked()

    def _check_locked(self, chroma: bool = True) -> StoreCheck:
        sql = set(self._papers.ids())
        index = set(self.snapshot.ids) if self.snapshot is not None else set()
        stored = self.collection.all_ids() if chroma else None
        return StoreCheck(
            papers=len(sql), index=len(index), chroma=None if stored is None else len(stored),
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


def _chunks(items: Iterable, size: int):
    """Lists of at most ``size`` items (a list given whole is sliced, not copied item by item)."""
    if isinstance(items, list):
        for start in range(0, len(items), size):
            yield items[start:start + size]
        return
    chunk: list = []
    for item in items:
        chunk.append(item)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk
