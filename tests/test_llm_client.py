"""LLMClient behaviour with scripted chat models: structured output, retries, cache, budget, meter."""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from pydantic import BaseModel, Field

from surveygraph.errors import BudgetExceeded
from surveygraph.llm import LLMClient, ResponseCache, StructuredOutputError, TokenBudget, TokenMeter
from surveygraph.llm.structured import bounded_schema, extract_json
from tests.scripted_llm import ScriptedChatModel


class Outline(BaseModel):
    title: str
    sections: list[str] = Field(min_length=2)


GOOD = json.dumps({"title": "RAG", "sections": ["Retrievers", "Generators"]})


def client(responder, **kwargs) -> tuple[LLMClient, ScriptedChatModel]:
    model = ScriptedChatModel(responder=responder)
    kwargs.setdefault("meter", TokenMeter())
    kwargs.setdefault("retry_wait_seconds", 0)
    return LLMClient(model, spec="scripted:test", **kwargs), model


def sequence(*replies):
    """A responder that returns (or raises) the given replies in order."""
    queue = list(replies)
    lock = threading.Lock()

    def respond(prompt: str) -> str:
        with lock:
            reply = queue.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return reply

    return respond


def test_complete_returns_text_and_meters_node():
    llm, model = client(lambda prompt: "  a paragraph  ")
    assert llm.complete("write", node="writer") == "a paragraph"
    row = llm.meter.by_node()["writer"]
    assert row["calls"] == 1 and row["input_tokens"] > 0 and row["output_tokens"] > 0
    assert row["estimated_calls"] == 0  # usage_metadata came from the model
    assert len(model.calls) == 1


def test_structured_repairs_bad_json_then_validates():
    llm, model = client(sequence("not json at all", "```json\n" + GOOD + "\n```"))
    result = llm.structured("outline please", Outline, node="outline")
    assert result == Outline(title="RAG", sections=["Retrievers", "Generators"])
    assert len(model.calls) == 2
    # The repair prompt shows the model its bad reply and the error.
    assert "not json at all" in model.calls[1] and "could not be used" in model.calls[1]
    assert llm.meter.by_node()["outline"]["calls"] == 2


def test_structured_repair_names_the_validation_error():
    llm, model = client(sequence(json.dumps({"title": "RAG", "sections": ["only one"]}), GOOD))
    assert llm.structured("outline", Outline, node="outline").sections == ["Retrievers", "Generators"]
    assert "sections" in model.calls[1]


def test_structured_gives_up_after_bounded_retries():
    llm, model = client(lambda prompt: "{broken", retries=2)
    with pytest.raises(StructuredOutputError, match="Outline"):
        llm.structured("outline", Outline, node="outline")
    assert len(model.calls) == 3  # first try + 2 repairs


def test_provider_exception_is_retried():
    llm, model = client(sequence(RuntimeError("rate limited"), RuntimeError("503"), "fine"), retries=3)
    assert llm.complete("hello", node="n") == "fine"
    assert len(model.calls) == 3
    assert llm.meter.total()["calls"] == 1  # only the call that returned is metered


def test_provider_exception_reraised_when_retries_run_out():
    llm, model = client(lambda prompt: (_ for _ in ()).throw(RuntimeError("down")), retries=1)
    with pytest.raises(RuntimeError, match="down"):
        llm.complete("hello", node="n")
    assert len(model.calls) == 2


def test_cache_hit_skips_model_and_meters_cached(tmp_path):
    cache = ResponseCache(tmp_path / "llm")
    llm, model = client(lambda prompt: GOOD, cache=cache)
    first = llm.structured("outline", Outline, node="outline")
    second = llm.structured("outline", Outline, node="outline")
    assert first == second and len(model.calls) == 1
    row = llm.meter.by_node()["outline"]
    assert row["calls"] == 2 and row["cached_calls"] == 1
    # A cache hit spends nothing: totals equal the single real call.
    assert row["input_tokens"] == llm.meter.entries()[0]["input_tokens"]

    # The cache is on disk: a new client (a re-run) replays for free.
    rerun, rerun_model = client(lambda prompt: "unused", cache=ResponseCache(tmp_path / "llm"))
    assert rerun.structured("outline", Outline, node="outline") == first
    assert rerun_model.calls == [] and rerun.meter.total()["cost_usd"] == 0.0
    # A different prompt or schema misses.
    assert rerun.complete("something else", node="n") == "unused"


