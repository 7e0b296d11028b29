"""CLI: corpus ingest / search / stats and outlines ingest / search."""

from __future__ import annotations

import typer


def register(corpus_app: typer.Typer, outlines_app: typer.Typer) -> None:
    """Add the index commands."""
