"""Helpers every CLI command uses: settings from the global options, console, clean failure."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape

from ..errors import EXIT_USER_ERROR, UserError
from ..sanitize import redact_text
from ..settings import Settings, checked_settings

# One flag, --judge-llm, names the judge model in every command (--judge is a hidden old alias).
JUDGE_LLM_HELP = "Judge model: local, gguf:PATH or provider:model (default: settings llm.judge, else llm.default)."

# How help names a value: the words click used before Typer 0.29 printed Python types
# ("<str>", "<list[str]>", "<int range>") and braces around arguments ("{input_path}").
_VALUE_WORDS = {"str": "TEXT", "int": "INTEGER", "float": "NUMBER", "bool": "BOOLEAN", "path": "PATH",
                "file": "FILE", "dir": "DIR"}


def plain_value_word(typer_label: str) -> str:
    """``<str>`` -> TEXT, ``<list[str]>`` -> TEXT (the option repeats), ``<int range>`` -> INTEGER
    (the range is shown beside it), ``<json|md>`` -> json|md."""
    label = typer_label.strip("<>")
    if label.startswith("list[") and label.endswith("]"):
        label = label[len("list["):-1]
    label = label.removesuffix(" range")
    return _VALUE_WORDS.get(label, label if "|" in label else label.upper())


def _plain_help_types() -> None:
    """Help as a user reads it (issue 20.5, issue 31): a flag takes no value, so its row shows no
    type (Typer printed "--pdf <bool>"); an option's value reads TEXT / PATH / INTEGER, not a
    Python type; an argument is TOPIC in the usage line and its row, not {topic}."""
    from typer.core import TyperArgument, TyperOption, _TyperParameter

    if getattr(_TyperParameter.display_type, "_plain", False):
        return
    typer_label = _TyperParameter.display_type

    def display_type(self, ctx):
        return plain_value_word(typer_label(self, ctx))

    option_type = TyperOption.display_type_rich

    def display_type_rich(self, ctx):
        return None if self.is_flag else option_type(self, ctx)

    def argument_name(self) -> str:
        return self.metavar if self.metavar is not None else str(self.name).upper()

    def usage_name(self) -> str:
        name = self.display_name_raw if self.required else f"[{self.display_name_raw}]"
        return name + ("..." if self.nargs != 1 else "")

    display_type._plain = True
    _TyperParameter.display_type = display_type
    TyperOption.display_type_rich = display_type_rich
    TyperArgument.display_name_raw = property(argument_name)
    TyperArgument._usage_display_name = usage_name


_plain_help_types()

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


def task_eta(task) -> float | None:
    """Seconds left: the task's own estimate (field ``eta``, e.g. generate's run clock), else the
    average rate so far (elapsed / done x left). Rich's own column uses the speed of the last 30 s,
    which on a run with a few long steps read 2 s with 15 s left, or nothing for minutes."""
    if "eta" in task.fields:
        return task.fields["eta"]
    if not task.total or not task.completed or task.elapsed is None:
        return None
    return task.elapsed / task.completed * max(0.0, task.total - task.completed)


def progress_bar(*, percent: bool = False, **kwargs: Any):
    """The progress bar every command uses: description, bar, n/total, elapsed and ETA. Written to a
    log or pipe (no terminal to draw on), it prints a line "n/total done, elapsed, ETA" at the first
    step and every 5% after. ``percent``: the task counts weighted work (e.g. expected seconds),
    shown as a percentage."""
    from datetime import timedelta

    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TaskProgressColumn, TextColumn,
                               TimeElapsedColumn, TimeRemainingColumn)
    from rich.text import Text

    class EtaColumn(TimeRemainingColumn):
        def render(self, task) -> Text:
            eta = task_eta(task)
            shown = "-:--:--" if eta is None else str(timedelta(seconds=int(eta)))
            return Text(f"ETA {shown}", style="progress.remaining")

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
            if mark <= self.logged.get(task_id, -1):
                return
            self.logged[task_id] = mark
            elapsed, eta = task.elapsed or 0.0, task_eta(task)
            done = (f"{100 * task.completed / task.total:.0f}% done" if percent
                    else f"{int(task.completed)}/{int(task.total)} done")
            left = "" if eta is None else f", ETA {eta:.0f} s"
            self.console.print(f"{done}, {elapsed:.0f} s elapsed{left}", highlight=False, markup=False)

    count = TaskProgressColumn() if percent else MofNCompleteColumn()
    bar = LoggedProgress(TextColumn("{task.description}"), BarColumn(), count, TimeElapsedColumn(),
                         EtaColumn(), console=console, **kwargs)
    bar.logged = {}
    return bar


def split_list(value: str | None, allowed: tuple[str, ...] | None = None, what: str = "value") -> list[str] | None:
    """A comma-separated option as a list (None when not given), checked against ``allowed``."""
    if value is None:
        return None
    items = [v.strip() for v in value.split(",") if v.strip()]
    return check_choices(items, allowed, what) if allowed is not None else items


def check_choices(items: Any, allowed: tuple[str, ...], what: str) -> list[str]:
    """``items`` (a list of names) when each is one of ``allowed``; else one UserError naming the
    strays and the choices (the rule of the CLI's comma lists and the Python API's lists)."""
    if isinstance(items, str) or not isinstance(items, (list, tuple)):
        raise UserError(f"give the {what} names as a list, not {type(items).__name__} {items!r}")
    unknown = [str(v) for v in items if v not in allowed]
    if unknown:
        raise UserError(f"unknown {what}: {', '.join(unknown)} (choose from {', '.join(allowed)})")
    return list(items)


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
    return checked_settings(config, **overrides)


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
