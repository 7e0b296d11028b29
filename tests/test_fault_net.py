"""Model servers that never answer, answer slowly, drop the connection mid-reply or send what is not
a chat completion (issue 31), over loopback HTTP against the real langchain-openai client.

Every call has a timeout (``llm.timeout``, set low here to keep the tests short) and a bounded retry;
what outlasts the retries is one readable line, and `generate` adds the command that resumes the run.
Each server is started on a free loopback port by the test and closed after it. ``timeout`` marks
guard the tests: before the fix a silent server held a call forever.
"""

from __future__ import annotations

import json
import threading
import time

import pytest
from typer.testing import CliRunner

from test_llm_protocols import StubServer

pytest.importorskip("langchain_openai")

from surveygraph.errors import NetworkUnavailable  # noqa: E402
from surveygraph.llm import build_role_clients  # noqa: E402
from surveygraph.llm.protocols import MODE_MEMORY, IncompleteReply  # noqa: E402
from surveygraph.settings import Settings  # noqa: E402
from tests.test_llm_protocols import Heading  # noqa: E402

pytestmark = pytest.mark.fault


class NeverAnswers(StubServer):
    """Accepts the connection, reads the request and says nothing until it is closed."""

    def __init__(self):
        self.released = threading.Event()
        super().__init__()

    def handle(self, handler, body):
        self.released.wait()

    def close(self):
        self.released.set()
        super().close()


class SlowServer(StubServer):
    """Answers every request correctly, ``delay`` seconds late."""

    def __init__(self, delay: float):
        self.delay = delay
        super().__init__()

    def handle(self, handler, body):
        time.sleep(self.delay)
        return super().handle(handler, body)


class DroppingServer(StubServer):
    """Starts each of its first ``drops`` replies, then closes the connection halfway (a server
    process killed mid-reply); answers normally after that."""

    def __init__(self, drops: int):
        self.drops = drops
        super().__init__()

    def handle(self, handler, body):
        if self.drops <= 0:
            return super().handle(handler, body)
        self.drops -= 1
        piece = b'data: {"id": "x", "object": "chat.completion.chunk", "created": 0, "model": "m", "choices": ' \
                b'[{"index": 0, "delta": {"content": "Half"}, "finish_reason": null}]}\n\n'
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream" if body.get("stream") else "application/json")
        handler.send_header("Content-Length", "100000")  # promised, never sent
        handler.end_headers()
        handler.wfile.write(piece)
        handler.wfile.flush()
        handler.close_connection = True  # returning closes the socket with the body unfinished


class MalformedServer(StubServer):
    """A 200 reply that is not a chat completion: ``kind`` = no-choices, not-json, empty-stream."""

    def __init__(self, kind: str):
        self.kind = kind
        super().__init__()

    def handle(self, handler, body):
        completion = {"id": "x", "object": "chat.completion", "created": 0, "model": "m"}
        data = {"no-choices": json.dumps({**completion, "choices": []}).encode(),
                "not-json": b'{"id": "x", "object": "chat.completion", "choices": [{"index": 0, "message": {"role": ',
                "empty-stream": b"[DONE]"}[self.kind]
        if body.get("stream"):
            data = b"data: " + data + b"\n\n"
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream" if body.get("stream") else "application/json")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)


@pytest.fixture(autouse=True)
def _fresh_mode_memory():
    MODE_MEMORY.clear()
    yield
    MODE_MEMORY.clear()


