"""Talking to OpenAI-compatible servers (OpenAI, vLLM, LM Studio, llama.cpp server, Ollama's /v1).

Servers differ in what they accept, so a structured call walks a ladder of request modes:

1. ``json_schema`` — ``response_format: {"type": "json_schema", ...}`` (OpenAI, vLLM, LM Studio);
2. ``tools``       — one forced function call whose parameters are the schema (most servers;
   llama-cpp-python's server constrains the arguments with a grammar);
3. ``json_object`` — ``response_format: {"type": "json_object", "schema": ...}`` (llama-cpp-python
   reads ``schema`` and constrains decoding to it; others give plain JSON mode);
4. ``prompted``    — no response format: the schema is in the prompt and bad JSON gets a repair turn.

A mode the server *refuses* (a 4xx, or a 5xx whose message is a request-validation error) is
remembered per server (base URL + model) for the rest of the process, so a run probes each
server once. Output caps go out as ``max_tokens`` in the request body for custom base URLs:
langchain-openai renames ``max_tokens`` to ``max_completion_tokens``, which llama.cpp's server
and older vLLM / Ollama builds ignore.
"""

from __future__ import annotations

import json
import re
import threading
from typing import Any

from langchain_core.messages.utils import message_chunk_to_message
from pydantic import BaseModel

from .structured import bounded_schema

MODES = ("json_schema", "tools", "json_object", "prompted")

# Caps for unbounded strings / arrays in the schema sent to self-hosted servers, whose grammar
# decoding would otherwise let a small model write one string until max_tokens (same idea and
# values as the in-process local model). Pydantic still validates against the original schema.
SERVER_MAX_STRING = 300
SERVER_MAX_ITEMS = 10

# HTTP statuses that are worth retrying: timeouts, conflicts, rate limits, overloaded gateways.
_TRANSIENT_STATUS = {408, 409, 425, 429, 500, 502, 503, 504, 529}
# A 5xx whose message reads like request validation will fail again identically (llama-cpp-python
# answers 500 "response_format.type should be 'text' or 'json_object'" to json_schema).
_VALIDATION_TEXT = re.compile(
    r"response_format|json_schema|tool_choice|\btools?\b|should be|not supported|unsupported|"
    r"validation|invalid|unrecognized|unknown (?:field|parameter|argument)|literal_error|extra inputs",
    re.IGNORECASE,
)


def is_openai_compatible(model: Any) -> bool:
    """A langchain-openai chat model (ChatOpenAI, AzureChatOpenAI and subclasses)."""
    return any(cls.__name__ == "BaseChatOpenAI" for cls in type(model).__mro__)


def custom_base_url(model: Any) -> str | None:
    """The base URL of a self-hosted OpenAI-compatible server, None for the OpenAI API itself."""
    url = getattr(model, "openai_api_base", None)
    if not url or "api.openai.com" in url:
        return None
    return str(url).rstrip("/")


def server_key(model: Any) -> str:
    base = custom_base_url(model) or "https://api.openai.com/v1"
    return f"{base}|{getattr(model, 'model_name', '')}"


def status_of(exc: BaseException) -> int | None:
    status = getattr(exc, "status_code", None)
    if status is None:
        status = getattr(getattr(exc, "response", None), "status_code", None)
    return int(status) if isinstance(status, int) else None


def is_refusal(exc: BaseException) -> bool:
    """The server rejected the request itself: sending it again cannot succeed."""
    status = status_of(exc)
    if status is None:
        return False
    if 400 <= status < 500:
        return status not in _TRANSIENT_STATUS
    return bool(_VALIDATION_TEXT.search(str(exc)))


# Refusals that say nothing about the request *mode*: another mode would fail the same way.
_NOT_ABOUT_MODE = re.compile(r"context (?:length|window)|maximum context|too many tokens|exceeds? the|"
                             r"prompt is too long|rate limit|quota", re.IGNORECASE)


