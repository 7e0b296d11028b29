"""Batch generation: a list of topics, any number of workers on any machines, one PostgreSQL database.

The database holds the job list (table ``surveygraph_jobs``) and every run's LangGraph checkpoints
(``generation.checkpointer``). A worker claims a job by taking a session-level advisory lock on
its id (``pg_try_advisory_lock``): PostgreSQL holds it for exactly as long as the worker's
connection lives, so two workers never run one topic, and a worker that dies (kill -9, a lost
machine: the server drops the connection) frees its topic at once, without lease timers. The
next worker that looks for work resumes that topic from its last checkpoint: the job row keeps
the run's id and run.json, so finished steps are not redone and the run directory is recreated
on a machine that has never seen it. No home-made coordinator: locking, the queue and the
checkpoints are PostgreSQL's.

When the database goes away (stopped, restarted, unreachable) a worker keeps its place: every
session ends, so its lock and its checkpointer connection die with it and nothing more is written
for the job. The worker reconnects with backoff for up to ``generation.db_outage_limit`` seconds,
takes its own job back if no other worker has taken it (same run, the outage is not counted as an
attempt) and goes on from the job's last checkpoint. Past the limit it exits with one error line;
the job stays resumable by any worker.

Workers share the paper store read-only (``docs/corpus.md``: searches take no lock) and write
each survey to ``<runs>/<run id>/``; point ``--out`` at a shared volume to collect them in one place.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

from ..agents.deps import GenerationDeps
from ..errors import NetworkUnavailable, UserError
from ..sanitize import check_topic, redact_text
from .runner import RunResult, postgres_connection, resume_run, run_record, start_graph, start_run

_LOCK_SPACE = 0x5347  # advisory-lock class id of surveygraph jobs ("SG")
_SETUP_LOCK = (_LOCK_SPACE + 1, 0)  # held while creating or migrating the tables
_CONNECT_TIMEOUT = 10  # seconds per connection attempt (libpq's connect_timeout): a vanished host fails, not hangs
_BACKOFF_MAX = 15  # seconds: the longest wait between two reconnection attempts
# A job left 'running' without its lock by a server restart may belong to a worker that is
# reconnecting: for this long after the server's start other workers leave it to that worker.
_OWNER_GRACE = 2 * _BACKOFF_MAX + _CONNECT_TIMEOUT
_AWAITING_OWNER = ("status = 'running' AND updated < pg_postmaster_start_time() "
                   "AND now() < pg_postmaster_start_time() + make_interval(secs => %s)")
_SCHEMA = """
CREATE TABLE IF NOT EXISTS surveygraph_jobs (
    id BIGSERIAL PRIMARY KEY,
    batch TEXT NOT NULL,
    topic TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'queued',      -- queued | running | done | failed
    run_id TEXT,
    run_record JSONB,
    worker TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    error TEXT,
    survey TEXT,
    updated TIMESTAMPTZ NOT NULL DEFAULT now(),
    UNIQUE (batch, topic)
)"""

Event = Callable[[str], None]
T = TypeVar("T")


@dataclass
class Job:
    id: int
    topic: str
    run_id: str | None
    run_record: dict | None
    attempts: int


def connect(url: str, *, checkpoints: bool = False):
    """An autocommit connection to the batch database (UserError when unreachable), its job table
    created; with ``checkpoints`` LangGraph's checkpoint tables too."""
    conn = postgres_connection(url, "the batch database", "the batch database", autocommit=True,
                               connect_timeout=_CONNECT_TIMEOUT)
    # CREATE TABLE IF NOT EXISTS and PostgresSaver.setup()'s migrations race when workers start
    # together on a new database (UniqueViolation, deadlock: a job burnt its attempts on that),
    # so one session at a time creates them; later runs' setup() finds the migrations done.
    try:
        _take_setup_lock(conn)
        conn.execute(_SCHEMA)
        if checkpoints:
            try:
                from langgraph.checkpoint.postgres import PostgresSaver
            except ImportError:
                raise UserError("batch workers need pip install 'surveygraph[postgres]'") from None
            PostgresSaver(conn).setup()
        conn.execute("SELECT pg_advisory_unlock(%s, %s)", _SETUP_LOCK)
    except BaseException:
        conn.close()  # the session's end releases the lock
        raise
    return conn