def writer_for(server: StubServer, tmp_path, monkeypatch, *, timeout: float, retries: int = 1):
    """The writer client exactly as a run builds it: settings -> factory -> LLMClient."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    settings = Settings(home=tmp_path / "home", llm={"default": "openai:gemma", "base_url": server.url, "cache": False,
                                                     "timeout": timeout, "retries": retries, "max_output_tokens": 32})
    clients = build_role_clients(settings)
    clients.writer.retry_wait_seconds = 0.01  # the backoff is tenacity's; the tests need no real wait
    return clients.writer


@pytest.mark.timeout(60)
def test_a_server_that_never_answers_times_out_and_is_retried_a_bounded_number_of_times(tmp_path, monkeypatch):
    server = NeverAnswers()
    try:
        writer = writer_for(server, tmp_path, monkeypatch, timeout=0.5, retries=1)
        for call in (lambda: writer.complete("Write a sentence.", node="write"),  # streamed (custom base URL)
                     lambda: writer.structured("Give a heading.", Heading, node="plan")):  # one JSON reply
            started = time.monotonic()
            with pytest.raises(NetworkUnavailable) as failed:
                call()
            assert time.monotonic() - started < 10
            message = str(failed.value)
            assert "did not answer within 0.5 s (2 tries)" in message and server.url in message, message
            assert "\n" not in message
    finally:
        server.close()
    assert len(server.requests) == 4  # two calls, each tried twice: bounded
    journal = writer.meter.entries()
    assert [e["retries"] for e in journal] == [1, 1] and all("did not answer" in e["error"] for e in journal)


@pytest.mark.timeout(60)
def test_a_slow_server_is_waited_for_up_to_the_timeout_and_no_longer(tmp_path, monkeypatch):
    server = SlowServer(delay=2.0)
    try:
        impatient = writer_for(server, tmp_path, monkeypatch, timeout=1.0, retries=1)
        with pytest.raises(NetworkUnavailable, match=r"did not answer within 1 s \(2 tries\).*llm\.timeout"):
            impatient.structured("Give a heading.", Heading, node="plan")
        patient = writer_for(server, tmp_path, monkeypatch, timeout=6.0, retries=1)
        heading = patient.structured("Give a heading.", Heading, node="plan")
    finally:
        server.close()
    assert heading.title == "Patch embeddings"
    assert patient.meter.entries()[-1]["retries"] == 0  # answered in time: not retried


@pytest.mark.timeout(60)
def test_a_connection_dropped_mid_reply_is_retried_then_reported_in_one_line(tmp_path, monkeypatch):
    flaky = DroppingServer(drops=1)
    try:
        writer = writer_for(flaky, tmp_path, monkeypatch, timeout=5.0, retries=1)
        text = writer.complete("Write a sentence.", node="write")  # dropped once, answered on the retry
    finally:
        flaky.close()
    assert text.startswith("word") and writer.meter.entries()[-1]["retries"] == 1

    dead = DroppingServer(drops=100)
    try:
        writer = writer_for(dead, tmp_path, monkeypatch, timeout=5.0, retries=1)
        for call in (lambda: writer.complete("Write a sentence.", node="write"),
                     lambda: writer.structured("Give a heading.", Heading, node="plan")):
            with pytest.raises(NetworkUnavailable) as failed:
                call()
            message = str(failed.value)
            assert "closed the connection before its reply was complete (2 tries)" in message, message
            assert dead.url in message and "\n" not in message
    finally:
        dead.close()
    assert len(dead.requests) == 4


@pytest.mark.parametrize("kind, streamed, says", [
    ("no-choices", False, "a reply with no choices"),
    ("not-json", False, "a reply that is not JSON"),
    ("not-json", True, "a reply that is not JSON"),
    ("empty-stream", True, "a reply stream with no message in it")])
def test_replies_that_are_not_chat_completions_are_named_not_raw(kind, streamed, says, tmp_path, monkeypatch):
    """They read "list index out of range" / "Expecting value: line 1 column 66" before."""
    server = MalformedServer(kind)
    try:
        writer = writer_for(server, tmp_path, monkeypatch, timeout=5.0, retries=1)
        with pytest.raises(IncompleteReply) as failed:
            if streamed:  # text from a custom base URL is streamed
                writer.complete("Write a sentence.", node="write")
            else:  # a structured reply is one JSON body
                writer.structured("Give a heading.", Heading, node="plan")
    finally:
        server.close()
    message = str(failed.value)
    assert f"the model server at {server.url} sent {says}" in message, message
    assert "list index out of range" not in message and "Expecting value: line" not in message
    (entry,) = writer.meter.entries()
    assert entry["retries"] == 1 and says in entry["error"]  # a glitch is retried once, then recorded


@pytest.mark.timeout(300)
def test_generate_against_a_silent_server_stops_with_one_line_and_the_resume_command(shared_data, tmp_path):
    """The issue's probe: `generate --llm openai:x` against a server that never answers waited
    2,009 s and more with no message. Now it stops after (retries + 1) x llm.timeout."""
    from surveygraph.cli import app
    from tests.generation_helpers import corpus_home

    server = NeverAnswers()
    runs = tmp_path / "runs"
    env = {"SURVEYGRAPH_LLM__BASE_URL": server.url, "SURVEYGRAPH_LLM__TIMEOUT": "1",
           "SURVEYGRAPH_LLM__RETRIES": "1", "SURVEYGRAPH_LLM__CACHE": "false",
           "SURVEYGRAPH_GENERATION__SELF_EVALUATE": "false", "OPENAI_API_KEY": "sk-test-not-a-real-key"}
    home = corpus_home(shared_data)
    try:
        done = CliRunner().invoke(app, ["--home", str(home), "generate", "Retrieval-Augmented Generation",
                                        "--llm", "openai:x", "--sections", "1", "--subsections", "1",
                                        "--out", str(runs)], env=env)
    finally:
        server.close()
    assert done.exit_code == 2, done.output[-2000:]
    errors = [line for line in done.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "did not answer within 1 s (2 tries)" in errors[0], done.output[-2000:]
    (run_dir,) = runs.iterdir()
    assert f"--resume {run_dir.name} --out {runs}" in done.output and (run_dir / "run.json").is_file()
    assert len(server.requests) == 2  # the first call, tried twice; nothing after it