def is_mode_refusal(exc: BaseException) -> bool:
    """The server refused this structured-output mode (so the next mode may work)."""
    status = status_of(exc)
    if status in (401, 403, 404, 413) or not is_refusal(exc):
        return False
    return not _NOT_ABOUT_MODE.search(str(exc))


class ModeMemory:
    """Per server: the structured-output modes it refused (process-wide, thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._refused: dict[str, dict[str, str]] = {}
        self._working: dict[str, set[str]] = {}

    def usable(self, key: str) -> list[str]:
        with self._lock:
            refused = self._refused.get(key, {})
        return [mode for mode in MODES if mode not in refused]

    def refuse(self, key: str, mode: str, reason: str) -> None:
        if mode == "prompted":
            return  # plain chat is the floor; a refusal there is a real error
        with self._lock:
            if mode in self._working.get(key, set()):
                return  # it worked before: this failure is about one reply, not the mode
            self._refused.setdefault(key, {})[mode] = reason[:300]

    def confirm(self, key: str, mode: str) -> None:
        """``mode`` produced a parsed reply on this server."""
        with self._lock:
            self._working.setdefault(key, set()).add(mode)

    def refused(self, key: str) -> dict[str, str]:
        with self._lock:
            return dict(self._refused.get(key, {}))

    def clear(self) -> None:
        with self._lock:
            self._refused.clear()
            self._working.clear()


MODE_MEMORY = ModeMemory()


def wire_schema(model: Any, schema: type[BaseModel]) -> dict[str, Any]:
    """The schema sent to the server. For self-hosted servers (which decode under a grammar built
    from it) unbounded strings/arrays get caps, every field is required, every list has an item
    and every string a character: with optional fields a small model's cheapest grammatical reply
    is ``{}``. Pydantic validates the reply against the original schema."""
    json_schema = schema.model_json_schema()
    if custom_base_url(model):
        return _demanding(bounded_schema(json_schema, SERVER_MAX_STRING, SERVER_MAX_ITEMS))
    return json_schema


def _demanding(node: Any) -> Any:
    if isinstance(node, list):
        return [_demanding(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _demanding(value) for key, value in node.items()}
    if out.get("type") == "object" and isinstance(out.get("properties"), dict):
        out["required"] = list(out["properties"])
    if out.get("type") == "array" and out.get("maxItems", 1) >= 1:
        out["minItems"] = max(1, int(out.get("minItems", 0)))
    if out.get("type") == "string" and not {"enum", "const", "pattern", "format"} & out.keys() \
            and out.get("maxLength", 1) >= 1:
        out["minLength"] = max(1, int(out.get("minLength", 0)))
    return out


def request_kwargs(model: Any, limit: int, temperature: float | None, mode: str | None = None,
                   schema: type[BaseModel] | None = None) -> dict[str, Any]:
    """Call kwargs for ``model.invoke`` / ``model.stream``: the output cap in the form the target
    reads, and the body fields of a structured ``mode``."""
    kwargs: dict[str, Any] = {}
    body: dict[str, Any] = dict(getattr(model, "extra_body", None) or {})
    if custom_base_url(model):
        body["max_tokens"] = limit
    else:
        kwargs["max_tokens"] = limit  # sent as max_completion_tokens, which the OpenAI API reads
    if temperature is not None and getattr(model, "temperature", None) != temperature:
        kwargs["temperature"] = temperature
    if mode in ("json_schema", "tools", "json_object") and schema is not None:
        parameters = wire_schema(model, schema)
        name = schema.__name__
        if mode == "json_schema":
            body["response_format"] = {"type": "json_schema", "json_schema": {"name": name, "schema": parameters}}
        elif mode == "tools":
            body["tools"] = [{"type": "function", "function": {
                "name": name, "description": f"Return the {name} object.", "parameters": parameters}}]
            body["tool_choice"] = {"type": "function", "function": {"name": name}}
        else:
            body["response_format"] = {"type": "json_object", "schema": parameters}
    if body:
        kwargs["extra_body"] = body
    return kwargs


class NoToolCall(ValueError):
    """The reply to a forced tool call carried no tool call (the server ignored ``tools``)."""


def reply_json_text(message: Any, mode: str) -> str:
    """The JSON text of a reply: the forced tool call's arguments, or the message text."""
    if mode == "tools":
        calls = getattr(message, "tool_calls", None) or []
        if calls:
            return json.dumps(calls[0].get("args", {}))
        invalid = getattr(message, "invalid_tool_calls", None) or []
        if invalid:
            return str(invalid[0].get("args") or "")
        text = getattr(message, "content", "")
        if isinstance(text, str) and text.strip():
            raise NoToolCall("the server answered a forced tool call with text, not a tool call")
        raise ValueError("empty reply (no tool call)")
    content = getattr(message, "content", "")
    if isinstance(content, str):
        return content
    return "".join(block.get("text", "") if isinstance(block, dict) else str(block) for block in content)


