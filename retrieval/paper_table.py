"""The paper records of the index: one SQLite table (id -> Paper JSON) beside the BM25 index.

Chroma keeps only vectors and the small filter keys: storing the paper JSON as Chroma metadata
made Chroma index every JSON string (and doubled the store), and reads by id are faster here.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path

from ..models import Paper

_CHUNK = 900  # below SQLite's default host-parameter limit


class PaperTable:
    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(path), check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS papers (id TEXT PRIMARY KEY, json TEXT NOT NULL) WITHOUT ROWID")

    def add(self, papers: Iterable[Paper]) -> None:
        rows = [(p.paper_id, p.model_dump_json(exclude_none=True)) for p in papers]
        with self._lock:
            self._db.executemany("INSERT OR REPLACE INTO papers (id, json) VALUES (?, ?)", rows)
            self._db.commit()

    def get(self, ids: Sequence[str]) -> dict[str, Paper]:
        found: dict[str, Paper] = {}
        unique = list(dict.fromkeys(ids))
        with self._lock:
            for start in range(0, len(unique), _CHUNK):
                chunk = unique[start:start + _CHUNK]
                marks = ",".join("?" * len(chunk))
                for pid, text in self._db.execute(f"SELECT id, json FROM papers WHERE id IN ({marks})", chunk):
                    found[pid] = Paper.model_validate_json(text)
        return found

    def existing(self, ids: Sequence[str]) -> set[str]:
        present: set[str] = set()
        unique = list(dict.fromkeys(ids))
        with self._lock:
            for start in range(0, len(unique), _CHUNK):
                chunk = unique[start:start + _CHUNK]
                marks = ",".join("?" * len(chunk))
                present.update(r[0] for r in self._db.execute(f"SELECT id FROM papers WHERE id IN ({marks})", chunk))
        return present

    def count(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM papers").fetchone()[0])
