"""An OpenAI-compatible server that refuses the key, or dies mid-run (issue 20), over loopback HTTP.

The real command line in a subprocess against a stub server speaking the chat-completions wire
format (tests/test_llm_protocols.StubServer): a 401 stops `generate` within seconds with one line
naming the key variable; a server that goes away mid-run gives a non-zero exit and a resume command,
and `--resume` completes the run once a server answers on the same address again.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from test_llm_protocols import StubServer
from tests.generation_helpers import corpus_home

TOPIC = "Retrieval-Augmented Generation for Large Language Models"
ARGS = ["generate", TOPIC, "--llm", "openai:gemma", "--sections", "1", "--subsections", "1"]


def _cli(home: Path, args: list[str], url: str, timeout: float = 600) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SURVEYGRAPH_") and k != "OPENAI_API_KEY"}
    env.update(SURVEYGRAPH_HOME=str(home), SURVEYGRAPH_LLM__BASE_URL=url, SURVEYGRAPH_LLM__RETRIES="0",
               SURVEYGRAPH_LLM__CACHE="false", SURVEYGRAPH_GENERATION__SELF_EVALUATE="false",
               OPENAI_API_KEY="sk-test-not-a-real-key", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
               ANONYMIZED_TELEMETRY="False")
    return subprocess.run([sys.executable, "-m", "surveygraph", *args], capture_output=True, text=True,
                          timeout=timeout, env=env)


@pytest.fixture
def home(shared_data, tmp_path):
    target = tmp_path / "home"
    shutil.copytree(corpus_home(shared_data), target)
    return target


def test_a_refused_key_stops_the_run_within_seconds_with_one_line(home):
    server = StubServer(fail_first=10_000, fail_status=401)
    try:
        started = time.monotonic()
        done = _cli(home, ARGS, server.url)
        seconds = time.monotonic() - started
    finally:
        server.close()
    assert done.returncode == 2, done.stderr[-2000:]
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "refused the request" in errors[0] and "OPENAI_API_KEY" in errors[0], done.stderr[-2000:]
    # the README's promise: the run is kept and the command that continues it once the key is fixed
    run_id = next((home / "runs").iterdir()).name
    assert f"resume it with: surveygraph --home {home} generate --resume {run_id}" in done.stderr, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    assert len(server.requests) == 1  # the first call, not retried, and nothing after it
    assert seconds < 60, seconds  # process start and stores included; the graph stops at its first call
    assert not list((home / "runs").glob("*/survey.md"))


class DyingServer(StubServer):
    """Answers ``lives`` requests, then stops listening (a server killed mid-run)."""

    def __init__(self, lives: int, port: int = 0):
        self.lives = lives
        super().__init__()
        if port:  # rebind on a given port: the same address after a restart
            self.close()
            from http.server import ThreadingHTTPServer

            handler = self.httpd.RequestHandlerClass
            self.httpd = ThreadingHTTPServer(("127.0.0.1", port), handler)
            self.url = f"http://127.0.0.1:{port}/v1"
            import threading

            threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def handle(self, handler, body):
        self.lives -= 1
        if self.lives < 0:
            handler.close_connection = True
            import threading

            threading.Thread(target=self.close, daemon=True).start()  # gone for every later call
            return
        return super().handle(handler, body)


def test_a_server_killed_mid_run_exits_non_zero_and_resume_completes_after_a_restart(home):
    server = DyingServer(lives=2)
    port = server.httpd.server_address[1]
    try:
        stopped = _cli(home, ARGS, server.url)
    finally:
        try:
            server.close()
        except Exception:  # noqa: BLE001 - already closed by its own death
            pass
    assert stopped.returncode != 0, stopped.stdout[-1000:]
    assert "resume it with:" in stopped.stderr, stopped.stderr[-2000:]
    assert not list((home / "runs").glob("*/survey.md")), "a survey was finished on fallbacks"
    run_id = next((home / "runs").iterdir()).name

    restarted = DyingServer(lives=10_000, port=port)
    try:
        resumed = _cli(home, ["generate", "--resume", run_id], restarted.url)
    finally:
        restarted.close()
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert (home / "runs" / run_id / "survey.md").is_file()
    assert restarted.requests, "the resumed run called the restarted server"
