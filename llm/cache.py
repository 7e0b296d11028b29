"""On-disk LLM response cache (sqlite), so re-running a graph replays answers for free.

Keys are sha256 over the model spec, the messages, the sampling parameters and the output
schema, so any change to a prompt, model or schema misses the cache.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from pathlib import Path
from typing import Any, Sequence

from langchain_core.messages import BaseMessage

from ..sqlite_wal import enable_wal


# Bump when the meaning of a cached answer changes (prompt rendering, decoding), so old entries miss.
CACHE_FORMAT = 2


def cache_key(
    spec: str,
    messages: Sequence[BaseMessage],
    params: dict[str, Any],
    schema: dict[str, Any] | None = None,
) -> str:
    payload = {
        "format": CACHE_FORMAT,
        "spec": spec,
        "messages": [[m.type, m.content] for m in messages],
        "params": params,
        "schema": schema,
    }
    blob = json.dumps(payload, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class ResponseCache:
    """A key -> JSON value store in ``<directory>/responses.sqlite``; safe across threads."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.path = self.directory / "responses.sqlite"
        self._lock = threading.Lock()
        # One connection guarded by a lock: sqlite connections are not thread-safe by themselves.
        self._conn = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
        with self._lock:
            enable_wal(self._conn)
            self._conn.execute(
                "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, value TEXT NOT NULL,"
                " created REAL DEFAULT (strftime('%s','now')))"
            )
            self._conn.commit()

    @classmethod
    def for_settings(cls, settings: Any) -> "ResponseCache":
        return cls(Path(settings.cache_dir) / "llm")

    key = staticmethod(cache_key)

    def get(self, key: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._conn.execute("SELECT value FROM responses WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def put(self, key: str, value: dict[str, Any]) -> None:
        blob = json.dumps(value, ensure_ascii=False)
        with self._lock:
            self._conn.execute("INSERT OR REPLACE INTO responses (key, value) VALUES (?, ?)", (key, blob))
            self._conn.commit()

    def __len__(self) -> int:
        with self._lock:
            return self._conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._conn.close()
