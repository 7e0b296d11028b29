"""What can go wrong with the files of a paper store, said in one line that names the fix.

Every store error is a ``UserError`` (one ``error:`` line, never a traceback) and names
``surveygraph corpus repair``: the search index and the Chroma mirror are derived from the paper
table and repair rebuilds them; the paper table itself is the record of truth, and repair says
that it cannot rebuild it. A full disk stops a write with what was kept and what to run next.
"""

from __future__ import annotations

import errno
import os
import re
import sqlite3
from pathlib import Path

from ..errors import UserError

REPAIR = "surveygraph corpus repair"
# ENOSPC: no space left; EFBIG: a file-size limit (RLIMIT_FSIZE) reached; EDQUOT: a quota.
_NO_ROOM = {errno.ENOSPC, errno.EFBIG, getattr(errno, "EDQUOT", errno.ENOSPC)}

# The same, as libraries that wrap the OSError in their own type (Chroma) word it.
_NO_ROOM_TEXT = re.compile(r"disk is full|no space left on device|file too large|disk quota exceeded", re.I)


class StoreDamaged(UserError):
    """A file of the store cannot be read as what it should be."""


class IndexDamaged(StoreDamaged):
    def __init__(self, store_dir: Path, why: str):
        self.why = why
        super().__init__(f"the search index under {Path(store_dir) / 'index'} is damaged ({why}): run "
                         f"`{REPAIR}` to rebuild it from the paper table")


class ChromaDamaged(StoreDamaged):
    def __init__(self, where: str, why: str):
        self.why = why
        super().__init__(f"the Chroma mirror at {where} does not open ({why}): run `{REPAIR}` to set it aside "
                         f"and rebuild it from the search index")


class PaperTableDamaged(StoreDamaged):
    def __init__(self, path: Path, why: str):
        self.why = why
        super().__init__(f"the paper table {path} is damaged ({why}); `{REPAIR}` cannot rebuild it (the other "
                         f"stores are rebuilt from it): restore it from a backup, or move it aside and ingest "
                         f"your sources again")


class DiskFull(UserError):
    """A write found no room on the disk (or hit a file-size limit)."""


def write_failure(exc: BaseException | None) -> str | None:
    """What stopped a write, when ``exc`` (or its cause) is one that more room would fix: an OSError
    of a write (ENOSPC, EFBIG from a file-size limit, a quota, or numpy's short write, which carries
    no errno) or SQLite's "database or disk is full" / "disk I/O error". None for anything else (a
    read-only home has its own message, in the CLI)."""
    seen = 0
    while exc is not None and seen < 5:
        if isinstance(exc, OSError) and exc.errno not in (errno.EROFS, errno.EACCES, errno.EPERM, errno.ENOENT):
            if exc.errno in _NO_ROOM:
                return os.strerror(exc.errno).lower()
            if exc.errno is None and "written" in str(exc):  # numpy: "N requested and M written"
                return f"a short write ({exc})"
        if isinstance(exc, sqlite3.OperationalError) and ("disk is full" in str(exc) or "disk i/o" in str(exc).lower()):
            return f"SQLite: {exc}"
        if _NO_ROOM_TEXT.search(str(exc)):  # libraries that wrap the OSError in their own type (Chroma)
            return str(exc).splitlines()[0][:200]
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return None


def damaged_sqlite(exc: BaseException) -> bool:
    """SQLite's words for a file that is not (or no longer) a valid database."""
    text = str(exc).lower()
    return isinstance(exc, sqlite3.DatabaseError) and ("malformed" in text or "not a database" in text)
