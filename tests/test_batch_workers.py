"""Batch generation on PostgreSQL (issue 18): two worker processes search one paper store, claim
topics from one job table and checkpoint to the same database; one is killed mid-run (SIGKILL
after its plan is checkpointed) and the other resumes that topic from its checkpoints.

The server is PostgreSQL 16 from the ``pgserver`` wheel (installed by ``make install``), listening
on a free 127.0.0.1 port for this module and deleted afterwards. The workers use the
scripted chat model (tests/scripted_llm.py) so the test runs in about a minute; everything else
(corpus, retrieval, graph, checkpointer, locks) is the real thing.
"""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest

from tests.batch_helpers import LoopbackPostgres, start_worker, wait_for
from tests.generation_helpers import corpus_home

pgserver = pytest.importorskip("pgserver", reason="pgserver (PostgreSQL wheel) is installed by `make install`")

TOPICS = ["Retrieval-Augmented Generation for Large Language Models",
          "Evaluation of Retrieval-Augmented Generation Systems"]


@pytest.fixture(scope="module")
def database():
    server = LoopbackPostgres()
    try:
        yield server.url
    finally:
        server.close()


@pytest.mark.data
def test_two_workers_one_killed_mid_run_the_other_resumes_its_topic(shared_data, database, tmp_path):
    from surveygraph.graphs.batch import status, submit

    home, runs = corpus_home(shared_data), tmp_path / "runs"
    assert submit(database, "t", TOPICS) == 2
    assert submit(database, "t", TOPICS[:1]) == 0  # queued once
    # Worker A dies (SIGKILL) right after the first checkpointed plan_subsections step.
    a = start_worker(home, database, runs, SURVEYGRAPH_CRASH_AT="after-plan_subsections")
    wait_for(lambda: any(j["status"] == "running" for j in status(database, "t")), 120, "worker A to claim")
    b = start_worker(home, database, runs)
    a_out, _ = a.communicate(timeout=600)
    assert a.returncode == -signal.SIGKILL, a_out
    b_out, _ = b.communicate(timeout=900)
    assert b.returncode == 0, b_out

    jobs = {j["topic"]: j for j in status(database, "t")}
    killed = jobs[TOPICS[0]]
    assert all(j["status"] == "done" for j in jobs.values()), jobs
    assert killed["attempts"] == 2 and jobs[TOPICS[1]]["attempts"] == 1
    assert f"resuming job {killed['id']}" in b_out and f"starting job {killed['id']}" in a_out
    # One run directory per topic: the resumed topic kept its run (no duplicated work) ...
    assert sorted(p.name for p in runs.iterdir()) == sorted(j["run_id"] for j in jobs.values())
    for job in jobs.values():
        assert Path(job["survey"]).is_file() and Path(job["survey"]).name == "survey.md"
    # ... and its plan was not made again: one plan_sections call across both workers' sessions.
    calls = [json.loads(line) for line in (runs / killed["run_id"] / "llm_calls.jsonl").read_text().splitlines()]
    assert sum(c["node"] == "plan_sections" for c in calls) == 1
    assert sum(c["node"] == "write_subsection" for c in calls) >= 2
    manifest = json.loads((runs / killed["run_id"] / "manifest.json").read_text())
    assert manifest.get("resumed") is True
    # The checkpoints are in PostgreSQL, not in the run directories.
    assert not list(runs.glob("*/checkpoints.sqlite"))


@pytest.mark.data
def test_batch_cli_reports_bad_input_in_one_line(database, tmp_path):
    from typer.testing import CliRunner

    from surveygraph.cli import app

    runner = CliRunner()
    missing = runner.invoke(app, ["batch", "submit", str(tmp_path / "none.txt"), "--db", database])
    assert missing.exit_code == 2 and "no such topics file" in missing.output
    bad_url = runner.invoke(app, ["batch", "status", "--db", "mysql://x"])
    assert bad_url.exit_code == 2 and "postgresql://" in bad_url.output
    unreachable = runner.invoke(app, ["batch", "status", "--db", "postgresql://u:secret@127.0.0.1:1/x"])
    assert unreachable.exit_code == 2 and "cannot reach the batch database" in unreachable.output
    assert "secret" not in unreachable.output
    (tmp_path / "topics.txt").write_text("# comment\nGraph Neural Networks\n\n")
    queued = runner.invoke(app, ["batch", "submit", str(tmp_path / "topics.txt"), "--db", database, "--batch", "cli"])
    assert queued.exit_code == 0 and "queued 1 of 1" in queued.output
    shown = runner.invoke(app, ["batch", "status", "--db", database, "--batch", "cli", "--json"])
    assert json.loads(shown.output)[0]["status"] == "queued"
    assert "Traceback" not in missing.output + bad_url.output + unreachable.output
