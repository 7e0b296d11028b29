"""The paper records of the index: one SQLite table (id -> Paper JSON) beside the BM25 index.

Chroma keeps only vectors and the small filter keys: storing the paper JSON as Chroma metadata
made Chroma index every JSON string (and doubled the store), and reads by id are faster here.

This table is the record of truth of an ingest: it is written first, and the search index and
Chroma are brought in line with it afterwards (``Corpus.repair``), so a crash never loses a paper.
Readers open it read-only (``read_only=True``); on a read-only home SQLite cannot create its
WAL side files, so the file is then opened as immutable (nobody can be writing it).
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path

from ..models import Paper

_CHUNK = 900  # below SQLite's default host-parameter limit


class PaperTable:
    def __init__(self, path: Path, *, read_only: bool = False):
        self._lock = threading.Lock()
        self.path = path
        self._db: sqlite3.Connection | None = None
        self._read_only = read_only
        if read_only:
            return  # connected at the first read (the file may appear later in this process)
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path), check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS papers (id TEXT PRIMARY KEY, json TEXT NOT NULL) WITHOUT ROWID")

    def _rows(self, sql: str, params: Sequence = ()) -> list[tuple]:
        if self._db is None and self._read_only and self.path.is_file():
            writable = os.access(self.path.parent, os.W_OK) and os.access(self.path, os.W_OK)
            uri = f"file:{self.path}?mode=ro" + ("" if writable else "&immutable=1")
            self._db = sqlite3.connect(uri, uri=True, check_same_thread=False)
        if self._db is None:  # read-only and no table yet: an empty store
            return []
        return self._db.execute(sql, params).fetchall()

    def add(self, papers: Iterable[Paper]) -> None:
        rows = [(p.paper_id, p.model_dump_json(exclude_none=True)) for p in papers]
        with self._lock:
            self._db.executemany("INSERT OR REPLACE INTO papers (id, json) VALUES (?, ?)", rows)
            self._db.commit()
            # Fold the WAL into the main file now: a home made read-only later is opened as
            # immutable, which does not read a WAL left behind by a killed process.
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def get(self, ids: Sequence[str]) -> dict[str, Paper]:
        found: dict[str, Paper] = {}
        unique = list(dict.fromkeys(ids))
        with self._lock:
            for start in range(0, len(unique), _CHUNK):
                chunk = unique[start:start + _CHUNK]
                marks = ",".join("?" * len(chunk))
                for pid, text in self._rows(f"SELECT id, json FROM papers WHERE id IN ({marks})", chunk):
                    found[pid] = Paper.model_validate_json(text)
        return found

    def existing(self, ids: Sequence[str]) -> set[str]:
        present: set[str] = set()
        unique = list(dict.fromkeys(ids))
        with self._lock:
            for start in range(0, len(unique), _CHUNK):
                chunk = unique[start:start + _CHUNK]
                marks = ",".join("?" * len(chunk))
                present.update(r[0] for r in self._rows(f"SELECT id FROM papers WHERE id IN ({marks})", chunk))
        return present

    def count(self) -> int:
        with self._lock:
            rows = self._rows("SELECT COUNT(*) FROM papers")
        return int(rows[0][0]) if rows else 0

    def ids(self) -> list[str]:
        """Every stored id, sorted."""
        with self._lock:
            return [r[0] for r in self._rows("SELECT id FROM papers ORDER BY id")]
