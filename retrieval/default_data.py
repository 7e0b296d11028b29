"""The embedded default on a fresh machine: an empty data home set up from the shared data.

The README's main job is one command: `generate` on an empty data home looks for the shared data
(``SURVEYGRAPH_SHARED_DATA``, else ``../shared/data`` from the working directory or beside the
repository), ingests its arXiv corpus and its human outlines once, with progress, and says what it
did. Without shared data it changes nothing and the caller says how to ingest a corpus.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable

from ..settings import Settings

SHARED_CORPUS = Path("corpus") / "arxiv_2025_2026.jsonl.gz"
SHARED_OUTLINES = Path("weaidb_surveybench") / "HumanSurvey" / "outlines.json"


def shared_data_dir() -> Path | None:
    """$SURVEYGRAPH_SHARED_DATA when set, else the first of ./../shared/data and
    <repository>/../shared/data that holds the shared corpus."""
    if os.environ.get("SURVEYGRAPH_SHARED_DATA"):  # explicit: only there (a missing folder = none)
        candidates = [Path(os.environ["SURVEYGRAPH_SHARED_DATA"]).expanduser()]
    else:
        candidates = [Path.cwd().parent / "shared" / "data", Path(__file__).resolve().parents[2] / "shared" / "data"]
    for folder in candidates:
        if (folder / SHARED_CORPUS).is_file():
            return folder
    return None


# Measured wall time of the shared corpus's first ingest per index encoder (BENCHMARKS.md, topic_pool.md:
# minilm-head 11 min 36 s, minilm-static ~1 min of embedding, full MiniLM ~46 min of embedding).
SETUP_TIME = {"minilm-head": "about 12 minutes", "minilm-static": "about 2 minutes", "minilm": "about 50 minutes"}


def _setup_time(encoder: str) -> str:
    return SETUP_TIME.get(encoder, "a while: every paper is embedded once")


def set_up_empty_home(settings: Settings, corpus, *, progress: bool = True,
                      notify: Callable[[str], None] = lambda _m: None) -> list[str] | None:
    """Ingest the shared corpus (and the human outlines, when the outline DB is empty) into an
    empty data home. Returns lines saying what was done, or None when no shared data was found."""
    from .outlines import OutlineStore

    folder = shared_data_dir()
    if folder is None:
        return None
    corpus_file = folder / SHARED_CORPUS
    notify(f"the data home {settings.home} is empty: setting up the embedded default from {corpus_file} "
           f"(once; {_setup_time(settings.embedding.model)} on 2 idle cores)")
    report = corpus.ingest_path(corpus_file, progress=progress)
    done = [f"ingested {report.added} papers from {corpus_file}"]
    outlines_file = folder / SHARED_OUTLINES
    if outlines_file.is_file():
        store = OutlineStore(settings)
        if store.count() == 0:
            added = store.ingest_path(outlines_file).added
            done.append(f"ingested {added} human outlines from {outlines_file}")
    return done