def _take_setup_lock(conn) -> None:
    """Waits by polling pg_try_advisory_lock, not in pg_advisory_lock: a session waiting inside a
    statement holds up the migrations' CREATE INDEX CONCURRENTLY, which waits for every open
    transaction, while the lock holder waits for that index (a deadlock PostgreSQL reports)."""
    from tenacity import Retrying, retry_if_result, stop_after_delay, wait_random

    def waited_too_long(_state: Any) -> bool:
        raise UserError("the batch database's tables are still being created by another worker after 10 min")

    Retrying(retry=retry_if_result(lambda got: not got), wait=wait_random(0.1, 0.5), stop=stop_after_delay(600),
             retry_error_callback=waited_too_long)(
        lambda: conn.execute("SELECT pg_try_advisory_lock(%s, %s)", _SETUP_LOCK).fetchone()[0])


@contextmanager
def _connected(url: str) -> Iterator[Any]:
    """``connect(url)`` for a few statements; the server going away meanwhile is one line too."""
    import psycopg

    try:
        with connect(url) as conn:
            yield conn
    except psycopg.OperationalError as exc:
        raise NetworkUnavailable(f"lost the batch database {redact_text(url)}: {_reason(exc)}") from None


def submit(url: str, batch: str, topics: Sequence[str]) -> int:
    """Queue topics (each checked like `generate`'s); a topic already in the batch is not added twice."""
    checked = [check_topic(t) for t in topics if t.strip()]
    if not checked:
        raise UserError("no topics to submit (one per line; blank lines are ignored)")
    with _connected(url) as conn:
        added = 0
        for topic in checked:
            cur = conn.execute("INSERT INTO surveygraph_jobs (batch, topic) VALUES (%s, %s) "
                               "ON CONFLICT (batch, topic) DO NOTHING", (batch, topic))
            added += cur.rowcount
    return added


def status(url: str, batch: str) -> list[dict]:
    with _connected(url) as conn:
        rows = conn.execute("SELECT id, topic, status, run_id, worker, attempts, error, survey FROM surveygraph_jobs "
                            "WHERE batch = %s ORDER BY id", (batch,)).fetchall()
        running = {r[0] for r in conn.execute(
            "SELECT objid FROM pg_locks WHERE locktype = 'advisory' AND classid = %s AND granted", (_LOCK_SPACE,))}
    keys = ("id", "topic", "status", "run_id", "worker", "attempts", "error", "survey")
    jobs = [dict(zip(keys, r)) for r in rows]
    for job in jobs:  # a 'running' row whose worker's lock is gone is waiting to be resumed
        if job["status"] == "running" and job["id"] not in running:
            job["status"] = "interrupted"
    return jobs


def claim(conn, batch: str, worker: str, max_attempts: int = 3) -> Job | None:
    """The first unfinished job no live worker holds, locked for this connection (a job whose
    workers died ``max_attempts`` times is left alone: ``batch status`` shows it; one whose worker
    may be reconnecting after a server restart is left to it for a while: _OWNER_GRACE)."""
    candidates = conn.execute("SELECT id FROM surveygraph_jobs WHERE batch = %s AND status IN ('queued', 'running') "
                              f"AND attempts < %s AND NOT ({_AWAITING_OWNER}) ORDER BY id",
                              (batch, max_attempts, _OWNER_GRACE)).fetchall()
    for (job_id,) in candidates:
        if not conn.execute("SELECT pg_try_advisory_lock(%s, %s)", (_LOCK_SPACE, job_id)).fetchone()[0]:
            continue
        row = conn.execute("UPDATE surveygraph_jobs SET status = 'running', worker = %s, attempts = attempts + 1, "
                           "updated = now() WHERE id = %s AND status IN ('queued', 'running') "
                           "RETURNING id, topic, run_id, run_record, attempts", (worker, job_id)).fetchone()
        if row is None:  # finished between the two statements
            conn.execute("SELECT pg_advisory_unlock(%s, %s)", (_LOCK_SPACE, job_id))
            continue
        return Job(id=row[0], topic=row[1], run_id=row[2], run_record=row[3], attempts=row[4])
    return None


def _owner_grace_left(conn, batch: str, max_attempts: int) -> float:
    """Seconds until the jobs left to their reconnecting workers (see claim) are free for all."""
    row = conn.execute("SELECT EXTRACT(EPOCH FROM pg_postmaster_start_time() + make_interval(secs => %s) - now()) "
                       f"FROM surveygraph_jobs WHERE batch = %s AND attempts < %s AND {_AWAITING_OWNER} LIMIT 1",
                       (_OWNER_GRACE, batch, max_attempts, _OWNER_GRACE)).fetchone()
    return float(row[0]) if row else 0.0


