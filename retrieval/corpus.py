"""The Research Paper DB: ingest papers into Chroma + BM25 and search them (dense, BM25, hybrid).

One ``Corpus`` per data home. Chroma holds the vectors, the papers (JSON in metadata) and the
filter keys; the BM25 index lives beside it under ``<home>/store/bm25``. The collection records
the embedding model that built it, and a Corpus refuses to mix models.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Collection, Iterable, Sequence
from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import BaseModel, Field

from ..errors import UserError
from ..models import Paper, ScoredPaper
from ..settings import Settings
from .bm25_index import BM25Index
from .dedupe import dedupe_papers, paper_keys
from .embeddings import Embedder, _Progress, embedder_id, get_embedder
from .hybrid import ranks_by_retriever, reciprocal_rank_fusion
from .paper_table import PaperTable
from .store import CATEGORY_PREFIX, MAX_ADD_BATCH, PaperCollection, chroma_where
from .tre import temporal_rerank

SearchMode = Literal["hybrid", "dense", "bm25"]
_WITHIN_CACHE_SIZE = 8
_POST_FILTER_MAX = 5000  # neighbours fetched to filter locally before falling back to Chroma's where  # memories (id sets) whose vectors stay in RAM for MR retrieval


class IngestReport(BaseModel):
    source: str = ""
    read: int = 0
    added: int = 0
    duplicates: int = 0
    skipped: int = 0
    skipped_lines: list[int] = Field(default_factory=list)
    embed_seconds: float = 0.0
    index_seconds: float = 0.0


def _split_model_id(model_id: str) -> tuple[str, str]:
    model, _, backend = model_id.partition("@")
    return model, backend or "torch"


class Corpus:
    def __init__(self, settings: Settings):
        self._collection = PaperCollection(settings)
        self._papers = PaperTable(settings.store_dir / "papers.sqlite")
        self.settings = self._settings_for_store(settings)
        self._bm25: BM25Index | None = None
        self._within_cache: OrderedDict[frozenset, tuple[list[str], np.ndarray, list[dict]]] = OrderedDict()
        self._within_lock = threading.Lock()  # the generation graph searches from several threads

    # --- setup ----------------------------------------------------------------------------
    def _where(self) -> str:
        return self.settings.store.chroma_url or str(self.settings.store_dir)

    def _settings_for_store(self, settings: Settings) -> Settings:
        """Adopt the store's embedding model unless the user chose one; refuse a different one."""
        stored, requested = self._collection.model, embedder_id(settings)
        if stored is None or stored == requested:
            return settings
        explicit = bool({"model", "backend"} & settings.embedding.model_fields_set)
        if explicit:
            location = settings.store.chroma_url or settings.store_dir
            raise UserError(
                f"the paper index at {location} was built with embedding model {stored!r}, not "
                f"{requested!r}: use --embedding-model {stored}, or a fresh --home to index with {requested!r}"
            )
        model, backend = _split_model_id(stored)
        embedding = settings.embedding.model_copy(update={"model": model, "backend": backend})
        return settings.model_copy(update={"embedding": embedding})

    @property
    def embedder(self) -> Embedder:
        return get_embedder(self.settings)

    @property
    def bm25(self) -> BM25Index:
        if self._bm25 is None:
            self._bm25 = BM25Index.load(self.settings.store_dir / "bm25")
        return self._bm25

    # --- ingest ---------------------------------------------------------------------------
    def ingest_path(self, path: Path, *, progress: bool = True) -> IngestReport:
        """Load a JSONL(.gz) / JSON / BibTeX / PDF file or PDF folder and add its papers."""
        from .loaders import load_path

        path = Path(path).expanduser()
        if not path.exists():
            raise UserError(f"no such file or directory: {path}")
        loaded = load_path(path, fulltext_dir=self.settings.store_dir / "fulltext")
        report = self.add_papers(loaded.papers, progress=progress, source=str(path))
        report.read = loaded.report.read
        report.skipped = loaded.report.skipped
        report.skipped_lines = list(loaded.report.skipped_lines)
        return report

    def _new_papers(self, papers: list[Paper]) -> list[Paper]:
        """Papers whose id is not stored and whose title matches no stored paper (unless both
        carry different arXiv ids: distinct papers can share a title)."""
        stored_ids = self._papers.existing([p.paper_id for p in papers])
        title_rows = {t: i for i, t in enumerate(self.bm25.titles) if t}
        fresh = []
        for paper in papers:
            if paper.paper_id in stored_ids:
                continue
            title_key = next((k for k in paper_keys(paper) if k.startswith("title:")), None)
            row = title_rows.get(title_key) if title_key else None
            if row is not None:
                other = self.bm25.ids[row]
                if not (paper.arxiv_id and other.startswith("arxiv:") and other != paper.paper_id):
                    continue
            fresh.append(paper)
        return fresh

    def add_papers(self, papers: Iterable[Paper], *, progress: bool = True, source: str = "") -> IngestReport:
        """Embed and index papers not already in the store; duplicates are counted, not added."""
        incoming = list(papers)
        unique, merged_away = dedupe_papers(incoming)
        fresh = self._new_papers(unique)
        report = IngestReport(source=source, read=len(incoming),
                              duplicates=merged_away + len(unique) - len(fresh))
        if not fresh:
            return report
        started = time.perf_counter()
        vectors = self.embedder.encode([p.embedding_text() for p in fresh], progress=progress)
        report.embed_seconds = time.perf_counter() - started
        started = time.perf_counter()
        self._index(fresh, vectors, progress)
        report.index_seconds = time.perf_counter() - started
        report.added = len(fresh)
        return report

    def _index(self, papers: list[Paper], vectors: np.ndarray, progress: bool) -> None:
        if not self._collection.exists:
            self._collection.create(self.embedder.name, self.embedder.dim)
        bar = _Progress(progress, len(papers) + 1, "indexing")
        try:
            for start in range(0, len(papers), MAX_ADD_BATCH):
                chunk = papers[start:start + MAX_ADD_BATCH]
                self._collection.add(chunk, vectors[start:start + MAX_ADD_BATCH])
                self._papers.add(chunk)
                bar.advance(len(chunk))
            self.bm25.add(
                [p.paper_id for p in papers], [p.embedding_text() for p in papers],
                [p.year for p in papers], [p.categories for p in papers],
                [next((k for k in paper_keys(p) if k.startswith("title:")), "") for p in papers],
            )
            bar.advance(1)
        finally:
            bar.close()
        with self._within_lock:
            self._within_cache.clear()

    # --- search ---------------------------------------------------------------------------
    def search(self, query: str, k: int = 10, *, mode: SearchMode = "hybrid",
               year_range: tuple[int, int] | None = None, categories: list[str] | None = None,
               within_ids: Collection[str] | None = None, tre: bool | None = None) -> list[ScoredPaper]:
        """Top-k papers for ``query``; see docs/corpus.md for modes, filters and TRE."""
        if mode not in ("hybrid", "dense", "bm25"):
            raise UserError(f"unknown search mode {mode!r}: use hybrid, dense or bm25")
        if self.count() == 0:
            raise UserError(
                f"the paper index at {self._where()} is empty: run `surveygraph corpus ingest PATH` first"
            )
        cfg = self.settings.retrieval
        use_tre = cfg.tre if tre is None else tre
        pool = k * cfg.tre_pool_factor if use_tre else k
        n_candidates = max(cfg.candidates, pool)
        rankings: dict[str, list[tuple[str, float]]] = {}
        if mode in ("hybrid", "dense"):
            rankings["dense"] = self._dense(query, n_candidates, year_range, categories, within_ids)
        if mode in ("hybrid", "bm25"):
            mask = self.bm25.filter_mask(year_range, categories)
            rankings["bm25"] = self.bm25.search(query, n_candidates, within=within_ids, mask=mask)
        id_lists = {name: [pid for pid, _ in hits] for name, hits in rankings.items()}
        fused = (reciprocal_rank_fusion(id_lists, cfg.rrf_k) if mode == "hybrid" else rankings[mode])[:pool]
        papers = self._papers.get([pid for pid, _ in fused])
        ranks = ranks_by_retriever(id_lists)
        hits = [ScoredPaper(paper=papers[pid], score=score, ranks=ranks.get(pid, {}))
                for pid, score in fused if pid in papers]
        if use_tre:
            hits = temporal_rerank(hits, k, bucket_years=cfg.tre_bucket_years)
        return hits[:k]

    def _dense(self, query: str, n: int, year_range: tuple[int, int] | None,
               categories: Sequence[str] | None, within_ids: Collection[str] | None) -> list[tuple[str, float]]:
        # Queries skip the on-disk cache: one query encodes faster than a cache write commits.
        embedder = self.embedder
        vector = getattr(embedder, "inner", embedder).encode([query])[0]
        if within_ids is None:
            return self._dense_filtered(vector, n, year_range, categories)
        ids, matrix, metas = self._within_vectors(within_ids)
        keep = np.array([_matches(m, year_range, categories) for m in metas], dtype=bool)
        scores = np.where(keep, matrix @ vector, -np.inf) if len(ids) else np.zeros(0)
        order = np.argsort(-scores, kind="stable")[: min(n, int(keep.sum()))]
        return [(ids[i], float(scores[i])) for i in order]

    def _dense_filtered(self, vector: np.ndarray, n: int, year_range: tuple[int, int] | None,
                        categories: Sequence[str] | None) -> list[tuple[str, float]]:
        """Chroma's ``where`` filtering is slow (~0.4 s at 75k papers), so filters are applied to
        the unfiltered nearest neighbours using the BM25 index's year/category arrays; only when
        too few survive does the query go to Chroma with the ``where`` clause."""
        total = self.count()
        mask = self.bm25.filter_mask(year_range, categories)
        if mask is None or len(mask) != total:  # no filters, or the BM25 sidecar is out of step
            return self._collection.query(vector, min(n, total), chroma_where(year_range, categories))
        allowed = int(mask.sum())
        if allowed == 0:
            return []
        wanted = min(n, allowed)
        fetch = min(total, _POST_FILTER_MAX, wanted * max(2, -(-total // allowed) * 2))
        kept = []
        for pid, score in self._collection.query(vector, fetch, None):
            row = self.bm25.row(pid)
            if row is not None and mask[row]:
                kept.append((pid, score))
        if len(kept) >= wanted or fetch == total:
            return kept[:wanted]
        return self._collection.query(vector, wanted, chroma_where(year_range, categories))

    def _within_vectors(self, within_ids: Collection[str]) -> tuple[list[str], np.ndarray, list[dict]]:
        """Stored vectors of a memory M, kept for the next queries on the same M (MR retrieval
        issues many sub-queries against one memory)."""
        key = frozenset(within_ids)
        with self._within_lock:
            cached = self._within_cache.get(key)
            if cached is not None:
                self._within_cache.move_to_end(key)
                return cached
        cached = self._collection.get_vectors(sorted(key))
        with self._within_lock:
            self._within_cache[key] = cached
            if len(self._within_cache) > _WITHIN_CACHE_SIZE:
                self._within_cache.popitem(last=False)
        return cached

    # --- reading --------------------------------------------------------------------------
    def get(self, paper_ids: Sequence[str]) -> list[Paper]:
        """Papers for ids, in the given order; unknown ids are left out."""
        found = self._papers.get(paper_ids)
        return [found[pid] for pid in paper_ids if pid in found]

    def count(self) -> int:
        return self._collection.count()

    def stats(self) -> dict:
        bm25 = self.bm25
        years, counts = np.unique(bm25.years, return_counts=True)
        category_counts: dict[str, int] = {}
        for cats in bm25.categories:
            for c in cats:
                category_counts[c] = category_counts.get(c, 0) + 1
        top = sorted(category_counts.items(), key=lambda kv: -kv[1])[:10]
        return {
            "papers": self.count(),
            "bm25_documents": len(bm25),
            "embedding_model": self._collection.model,
            "embedding_dim": self._collection.dim,
            "store": self.settings.store.chroma_url or str(self.settings.store_dir),
            "collection": self.settings.store.collection,
            "years": {("unknown" if y == 0 else int(y)): int(c) for y, c in zip(years, counts)},
            "top_categories": dict(top),
        }


def _matches(meta: dict, year_range: tuple[int, int] | None, categories: Sequence[str] | None) -> bool:
    if year_range is not None:
        year = meta.get("year")
        if year is None or not year_range[0] <= year <= year_range[1]:
            return False
    if categories and not any(meta.get(CATEGORY_PREFIX + c) for c in categories):
        return False
    return True
