"""Shared pieces of the batch-worker tests: PostgreSQL 16 from the ``pgserver`` wheel on a free
127.0.0.1 port (stoppable and restartable, for outage tests) and a scripted batch worker process.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# A batch worker in its own process: the real corpus, retrieval, graph, checkpointer and locks, the
# scripted chat model. With SG_TEST_GATE=DIR its first subsection draft waits: it creates
# DIR/<pid>.paused and goes on once DIR/go exists, so a test can act while a job is mid-run.
WORKER = r"""
import json, os, sys, time
from pathlib import Path
import pytest
sys.path.insert(0, sys.argv[4])
from tests.generation_helpers import use_scripted_model, small_settings
from surveygraph.graphs.batch import work
from surveygraph.graphs.runner import build_deps
home, url, runs = sys.argv[1], sys.argv[2], sys.argv[3]
model = use_scripted_model(pytest.MonkeyPatch())
gate = os.environ.get("SG_TEST_GATE")
if gate:
    respond, waited = model.responder, []
    def gated(prompt):
        if "TASK: write one subsection" in prompt and not waited:
            waited.append(True)
            Path(gate, f"{os.getpid()}.paused").touch()
            deadline = time.monotonic() + 600
            while not Path(gate, "go").exists() and time.monotonic() < deadline:
                time.sleep(0.2)
        return respond(prompt)
    model.responder = gated
settings = small_settings(Path(home), sections=2, subsections=1, concurrency=1, checkpointer=url, tre=False)
deps = build_deps(settings)
print(json.dumps(work(url, "t" if len(sys.argv) < 6 else sys.argv[5], deps, runs_dir=Path(runs),
                      event=lambda m: print(m, flush=True))), flush=True)
"""


def start_worker(home: Path, url: str, runs: Path, batch: str = "t", *, log: Path | None = None,
                 **env: str) -> subprocess.Popen:
    """A scripted worker of ``batch``; its output goes to ``log`` when given (readable while it runs)."""
    repo_parent = str(Path(__file__).resolve().parents[1])
    out = open(log, "w") if log else subprocess.PIPE  # noqa: SIM115 - the child owns it
    return subprocess.Popen([sys.executable, "-c", WORKER, str(home), url, str(runs), repo_parent, batch],
                            stdout=out, stderr=subprocess.STDOUT, text=True, env={**os.environ, **env})


def wait_for(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.5)
    raise AssertionError(f"timed out waiting for {what}")


class LoopbackPostgres:
    """PostgreSQL on a free 127.0.0.1 port: pgserver starts it on a Unix socket only, so it is
    restarted listening on TCP loopback, as a server on another machine would be reached.
    ``stop()`` / ``start()`` take it away and bring it back on the same port and data.

    As root, pgserver runs the server as its own user, which must reach the data folder: that is a
    folder of its own under the system's temp dir, not under pytest's basetemp, which a concurrent
    pytest session resets to mode 0700."""

    def __init__(self):
        import pgserver

        self._root = Path(tempfile.mkdtemp(prefix="sg-pg-"))
        self._server = pgserver.get_server(self._root / "data", cleanup_mode="delete")
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        self._options = f"-h 127.0.0.1 -p {port} -k {self._server._postmaster_info.socket_dir}"
        self.url = f"postgresql://postgres@127.0.0.1:{port}/postgres"
        self._ctl(["-w", "-o", self._options, "-l", str(self._server.log), "restart"])
        self.running = True

    def _ctl(self, args: list[str]) -> None:
        from pgserver._commands import pg_ctl

        pg_ctl(args, pgdata=self._server.pgdata, user=self._server.system_user)

    def stop(self) -> None:
        """A fast shutdown, as an operator's restart does: every session ends with AdminShutdown."""
        self._ctl(["-w", "-m", "fast", "stop"])
        self.running = False

    def start(self) -> None:
        self._ctl(["-w", "-o", self._options, "-l", str(self._server.log), "start"])
        self.running = True

    def close(self) -> None:
        if self.running:
            self._ctl(["-w", "-m", "fast", "stop"])
            self.running = False
        self._server.cleanup()
        shutil.rmtree(self._root, ignore_errors=True)
