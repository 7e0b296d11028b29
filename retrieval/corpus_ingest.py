"""The writing half of ``Corpus``: ingest (streamed in batches), duplicate checks, repair.

An ingest holds the store's write lock, writes each batch to the paper table first (the record of
truth) and then to Chroma and a new index segment; before its first batch it compares the three
stores' counts and, when they differ (a crash), their ids, adding whatever Chroma or the index
miss. ``Corpus`` (corpus.py) mixes this in; it owns the stores and the search side.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from contextlib import contextmanager
from pathlib import Path

import numpy as np
from pydantic import BaseModel, Field

from ..errors import UserError
from ..models import Paper
from .bm25_index import tokenize
from .dedupe import dedupe_papers
from .embeddings import _Progress
from .damage import REPAIR, ChromaDamaged, DiskFull, IndexDamaged, PaperTableDamaged, write_failure
from .locking import crash_point
from .paper_table import title_key
from .snapshot import NewRows, update
from .store import forget_embedded_client, mirror_on


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
    chroma_note: str = ""  # why ``chroma`` is None: the mirror is off, or the home is read-only
    actions: list[str] = Field(default_factory=list)  # what a repair rebuilt beyond adding missing ids

    @property
    def consistent(self) -> bool:
        return not (self.missing_from_index or self.extra_in_index
                    or self.missing_from_chroma or self.extra_in_chroma)


class CorpusIngest:
    """Ingest and repair; the attributes used here are set up by ``Corpus.__init__``."""

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
        with self._lock, self._room_said(report):
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

    @contextmanager
    def _room_said(self, report: IngestReport | None = None):
        """A write that found no room (a full disk, a file-size limit) stops an ingest or a repair
        with one line: the paper table commits whole batches and the index publishes by one rename,
        so what was stored is kept and the same command, run again, completes it."""
        try:
            yield
        except Exception as exc:  # noqa: BLE001 - OSError, SQLite's or a library's own type: write_failure reads it
            why = write_failure(exc)
            if why is None:
                raise
            done = (f"this ingest had added {report.added} papers, which are kept. Free some space and run the same "
                    f"ingest again: stored papers are skipped, and any the search index lacks are added first (or "
                    f"run `{REPAIR}`)" if report is not None else
                    f"nothing stored was lost. Free some space and run `{REPAIR}` again")
            raise DiskFull(f"could not write to the store under {self._store_dir}: {why} (disk full or a file-size "
                           f"limit); {done}") from exc

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
        if mirror_on(self.settings):
            collection = self.collection
            if not collection.exists:
                collection.create(self.embedder.name, self.embedder.dim)
            collection.add(papers, vectors)
        self._publish_papers(papers, vectors)

    def _publish_papers(self, papers: list[Paper], vectors: np.ndarray) -> None:
        """One new index segment holding ``papers`` (rows of ``vectors`` in the same order)."""
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
        """Bring the search index (and the Chroma mirror, when kept) in line with the paper table;
        returns what was wrong, with ``actions`` naming what was rebuilt. A damaged index (a file
        cut short, overwritten or missing: checksums and shapes) or a Chroma directory that no
        longer opens is set aside (``index.broken-<time>``, ``chroma.broken-<time>``) and rebuilt
        from the paper table; ``rebuild_chroma`` does so for Chroma whatever its state. A damaged
        paper table raises PaperTableDamaged: nothing holds the records to rebuild it from."""
        actions: list[str] = []
        with self._lock, self._room_said():
            problem = self._table().verify()
            if problem:
                raise PaperTableDamaged(self._store_dir / "papers.sqlite", problem)
            self._reload()
            damage = self._index_damage()
            if damage:
                aside = _set_aside(self._store_dir / "index")
                self._snapshot, self._snapshot_loaded = None, True
                actions.append(f"the search index was damaged ({damage}): set aside as {aside.name} and rebuilt "
                               f"from the paper table")
            mirror = mirror_on(self.settings)
            embedded_chroma = self._store_dir / "chroma"
            if mirror and not self.settings.store.chroma_url and embedded_chroma.is_dir():
                broken = self._chroma_damage()
                if rebuild_chroma or broken:
                    self._chroma = None
                    forget_embedded_client(embedded_chroma)
                    aside = _set_aside(embedded_chroma)
                    why = f"did not open ({broken})" if broken else "was rebuilt on request"
                    actions.append(f"the Chroma mirror {why}: set aside as {aside.name} and rebuilt from the search index")
            elif rebuild_chroma and not mirror:
                actions.append("the Chroma mirror is off (store.chroma_mirror = false): nothing to rebuild")
            before = self._check_locked(chroma=mirror)
            self._reconcile({}, progress, full=True)
        before.actions = actions
        return before

    def _index_damage(self) -> str | None:
        """Why the live index cannot be trusted (it does not load, or a checksum differs), else None."""
        try:
            snap = self.snapshot
        except IndexDamaged as exc:
            return exc.why
        return snap.verify() if snap is not None else None

    def _chroma_damage(self) -> str | None:
        try:
            collection = self.collection
            collection.count()
        except ChromaDamaged as exc:
            self._chroma = None
            return exc.why
        return None

    def _reconcile(self, known: dict[str, np.ndarray], progress: bool, full: bool = False) -> int:
        """Add to / remove from Chroma and the index what differs from the paper table (under
        the write lock). The counts are compared first: they agree after every completed ingest,
        and comparing id sets costs time and memory in proportion to the corpus. Vectors come
        from ``known``, the live index, or the (cached) embedder. Returns how many papers were
        added to either store."""
        table, snap = self._table(), self.snapshot
        collection = self.collection if mirror_on(self.settings) else None  # the mirror is optional
        papers_count = table.count()
        index_count = len(snap) if snap is not None else 0
        chroma_count = collection.count() if collection is not None else papers_count
        if not full and papers_count == index_count == chroma_count and (snap is not None or not papers_count):
            return 0
        sql_ids = [pid for chunk in table.iter_ids() for pid in chunk]
        sql_set = set(sql_ids)
        index_ids = set(snap.ids) if snap is not None else set()
        if collection is not None and not collection.exists and sql_ids:
            collection.create(self.embedder.name, self.embedder.dim)
        chroma_ids = collection.all_ids() if collection is not None else set(sql_set)
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
                    self._publish_papers([papers[pid] for pid in to_index], np.vstack([vectors[pid] for pid in to_index]))
                bar.advance(len(chunk))
        finally:
            bar.close()
        return len(need)


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


def _set_aside(path: Path) -> Path:
    """Rename a damaged derived store to ``<name>.broken-<time>`` (kept for a look, never deleted)."""
    stamp = int(time.time())
    target = path.with_name(f"{path.name}.broken-{stamp}")
    n = 2
    while target.exists():
        target, n = path.with_name(f"{path.name}.broken-{stamp}-{n}"), n + 1
    path.rename(target)
    return target
