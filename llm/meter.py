"""Token and cost accounting per graph node, safe to share between threads.

Costs come from a small table of list prices (USD per 1M tokens, input/output) for common API
models, matched by the longest model-name prefix. Local models cost 0; models missing from the
table report ``cost_usd = None`` so nobody mistakes "unknown" for "free".
"""

from __future__ import annotations

import json
import threading
from collections import defaultdict
from pathlib import Path
from typing import Any

from ..sanitize import redact

# USD per 1M tokens (input, output); public list prices, 2025. Longest prefix wins, so dated
# names (claude-3-5-haiku-20241022) and -mini variants resolve to the right row.
PRICES_PER_MILLION: dict[str, tuple[float, float]] = {
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1": (2.00, 8.00),
    "o3-mini": (1.10, 4.40),
    "o4-mini": (1.10, 4.40),
    "claude-3-haiku": (0.25, 1.25),
    "claude-3-5-haiku": (0.80, 4.00),
    "claude-3-5-sonnet": (3.00, 15.00),
    "claude-3-7-sonnet": (3.00, 15.00),
    "claude-sonnet-4": (3.00, 15.00),
    "deepseek-chat": (0.27, 1.10),
    "gemini-1.5-flash": (0.075, 0.30),
    "gemini-2.0-flash": (0.10, 0.40),
}

LOCAL_PREFIXES = ("local", "gguf:", "ollama:", "scripted")


def price_for(model: str) -> tuple[float, float] | None:
    """(input, output) USD per 1M tokens for a model spec or name; (0, 0) for local models."""
    if model.startswith(LOCAL_PREFIXES):
        return (0.0, 0.0)
    name = model.split(":", 1)[1] if ":" in model else model
    matches = [prefix for prefix in PRICES_PER_MILLION if name.startswith(prefix)]
    if not matches:
        return None
    return PRICES_PER_MILLION[max(matches, key=len)]


def call_cost(model: str, input_tokens: int, output_tokens: int) -> float | None:
    price = price_for(model)
    if price is None:
        return None
    return (input_tokens * price[0] + output_tokens * price[1]) / 1_000_000


def estimate_tokens(text: str) -> int:
    """Rough token count (4 characters per token) for models that report no usage."""
    return max(1, len(text) // 4)


_ENTRY_DEFAULTS = {"seconds": 0.0, "cached": False, "estimated": False, "cost_usd": None}


def _empty_row() -> dict[str, Any]:
    return {
        "calls": 0,
        "input_tokens": 0,
        "output_tokens": 0,
        "seconds": 0.0,
        "cached_calls": 0,
        "estimated_calls": 0,
        "cost_usd": 0.0,
    }


def _add(row: dict[str, Any], entry: dict[str, Any]) -> None:
    row["calls"] += 1
    row["seconds"] += entry["seconds"]
    row["cached_calls"] += int(entry["cached"])
    row["estimated_calls"] += int(entry["estimated"])
    if entry["cached"]:
        return  # a cache hit spent no tokens and cost nothing on this run
    row["input_tokens"] += entry["input_tokens"]
    row["output_tokens"] += entry["output_tokens"]
    if entry["cost_usd"] is None or row["cost_usd"] is None:
        row["cost_usd"] = None  # one unpriced call makes the sum unknown
    else:
        row["cost_usd"] += entry["cost_usd"]


class TokenMeter:
    """Records every LLM call (including cache hits) and sums them per node and model."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: list[dict[str, Any]] = []
        self._journal: Path | None = None

    def attach_journal(self, path: Path) -> list[dict[str, Any]]:
        """Append every call recorded from now on to ``path`` (JSON lines), after loading the calls
        already there — an earlier session of the same run, stopped by a crash or Ctrl-C — so that
        totals and the manifest cover the whole run, not just the resumed part. Returns those."""
        earlier: list[dict[str, Any]] = []
        if path.is_file():
            text = path.read_text(encoding="utf-8")
            if text and not text.endswith("\n"):  # end the line a crash cut off before appending
                with path.open("a", encoding="utf-8") as fh:
                    fh.write("\n")
            for line in text.splitlines():
                try:
                    entry = json.loads(line)
                except json.JSONDecodeError:
                    continue  # a line cut off by the crash
                if isinstance(entry, dict) and {"node", "model", "input_tokens", "output_tokens"} <= entry.keys():
                    earlier.append({**_ENTRY_DEFAULTS, **entry})
        with self._lock:
            self._entries[:0] = earlier
            self._journal = path
        return earlier

    def record(
        self,
        node: str,
        *,
        model: str,
        input_tokens: int,
        output_tokens: int,
        seconds: float,
        cached: bool = False,
        estimated: bool = False,
        **details: Any,
    ) -> None:
        """``details`` (retries, structured_mode, parse_ok, over_cap, ...) go into the journal as is."""
        cost = 0.0 if cached else call_cost(model, input_tokens, output_tokens)
        entry = {
            "node": node,
            "model": model,
            "input_tokens": int(input_tokens),
            "output_tokens": int(output_tokens),
            "seconds": float(seconds),
            "cached": bool(cached),
            "estimated": bool(estimated),
            "cost_usd": cost,
            **details,
        }
        with self._lock:
            self._entries.append(entry)
            if self._journal is not None:
                with self._journal.open("a", encoding="utf-8") as fh:
                    fh.write(json.dumps(redact(entry)) + "\n")  # error texts may quote a URL with a password

    def entries(self) -> list[dict[str, Any]]:
        with self._lock:
            return [dict(e) for e in self._entries]

    def _group(self, field: str) -> dict[str, dict[str, Any]]:
        rows: dict[str, dict[str, Any]] = defaultdict(_empty_row)
        for entry in self.entries():
            _add(rows[entry[field]], entry)
        return {key: _rounded(row) for key, row in rows.items()}

    def by_node(self) -> dict[str, dict[str, Any]]:
        return self._group("node")

    def by_model(self) -> dict[str, dict[str, Any]]:
        return self._group("model")

    def total(self) -> dict[str, Any]:
        row = _empty_row()
        for entry in self.entries():
            _add(row, entry)
        return _rounded(row)

    def to_dict(self) -> dict[str, Any]:
        return {"total": self.total(), "by_node": self.by_node(), "by_model": self.by_model()}


def _rounded(row: dict[str, Any]) -> dict[str, Any]:
    out = dict(row)
    out["seconds"] = round(out["seconds"], 3)
    if out["cost_usd"] is not None:
        out["cost_usd"] = round(out["cost_usd"], 6)
    return out
