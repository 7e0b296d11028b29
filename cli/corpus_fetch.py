"""CLI: corpus fetch (arXiv) and enrich (Semantic Scholar)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from ..errors import UserError
from .common import console, fail, get_settings, out

SOURCES = ("arxiv",)

_API_KEY = typer.Option(
    None, "--s2-api-key", envvar="SEMANTIC_SCHOLAR_API_KEY", show_envvar=True,
    help="Semantic Scholar API key (raises the rate limit).",
)
_RPS = typer.Option(
    None, "--s2-rps", min=0.01,
    help="Semantic Scholar requests per second (default 1; with an API key 1 is also S2's guidance).",
)


def _enrich(settings, papers, api_key: Optional[str], rps: Optional[float]):
    from ..retrieval.semantic_scholar import SemanticScholarEnricher

    enricher = SemanticScholarEnricher(settings, api_key=api_key, requests_per_second=rps or 1.0)
    papers, report = enricher.enrich(papers, progress=True)
    console.print(
        f"Semantic Scholar: {report.enriched}/{report.requested} enriched, {report.not_found} not found, "
        f"{report.no_id} without id, {report.from_cache} from cache, {report.requests} requests",
        highlight=False,
    )
    for error in report.errors:
        console.print(f"warning: {error}", highlight=False)
    return papers


def _ingest(settings, papers, source: str) -> None:
    from ..retrieval.corpus import Corpus

    corpus = Corpus(settings)
    report = corpus.add_papers(papers, progress=True, source=source)
    out.print(f"added {report.added} new papers to the paper DB ({report.duplicates} already there "
              f"or duplicates); it now holds {corpus.count()}", highlight=False)


def fetch(
    ctx: typer.Context,
    source: str = typer.Argument(..., help="Where to fetch from: arxiv."),
    query: str = typer.Argument(..., help='arXiv query, e.g. "retrieval augmented generation" or "ti:RAG AND cat:cs.CL".'),
    max_results: int = typer.Option(50, "--max", min=1, max=2000, help="How many papers to fetch."),
    enrich: bool = typer.Option(False, "--enrich", help="Add Semantic Scholar citation counts and venues."),
    out_path: Optional[Path] = typer.Option(None, "--out", help="Also write the papers to this JSONL file."),
    force: bool = typer.Option(False, "--force", help="Overwrite --out if it exists."),
    no_ingest: bool = typer.Option(False, "--no-ingest", help="Do not add the papers to the paper DB."),
    api_key: Optional[str] = _API_KEY,
    rps: Optional[float] = _RPS,
) -> None:
    """Fetch papers from arXiv, dedupe, optionally enrich, and add them to the paper DB."""
    if source.lower() not in SOURCES:
        fail(f"unknown source {source!r}; choose one of: {', '.join(SOURCES)}")
    if no_ingest and out_path is None:
        fail("--no-ingest needs --out (otherwise the fetched papers would go nowhere)")
    try:
        from ..retrieval.arxiv_source import ArxivSource
        from ..retrieval.dedupe import dedupe_papers
        from ..retrieval.loaders import write_jsonl

        settings = get_settings(ctx)
        if out_path is not None and out_path.exists() and not force:
            raise UserError(f"{out_path} already exists (use --force to overwrite)")
        with console.status(f"searching arXiv for {query!r} (max {max_results}) ..."):
            papers = ArxivSource(settings).search(query, max_results)
        papers, merged = dedupe_papers(papers)
        console.print(f"arXiv: {len(papers)} papers ({merged} duplicates merged)", highlight=False)
        if enrich and papers:
            papers = _enrich(settings, papers, api_key, rps)
        if out_path is not None:
            write_jsonl(papers, out_path, force=force)
            out.print(f"wrote {len(papers)} papers to {out_path}", highlight=False)
        if not no_ingest and papers:
            _ingest(settings, papers, source=f"arxiv:{query}")
    except UserError as exc:
        fail(str(exc))


def enrich_file(
    ctx: typer.Context,
    input_path: Path = typer.Argument(..., help="Papers to enrich: .jsonl(.gz), .json, .bib or PDFs."),
    out_path: Path = typer.Option(..., "--out", help="Where to write the enriched JSONL."),
    force: bool = typer.Option(False, "--force", help="Overwrite --out if it exists."),
    api_key: Optional[str] = _API_KEY,
    rps: Optional[float] = _RPS,
) -> None:
    """Enrich a paper file with Semantic Scholar metadata and write JSONL you can ingest."""
    try:
        from ..retrieval.loaders import detect_format, load_path, write_jsonl

        settings = get_settings(ctx)
        detect_format(input_path)  # a missing/unsupported input fails before anything else
        if out_path.exists() and not force:
            raise UserError(f"{out_path} already exists (use --force to overwrite)")
        if out_path.resolve() == input_path.resolve():
            raise UserError("--out must differ from the input file")
        loaded = load_path(input_path)
        if loaded.report.skipped:
            console.print(f"skipped {loaded.report.skipped} unreadable records: "
                          f"{'; '.join(loaded.report.reasons[:5])}", highlight=False)
        papers = _enrich(settings, loaded.papers, api_key, rps)
        write_jsonl(papers, out_path, force=force)
        out.print(f"wrote {len(papers)} papers to {out_path}", highlight=False)
    except UserError as exc:
        fail(str(exc))


def register(corpus_app: typer.Typer) -> None:
    """Add the fetch/enrich commands."""
    corpus_app.command("fetch")(fetch)
    corpus_app.command("enrich")(enrich_file)
