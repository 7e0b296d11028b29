"""WAL switch under a competing writer (sqlite_wal.enable_wal): two `batch work` workers opening
the same cache at once made one of them crash with 'database is locked'."""

from __future__ import annotations

import sqlite3
import threading

import pytest

from surveygraph.sqlite_wal import enable_wal


def test_the_wal_switch_waits_for_a_writer_that_holds_the_database(tmp_path):
    path = tmp_path / "cache.sqlite"
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("CREATE TABLE t (x)")
    holder.execute("BEGIN EXCLUSIVE")
    threading.Timer(0.5, lambda: holder.execute("COMMIT")).start()
    other = sqlite3.connect(path, timeout=0)  # no busy wait of its own: the retry must do the waiting
    enable_wal(other, timeout=10)
    assert other.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_lock_that_outlasts_the_timeout_is_reported(tmp_path):
    path = tmp_path / "cache.sqlite"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("CREATE TABLE t (x)")
    holder.execute("BEGIN EXCLUSIVE")
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        enable_wal(sqlite3.connect(path, timeout=0), timeout=0.3)
    holder.execute("COMMIT")
