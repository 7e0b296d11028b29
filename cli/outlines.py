"""CLI: outlines ingest / search (the Survey Outline DB)."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.markup import escape

from ..errors import UserError
from .common import console, fail, get_settings, out, require_writable_home


def ingest(
    ctx: typer.Context,
    path: Path = typer.Argument(..., help="A Markdown survey, a folder of them, or an outlines.json."),
    rebuild: bool = typer.Option(False, "--rebuild", help="Delete all stored outlines first."),
) -> None:
    """Add human-written survey outlines to the Survey Outline DB."""
    try:
        from ..retrieval.outlines import OutlineStore

        settings = get_settings(ctx)
        require_writable_home(settings, "outlines ingest")
        store = OutlineStore(settings)
        if rebuild:
            store.reset()
        with console.status(f"reading and embedding outlines from {path} ..."):
            report = store.ingest_path(path)
        total = store.count()
    except UserError as exc:
        fail(str(exc))
    for reason in report.reasons:
        console.print(f"skipped {reason}", highlight=False)
    out.print(f"added {report.added} outlines from {report.files} files "
              f"({report.skipped} skipped); the outline DB now holds {total}", highlight=False)


def search(
    ctx: typer.Context,
    topic: str = typer.Argument(..., help="The survey topic to find related outlines for."),
    k: int = typer.Option(3, "-k", "--k", min=1, help="How many outlines to return."),
    as_json: bool = typer.Option(False, "--json", help="Print the full outlines as JSON."),
) -> None:
    """Find the human outlines closest to a topic (shows topic and first-level headings)."""
    try:
        from ..retrieval.outlines import OutlineStore

        store = OutlineStore(get_settings(ctx))
        if store.count() == 0:
            fail("the outline DB is empty; add outlines with `surveygraph outlines ingest PATH`")
        hits = store.search(topic, k)
    except UserError as exc:
        fail(str(exc))
    if as_json:
        out.print_json(json.dumps([h.model_dump() for h in hits]))
        return
    for rank, outline in enumerate(hits, start=1):
        title = f" — {escape(outline.title)}" if outline.title and outline.title != outline.topic else ""
        out.print(f"[bold]{rank}. {escape(outline.topic)}[/]{title}", highlight=False)
        for entry in outline.entries:
            if entry.level == 1:
                out.print(f"     {escape(entry.title)}", highlight=False)


def build_kb(
    ctx: typer.Context,
    paths: list[Path] = typer.Argument(None, help="Human outlines to mine: Markdown surveys, folders of them or "
                                       "outlines.json files. Default: the shared data's SurveyBench and "
                                       "ASG-Bench human surveys, when present."),
) -> None:
    """Build the outline knowledge base: headings of human outlines and the taxonomies stated in the
    abstracts of the paper store's surveys, which planning uses to name a topic's sections."""
    try:
        from ..retrieval.outline_kb import KB_FILE, build_kb as build, default_sources

        settings = get_settings(ctx)
        require_writable_home(settings, "outlines build-kb")
        sources = list(paths or []) or default_sources()
        with console.status(f"mining {len(sources)} outline source(s) and the survey papers of the store ..."):
            summary = build(settings, sources)
    except UserError as exc:
        fail(str(exc))
    out.print(f"outline knowledge base {settings.home / KB_FILE}: {summary['outlines']} human outlines "
              f"({summary['headings']} headings), {summary['abstracts']} survey abstracts "
              f"({summary['abstracts_with_taxonomy']} stating a taxonomy, {summary['taxonomy_items']} categories), "
              f"background phrase counts from {summary['background_papers']} papers", highlight=False)


def register(outlines_app: typer.Typer) -> None:
    """Add the outline DB commands."""
    outlines_app.command("ingest")(ingest)
    outlines_app.command("search")(search)
    outlines_app.command("build-kb")(build_kb)