def _retake(conn, job: Job, worker: str) -> Job | None:
    """``job`` locked again for this connection if this worker still has it (nobody claimed it
    while the database was away), with its row as it is now; else None."""
    if not conn.execute("SELECT pg_try_advisory_lock(%s, %s)", (_LOCK_SPACE, job.id)).fetchone()[0]:
        return None  # another worker runs it now
    row = conn.execute("UPDATE surveygraph_jobs SET updated = now() WHERE id = %s AND worker = %s AND "
                       "status = 'running' RETURNING run_id, run_record", (job.id, worker)).fetchone()
    if row is None:  # claimed by another worker (finished, re-queued, or that one died too)
        conn.execute("SELECT pg_advisory_unlock(%s, %s)", (_LOCK_SPACE, job.id))
        return None
    return replace(job, run_id=row[0], run_record=row[1])


def _finish(conn, job: Job, status_: str, *, error: str | None = None, survey: str | None = None) -> None:
    conn.execute("UPDATE surveygraph_jobs SET status = %s, error = %s, survey = %s, updated = now() WHERE id = %s",
                 (status_, error, survey, job.id))
    conn.execute("SELECT pg_advisory_unlock(%s, %s)", (_LOCK_SPACE, job.id))


class _Session:
    """A worker's session with the batch database; it holds the advisory lock of the job it runs.

    Not a psycopg_pool pool: a pool reconnects behind its user's back, and here a new connection
    means the job's lock was lost and must be taken back before anything is written for the job.
    The waiting between attempts is tenacity's (exponential backoff with jitter, stopped at
    ``generation.db_outage_limit``)."""

    def __init__(self, url: str, worker: str, outage_limit: float, event: Event):
        self.url, self.worker, self.outage_limit, self.event = url, worker, outage_limit, event
        self.conn = connect(url, checkpoints=True)  # unreachable at start: a wrong URL, one line at once

    def close(self) -> None:
        self.conn.close()

    def lost(self) -> bool:
        """Whether the session is gone (the server stopped or restarted since its last statement)."""
        import psycopg

        if self.conn.closed:
            return True
        try:
            self.conn.execute("SELECT 1")
        except psycopg.OperationalError:
            return True
        return False

    def reconnect(self, cause: BaseException) -> None:
        """A new session, waiting with backoff while the database is away; NetworkUnavailable
        (one line) once it has been away for ``outage_limit`` seconds."""
        import psycopg
        from tenacity import Retrying, retry_if_exception_type, stop_after_delay, wait_exponential_jitter

        self.conn.close()
        started, reason = time.monotonic(), _reason(cause)
        self.event(f"batch database lost ({reason}); reconnecting for up to {self.outage_limit:.0f} s")
        retrying = Retrying(retry=retry_if_exception_type(psycopg.OperationalError), reraise=True,
                            wait=wait_exponential_jitter(initial=0.5, max=_BACKOFF_MAX), stop=stop_after_delay(self.outage_limit))
        try:
            self.conn = retrying(psycopg.Connection.connect, self.url, autocommit=True,
                                 connect_timeout=_CONNECT_TIMEOUT)
        except psycopg.OperationalError as exc:
            raise NetworkUnavailable(
                f"the batch database {redact_text(self.url)} stayed unreachable for {time.monotonic() - started:.0f} s "
                f"(generation.db_outage_limit = {self.outage_limit:g}): {_reason(exc)}; its jobs stay resumable: "
                "run `surveygraph batch work` again when it is back") from None
        self.event(f"reconnected to the batch database after {time.monotonic() - started:.0f} s")

    def call(self, step: Callable[[Any], T]) -> T:
        """``step(connection)``, run again on a new session when the database went away under it
        (steps that hold no job lock: claiming, reading)."""
        import psycopg

        while True:
            try:
                return step(self.conn)
            except psycopg.OperationalError as exc:
                if not self.lost():
                    raise
                self.reconnect(exc)

    def retake(self, job: Job, cause: BaseException) -> Job | None:
        """After the database went away: a new session holding ``job``'s lock again, or None when
        another worker has the job now."""
        self.reconnect(cause)
        return self.call(lambda conn: _retake(conn, job, self.worker))

    def finish(self, job: Job, status_: str, **fields: str | None) -> bool:
        """Record how ``job`` ended and release it; False when the database went away and another
        worker took the job meanwhile (it finds the run's checkpoints and ends it)."""
        import psycopg

        while True:
            try:
                _finish(self.conn, job, status_, **fields)
                return True
            except psycopg.OperationalError as exc:
                if not self.lost():
                    raise
                retaken = self.retake(job, exc)
                if retaken is None:
                    return False
                job = retaken


def _reason(exc: BaseException) -> str:
    lines = redact_text(str(exc)).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__


