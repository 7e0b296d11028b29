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

Workers share the paper store read-only (``docs/corpus.md``: searches take no lock) and write
each survey to ``<runs>/<run id>/``; point ``--out`` at a shared volume to collect them in one place.
"""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..agents.deps import GenerationDeps
from ..errors import UserError
from ..sanitize import check_topic
from .runner import RunResult, postgres_connection, resume_run, run_record, start_graph, start_run

_LOCK_SPACE = 0x5347  # advisory-lock class id of surveygraph jobs ("SG")
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


@dataclass
class Job:
    id: int
    topic: str
    run_id: str | None
    run_record: dict | None
    attempts: int


def connect(url: str):
    """An autocommit connection to the batch database (UserError when unreachable)."""
    conn = postgres_connection(url, "the batch database", "the batch database", autocommit=True)
    conn.execute(_SCHEMA)
    return conn


def submit(url: str, batch: str, topics: Sequence[str]) -> int:
    """Queue topics (each checked like `generate`'s); a topic already in the batch is not added twice."""
    checked = [check_topic(t) for t in topics if t.strip()]
    if not checked:
        raise UserError("no topics to submit (one per line; blank lines are ignored)")
    with connect(url) as conn:
        added = 0
        for topic in checked:
            cur = conn.execute("INSERT INTO surveygraph_jobs (batch, topic) VALUES (%s, %s) "
                               "ON CONFLICT (batch, topic) DO NOTHING", (batch, topic))
            added += cur.rowcount
    return added


def status(url: str, batch: str) -> list[dict]:
    with connect(url) as conn:
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
    workers died ``max_attempts`` times is left alone: ``batch status`` shows it)."""
    candidates = conn.execute("SELECT id FROM surveygraph_jobs WHERE batch = %s AND status IN ('queued', 'running') "
                              "AND attempts < %s ORDER BY id", (batch, max_attempts)).fetchall()
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


def _finish(conn, job: Job, status_: str, *, error: str | None = None, survey: str | None = None) -> None:
    conn.execute("UPDATE surveygraph_jobs SET status = %s, error = %s, survey = %s, updated = now() WHERE id = %s",
                 (status_, error, survey, job.id))
    conn.execute("SELECT pg_advisory_unlock(%s, %s)", (_LOCK_SPACE, job.id))


def _run_job(conn, job: Job, deps: GenerationDeps, runs_dir: Path, event: Event) -> RunResult:
    if job.run_id and job.run_record:
        run_dir = runs_dir / job.run_id
        if not (run_dir / "run.json").is_file():  # resumed on a machine that has never seen this run
            run_dir.mkdir(parents=True, exist_ok=True)
            (run_dir / "run.json").write_text(json.dumps(job.run_record, indent=2), encoding="utf-8")
        event(f"resuming job {job.id} ({job.topic!r}) from run {job.run_id}, attempt {job.attempts}")
        try:
            return resume_run(run_dir, deps)
        except UserError as exc:
            if "no checkpoint" not in str(exc):
                raise
            return start_graph(run_dir, deps)  # killed before its first checkpoint

    def record(run_dir: Path) -> None:
        conn.execute("UPDATE surveygraph_jobs SET run_id = %s, run_record = %s, updated = now() WHERE id = %s",
                     (run_dir.name, json.dumps(run_record(run_dir)), job.id))

    event(f"starting job {job.id} ({job.topic!r})")
    return start_run(job.topic, deps, runs_dir=runs_dir, on_created=record)


def work(url: str, batch: str, deps: GenerationDeps, *, runs_dir: Path, event: Event = print,
         worker: str | None = None, max_attempts: int = 3) -> dict[str, int]:
    """Claim and run jobs of ``batch`` until none is left; returns counts of what this worker did."""
    if deps.settings.generation.checkpointer != url:
        raise UserError("a batch worker must checkpoint to the batch database (set generation.checkpointer to it)")
    worker = worker or f"{socket.gethostname()}:{os.getpid()}"
    done = {"done": 0, "failed": 0}
    with connect(url) as conn:
        while (job := claim(conn, batch, worker, max_attempts)) is not None:
            try:
                result = _run_job(conn, job, deps, Path(runs_dir), event)
            except UserError as exc:  # a bad topic or setting: recorded, the next job runs
                _finish(conn, job, "failed", error=str(exc))
                done["failed"] += 1
                event(f"job {job.id} failed: {exc}")
                continue
            except Exception as exc:  # noqa: BLE001 - a model server down, a bug: retried up to max_attempts
                final = job.attempts >= max_attempts
                _finish(conn, job, "failed" if final else "queued", error=f"{type(exc).__name__}: {exc}")
                done["failed" if final else "retried"] = done.get("failed" if final else "retried", 0) + 1
                event(f"job {job.id} {'failed' if final else 'will be retried'}: {type(exc).__name__}: {exc}")
                continue
            survey = (result.state.get("export") or {}).get("survey.md")
            _finish(conn, job, "done", survey=str(survey or result.run_dir))
            done["done"] += 1
            event(f"job {job.id} done: {result.run_dir}")
    return done


def summary(jobs: list[dict[str, Any]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for job in jobs:
        counts[job["status"]] = counts.get(job["status"], 0) + 1
    return counts
