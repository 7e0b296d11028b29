"""Helpers every CLI command uses: settings from the global options, console, clean failure."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, NoReturn

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.markup import escape

from ..errors import EXIT_USER_ERROR, UserError
from ..sanitize import redact_text
from ..settings import Settings, check_home, load_settings

# One flag, --judge-llm, names the judge model in every command (--judge is a hidden old alias).
JUDGE_LLM_HELP = "Judge model: local, gguf:PATH or provider:model (default: settings llm.judge, else llm.default)."

def _no_type_for_flags() -> None:
    """Typer (0.29) prints a type after every option, so each on/off flag read "--pdf <bool>" as if
    it took a value. A flag takes none: its help row shows no type (options with values keep theirs)."""
    from typer.core import TyperOption

    shown = TyperOption.display_type_rich
    if getattr(shown, "_flags_plain", False):
        return

    def display_type_rich(self, ctx):
        return None if self.is_flag else shown(self, ctx)

    display_type_rich._flags_plain = True
    TyperOption.display_type_rich = display_type_rich


_no_type_for_flags()

# emoji=False: a model name or topic like "openai:x:y" must print as typed, not as "openai❌y"
console = Console(stderr=True, emoji=False)
out = Console(emoji=False)  # results (tables, JSON) go to stdout; progress and messages to stderr


def require_writable_home(settings: Settings, action: str) -> None:
    """Refuse, in one line, a command that must write into a read-only data home (before any store
    opens: embedded Chroma and SQLite would fail later with "attempt to write a readonly database")."""
    from ..retrieval.locking import home_is_writable

    if not home_is_writable(settings.home):
        raise UserError(f"the data home {settings.home} is read-only, and {action} writes to it: pass a writable "
                        "--home (or SURVEYGRAPH_HOME); searching a read-only home works")


def read_only_failure(exc: BaseException) -> bool:
    """An error raised because the data home cannot be written (the up-front check can miss a home
    that turns read-only, or a store file that is)."""
    import errno

    seen = 0
    while exc is not None and seen < 5:
        if "readonly database" in str(exc) or "read-only file system" in str(exc).lower():
            return True
        if isinstance(exc, OSError) and exc.errno == errno.EROFS:
            return True
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return False


def progress_bar(*, percent: bool = False, **kwargs: Any):
    """The progress bar every command uses: description, bar, n/total, elapsed and ETA. Written to a
    log or pipe (no terminal to draw on), it prints a line "n/total done, elapsed, ETA" every 5%.
    ``percent``: the task counts weighted work (e.g. expected seconds), shown as a percentage."""
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TaskProgressColumn, TextColumn,
                               TimeElapsedColumn, TimeRemainingColumn)

    class LoggedProgress(Progress):
        logged: dict  # task id -> the last 5% mark printed

        def update(self, task_id, **changes):  # type: ignore[override]
            super().update(task_id, **changes)
            self._log(task_id)

        def advance(self, task_id, advance: float = 1) -> None:
            super().advance(task_id, advance)
            self._log(task_id)

        def _log(self, task_id) -> None:
            if self.console.is_terminal:
                return
            task = self._tasks[task_id]
            if not task.total or not task.completed:
                return
            mark = int(20 * task.completed / task.total) if percent else int(task.completed) // max(1, int(task.total) // 20)
            if mark <= self.logged.get(task_id, 0):
                return
            self.logged[task_id] = mark
            elapsed = task.elapsed or 0.0
            eta = elapsed / task.completed * max(0.0, task.total - task.completed)
            done = (f"{100 * task.completed / task.total:.0f}% done" if percent
                    else f"{int(task.completed)}/{int(task.total)} done")
            self.console.print(f"{done}, {elapsed:.0f} s elapsed, ETA {eta:.0f} s", highlight=False, markup=False)

    count = TaskProgressColumn() if percent else MofNCompleteColumn()
    bar = LoggedProgress(TextColumn("{task.description}"), BarColumn(), count, TimeElapsedColumn(),
                         TimeRemainingColumn(), console=console, **kwargs)
    bar.logged = {}
    return bar


def split_list(value: str | None, allowed: tuple[str, ...] | None = None, what: str = "value") -> list[str] | None:
    """A comma-separated option as a list (None when not given), checked against ``allowed``."""
    if value is None:
        return None
    items = [v.strip() for v in value.split(",") if v.strip()]
    if allowed is not None:
        unknown = [v for v in items if v not in allowed]
        if unknown:
            raise UserError(f"unknown {what}: {', '.join(unknown)} (choose from {', '.join(allowed)})")
    return items


def plain(text: Any) -> str:
    """Text for a Rich markup string: user input, paths, model names and error messages would
    otherwise lose "[openai]"-like parts to markup; credentials are masked too."""
    return escape(redact_text(str(text)))


def fail(message: str, code: int = EXIT_USER_ERROR) -> NoReturn:
    console.print(f"[bold red]error:[/] {plain(message)}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def get_settings(ctx: typer.Context | None, **overrides: Any) -> Settings:
    """Settings from the global --home/--config options plus this command's flags.

    ``overrides`` use dotted keys (``{"llm.writer": value}``); None means "not given".
    """
    root = ctx.find_root() if ctx is not None else None
    obj = (root.obj if root is not None else None) or {}
    config: Path | None = obj.get("config")
    if obj.get("home") is not None:
        overrides.setdefault("home", obj["home"])
    try:
        settings = load_settings(config, **overrides)
        check_home(settings.home)
        return settings
    except FileNotFoundError as exc:
        raise UserError(str(exc)) from exc
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"])
        raise UserError(f"invalid setting {loc}: {first['msg']}") from exc


def quiet_third_party() -> None:
    """Offline-safe defaults for libraries that otherwise phone home or log noisily, and no
    third-party progress bars (tqdm "Loading weights", sentence-transformers "Batches"): our own
    rich bars say what is happening. Called before any of those libraries is imported."""
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    # tqdm reads TQDM_* defaults when it is imported; transformers and huggingface_hub have switches.
    os.environ.setdefault("TQDM_DISABLE", "1")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
    import sys

    if "transformers" in sys.modules:  # imported earlier (tests, the Python API): switch it off too
        sys.modules["transformers"].utils.logging.disable_progress_bar()
    if "tqdm" in sys.modules:
        _disable_tqdm(sys.modules["tqdm"])


def _disable_tqdm(tqdm_module) -> None:
    """Make an already imported tqdm default to ``disable=True`` (env defaults are read at import)."""
    base = tqdm_module.tqdm
    if getattr(base, "_surveygraph_quiet", False):
        return
    original_init = base.__init__

    def quiet_init(self, *args, **kwargs):
        kwargs.setdefault("disable", True)
        original_init(self, *args, **kwargs)

    base.__init__ = quiet_init
    base._surveygraph_quiet = True
