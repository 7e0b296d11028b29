"""CLI: `surveygraph corpus ...` and `surveygraph outlines ...`.

Commands are split over modules by area: ingest/search/stats live in ``corpus_index``;
fetching from arXiv and Semantic Scholar enrichment in ``corpus_fetch``; the outline DB in ``outlines``.
"""

from __future__ import annotations

import typer

corpus_app = typer.Typer(help="The Research Paper DB: ingest, fetch, search.", no_args_is_help=True)
outlines_app = typer.Typer(help="The Survey Outline DB: ingest and search human outlines.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    from . import corpus_fetch, corpus_index, outlines

    corpus_index.register(corpus_app)
    corpus_fetch.register(corpus_app)
    outlines.register(outlines_app)
    app.add_typer(corpus_app, name="corpus")
    app.add_typer(outlines_app, name="outlines")
