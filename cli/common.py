"""Helpers every CLI command uses: settings from the global options, console, clean failure."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, NoReturn

import typer
from pydantic import ValidationError
from rich.console import Console

from ..errors import UserError
from ..settings import Settings, load_settings

console = Console(stderr=True)
out = Console()  # results (tables, JSON) go to stdout; progress and messages to stderr


def split_list(value: str | None, allowed: tuple[str, ...] | None = None, what: str = "value") -> list[str] | None:
    """A comma-separated option as a list (None when not given), checked against ``allowed``."""
    if value is None:
        return None
    items = [v.strip() for v in value.split(",") if v.strip()]
    if allowed is not None:
        unknown = [v for v in items if v not in allowed]
        if unknown:
            raise UserError(f"unknown {what}: {', '.join(unknown)} (choose from {', '.join(allowed)})")
    return items


def fail(message: str, code: int = 2) -> NoReturn:
    console.print(f"[bold red]error:[/] {message}", highlight=False)
    raise typer.Exit(code)


def get_settings(ctx: typer.Context | None, **overrides: Any) -> Settings:
    """Settings from the global --home/--config options plus this command's flags.

    ``overrides`` use dotted keys (``{"llm.writer": value}``); None means "not given".
    """
    root = ctx.find_root() if ctx is not None else None
    obj = (root.obj if root is not None else None) or {}
    config: Path | None = obj.get("config")
    if obj.get("home") is not None:
        overrides.setdefault("home", obj["home"])
    try:
        return load_settings(config, **overrides)
    except FileNotFoundError as exc:
        raise UserError(str(exc)) from exc
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"])
        raise UserError(f"invalid setting {loc}: {first['msg']}") from exc


def quiet_third_party() -> None:
    """Offline-safe defaults for libraries that otherwise phone home or log noisily."""
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
