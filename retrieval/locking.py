"""One writer, many readers on a data home's paper index.

Writers (ingest, fetch, repair, doctor's Chroma check) hold an exclusive ``filelock`` on
``<store>/write.lock`` for the whole write; a second writer waits and says which process it waits
for. Readers take no lock: they read an immutable index generation (``retrieval/snapshot.py``)
that a writer publishes with one atomic rename, so a search never sees a half-written index and
works on a read-only home. Embedded Chroma is opened only under the write lock: two processes
holding a PersistentClient on one directory while one writes is what corrupted stores for good.

``crash_point`` lets the fault-injection tests kill an ingest at a named step (``SURVEYGRAPH_CRASH_AT``).
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from pathlib import Path

from ..errors import UserError

LOCK_NAME = "write.lock"
OWNER_NAME = "write.owner"  # pid of the process holding the lock (the lock file itself stays empty)
CRASH_ENV = "SURVEYGRAPH_CRASH_AT"
_crash_counts: dict[str, int] = {}


def home_is_writable(path: Path) -> bool:
    """True when ``path`` (or, if it does not exist yet, its nearest existing parent) is writable."""
    path = Path(path)
    while not path.exists() and path != path.parent:
        path = path.parent
    return os.access(path, os.W_OK)


def fsync_dir(path: Path) -> None:
    """Make a rename or a new file in ``path`` durable (POSIX needs the directory fsynced)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def crash_point(name: str) -> None:
    """Kill this process with SIGKILL at step ``name`` when ``SURVEYGRAPH_CRASH_AT`` names it.

    ``name:N`` in the variable kills at the N-th time the step is reached (1-based), so a test can
    die in the middle of a loop of batches. A no-op unless the variable is set.
    """
    wanted = os.environ.get(CRASH_ENV)
    if not wanted:
        return
    step, _, nth = wanted.partition(":")
    if step != name:
        return
    _crash_counts[name] = _crash_counts.get(name, 0) + 1
    if _crash_counts[name] >= int(nth or 1):
        # SURVEYGRAPH_CRASH_SIGNAL=INT sends Ctrl-C's signal instead: a user's interrupt at this step
        os.kill(os.getpid(), signal.SIGINT if os.environ.get("SURVEYGRAPH_CRASH_SIGNAL") == "INT" else signal.SIGKILL)


def running_writer(store_dir: Path) -> str | None:
    """The pid of a process writing the store right now, else None (also on a read-only home,
    where nobody can be writing). Probes the lock without waiting."""
    from filelock import FileLock, Timeout

    path = Path(store_dir) / LOCK_NAME
    if not path.exists() or not home_is_writable(path):
        return None
    probe = FileLock(str(path), thread_local=False, is_singleton=False)
    try:
        probe.acquire(timeout=0)
    except Timeout:
        try:
            return (Path(store_dir) / OWNER_NAME).read_text().strip() or "?"
        except OSError:
            return "?"
    except OSError:
        return None
    probe.release()
    return None


class StoreWriteLock:
    """Exclusive, re-entrant (per instance) lock of one store directory for writers."""

    def __init__(self, store_dir: Path, *, on_wait: Callable[[str], None] | None = None, what: str = "ingest"):
        self.store_dir = Path(store_dir)
        self._on_wait = on_wait
        self._what = what
        self._lock = None
        self._depth = 0

    def _owner(self) -> str:
        try:
            return (self.store_dir / OWNER_NAME).read_text().strip() or "?"
        except OSError:
            return "?"

    def __enter__(self) -> "StoreWriteLock":
        from filelock import FileLock, Timeout

        if self._depth == 0:
            if not home_is_writable(self.store_dir):
                raise UserError(f"the data home is read-only ({self.store_dir} is not writable): "
                                f"{self._what} needs write access; search, stats and doctor work read-only")
            self.store_dir.mkdir(parents=True, exist_ok=True)
            self._lock = FileLock(str(self.store_dir / LOCK_NAME), thread_local=False)
            try:
                self._lock.acquire(timeout=0)
            except Timeout:
                if self._on_wait is not None:
                    self._on_wait(f"waiting for another ingest (pid {self._owner()}) to finish with {self.store_dir}...")
                self._lock.acquire()
            (self.store_dir / OWNER_NAME).write_text(f"{os.getpid()}\n")
        self._depth += 1
        return self

    def __exit__(self, *exc) -> None:
        self._depth -= 1
        if self._depth == 0 and self._lock is not None:
            try:
                (self.store_dir / OWNER_NAME).write_text("")
            except OSError:
                pass
            self._lock.release()
            self._lock = None
