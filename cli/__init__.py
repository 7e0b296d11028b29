"""The ``surveygraph`` command line. Each area registers its commands from its own module."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from typing import Optional

import typer

from ..errors import UserError
from ..settings import default_home
from .common import console, plain, quiet_third_party

app = typer.Typer(
    name="surveygraph",
    help="Write literature surveys with a LangGraph pipeline and evaluate surveys.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


def _print_version(value: bool) -> None:
    if value:
        from .. import __version__

        typer.echo(f"surveygraph {__version__}")
        raise typer.Exit()


@app.callback()
def _global_options(
    ctx: typer.Context,
    home: Optional[Path] = typer.Option(
        None, "--home", envvar="SURVEYGRAPH_HOME",
        # the default in effect: SURVEYGRAPH_HOME when set, else the per-user data dir
        help="Data home holding stores, caches and runs (default: "
             f"{os.environ.get('SURVEYGRAPH_HOME') or default_home()}).",
    ),
    config: Optional[Path] = typer.Option(
        None, "--config", help="TOML settings file (default: ./surveygraph.toml if present)."
    ),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Log debug output."),
    version: bool = typer.Option(False, "--version", is_eager=True, callback=_print_version,
                                 help="Print the version and exit."),
) -> None:
    quiet_third_party()  # here, so every command (also under CliRunner) gets it
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    ctx.obj = {"home": home, "config": config, "verbose": verbose}


def _register_all() -> None:
    # Imported here, not at module top, so `surveygraph --help` stays fast: each module keeps
    # its heavy imports (torch, chromadb, llama.cpp) inside its command functions.
    from . import batch, corpus, doctor, evaluate, generate, judges, validate

    for module in (corpus, generate, batch, evaluate, judges, validate, doctor):
        module.register(app)


_register_all()


def main() -> None:
    quiet_third_party()
    try:
        app(prog_name="surveygraph")
    except UserError as exc:
        console.print(f"[bold red]error:[/] {plain(exc)}", highlight=False, soft_wrap=True)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        console.print("interrupted")
        sys.exit(130)
    except Exception as exc:  # noqa: BLE001 - only a read-only home becomes one line; the rest re-raise
        from .common import read_only_failure

        if not read_only_failure(exc):
            raise
        console.print(f"[bold red]error:[/] the data home cannot be written ({plain(exc)[:200]}): pass a writable "
                      "--home (or SURVEYGRAPH_HOME)", highlight=False, soft_wrap=True)
        sys.exit(2)