def _survey(result: RunResult) -> str:
    return str((result.state.get("export") or {}).get("survey.md") or result.run_dir)


def _run_job(db: _Session, job: Job, deps: GenerationDeps, runs_dir: Path, event: Event) -> str:
    """Run or resume ``job``; the path of its survey."""
    import psycopg

    if job.run_id and job.run_record:
        run_dir = runs_dir / job.run_id
        if not (run_dir / "run.json").is_file():  # resumed on a machine that has never seen this run
            run_dir.mkdir(parents=True, exist_ok=True)
            (run_dir / "run.json").write_text(json.dumps(job.run_record, indent=2), encoding="utf-8")
        event(f"resuming job {job.id} ({job.topic!r}) from run {job.run_id}, attempt {job.attempts}")
        try:
            return _survey(resume_run(run_dir, deps))
        except UserError as exc:
            if "already finished" in str(exc):  # its worker lost the database before recording it
                survey = run_dir / "survey.md"
                return str(survey if survey.is_file() else run_dir)
            if "no checkpoint" not in str(exc):
                raise
            return _survey(start_graph(run_dir, deps))  # killed before its first checkpoint

    def record(run_dir: Path) -> None:
        try:
            db.conn.execute("UPDATE surveygraph_jobs SET run_id = %s, run_record = %s, updated = now() WHERE id = %s",
                            (run_dir.name, json.dumps(run_record(run_dir)), job.id))
        except psycopg.OperationalError:
            shutil.rmtree(run_dir, ignore_errors=True)  # nothing ran in it: the retaken job starts afresh
            raise

    event(f"starting job {job.id} ({job.topic!r})")
    return _survey(start_run(job.topic, deps, runs_dir=runs_dir, on_created=record))


def _attempt(db: _Session, job: Job, deps: GenerationDeps, runs_dir: Path, event: Event, max_attempts: int) -> str:
    """Run ``job`` to an end: "done", "failed", "retried", or "taken over" (by another worker
    while the database was away)."""
    while True:
        try:
            survey = _run_job(db, job, deps, runs_dir, event)
        except Exception as exc:  # noqa: BLE001 - sorted below: an outage, a user error, anything else
            if db.lost():  # the database went away under the run: back to its last checkpoint
                retaken = db.retake(job, exc)
                if retaken is None:
                    return _taken_over(job, event)
                job = retaken
                continue
            if isinstance(exc, UserError):  # a bad topic or setting: recorded, the next job runs
                outcome, error = "failed", str(exc)
            else:  # a model server down, a bug: retried up to max_attempts
                outcome, error = ("failed" if job.attempts >= max_attempts else "retried"), f"{type(exc).__name__}: {exc}"
            if not db.finish(job, "failed" if outcome == "failed" else "queued", error=error):
                return _taken_over(job, event)
            event(f"job {job.id} {'failed' if outcome == 'failed' else 'will be retried'}: {error}")
            return outcome
        if not db.finish(job, "done", survey=survey):
            return _taken_over(job, event)
        event(f"job {job.id} done: {survey}")
        return "done"


def _taken_over(job: Job, event: Event) -> str:
    event(f"job {job.id} was taken over by another worker while the database was away")
    return "taken over"


def work(url: str, batch: str, deps: GenerationDeps, *, runs_dir: Path, event: Event = print,
         worker: str | None = None, max_attempts: int = 3) -> dict[str, int]:
    """Claim and run jobs of ``batch`` until none is left; returns counts of what this worker did.
    Rides out database outages up to ``generation.db_outage_limit`` seconds (module docstring)."""
    if deps.settings.generation.checkpointer != url:
        raise UserError("a batch worker must checkpoint to the batch database (set generation.checkpointer to it)")
    worker = worker or f"{socket.gethostname()}:{os.getpid()}"
    done = {"done": 0, "failed": 0}
    db = _Session(url, worker, deps.settings.generation.db_outage_limit, event)
    try:
        while True:
            job = db.call(lambda conn: claim(conn, batch, worker, max_attempts))
            if job is None:
                wait = db.call(lambda conn: _owner_grace_left(conn, batch, max_attempts))
                if wait <= 0:
                    break
                event(f"waiting {wait:.0f} s for the workers of interrupted jobs to reconnect")
                time.sleep(wait)
                continue
            outcome = _attempt(db, job, deps, Path(runs_dir), event, max_attempts)
            done[outcome] = done.get(outcome, 0) + 1
    finally:
        db.close()
    return done


def summary(jobs: list[dict[str, Any]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for job in jobs:
        counts[job["status"]] = counts.get(job["status"], 0) + 1
    return counts
