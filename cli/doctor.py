"""CLI: `surveygraph doctor` checks that the bundled models load offline and the home is usable."""

from __future__ import annotations

import time
from typing import Callable

import typer

from .common import console, get_settings


def _check_embedder(settings) -> str:
    from ..retrieval.embeddings import get_embedder

    embedder = get_embedder(settings)
    vec = embedder.encode(["retrieval augmented generation"])
    return f"{embedder.name}: dim {vec.shape[1]}"


def _check_local_llm(settings) -> str:
    from ..llm import make_chat_model

    model = make_chat_model("local", settings)
    reply = model.invoke("The capital of France is", max_tokens=8)
    return f"gemma-3-270m replied {str(reply.content).strip()[:40]!r}"


def _check_store(settings) -> str:
    from ..retrieval.corpus import Corpus

    return f"{Corpus(settings).count()} papers in the store at {settings.store_dir}"


def register(app: typer.Typer) -> None:
    @app.command()
    def doctor(
        ctx: typer.Context,
        skip_llm: bool = typer.Option(False, "--skip-llm", help="Do not load the local LLM."),
    ) -> None:
        """Check the offline models (MiniLM, Gemma 3 270M), the store and the data home."""
        settings = get_settings(ctx)
        checks: list[tuple[str, Callable]] = [
            ("embedding model", _check_embedder),
            ("paper store", _check_store),
        ]
        if not skip_llm:
            checks.append(("local LLM", _check_local_llm))
        console.print(f"data home: {settings.home}")
        failed = 0
        for label, check in checks:
            start = time.perf_counter()
            try:
                detail = check(settings)
            except Exception as exc:  # doctor reports every failure instead of stopping at the first
                failed += 1
                console.print(f"[red]FAIL[/] {label}: {type(exc).__name__}: {exc}")
                continue
            console.print(f"[green]ok[/]   {label}: {detail} ({time.perf_counter() - start:.1f}s)")
        if failed:
            raise typer.Exit(1)
