"""The paper records of the index: one SQLite table (id -> Paper JSON, normalised title) beside the
search index.

Chroma keeps only vectors and the small filter keys: storing the paper JSON as Chroma metadata
made Chroma index every JSON string (and doubled the store), and reads by id are faster here.

The table has an integer rowid and an index on ``id``: the first layout (``id`` as the key of a
WITHOUT ROWID table) stored each ~1.7 KB record on its own overflow page, two thirds of the disk at
75k papers. ``title_key`` (indexed) lets an ingest find duplicates by title without loading every
title; stores of the first layout are migrated by the first writer that opens them.

This table is the record of truth of an ingest: it is written first, and the search index and
Chroma are brought in line with it afterwards (``Corpus.repair``), so a crash never loses a paper.
Readers open it read-only (``read_only=True``); on a read-only home SQLite cannot create its
WAL side files, so the file is then opened as immutable (nobody can be writing it).
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Iterable, Sequence
from contextlib import contextmanager
from pathlib import Path

from pydantic import ValidationError

from ..models import Paper
from ..sqlite_wal import enable_wal
from .damage import PaperTableDamaged, damaged_sqlite
from .dedupe import paper_keys

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
        with self._damage_said():
            self._db = sqlite3.connect(str(path), check_same_thread=False)
            enable_wal(self._db)
            columns = [r[1] for r in self._db.execute("PRAGMA table_info(papers)")]
            if columns and "title_key" not in columns:
                self._migrate()
            self._db.execute("CREATE TABLE IF NOT EXISTS papers (rid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, "
                             "title_key TEXT, json TEXT NOT NULL)")
            self._db.execute("CREATE INDEX IF NOT EXISTS papers_title ON papers (title_key)")
            self._db.commit()

    @contextmanager
    def _damage_said(self):
        """SQLite's "malformed" / "not a database" (a file cut short or overwritten) and a record
        that is no longer a paper become one PaperTableDamaged line."""
        try:
            yield
        except sqlite3.DatabaseError as exc:
            if damaged_sqlite(exc):
                raise PaperTableDamaged(self.path, str(exc)) from exc
            raise
        except ValidationError as exc:
            raise PaperTableDamaged(self.path, f"a stored record is not a paper: {exc.error_count()} errors") from exc

    def verify(self) -> str | None:
        """What is wrong with the file (SQLite's quick_check of every page), None when it is sound."""
        try:
            with self._lock:
                rows = self._rows("PRAGMA quick_check")
        except PaperTableDamaged as exc:
            return exc.why
        return None if not rows or rows[0][0] == "ok" else f"integrity check: {rows[0][0]}"

    def _migrate(self) -> None:
        """Copy a first-layout table into the current one (in one transaction), then compact."""
        db = self._db
        db.execute("CREATE TABLE papers_v2 (rid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, "
                   "title_key TEXT, json TEXT NOT NULL)")
        cursor = db.execute("SELECT id, json FROM papers ORDER BY id")
        while rows := cursor.fetchmany(5000):
            db.executemany("INSERT INTO papers_v2 (id, title_key, json) VALUES (?, ?, ?)",
                           [(pid, title_key(Paper.model_validate_json(text)), text) for pid, text in rows])
        db.execute("DROP TABLE papers")
        db.execute("ALTER TABLE papers_v2 RENAME TO papers")
        db.commit()
        db.execute("VACUUM")

    def _rows(self, sql: str, params: Sequence = ()) -> list[tuple]:
        with self._damage_said():
            if self._db is None and self._read_only and self.path.is_file():
                writable = os.access(self.path.parent, os.W_OK) and os.access(self.path, os.W_OK)
                # as_uri percent-encodes the path: a home named "C#proj" or "50%" is a path, not a
                # URI fragment or escape (a raw "file:/x/C#proj/..." opened, and created, "/x/C").
                uri = self.path.absolute().as_uri() + "?mode=ro" + ("" if writable else "&immutable=1")
                self._db = sqlite3.connect(uri, uri=True, check_same_thread=False)
            if self._db is None:  # read-only and no table yet: an empty store
                return []
            return self._db.execute(sql, params).fetchall()

    def add(self, papers: Iterable[Paper]) -> None:
        rows = [(p.paper_id, title_key(p), p.model_dump_json(exclude_none=True)) for p in papers]
        with self._lock, self._damage_said():
            self._db.executemany("INSERT INTO papers (id, title_key, json) VALUES (?, ?, ?) ON CONFLICT (id) "
                                 "DO UPDATE SET title_key = excluded.title_key, json = excluded.json", rows)
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
                with self._damage_said():
                    for pid, text in self._rows(f"SELECT id, json FROM papers WHERE id IN ({marks})", chunk):
                        found[pid] = Paper.model_validate_json(text)
        return found

    def texts(self, ids: Sequence[str]) -> dict[str, tuple[str, str]]:
        """(title, abstract) per id without building Paper objects: rows were validated on ingest,
        and pool building reads thousands of them per run."""
        found: dict[str, tuple[str, str]] = {}
        unique = list(dict.fromkeys(ids))
        with self._lock:
            for start in range(0, len(unique), _CHUNK):
                chunk = unique[start:start + _CHUNK]
                marks = ",".join("?" * len(chunk))
                for pid, text in self._rows(f"SELECT id, json FROM papers WHERE id IN ({marks})", chunk):
                    row = json.loads(text)
                    found[pid] = (str(row.get("title") or ""), str(row.get("abstract") or ""))
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

    def ids_by_title(self, keys: Sequence[str]) -> dict[str, str]:
        """title key -> the id of a stored paper with that normalised title (writers only)."""
        found: dict[str, str] = {}
        unique = list(dict.fromkeys(k for k in keys if k))
        with self._lock:
            for start in range(0, len(unique), _CHUNK):
                chunk = unique[start:start + _CHUNK]
                marks = ",".join("?" * len(chunk))
                for key, pid in self._rows(f"SELECT title_key, id FROM papers WHERE title_key IN ({marks}) "
                                           f"ORDER BY id", chunk):
                    found.setdefault(key, pid)
        return found

    def iter_ids(self, batch: int = 20_000):
        """Every stored id, sorted, ``batch`` at a time (memory bounded by the batch)."""
        last = ""
        while True:
            with self._lock:
                rows = self._rows("SELECT id FROM papers WHERE id > ? ORDER BY id LIMIT ?", (last, batch))
            if not rows:
                return
            yield [r[0] for r in rows]
            last = rows[-1][0]

    def count(self) -> int:
        with self._lock:
            rows = self._rows("SELECT COUNT(*) FROM papers")
        return int(rows[0][0]) if rows else 0

    def ids(self) -> list[str]:
        """Every stored id, sorted."""
        with self._lock:
            return [r[0] for r in self._rows("SELECT id FROM papers ORDER BY id")]


def title_key(paper: Paper) -> str | None:
    """The normalised-title key the duplicate check uses (``dedupe.paper_keys``)."""
    return next((k for k in paper_keys(paper) if k.startswith("title:")), None)
