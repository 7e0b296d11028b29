"""Getting a validated pydantic object out of model text: lenient JSON parsing and repair prompts."""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

T = TypeVar("T", bound=BaseModel)

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)


class StructuredOutputError(Exception):
    """The model did not produce output matching the schema after all repair attempts."""


def extract_json(text: str) -> Any:
    """Parse JSON from model text: the whole text, a ```json fence, or the outermost {...}/[...]."""
    candidates = [text.strip()]
    candidates += [m.strip() for m in _FENCE.findall(text)]
    for open_char, close_char in (("{", "}"), ("[", "]")):
        start, end = text.find(open_char), text.rfind(close_char)
        if start != -1 and end > start:
            candidates.append(text[start : end + 1])
    last_error: Exception | None = None
    for candidate in candidates:
        if not candidate:
            continue
        try:
            # strict=False: small local models put raw control characters (newlines, tabs)
            # inside strings, which is unambiguous to read but rejected by strict JSON.
            return json.loads(candidate, strict=False)
        except json.JSONDecodeError as exc:
            last_error = exc
    raise ValueError(f"no JSON object found ({last_error})" if last_error else "empty reply")


def parse_structured(text: str, schema: type[T]) -> T:
    """Validate model text against ``schema``; raises ValueError with a message fit for a repair prompt."""
    data = extract_json(text)
    try:
        return schema.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '(root)'}: {err['msg']}" for err in exc.errors()[:8]
        )
        raise ValueError(f"JSON does not match the schema: {problems}") from exc


def schema_instruction(schema: type[BaseModel]) -> str:
    """The instruction appended to a prompt for models without native structured output."""
    return (
        "Reply with only a JSON object (no prose, no code fences) that validates against this JSON schema:\n"
        + json.dumps(schema.model_json_schema(), separators=(",", ":"))
    )


def repair_instruction(error: str) -> str:
    return (
        f"That reply could not be used: {error}\n"
        "Reply again with only the corrected JSON object."
    )


def bounded_schema(schema: dict[str, Any], max_string: int | None, max_items: int | None) -> dict[str, Any]:
    """Copy of a JSON schema with caps on unbounded strings and arrays.

    Used only to build a decoding grammar: a small base model inside a grammar-forced string can
    otherwise write until max_tokens and leave the JSON unfinished. Pydantic still validates the
    result against the original schema.
    """

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            out = {key: walk(value) for key, value in node.items()}
            kind = out.get("type")
            if max_string and kind == "string" and "maxLength" not in out and "enum" not in out and "pattern" not in out \
                    and "format" not in out and "const" not in out:
                out["maxLength"] = max(max_string, int(out.get("minLength", 0)))
            if max_items and kind == "array" and "maxItems" not in out:
                out["maxItems"] = max(max_items, int(out.get("minItems", 0)))
            return out
        if isinstance(node, list):
            return [walk(item) for item in node]
        return node

    return walk(schema)
