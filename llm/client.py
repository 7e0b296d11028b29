"""LLMClient: one role's model with caching, metering, a token budget, retries and structured output."""

from __future__ import annotations

import time
from typing import Any, Sequence, TypeVar

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from pydantic import BaseModel
from tenacity import Retrying, retry_if_exception, stop_after_attempt, wait_exponential

from ..errors import BudgetExceeded, ModelRefused, NetworkUnavailable, UserError
from ..sanitize import redact_text
from .budget import TokenBudget
from .cache import ResponseCache, cache_key
from .local import LlamaCppChatModel
from .meter import TokenMeter, estimate_tokens
from .protocols import (MODE_MEMORY, IncompleteReply, NoToolCall, custom_base_url, is_mode_refusal, is_openai_compatible, is_refusal,
                        malformed_reply, reply_json_text, request_kwargs, server_key, stream_with_cap)
from .structured import StructuredOutputError, parse_structured, repair_instruction, schema_instruction

T = TypeVar("T", bound=BaseModel)

# Errors that retrying cannot fix: programming errors and our own control-flow exceptions.
_NOT_RETRIED = (UserError, BudgetExceeded, StructuredOutputError, TypeError, AttributeError, KeyError, NotImplementedError)
# Provider errors by kind, matched against every class in an error's MRO (an isinstance test that
# needs no SDK import): langchain-core's typed hierarchy (ModelConnectionError, ...), which current
# integrations raise (langchain-openai's OpenAIConnectionError subclasses it), and the SDK classes of
# providers that predate it (openai.APIConnectionError, anthropic.AuthenticationError, httpx.ConnectError).
_CONFIG_ERROR_NAMES = ("AuthenticationError", "PermissionDeniedError", "NotFoundError",
                       "ModelAuthenticationError", "ModelPermissionDeniedError", "ModelNotFoundError")
_NETWORK_ERROR_NAMES = ("APIConnectionError", "ConnectError", "ConnectionError", "APITimeoutError", "Timeout",
                        "ModelConnectionError", "ModelTimeoutError", "ConnectTimeout", "ReadTimeout",
                        # httpx's own errors reach us raw from a stream the SDK reads lazily: a server
                        # that drops the connection mid-reply is RemoteProtocolError / ReadError
                        "TransportError")
_TIMEOUT_ERROR_NAMES = ("APITimeoutError", "Timeout", "TimeoutException", "ModelTimeoutError", "ReadTimeout",
                        "ConnectTimeout", "TimeoutError")
_DROPPED_ERROR_NAMES = ("RemoteProtocolError", "ReadError")
_INVALID_REQUEST_NAMES = ("BadRequestError", "UnprocessableEntityError", "ModelInvalidRequestError")


def error_kind(exc: BaseException) -> str | None:
    """'config' (fix the key / model name), 'network' (server unreachable or too slow), 'invalid'
    (the server refused this request) or None, by type, not by the name of the raised class."""
    names = {cls.__name__ for cls in type(exc).__mro__}
    if names & set(_CONFIG_ERROR_NAMES):
        return "config"
    if isinstance(exc, (ConnectionError, TimeoutError)) or names & set(_NETWORK_ERROR_NAMES):
        return "network"
    if names & set(_INVALID_REQUEST_NAMES):
        return "invalid"
    return None


# A reply may run this many tokens past its cap before we cut it (tokenizers and servers count
# slightly differently; a real overrun is hundreds or thousands of tokens).
CAP_SLACK_TOKENS = 16


def _is_transient(exc: BaseException) -> bool:
    """Only errors a second try can fix: no programming errors, no request the server refused."""
    if not isinstance(exc, Exception):  # Ctrl-C (KeyboardInterrupt), SystemExit: stop, never retry
        return False
    if isinstance(exc, _NOT_RETRIED) or is_refusal(exc):
        return False
    return error_kind(exc) not in ("config", "invalid")


