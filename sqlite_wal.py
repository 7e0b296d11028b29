"""Switch a SQLite connection to WAL mode when other processes may be opening the same file.

Two `batch work` workers start at the same moment and open the same caches: the switch to WAL
needs the database's exclusive lock, and SQLite can answer "database is locked" at once, without
waiting for its busy timeout, while the other process creates the file or changes its mode. That
surfaced as a traceback from one worker. The switch is retried until ``timeout``.
"""

from __future__ import annotations

import sqlite3
import time


def enable_wal(connection: sqlite3.Connection, *, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    pause = 0.01
    while True:
        try:
            connection.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() >= deadline:
                raise
            time.sleep(pause)
            pause = min(pause * 2, 0.5)