def test_cache_separates_text_and_parameters(tmp_path):
    cache = ResponseCache(tmp_path)
    llm, model = client(lambda prompt: "text", cache=cache)
    llm.complete("p", node="n")
    llm.complete("p", node="n", max_tokens=7)
    assert len(model.calls) == 2 and len(cache) == 2


def test_budget_stops_before_the_call_that_would_exceed():
    budget = TokenBudget(60)
    llm, model = client(lambda prompt: "x" * 80, budget=budget)  # ~20 output tokens per call
    llm.complete("p" * 40, node="n")  # ~10 + ~20 tokens
    spent = budget.spent
    assert 0 < spent < 60
    with pytest.raises(BudgetExceeded):
        llm.complete("q" * 400, node="n")  # this prompt alone (~100 tokens) would exceed
    assert len(model.calls) == 1
    llm.complete("r" * 40, node="n")  # still room for a small call
    with pytest.raises(BudgetExceeded):
        llm.complete("s", node="n")  # spent >= max now
    assert len(model.calls) == 2 and budget.spent >= 60


def test_budget_unlimited_and_cache_hits_free(tmp_path):
    budget = TokenBudget(None)
    budget.check(10**9)
    cache = ResponseCache(tmp_path)
    tight = TokenBudget(30)
    llm, model = client(lambda prompt: "y" * 200, cache=cache, budget=tight)
    llm.complete("hello", node="n")
    # Over budget now, but an identical (cached) call costs nothing and is still served.
    assert llm.complete("hello", node="n") == "y" * 200
    with pytest.raises(BudgetExceeded):
        llm.complete("new prompt", node="n")


def test_meter_costs_and_estimates():
    meter = TokenMeter()
    meter.record("outline", model="openai:gpt-4o-mini", input_tokens=1_000_000, output_tokens=1_000_000, seconds=1.0)
    meter.record("outline", model="openai:gpt-4o-mini", input_tokens=5, output_tokens=5, seconds=0.1, cached=True)
    meter.record("write", model="local", input_tokens=10, output_tokens=10, seconds=2.0, estimated=True)
    meter.record("judge", model="openai:some-unknown-model", input_tokens=10, output_tokens=10, seconds=1.0)
    nodes = meter.by_node()
    assert nodes["outline"]["cost_usd"] == pytest.approx(0.75)
    assert nodes["outline"]["cached_calls"] == 1 and nodes["outline"]["input_tokens"] == 1_000_000
    assert nodes["write"]["cost_usd"] == 0.0 and nodes["write"]["estimated_calls"] == 1
    assert nodes["judge"]["cost_usd"] is None
    assert meter.total()["calls"] == 4 and meter.total()["cost_usd"] is None
    blob = json.dumps(meter.to_dict())
    assert "by_model" in json.loads(blob)


def test_estimated_usage_when_model_reports_none():
    class NoUsage(ScriptedChatModel):
        def _generate(self, messages, stop=None, run_manager=None, **kwargs):
            result = super()._generate(messages, stop, run_manager, **kwargs)
            result.generations[0].message.usage_metadata = None
            return result

    llm = LLMClient(NoUsage(responder=lambda p: "abcd" * 10), spec="scripted:x", meter=TokenMeter())
    llm.complete("p" * 40, node="n")
    entry = llm.meter.entries()[0]
    assert entry["estimated"] and entry["output_tokens"] == 10


def test_threads_share_one_client(tmp_path):
    llm, model = client(lambda prompt: prompt.split(":")[-1].strip()[::-1], cache=ResponseCache(tmp_path),
                        budget=TokenBudget(10**6))
    prompts = [f"item {i}" for i in range(40)]
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda p: llm.complete(p, node=f"node{len(p) % 3}"), prompts))
    assert results == [p[::-1] for p in prompts]
    assert llm.meter.total()["calls"] == 40 and len(model.calls) == 40
    assert sum(row["calls"] for row in llm.meter.by_node().values()) == 40
    assert llm.budget.spent == llm.meter.total()["input_tokens"] + llm.meter.total()["output_tokens"]


