"""Batch workers through a database outage (issue 31): PostgreSQL is stopped (fast shutdown, every
session ends with AdminShutdown) under two running workers.

- It comes back: both workers reconnect, take their own job back and finish it from its last
  checkpoint (same run, plan not redone, no attempt counted), and exit 0.
- It stays away past generation.db_outage_limit: ``batch work --workers 2`` ends with one line per
  worker and one of its own, non-zero, no traceback; the interrupted jobs stay resumable and a
  later ``batch work --workers 2`` finishes them in their runs and exits 0.

The server is PostgreSQL 16 from the ``pgserver`` wheel on a free 127.0.0.1 port (tests/batch_helpers.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.batch_helpers import LoopbackPostgres, start_worker, wait_for
from tests.generation_helpers import corpus_home

pytest.importorskip("pgserver", reason="pgserver (PostgreSQL wheel) is installed by `make install`")
pytestmark = pytest.mark.fault

TOPICS = ["Retrieval-Augmented Generation for Large Language Models",
          "Evaluation of Retrieval-Augmented Generation Systems"]


@pytest.fixture
def postgres():
    server = LoopbackPostgres()
    try:
        yield server
    finally:
        server.close()


def _calls(run_dir: Path, node: str) -> int:
    lines = (run_dir / "llm_calls.jsonl").read_text().splitlines()
    return sum(json.loads(line)["node"] == node for line in lines)


@pytest.mark.data
def test_two_workers_reconnect_after_a_restart_and_finish_their_own_jobs(shared_data, postgres, tmp_path):
    from surveygraph.graphs.batch import status, submit

    home, runs, gate = corpus_home(shared_data), tmp_path / "runs", tmp_path / "gate"
    gate.mkdir()
    submit(postgres.url, "t", TOPICS)
    logs = [tmp_path / "a.log", tmp_path / "b.log"]
    # generation.db_outage_limit is left at its default (300 s): the server is back well before.
    workers = [start_worker(home, postgres.url, runs, log=log, SG_TEST_GATE=str(gate)) for log in logs]
    # Both workers are writing their first subsection (plan checkpointed) when the database stops.
    wait_for(lambda: len(list(gate.glob("*.paused"))) == 2 or any(w.poll() is not None for w in workers),
             600, "both workers to reach their first subsection")
    before = {j["topic"]: j for j in status(postgres.url, "t")}
    assert all(j["status"] == "running" and j["run_id"] for j in before.values()), before
    postgres.stop()
    (gate / "go").touch()  # the drafts finish; their checkpoint write meets the stopped server
    wait_for(lambda: all("batch database lost" in log.read_text() for log in logs)
             or any(w.poll() is not None for w in workers), 300, "both workers to notice the outage")
    assert all(w.poll() is None for w in workers), [log.read_text()[-3000:] for log in logs]
    postgres.start()
    for worker in workers:
        worker.wait(timeout=900)
    outputs = [log.read_text() for log in logs]
    assert [w.returncode for w in workers] == [0, 0], [o[-3000:] for o in outputs]
    assert all("reconnected" in o and "Traceback" not in o for o in outputs), outputs

    after = {j["topic"]: j for j in status(postgres.url, "t")}
    for topic, job in after.items():
        # Each job was finished by the worker that had it, in the run it had: the outage is not
        # an attempt, no second run directory, and the checkpointed plan was not made again.
        assert job["status"] == "done", job
        assert (job["run_id"], job["worker"], job["attempts"]) == (before[topic]["run_id"], before[topic]["worker"], 1)
        assert f"job {job['id']} done" in next(o for o in outputs if f"starting job {job['id']}" in o)
        run_dir = runs / job["run_id"]
        assert _calls(run_dir, "plan_sections") == 1
        assert Path(job["survey"]).is_file()
        assert json.loads((run_dir / "manifest.json").read_text()).get("resumed") is True
    assert sorted(p.name for p in runs.iterdir()) == sorted(j["run_id"] for j in after.values())


def _batch_work(home: Path, url: str, runs: Path, log: Path, **env: str) -> subprocess.Popen:
    """``surveygraph batch work --workers 2`` as a user runs it (the default local model, whose
    drafts are skipped, so the workers run the real CLI without a scripted model)."""
    command = [sys.executable, "-m", "surveygraph", "--home", str(home), "batch", "work", "--db", url,
               "--batch", "away", "--workers", "2", "--out", str(runs), "--sections", "2", "--subsections", "1"]
    return subprocess.Popen(command, stdout=open(log, "w"), stderr=subprocess.STDOUT, text=True,  # noqa: SIM115
                            env={**os.environ, **env})


@pytest.mark.data
def test_batch_work_gives_up_in_one_line_when_the_database_stays_away(shared_data, postgres, tmp_path):
    from surveygraph.graphs.batch import status, submit

    home, runs = corpus_home(shared_data), tmp_path / "runs"
    submit(postgres.url, "away", TOPICS)
    first = _batch_work(home, postgres.url, runs, tmp_path / "first.log", SURVEYGRAPH_GENERATION__DB_OUTAGE_LIMIT="6")
    running = wait_for(lambda: (lambda jobs: jobs if all(j["run_id"] for j in jobs) else None)(
        status(postgres.url, "away")) if first.poll() is None else ["exited"], 600, "both jobs to start")
    assert first.poll() is None, (tmp_path / "first.log").read_text()[-3000:]
    postgres.stop()
    first.wait(timeout=300)
    output = (tmp_path / "first.log").read_text()
    assert first.returncode != 0 and "Traceback" not in output, output[-3000:]
    errors = [line for line in output.splitlines() if line.startswith("error:")]
    # One line per worker naming the setting, and one from `batch work` itself.
    assert sum("generation.db_outage_limit" in line for line in errors) == 2, output[-3000:]
    assert any("2 of 2 workers" in line for line in errors), output[-3000:]

    postgres.start()
    again = _batch_work(home, postgres.url, runs, tmp_path / "again.log")
    again.wait(timeout=900)
    output = (tmp_path / "again.log").read_text()
    assert again.returncode == 0, output[-3000:]
    jobs = status(postgres.url, "away")
    assert all(j["status"] == "done" for j in jobs), jobs
    # The jobs were resumed in the runs the first workers began, not started again.
    assert sorted(j["run_id"] for j in jobs) == sorted(j["run_id"] for j in running)
    assert sorted(p.name for p in runs.iterdir()) == sorted(j["run_id"] for j in jobs)


def test_a_server_lost_in_the_middle_of_status_is_one_line(postgres, monkeypatch):
    """`batch status` (and the progress of `batch work --workers N`, which polls it) when the
    server ends the session between connecting and querying: one line, not AdminShutdown."""
    from typer.testing import CliRunner

    import surveygraph.graphs.batch as batch
    from surveygraph.cli import app
    from surveygraph.errors import UserError

    real_connect = batch.connect

    def connect_then_lose(url, **options):
        conn = real_connect(url, **options)
        with real_connect(url) as admin:  # what a fast shutdown does to every session
            admin.execute("SELECT pg_terminate_backend(%s)", (conn.info.backend_pid,))
        return conn

    monkeypatch.setattr(batch, "connect", connect_then_lose)
    with pytest.raises(UserError, match="lost the batch database"):
        batch.status(postgres.url, "t")
    shown = CliRunner().invoke(app, ["batch", "status", "--db", postgres.url])
    assert shown.exit_code == 2 and "lost the batch database" in shown.output, shown.output
    assert "Traceback" not in shown.output and len(shown.output.strip().splitlines()) == 1
