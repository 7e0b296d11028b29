"""LLMClient: one role's model with caching, metering, a token budget, retries and structured output."""

from __future__ import annotations

import time
from typing import Any, Sequence, TypeVar

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from pydantic import BaseModel
from tenacity import Retrying, retry_if_exception, stop_after_attempt, wait_exponential

from ..errors import BudgetExceeded, NetworkUnavailable, UserError
from .budget import TokenBudget
from .cache import ResponseCache, cache_key
from .local import LlamaCppChatModel
from .meter import TokenMeter, estimate_tokens
from .structured import StructuredOutputError, parse_structured, repair_instruction, schema_instruction

T = TypeVar("T", bound=BaseModel)

# Errors that retrying cannot fix: programming errors and our own control-flow exceptions.
_NOT_RETRIED = (UserError, BudgetExceeded, StructuredOutputError, TypeError, AttributeError, KeyError, NotImplementedError)
# Provider SDK errors (matched by class name, so no SDK import is needed) meaning "fix your config".
_CONFIG_ERROR_NAMES = ("AuthenticationError", "PermissionDeniedError", "NotFoundError")
_NETWORK_ERROR_NAMES = ("APIConnectionError", "ConnectError", "ConnectionError", "APITimeoutError", "Timeout")


def _is_transient(exc: BaseException) -> bool:
    if isinstance(exc, _NOT_RETRIED):
        return False
    return type(exc).__name__ not in _CONFIG_ERROR_NAMES + ("BadRequestError",)


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
    """Thread-safe wrapper around one chat model, for one role (planner, writer, judge)."""

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
        self._local = isinstance(model, LlamaCppChatModel)

    # ------------------------------------------------------------------ public
    def complete(self, prompt: str | list[BaseMessage], *, node: str, max_tokens: int | None = None) -> str:
        messages = _as_messages(prompt)
        limit = max_tokens or self.max_output_tokens
        key = self._key(messages, limit, None)
        hit = self._cached(key, node)
        if hit is not None:
            return hit["text"]
        message = self._call(self.model, messages, node, self._call_kwargs(limit))
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
    def _native_structured(
        self, messages: list[BaseMessage], schema: type[T], node: str, limit: int, key: str
    ) -> T | str | None:
        """Provider-native structured output; None if unsupported, an error string if it failed."""
        try:
            runnable = self.model.with_structured_output(schema, include_raw=True)
        except NotImplementedError:
            return None
        out = self._call(runnable, messages, node, self._call_kwargs(limit), result_is_dict=True)
        parsed = out.get("parsed")
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
        kwargs = self._call_kwargs(limit)
        if self._local:
            kwargs["json_schema"] = schema.model_json_schema()
        for attempt in range(max(1, attempts)):
            if self._local:
                kwargs["seed"] = attempt  # a retry must not replay the same sample
            message = self._call(self.model, conversation, node, kwargs)
            text = _text_of(message)
            try:
                result = parse_structured(text, schema)
            except ValueError as exc:
                errors.append(str(exc))
                conversation = conversation + [AIMessage(content=text), HumanMessage(content=repair_instruction(str(exc)))]
                continue
            self._store(key, {"json": result.model_dump_json(), **self._usage(conversation, message)})
            return result
        raise StructuredOutputError(
            f"{self.spec} gave no valid {schema.__name__} for node '{node}' after {len(errors)} attempts; "
            f"last error: {errors[-1] if errors else 'none'}"
        )

    # ------------------------------------------------------------------ plumbing
    def _call_kwargs(self, limit: int) -> dict[str, Any]:
        """Per-call sampling parameters, only for models known to accept them as call kwargs."""
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
            return {"input_tokens": int(usage.get("input_tokens", 0)), "output_tokens": int(usage.get("output_tokens", 0)),
                    "estimated": False}
        prompt = "\n".join(_text_of(m) for m in messages)
        return {"input_tokens": estimate_tokens(prompt), "output_tokens": estimate_tokens(_text_of(message or "")),
                "estimated": True}

    def _call(self, runnable: Any, messages: list[BaseMessage], node: str, kwargs: dict[str, Any],
              result_is_dict: bool = False) -> Any:
        """Budget check, the call (with retries), then metering of what it spent."""
        if self.budget is not None:
            self.budget.check(estimate_tokens("\n".join(_text_of(m) for m in messages)))
        started = time.perf_counter()
        result = self._invoke_with_retries(runnable, messages, kwargs)
        message = result.get("raw") if result_is_dict else result
        usage = self._usage(messages, message)
        self.meter.record(node, model=self.spec, input_tokens=usage["input_tokens"],
                          output_tokens=usage["output_tokens"], seconds=time.perf_counter() - started,
                          estimated=usage["estimated"])
        if self.budget is not None:
            self.budget.add(usage["input_tokens"] + usage["output_tokens"])
        return result

    def _invoke_with_retries(self, runnable: Any, messages: list[BaseMessage], kwargs: dict[str, Any]) -> Any:
        retrying = Retrying(
            stop=stop_after_attempt(self.retries + 1),
            wait=wait_exponential(multiplier=self.retry_wait_seconds, max=30),
            retry=retry_if_exception(_is_transient),
            reraise=True,
        )
        try:
            return retrying(runnable.invoke, messages, **kwargs)
        except _NOT_RETRIED:
            raise
        except Exception as exc:
            name = type(exc).__name__
            if name in _CONFIG_ERROR_NAMES:
                raise UserError(f"model '{self.spec}' refused the request ({name}): {exc}") from exc
            if name in _NETWORK_ERROR_NAMES or isinstance(exc, (ConnectionError, TimeoutError)):
                raise NetworkUnavailable(f"could not reach the model '{self.spec}': {exc}") from exc
            raise