def test_extract_json_variants():
    assert extract_json('Sure! {"a": 1} hope that helps') == {"a": 1}
    assert extract_json("```json\n[1, 2]\n```") == [1, 2]
    with pytest.raises(ValueError):
        extract_json("no braces here")


def test_bounded_schema_caps_only_unbounded():
    schema = Outline.model_json_schema()
    capped = bounded_schema(schema, 100, 5)
    assert capped["properties"]["title"]["maxLength"] == 100
    assert capped["properties"]["sections"]["maxItems"] == 5
    assert "maxLength" not in schema["properties"]["title"]  # original untouched
    assert bounded_schema(schema, None, None) == schema


class NativeStructured(ScriptedChatModel):
    """Stands in for an API model with provider-native structured output."""

    def with_structured_output(self, schema, *, include_raw=False, **kwargs):
        from langchain_core.runnables import RunnableLambda

        def run(messages):
            result = self.invoke(messages)
            try:
                return {"raw": result, "parsed": schema.model_validate_json(result.content), "parsing_error": None}
            except Exception as exc:  # providers report parse failures instead of raising
                return {"raw": result, "parsed": None, "parsing_error": exc}

        return RunnableLambda(run)


def test_native_structured_output_used_and_metered():
    model = NativeStructured(responder=lambda p: GOOD)
    llm = LLMClient(model, spec="openai:gpt-4o-mini", meter=TokenMeter(), retry_wait_seconds=0)
    assert llm.structured("outline", Outline, node="outline").title == "RAG"
    assert len(model.calls) == 1 and "JSON schema" not in model.calls[0]  # no prompt-side schema needed
    row = llm.meter.by_node()["outline"]
    assert row["calls"] == 1 and row["input_tokens"] > 0 and row["cost_usd"] > 0


def test_native_structured_failure_falls_back_to_repair():
    model = NativeStructured(responder=sequence("nope", GOOD))
    llm = LLMClient(model, spec="openai:gpt-4o-mini", meter=TokenMeter(), retries=2, retry_wait_seconds=0)
    assert llm.structured("outline", Outline, node="outline").sections == ["Retrievers", "Generators"]
    assert len(model.calls) == 2 and "JSON schema" in model.calls[1]


def test_meter_journal_carries_calls_across_sessions(tmp_path):
    from surveygraph.llm import TokenMeter

    journal = tmp_path / "llm_calls.jsonl"
    first = TokenMeter()
    assert first.attach_journal(journal) == []
    first.record("plan", model="local", input_tokens=100, output_tokens=10, seconds=1.0)
    first.record("write", model="local", input_tokens=50, output_tokens=5, seconds=1.0, cached=True)
    with journal.open("a") as fh:
        fh.write('{"node": "write", "model": "lo')  # the line a crash cut off
    second = TokenMeter()
    assert len(second.attach_journal(journal)) == 2
    second.record("write", model="local", input_tokens=40, output_tokens=4, seconds=1.0)
    total = second.total()
    assert total["calls"] == 3 and total["cached_calls"] == 1
    assert (total["input_tokens"], total["output_tokens"]) == (140, 14)
    assert len(TokenMeter().attach_journal(journal)) == 3  # the call after the cut-off line survives


def test_provider_errors_are_classified_by_type_not_name():
    """langchain-openai 1.x raises OpenAIConnectionError / OpenAIAuthenticationError /
    OpenAIModelNotFoundError (issue 20): matched through langchain-core's typed hierarchy."""
    httpx = pytest.importorskip("httpx")
    base = pytest.importorskip("langchain_openai.chat_models.base")
    from surveygraph.llm.client import error_kind

    request = httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions")

    def status(cls, code):
        return cls(f"HTTP {code}", response=httpx.Response(code, request=request), body=None)

    assert error_kind(base.OpenAIConnectionError(request=request)) == "network"
    assert error_kind(base.OpenAITimeoutError(request=request)) == "network"
    assert error_kind(status(base.OpenAIAuthenticationError, 401)) == "config"
    assert error_kind(status(base.OpenAIModelNotFoundError, 404)) == "config"
    assert error_kind(status(base.OpenAIPermissionDeniedError, 403)) == "config"
    assert error_kind(status(base.OpenAIInvalidRequestError, 400)) == "invalid"
    assert error_kind(ConnectionRefusedError()) == "network"
    assert error_kind(ValueError("bad json")) is None
