"""``surveygraph batch submit | work | status``: many topics, many workers, one PostgreSQL database
(graphs/batch.py explains the design; docs/generation.md "Many workers" the setup)."""

from __future__ import annotations

import logging
import subprocess
import sys
import time
from pathlib import Path
from typing import Optional

import typer

from ..errors import UserError
from .common import console, fail, get_settings, out, plain, quiet_third_party

DB_HELP = "postgresql:// URL of the batch database (job list and checkpoints); env SURVEYGRAPH_BATCH_DB."
_POLL_SECONDS = 2.0


def _topics(path: Path) -> list[str]:
    if not path.is_file():
        raise UserError(f"no such topics file: {path}")
    return [line.strip() for line in path.read_text(encoding="utf-8", errors="replace").splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


def _progress_line(jobs: list[dict], started: float) -> str:
    from ..graphs.batch import summary

    counts, total = summary(jobs), len(jobs)
    finished = counts.get("done", 0) + counts.get("failed", 0)
    elapsed = time.monotonic() - started
    eta = f", about {elapsed / finished * (total - finished) / 60:.0f} min left" if finished and finished < total else ""
    parts = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    return f"{finished}/{total} finished ({parts}); {elapsed / 60:.1f} min{eta}"


def register(app: typer.Typer) -> None:
    batch = typer.Typer(help="Generate surveys for a list of topics with several workers (PostgreSQL).",
                        no_args_is_help=True)
    app.add_typer(batch, name="batch")

    def guarded(call):
        try:
            return call()
        except UserError as exc:
            fail(str(exc), exc.exit_code)

    @batch.command("submit")
    def submit_cmd(
        topics: Path = typer.Argument(..., help="Text file: one topic per line (# starts a comment)."),
        db: str = typer.Option(..., "--db", envvar="SURVEYGRAPH_BATCH_DB", help=DB_HELP),
        name: str = typer.Option("default", "--batch", help="Batch name (topics are unique within it)."),
    ) -> None:
        """Queue the topics of a file (a topic already queued in the batch is not added again)."""
        from ..graphs.batch import submit

        listed = guarded(lambda: _topics(topics))
        added = guarded(lambda: submit(db, name, listed))
        console.print(f"queued {added} of {len(listed)} topics in batch {plain(name)!r}", highlight=False, markup=False)

    @batch.command("status")
    def status_cmd(
        db: str = typer.Option(..., "--db", envvar="SURVEYGRAPH_BATCH_DB", help=DB_HELP),
        name: str = typer.Option("default", "--batch", help="Batch name."),
        as_json: bool = typer.Option(False, "--json", help="Print the jobs as JSON."),
    ) -> None:
        """Each job's state (queued, running, interrupted = its worker died, done, failed) and survey."""
        import json

        from ..graphs.batch import status, summary

        jobs = guarded(lambda: status(db, name))
        if as_json:
            out.print_json(json.dumps(jobs, default=str))
            return
        for job in jobs:
            detail = job["survey"] or job["error"] or job["run_id"] or ""
            console.print(f"{job['id']:>4}  {job['status']:<11} {plain(job['topic'])[:60]:<60}  {plain(detail)}",
                          highlight=False, markup=False)
        console.print(", ".join(f"{k} {v}" for k, v in sorted(summary(jobs).items())) or "no jobs",
                      highlight=False, markup=False)

    @batch.command("work")
    def work_cmd(
        ctx: typer.Context,
        db: str = typer.Option(..., "--db", envvar="SURVEYGRAPH_BATCH_DB", help=DB_HELP),
        name: str = typer.Option("default", "--batch", help="Batch name."),
        workers: int = typer.Option(1, "--workers", min=1, help="Worker processes on this machine (each claims "
                                                                 "one topic at a time); more machines may join."),
        out_dir: Optional[Path] = typer.Option(None, "--out", help="Runs directory (default: <home>/runs); "
                                                                   "a shared volume collects every worker's surveys."),
        sections: Optional[int] = typer.Option(None, "--sections", min=1, help="Sections per survey."),
        subsections: Optional[int] = typer.Option(None, "--subsections", min=1, help="Subsections per section."),
        llm: Optional[str] = typer.Option(None, "--llm", help="Model for every role (default: settings llm.default)."),
    ) -> None:
        """Generate queued topics until none is left (a dead worker's topic is resumed)."""
        quiet_third_party()
        # psycopg's "error ignored terminating Pipeline" when the server goes away: the worker's own
        # line says the database was lost and what it does about it.
        logging.getLogger("psycopg").setLevel(logging.ERROR)
        if workers > 1:
            _spawn(ctx, db, name, workers, out_dir, sections, subsections, llm)
            return
        from ..graphs.batch import work
        from ..graphs.runner import build_deps
        from .generate import _open_corpus

        def run() -> dict:
            settings = get_settings(ctx, **{"generation.checkpointer": db, "generation.sections": sections,
                                            "generation.subsections": subsections, "llm.default": llm})
            deps = build_deps(settings, corpus=_open_corpus(settings))
            return work(db, name, deps, runs_dir=out_dir or settings.runs_dir,
                        event=lambda m: console.print(m, highlight=False, markup=False))

        done = guarded(run)
        console.print(f"worker finished: {done}", highlight=False, markup=False)


def _spawn(ctx: typer.Context, db: str, name: str, workers: int, out_dir: Path | None, sections: int | None,
           subsections: int | None, llm: str | None) -> None:
    """Start ``workers`` single-worker processes and show the batch's progress until they exit."""
    from ..graphs.batch import status

    base = [sys.executable, "-m", "surveygraph"]
    if ctx.obj and ctx.obj.get("home"):
        base += ["--home", str(ctx.obj["home"])]
    if ctx.obj and ctx.obj.get("config"):
        base += ["--config", str(ctx.obj["config"])]
    command = [*base, "batch", "work", "--db", db, "--batch", name, "--workers", "1"]
    for flag, value in (("--out", out_dir), ("--sections", sections), ("--subsections", subsections), ("--llm", llm)):
        if value is not None:
            command += [flag, str(value)]
    started = time.monotonic()
    procs = [subprocess.Popen(command) for _ in range(workers)]
    shown = ""
    try:
        while any(p.poll() is None for p in procs):
            time.sleep(_POLL_SECONDS)
            try:
                line = _progress_line(status(db, name), started)
            except UserError:
                continue  # the database went away for a moment: the workers report it themselves
            if line.split(";")[0] != shown.split(";")[0]:
                console.print(line, highlight=False, markup=False)
                shown = line
    except KeyboardInterrupt:
        for p in procs:
            p.terminate()
        raise
    failed = [p.returncode for p in procs if p.returncode]
    if failed:  # each worker said why in its own line above; this says what it means for the batch
        fail(f"{len(failed)} of {workers} workers stopped with an error (exit {', '.join(map(str, failed))}); "
             "their unfinished jobs stay resumable: `surveygraph batch status` shows them, "
             "`surveygraph batch work` goes on with them", next((code for code in failed if code > 0), 1))
