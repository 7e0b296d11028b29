"""The OpenAI-compatible protocol path against a small HTTP server that behaves like real ones.

The stub speaks the chat-completions wire format (JSON and SSE streaming) and reproduces what
llama-cpp-python's server does: 500 "response_format.type should be 'text' or 'json_object'" for
json_schema, ``max_completion_tokens`` ignored, ``max_tokens`` honoured. A real ChatOpenAI talks
to it over loopback HTTP, so request bodies, SDK retries and streaming are the real ones.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx  # noqa: F401 - imported early: a closed stream's finaliser needs it fully loaded
import pytest
from pydantic import BaseModel

pytest.importorskip("langchain_openai")

from surveygraph.errors import UserError  # noqa: E402
from surveygraph.llm import LLMClient, TokenMeter, make_chat_model  # noqa: E402
from langchain_core.messages import HumanMessage  # noqa: E402

from surveygraph.llm.protocols import MODE_MEMORY, is_refusal  # noqa: E402
from surveygraph.settings import Settings  # noqa: E402


class Heading(BaseModel):
    title: str
    query: str


class StubServer:
    """Behaviour switches: which response formats / tools it accepts, how long it rambles."""

    def __init__(self, *, accepts=("json_object",), tools=False, ramble_tokens=5000, fail_first=0,
                 fail_status=503):
        self.accepts, self.tools, self.ramble_tokens = set(accepts), tools, ramble_tokens
        self.fail_first, self.fail_status = fail_first, fail_status
        self.requests: list[dict] = []
        self.streamed_tokens = 0
        self.stream_ended = threading.Event()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                stub.requests.append(body)
                stub.handle(self, body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()

    def _send(self, handler, status, payload):
        data = json.dumps(payload).encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    def handle(self, handler, body):
        if self.fail_first > 0:
            self.fail_first -= 1
            return self._send(handler, self.fail_status, {"error": {"message": "server overloaded, try later"}})
        kind = (body.get("response_format") or {}).get("type")
        if kind and kind not in self.accepts:
            return self._send(handler, 500, {"error": {"message": "[{'type': 'literal_error', 'loc': ('body', "
                              "'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\"}]"}})
        cap = body.get("max_tokens") or self.ramble_tokens  # like llama.cpp: max_completion_tokens unread
        answer = {"title": "Patch embeddings", "query": "vision transformer patch embedding"}
        message: dict = {"role": "assistant", "content": json.dumps(answer)}
        if body.get("tools") and self.tools:
            message = {"role": "assistant", "content": None, "tool_calls": [{
                "id": "call_1", "type": "function",
                "function": {"name": body["tools"][0]["function"]["name"], "arguments": json.dumps(answer)}}]}
        elif not kind and not body.get("tools"):
            message = {"role": "assistant", "content": " ".join(["word"] * cap)}
        n_out = min(cap, len((message["content"] or "x").split()))
        if body.get("stream"):
            return self._stream(handler, message, cap)
        self._send(handler, 200, {"id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
                                  "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                                  "usage": {"prompt_tokens": 10, "completion_tokens": n_out, "total_tokens": 10 + n_out}})

    def _stream(self, handler, message, cap):
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.end_headers()

        def event(delta, finish=None):
            chunk = {"id": "x", "object": "chat.completion.chunk", "created": 0, "model": "m",
                     "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
            handler.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            handler.wfile.flush()

        try:
            if message.get("tool_calls"):
                call = message["tool_calls"][0]
                event({"role": "assistant", "tool_calls": [{"index": 0, "id": call["id"], "type": "function",
                       "function": {"name": call["function"]["name"], "arguments": ""}}]})
                for piece in (call["function"]["arguments"][:10], call["function"]["arguments"][10:]):
                    event({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]})
                    self.streamed_tokens += 1
            else:
                words = message["content"].split(" ")
                for i, word in enumerate(words[:cap]):
                    event({"content": word if i == 0 else " " + word})
                    self.streamed_tokens += 1
            event({}, "stop")
            handler.wfile.write(b"data: [DONE]\n\n")
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client hung up (it stopped at its cap)
        finally:
            self.stream_ended.set()


@pytest.fixture(autouse=True)
def _fresh_mode_memory():
    MODE_MEMORY.clear()
    yield
    MODE_MEMORY.clear()


def client_for(server: StubServer, monkeypatch, *, retries=3, max_output_tokens=64) -> tuple[LLMClient, TokenMeter]:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    settings = Settings(llm={"base_url": server.url, "max_output_tokens": max_output_tokens, "retries": retries})
    meter = TokenMeter()
    model = make_chat_model("openai:gemma", settings)
    return LLMClient(model, spec="openai:gemma", meter=meter, retries=retries, max_output_tokens=max_output_tokens,
                     retry_wait_seconds=0.01), meter


def test_json_schema_refusal_falls_back_once_and_is_remembered(monkeypatch):
    server = StubServer(accepts=("json_object",), tools=False)
    try:
        client, meter = client_for(server, monkeypatch)
        first = client.structured("Give a heading.", Heading, node="plan")
        second = client.structured("Give another heading.", Heading, node="plan")
    finally:
        server.close()
    assert first.title == second.title == "Patch embeddings"
    formats = [(r.get("response_format") or {}).get("type") or ("tools" if r.get("tools") else "none")
               for r in server.requests]
    # json_schema refused (one request, no retries), tools ignored (no tool call), then json_object
    # with the schema for grammar decoding; the second call goes straight to json_object.
    assert formats == ["json_schema", "tools", "json_object", "json_object"]
    assert "schema" in server.requests[2]["response_format"]
    modes = [(e.get("structured_mode"), e.get("parse_ok")) for e in meter.entries()]
    assert modes == [("json_schema", False), ("tools", False), ("json_object", True), ("json_object", True)]
    assert all(e.get("retries", 0) == 0 for e in meter.entries())


def test_forced_tool_call_is_used_when_json_schema_is_refused(monkeypatch):
    server = StubServer(accepts=(), tools=True)
    try:
        client, meter = client_for(server, monkeypatch)
        result = client.structured("Give a heading.", Heading, node="plan")
    finally:
        server.close()
    assert result.query.startswith("vision transformer")
    assert [bool(r.get("tools")) for r in server.requests] == [False, True]
    assert meter.entries()[-1]["structured_mode"] == "tools"


def test_output_cap_is_sent_as_max_tokens_and_enforced_when_ignored(monkeypatch):
    server = StubServer()
    try:
        client, meter = client_for(server, monkeypatch, max_output_tokens=40)
        text = client.complete("Write a paragraph.", node="write")
        body = server.requests[0]
        assert body["max_tokens"] == 40 and "max_completion_tokens" not in body
        server.requests.clear()
        # A server that ignores every cap: we stop reading at the cap and close the stream.
        server_ignoring = StubServer(ramble_tokens=50_000)
        server_ignoring.handle = _ignoring_caps(server_ignoring)
        client2, meter2 = client_for(server_ignoring, monkeypatch, max_output_tokens=40)
        capped = client2.complete("Write a paragraph.", node="write")
        assert server_ignoring.stream_ended.wait(30)
        server_ignoring.close()
    finally:
        server.close()
    assert len(text.split()) <= 40
    assert len(capped.split()) <= 40 + 16
    entry = meter2.entries()[-1]
    assert entry.get("stopped_at_cap") is True and entry["output_tokens"] <= 40 + 17
    assert server_ignoring.streamed_tokens < 50_000  # we hung up, so the server stopped writing


def _ignoring_caps(server: StubServer):
    original = server.handle

    def handle(handler, body):
        body = {k: v for k, v in body.items() if k not in ("max_tokens", "max_completion_tokens")}
        return original(handler, body)

    return handle


def test_transient_errors_are_retried_by_one_layer_only(monkeypatch):
    server = StubServer(fail_first=1, fail_status=503)
    try:
        client, meter = client_for(server, monkeypatch, retries=2)
        client.complete("Hello", node="write")
    finally:
        server.close()
    assert len(server.requests) == 2  # one failure + one success: the SDK did not retry on its own
    assert meter.entries()[-1]["retries"] == 1


def test_refused_plain_request_is_not_retried(monkeypatch):
    server = StubServer(fail_first=100, fail_status=400)
    try:
        client, _ = client_for(server, monkeypatch, retries=3)
        with pytest.raises(Exception) as info:
            client.complete("Hello", node="write")
    finally:
        server.close()
    assert len(server.requests) == 1
    assert is_refusal(info.value) and not isinstance(info.value, UserError)


def test_validation_500_is_a_refusal_but_a_plain_500_is_transient():
    import openai

    request = httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")

    def error(status, message):
        response = httpx.Response(status, request=request)
        return openai.InternalServerError(message, response=response, body=None)

    assert is_refusal(error(500, "response_format.type should be 'text' or 'json_object'"))
    assert not is_refusal(error(500, "CUDA out of memory, retry"))
    assert not is_refusal(error(503, "overloaded"))


def test_refusals_journalled_by_an_earlier_session_are_not_probed_again(monkeypatch, tmp_path):
    server = StubServer(accepts=("json_object",), tools=False)
    journal = tmp_path / "llm_calls.jsonl"
    try:
        client, meter = client_for(server, monkeypatch)
        meter.attach_journal(journal)
        client.structured("Give a heading.", Heading, node="plan")
        probes = len(server.requests)
        MODE_MEMORY.clear()  # a new process resuming the run
        resumed, resumed_meter = client_for(server, monkeypatch)
        resumed_meter.attach_journal(journal)
        resumed.structured("Give another heading.", Heading, node="plan")
    finally:
        server.close()
    assert probes == 3 and len(server.requests) == 4  # json_schema and tools were not asked again
    assert (server.requests[-1].get("response_format") or {}).get("type") == "json_object"


def test_an_empty_tool_reply_is_a_bad_reply_not_a_refusal_of_tools(monkeypatch):
    server = StubServer(accepts=(), tools=True)
    original = server.handle
    replies = iter(["normal", "empty", "normal"])

    def handle(handler, body):
        if body.get("tools") and next(replies) == "empty":
            return server._send(handler, 200, {"id": "x", "object": "chat.completion", "created": 0, "model": "m",
                                               "choices": [{"index": 0, "finish_reason": "stop",
                                                            "message": {"role": "assistant", "content": ""}}]})
        return original(handler, body)

    server.handle = handle
    try:
        client, meter = client_for(server, monkeypatch)
        client.structured("Give a heading.", Heading, node="plan")  # json_schema refused, tools works
        client.structured("Another.", Heading, node="plan")  # empty reply, then a repair turn in tools mode
    finally:
        server.close()
    last = meter.entries()[-2:]
    assert [(e["structured_mode"], e["parse_ok"]) for e in last] == [("tools", False), ("tools", True)]
    assert "refused" not in last[0]


def test_schema_sent_to_a_self_hosted_server_demands_every_field():
    from surveygraph.agents.schemas import sections_schema
    from surveygraph.llm.protocols import wire_schema

    class SelfHosted:
        openai_api_base = "http://127.0.0.1:8011/v1"

    class OpenAIApi:
        openai_api_base = None

    schema = sections_schema(2)
    sent = wire_schema(SelfHosted(), schema)
    item = sent["$defs"]["HeadingDraft"]
    assert sent["required"] == ["sections"] and sent["properties"]["sections"]["minItems"] == 1
    assert item["required"] == ["title", "description", "query"] and item["properties"]["title"]["minLength"] == 1
    assert wire_schema(OpenAIApi(), schema) == schema.model_json_schema()  # the API gets the schema as is


class CuttingServer(StubServer):
    """Text replies: the first ``bad`` streamed replies end early without a finish reason (as
    llama-cpp-python's server does to a running reply when another request arrives), or, with
    ``empty=True``, finish normally with no content."""

    def __init__(self, bad: int, empty: bool = False):
        super().__init__(ramble_tokens=16)
        self.bad, self.empty = bad, empty

    def _stream(self, handler, message, cap):
        if self.bad <= 0:
            return super()._stream(handler, message, cap)
        self.bad -= 1
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.end_headers()
        chunk = {"id": "x", "object": "chat.completion.chunk", "created": 0, "model": "m",
                 "choices": [{"index": 0, "delta": {"role": "assistant", "content": "" if self.empty else "Retrieval"},
                              "finish_reason": "stop" if self.empty else None}]}
        handler.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
        if self.empty:
            handler.wfile.write(b"data: [DONE]\n\n")
        handler.wfile.flush()  # and the stream ends: no finish reason, no [DONE] when cut


@pytest.mark.parametrize("empty", [False, True], ids=["cut-short", "empty"])
def test_a_cut_or_empty_reply_is_a_failed_call_retried_and_never_cached(monkeypatch, tmp_path, empty):
    from surveygraph.llm.cache import ResponseCache

    server = CuttingServer(bad=2, empty=empty)
    try:
        client, meter = client_for(server, monkeypatch, retries=3, max_output_tokens=16)
        client.cache = ResponseCache(tmp_path / "cache.sqlite")
        text = client.complete("Write about retrieval.", node="write")
        again = client.complete("Write about retrieval.", node="write")  # from the cache
    finally:
        server.close()
    assert text == again and len(text.split()) == 16  # the full reply, after two failed tries
    assert len(server.requests) == 3  # two cut/empty replies retried; the cache answered the second call
    assert meter.entries()[0]["retries"] == 2

    server = CuttingServer(bad=10, empty=empty)  # a server that never answers whole
    try:
        client, meter = client_for(server, monkeypatch, retries=1, max_output_tokens=16)
        client.cache = ResponseCache(tmp_path / "cache2.sqlite")
        with pytest.raises(Exception, match="cut short|empty reply"):
            client.complete("Write about retrieval.", node="write")
    finally:
        server.close()
    entry = meter.entries()[-1]
    assert entry["retries"] == 1 and ("cut short" in entry["error"] or "empty reply" in entry["error"])
    assert client.cache.get(client._key([HumanMessage("Write about retrieval.")], 16, None)) is None
