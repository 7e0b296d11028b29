"""CLI: corpus fetch (arXiv) and enrich (Semantic Scholar)."""

from __future__ import annotations

import typer


def register(corpus_app: typer.Typer) -> None:
    """Add the fetch/enrich commands."""