def _network_message(exc: BaseException, spec: str, where: str, tries: int, timeout: float | None) -> str:
    """One line for a network failure that outlasted the retries: what happened, where, how often."""
    names: set[str] = set()
    cause: BaseException | None = exc
    for _ in range(5):  # the SDK wraps httpx's error (APIConnectionError from RemoteProtocolError)
        if cause is None:
            break
        names |= {cls.__name__ for cls in type(cause).__mro__}
        cause = cause.__cause__ or cause.__context__
    attempts = f"{tries} {'try' if tries == 1 else 'tries'}"
    if names & set(_TIMEOUT_ERROR_NAMES):
        limit = f"within {timeout:g} s" if timeout else "in time"
        return (f"the model '{spec}'{where} did not answer {limit} ({attempts}); a slow server needs a larger "
                "llm.timeout (SURVEYGRAPH_LLM__TIMEOUT)")
    if names & set(_DROPPED_ERROR_NAMES):
        return f"the model server{where} closed the connection before its reply was complete ({attempts})"
    return f"could not reach the model '{spec}'{where} ({attempts}): {exc}"


def _endpoint(model: Any) -> str:
    """' at <url>' for a client with a custom base URL (what to check when it is unreachable)."""
    url = custom_base_url(model) if is_openai_compatible(model) else None
    return f" at {url}" if url else ""