class IncompleteReply(RuntimeError):
    """A reply with no content, or one the server cut short: a failed call (retried, never cached)."""


class MalformedReply(IncompleteReply):
    """A reply that is not a chat completion (not JSON, no choices, an empty stream). The SDK
    reports these as "list index out of range" or "Expecting value: line 1 column 66"; this says
    what the server sent instead."""


def malformed_reply(exc: BaseException, where: str) -> MalformedReply | None:
    """The readable form of an SDK's failure to read a reply, None for any other error."""
    if isinstance(exc, json.JSONDecodeError):
        return MalformedReply(f"the model server{where} sent a reply that is not JSON "
                              f"({exc.msg} at character {exc.pos})")
    if isinstance(exc, IndexError):  # choices[0] of a reply with no choices
        return MalformedReply(f"the model server{where} sent a reply with no choices (not a chat completion)")
    if isinstance(exc, ValueError) and "no generation chunks" in str(exc).lower():  # langchain-core's words
        return MalformedReply(f"the model server{where} sent a reply stream with no message in it")
    return None


def stream_with_cap(model: Any, messages: list, kwargs: dict[str, Any], max_pieces: int, prompt_tokens: int) -> Any:
    """Stream a reply and hang up after ``max_pieces`` chunks: a server that ignores max_tokens
    cannot run on for minutes (closing the stream closes the HTTP response, and the server stops).

    Servers that report no usage when streaming get an estimate: one chunk is one token of text,
    and a tool call, which may arrive in a few big chunks, counts by its length too."""
    total, pieces, stopped = None, 0, False
    stream = model.stream(messages, **kwargs)
    try:
        for chunk in stream:
            total = chunk if total is None else total + chunk
            if chunk.content or getattr(chunk, "tool_call_chunks", None):
                pieces += 1
            if pieces > max_pieces:
                stopped = True
                break
    finally:
        stream.close()
    if total is None:
        raise IncompleteReply("the server sent no reply chunks")
    message = message_chunk_to_message(total)
    updates: dict[str, Any] = {}
    metadata = dict(message.response_metadata)
    if not message.usage_metadata:
        arguments = "".join(json.dumps(call.get("args", {})) for call in message.tool_calls)
        output_tokens = max(pieces, len(arguments) // 4) if arguments else pieces
        updates["usage_metadata"] = {"input_tokens": prompt_tokens, "output_tokens": output_tokens,
                                     "total_tokens": prompt_tokens + output_tokens}
        metadata["usage_estimated"] = True
    if stopped:
        metadata["stopped_at_cap"] = True
    elif not metadata.get("finish_reason"):
        # The server closed the stream before saying why it stopped: llama-cpp-python's server does
        # this to a running reply when another request arrives (its default --interrupt_requests).
        raise IncompleteReply("the server ended the reply stream without a finish reason (cut short)")
    if metadata != message.response_metadata:
        updates["response_metadata"] = metadata
    return message.model_copy(update=updates) if updates else message