def _cut_to_tokens(text: str, output_tokens: int, limit: int) -> str:
    """The first ``limit`` of ``output_tokens`` tokens of ``text`` (proportional, by characters)."""
    return text[: max(1, len(text) * limit // max(1, output_tokens))]


def _text_of(message: Any) -> str:
    content = getattr(message, "content", message)
    if isinstance(content, str):
        return content
    # Content blocks (Anthropic, OpenAI responses API): keep the text parts.
    parts = [block.get("text", "") if isinstance(block, dict) else str(block) for block in content]
    return "".join(parts)


def _as_messages(prompt: str | Sequence[BaseMessage]) -> list[BaseMessage]:
    return [HumanMessage(content=prompt)] if isinstance(prompt, str) else list(prompt)


def _with_instruction(messages: list[BaseMessage], instruction: str) -> list[BaseMessage]:
    """Append an instruction to the last human message (or as a new one)."""
    if messages and messages[-1].type == "human" and isinstance(messages[-1].content, str):
        return messages[:-1] + [HumanMessage(content=f"{messages[-1].content}\n\n{instruction}")]
    return messages + [HumanMessage(content=instruction)]


def _local_schema_hint(schema: type[BaseModel]) -> str:
    # The grammar enforces the shape; a short hint names the fields for the small local model.
    fields = ", ".join(schema.model_fields)
    return f"Reply with a JSON object with the fields: {fields}."


class LLMClient:
    """Thread-safe wrapper around one chat model, for one role (planner, writer, judge).

    Every call lands in the meter (and the run's llm_calls.jsonl journal) with its retries,
    whether it ran over its output cap and, for structured calls, the request mode used and
    whether the reply parsed.
    """

    def __init__(
        self,
        model: BaseChatModel,
        *,
        spec: str,
        meter: TokenMeter,
        cache: ResponseCache | None = None,
        budget: TokenBudget | None = None,
        retries: int = 3,
        max_output_tokens: int = 512,
        temperature: float = 0.3,
        retry_wait_seconds: float = 1.0,
        timeout: float | None = None,
    ) -> None:
        self.model = model
        self.spec = spec
        self.meter = meter
        self.cache = cache
        self.budget = budget
        self.retries = retries
        self.max_output_tokens = max_output_tokens
        self.temperature = temperature
        self.retry_wait_seconds = retry_wait_seconds
        self.timeout = timeout  # seconds per HTTP request, set on the model by the factory; for messages
        self._local = isinstance(model, LlamaCppChatModel)
        self._openai = is_openai_compatible(model)
        # Self-hosted servers may ignore the cap, so their replies are streamed and cut at the cap.
        self._stream_capped = self._openai and custom_base_url(model) is not None
        self._refusals_loaded = False

    # ------------------------------------------------------------------ public
    def complete(self, prompt: str | list[BaseMessage], *, node: str, max_tokens: int | None = None) -> str:
        messages = _as_messages(prompt)
        limit = max_tokens or self.max_output_tokens
        key = self._key(messages, limit, None)
        hit = self._cached(key, node)
        if hit is not None:
            return hit["text"]
        message, entry = self._call(node, self.model, messages, limit, self._request(limit))
        self._record(node, entry)
        text = _text_of(message).strip()
        self._store(key, {"text": text, **self._usage(messages, message)})
        return text

    def structured(
        self, prompt: str | list[BaseMessage], schema: type[T], *, node: str, max_tokens: int | None = None
    ) -> T:
        messages = _as_messages(prompt)
        limit = max_tokens or self.max_output_tokens
        json_schema = schema.model_json_schema()
        key = self._key(messages, limit, json_schema)
        hit = self._cached(key, node)
        if hit is not None:
            return schema.model_validate_json(hit["json"])
        if self._openai:
            return self._structured_over_protocol(messages, schema, node, limit, key)
        attempts = self.retries + 1
        errors: list[str] = []
        if not self._local:
            native = self._native_structured(messages, schema, node, limit, key)
            if isinstance(native, schema):
                return native
            if native is not None:
                errors.append(str(native))
                attempts -= 1
        return self._structured_by_text(messages, schema, node, limit, key, attempts, errors)

    # ------------------------------------------------------------------ structured output
    def _structured_over_protocol(
        self, messages: list[BaseMessage], schema: type[T], node: str, limit: int, key: str
    ) -> T:
        """OpenAI-compatible servers: the first mode this server has not refused, falling down the
        ladder (json_schema -> tools -> json_object -> prompted) on refusals; bad JSON gets a
        repair turn in the same mode, up to ``retries`` times."""
        server = server_key(self.model)
        if not self._refusals_loaded:
            # A resumed run: refusals journalled by its earlier sessions need no second probe.
            for entry in self.meter.entries():
                if entry.get("refused") and entry.get("server") == server and entry.get("structured_mode"):
                    MODE_MEMORY.refuse(server, entry["structured_mode"], str(entry["refused"]))
            self._refusals_loaded = True
        attempts_left = self.retries + 1
        errors: list[str] = []
        conversation: list[BaseMessage] | None = None
        while True:
            mode = MODE_MEMORY.usable(server)[0]
            if conversation is None:
                hint = schema_instruction(schema) if mode in ("json_object", "prompted") else _local_schema_hint(schema)
                conversation = _with_instruction(messages, hint)
            try:
                message, entry = self._call(node, self.model, conversation, limit, self._request(limit, mode, schema),
                                            mode=mode)
            except Exception as exc:
                if mode == "prompted" or not is_mode_refusal(exc):
                    raise
                MODE_MEMORY.refuse(server, mode, str(exc))  # recorded in the journal by _call
                conversation = None  # the next mode gets its own instruction
                continue
            text = ""
            try:
                text = reply_json_text(message, mode)
                result = parse_structured(text, schema)
            except NoToolCall as exc:  # the server ignored `tools`: as good as a refusal
                MODE_MEMORY.refuse(server, mode, str(exc))
                self._record(node, entry, structured_mode=mode, parse_ok=False, error=str(exc), refused=str(exc),
                             server=server)
                conversation = None
                continue
            except ValueError as exc:
                self._record(node, entry, structured_mode=mode, parse_ok=False, error=str(exc)[:200])
                errors.append(str(exc))
                attempts_left -= 1
                if attempts_left <= 0:
                    break
                conversation = conversation + [AIMessage(content=text), HumanMessage(content=repair_instruction(str(exc)))]
                continue
            MODE_MEMORY.confirm(server, mode)
            self._record(node, entry, structured_mode=mode, parse_ok=True)
            self._store(key, {"json": result.model_dump_json(), **self._usage(conversation, message)})
            return result
        raise self._no_valid(schema, node, errors)

    def _no_valid(self, schema: type, node: str, errors: list[str]) -> StructuredOutputError:
        return StructuredOutputError(
            f"{self.spec} gave no valid {schema.__name__} for node '{node}' after {len(errors)} attempts; "
            f"last error: {errors[-1] if errors else 'none'}")

    def _native_structured(
        self, messages: list[BaseMessage], schema: type[T], node: str, limit: int, key: str
    ) -> T | str | None:
        """Provider-native structured output; None if unsupported, an error string if it failed."""
        try:
            runnable = self.model.with_structured_output(schema, include_raw=True)
        except NotImplementedError:
            return None
        out, entry = self._call(node, runnable, messages, limit, self._request(limit), result_is_dict=True,
                                mode="native")
        parsed = out.get("parsed")
        self._record(node, entry, structured_mode="native", parse_ok=isinstance(parsed, schema))
        if isinstance(parsed, schema):
            self._store(key, {"json": parsed.model_dump_json(), **self._usage(messages, out.get("raw"))})
            return parsed
        return f"native structured output failed: {out.get('parsing_error')}"

    def _structured_by_text(
        self,
        messages: list[BaseMessage],
        schema: type[T],
        node: str,
        limit: int,
        key: str,
        attempts: int,
        errors: list[str],
    ) -> T:
        hint = _local_schema_hint(schema) if self._local else schema_instruction(schema)
        conversation = _with_instruction(messages, hint)
        kwargs = self._request(limit)
        mode = "grammar" if self._local else "prompted"
        if self._local:
            kwargs["json_schema"] = schema.model_json_schema()
        for attempt in range(max(1, attempts)):
            if self._local:
                kwargs["seed"] = attempt  # a retry must not replay the same sample
            message, entry = self._call(node, self.model, conversation, limit, kwargs, mode=mode)
            text = _text_of(message)
            try:
                result = parse_structured(text, schema)
            except ValueError as exc:
                self._record(node, entry, structured_mode=mode, parse_ok=False, error=str(exc)[:200])
                errors.append(str(exc))
                conversation = conversation + [AIMessage(content=text), HumanMessage(content=repair_instruction(str(exc)))]
                continue
            self._record(node, entry, structured_mode=mode, parse_ok=True)
            self._store(key, {"json": result.model_dump_json(), **self._usage(conversation, message)})
            return result
        raise self._no_valid(schema, node, errors)

    # ------------------------------------------------------------------ plumbing
    def _request(self, limit: int, mode: str | None = None, schema: type[BaseModel] | None = None) -> dict[str, Any]:
        """Per-call parameters in the form the model reads them."""
        if self._openai:
            return request_kwargs(self.model, limit, self.temperature, mode, schema)
        fields = type(self.model).model_fields
        if not (self._local or "max_tokens" in fields):
            return {}  # e.g. Ollama: its limits were set when the model was built
        kwargs: dict[str, Any] = {"max_tokens": limit}
        if "temperature" in fields and getattr(self.model, "temperature", None) != self.temperature:
            kwargs["temperature"] = self.temperature
        return kwargs

    def _key(self, messages: list[BaseMessage], limit: int, json_schema: dict | None) -> str:
        params = {"max_tokens": limit, "temperature": self.temperature}
        return cache_key(self.spec, messages, params, json_schema)

    def _cached(self, key: str, node: str) -> dict[str, Any] | None:
        if self.cache is None:
            return None
        started = time.perf_counter()
        hit = self.cache.get(key)
        if hit is not None:
            self.meter.record(
                node,
                model=self.spec,
                input_tokens=hit.get("input_tokens", 0),
                output_tokens=hit.get("output_tokens", 0),
                seconds=time.perf_counter() - started,
                cached=True,
            )
        return hit

    def _store(self, key: str, value: dict[str, Any]) -> None:
        if self.cache is not None:
            self.cache.put(key, value)

    @staticmethod
    def _usage(messages: list[BaseMessage], message: Any) -> dict[str, Any]:
        usage = getattr(message, "usage_metadata", None)
        if usage:
            estimated = bool((getattr(message, "response_metadata", None) or {}).get("usage_estimated"))
            return {"input_tokens": int(usage.get("input_tokens", 0)), "output_tokens": int(usage.get("output_tokens", 0)),
                    "estimated": estimated}
        prompt = "\n".join(_text_of(m) for m in messages)
        return {"input_tokens": estimate_tokens(prompt), "output_tokens": estimate_tokens(_text_of(message or "")),
                "estimated": True}

    def _record(self, node: str, entry: dict[str, Any], **details: Any) -> None:
        self.meter.record(node, model=self.spec, **entry, **details)

    def _call(self, node: str, runnable: Any, messages: list[BaseMessage], limit: int, kwargs: dict[str, Any],
              result_is_dict: bool = False, mode: str | None = None) -> tuple[Any, dict[str, Any]]:
        """Budget check, the call (with retries), the output cap; returns the result and the meter
        entry for it (recorded by the caller, which may add what the reply turned out to be).
        A call that fails for good is recorded here, with its retries and the error."""
        if self.budget is not None:
            self.budget.check(estimate_tokens("\n".join(_text_of(m) for m in messages)))
        started = time.perf_counter()
        attempts = [0]
        try:
            result = self._invoke_with_retries(runnable, messages, kwargs, limit, attempts)
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"[:300]
            details: dict[str, Any] = {"retries": max(0, attempts[0] - 1), "max_output_tokens": limit, "error": error}
            if mode is not None:
                details.update(structured_mode=mode, parse_ok=False)
                if self._openai and is_mode_refusal(exc):
                    details.update(refused=error, server=server_key(self.model))
            self.meter.record(node, model=self.spec, input_tokens=0, output_tokens=0,
                              seconds=time.perf_counter() - started, **details)
            raise
        retries = attempts[0] - 1
        message = result.get("raw") if result_is_dict else result
        usage = self._usage(messages, message)
        over_cap = usage["output_tokens"] > limit + CAP_SLACK_TOKENS
        if over_cap and not result_is_dict and isinstance(getattr(message, "content", None), str):
            # The target ignored the cap: keep what the cap allows, and say so in the journal.
            result = message.model_copy(update={"content": _cut_to_tokens(message.content, usage["output_tokens"], limit)})
        if self.budget is not None:
            self.budget.add(usage["input_tokens"] + usage["output_tokens"])
        entry = {"input_tokens": usage["input_tokens"], "output_tokens": usage["output_tokens"],
                 "seconds": time.perf_counter() - started, "estimated": usage["estimated"], "retries": retries,
                 "max_output_tokens": limit}
        if over_cap:
            entry["over_cap"] = True
        if getattr(message, "response_metadata", {}).get("stopped_at_cap"):
            entry["stopped_at_cap"] = True
        return result, entry

    def _invoke_once(self, runnable: Any, messages: list[BaseMessage], kwargs: dict[str, Any], limit: int) -> Any:
        # Text replies from self-hosted servers are streamed and cut at the cap. Structured replies
        # are not: grammar-constrained JSON ends by itself within max_tokens, and llama-cpp-python
        # streams tool calls with the function name repeated in every chunk and no usage.
        structured = any(k in (kwargs.get("extra_body") or {}) for k in ("response_format", "tools"))
        try:
            if not (self._stream_capped and runnable is self.model) or structured:
                result = runnable.invoke(messages, **kwargs)
            else:
                prompt_tokens = estimate_tokens("\n".join(_text_of(m) for m in messages))
                result = stream_with_cap(runnable, messages, kwargs, limit + CAP_SLACK_TOKENS, prompt_tokens)
        except (IndexError, ValueError) as exc:
            readable = malformed_reply(exc, _endpoint(self.model))
            if readable is None:
                raise
            raise readable from exc
        if (runnable is self.model and not structured and isinstance(result, BaseMessage)
                and not _text_of(result).strip() and not getattr(result, "tool_calls", None)):
            # An empty text reply is a failed call: retried like a transient error, never cached,
            # and counted as an error in the journal when the retries run out. (An empty structured
            # reply is a bad reply instead: the structured path repairs it.)
            raise IncompleteReply("the model returned an empty reply")
        return result

    def _invoke_with_retries(self, runnable: Any, messages: list[BaseMessage], kwargs: dict[str, Any],
                             limit: int, attempts: list[int]) -> Any:
        """The one retry layer (provider SDK retries are switched off in the factory): transient
        errors only, with exponential backoff. ``attempts[0]`` counts the tries made."""

        def attempt() -> Any:
            attempts[0] += 1
            return self._invoke_once(runnable, messages, kwargs, limit)

        retrying = Retrying(
            stop=stop_after_attempt(self.retries + 1),
            wait=wait_exponential(multiplier=self.retry_wait_seconds, max=30),
            retry=retry_if_exception(_is_transient),
            reraise=True,
        )
        try:
            return retrying(attempt)
        except _NOT_RETRIED:
            raise
        except Exception as exc:
            kind, name = error_kind(exc), type(exc).__name__
            where = _endpoint(self.model)
            # redacted here, not where printed: LangGraph stores a failed step's error in the checkpoint
            if kind == "config":
                raise ModelRefused(redact_text(
                    f"model '{self.spec}'{where} refused the request ({name}): {exc}; check the model name and "
                    "the API key variable (e.g. OPENAI_API_KEY)")) from exc
            if kind == "network":
                raise NetworkUnavailable(redact_text(_network_message(exc, self.spec, where, attempts[0],
                                                                      self.timeout))) from exc
            raise
