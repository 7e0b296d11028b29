"""Running a generation graph from the CLI: its progress and ETA, and how it stops (Ctrl-C,
SIGTERM, a model server that fails for good, a crash: each says how to resume).

The progress: an ETA from the first progress line, corrected at every step.

A run is a sequence of steps whose expected seconds are known beforehand: the planning steps, a
read and a write per subsection, the closing steps. Expected seconds come from the newest finished
run of this data home (the wall time of each step, ``step_wall_s`` in its manifest.json, written by
graphs/runner.py), else from built-in proportions measured on the bundled model. After every step
the ETA is the expected seconds still to come, rescaled by how this run compares so far:

    ETA = elapsed / (expected seconds of the steps done) x (expected seconds of the steps to come)

so a slower machine or model corrects it from the first step on. The clock starts once, when the
run starts, and is never reset (it once jumped back from 0:00:59 to 0:00:00 when the outline was
known, and the first ETA came 52-79% into a run: issue 31).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from contextlib import contextmanager
from typing import Callable

import typer

from ..errors import EXIT_INTERRUPTED, EXIT_TERMINATED, UserError
from .common import console, plain, progress_bar

RUN_BAR: dict = {}  # the live progress bar and clock of the run in progress (set up by run_graph)
PLAN = ("gather_topic_context", "plan_sections", "plan_subsections")
PER_SUBSECTION = ("read_subsection", "write_subsection")
CLOSING = ("polish_sections", "illustrate", "write_frame", "export_survey", "self_evaluate")
STEPS = (*PLAN, *PER_SUBSECTION, *CLOSING)

# Wall seconds per step (per subsection for reads and writes) of a run with the bundled local model
# and default settings on 2 cores, used until this data home has a finished run of its own; only
# their proportions matter (the ETA is rescaled from the first step on). Measured with
# benchmarks/eta_first.py, see benchmarks/results/faults_net.md.
DEFAULT_STEP_SECONDS = {
    "gather_topic_context": 9.0, "plan_sections": 0.6, "plan_subsections": 0.3,
    "read_subsection": 1.6, "write_subsection": 2.2,
    "polish_sections": 1.0, "illustrate": 1.5, "write_frame": 0.4, "export_survey": 0.3, "self_evaluate": 8.0,
}


def measured_step_costs(runs_dir: Path) -> dict[str, float]:
    """Expected wall seconds per step, from the newest finished (not resumed) run of this data home
    that recorded them: each planning and closing step once, a read and a write per subsection.
    ``DEFAULT_STEP_SECONDS`` when there is none yet."""
    manifests = sorted(Path(runs_dir).glob("*/manifest.json"), key=lambda p: p.stat().st_mtime, reverse=True) \
        if Path(runs_dir).is_dir() else []
    for path in manifests[:10]:
        try:
            manifest = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        wall, n = manifest.get("step_wall_s") or {}, len(manifest.get("subsection_status") or {})
        if manifest.get("resumed") or manifest.get("rerun_of") or not n or not all(s in wall for s in STEPS):
            continue  # a resumed run's clock saw only part of it
        floor = 0.01  # a step that took no measurable time still moves the bar a little
        costs = {step: max(floor, float(wall[step])) for step in STEPS}
        costs.update({step: max(floor, float(wall[step]) / n) for step in PER_SUBSECTION})
        return costs
    return dict(DEFAULT_STEP_SECONDS)


class RunClock:
    """Expected and elapsed seconds of one run; ``eta()`` is None until a step has finished."""

    def __init__(self, costs: dict[str, float], subsections: int, clock: Callable[[], float] = time.monotonic):
        self.costs, self.subsections, self._clock = costs, max(1, subsections), clock
        self.started = clock()
        self.done = 0.0

    @property
    def total(self) -> float:
        per_subsection = sum(self.costs.get(step, 0.0) for step in PER_SUBSECTION)
        once = sum(self.costs.get(step, 0.0) for step in (*PLAN, *CLOSING))
        return max(self.done, once + self.subsections * per_subsection)

    @property
    def elapsed(self) -> float:
        return self._clock() - self.started

    def step(self, node: str, update: dict) -> None:
        """A finished step: count it, and learn the outline's size as soon as it is known."""
        outline = update.get("outline") if node == "plan_subsections" else None
        shape = update.get("shape") if node == "gather_topic_context" else None
        if outline:
            self.subsections = max(1, sum(len(s["subsections"]) for s in outline))
        elif isinstance(shape, dict) and shape.get("sections") and shape.get("subsections"):
            self.subsections = max(1, int(shape["sections"]) * int(shape["subsections"]))
        self.done += self.costs.get(node, 0.0)

    def eta(self) -> float | None:
        if self.done <= 0:
            return None
        return self.elapsed / self.done * max(0.0, self.total - self.done)


def start_clock(bar, settings) -> None:
    """A clock for the run about to start, its size from the settings until the plan says more."""
    generation = settings.generation
    clock = RunClock(measured_step_costs(settings.runs_dir), generation.sections * generation.subsections)
    task = bar.add_task("generating", total=clock.total, eta=None)
    RUN_BAR.update(bar=bar, task=task, clock=clock)


def advance_bar(node: str, update: dict) -> None:
    """Move the bar to the expected seconds done; its total follows the outline's size, its clock
    runs on."""
    bar, clock = RUN_BAR.get("bar"), RUN_BAR.get("clock")
    if bar is None or clock is None:
        return
    clock.step(node, update)
    bar.update(RUN_BAR["task"], total=clock.total, completed=clock.done, eta=clock.eta())


def resume_command(run_dir: Path, settings) -> str:
    """The exact command that continues ``run_dir`` (its home, and --out when not under it)."""
    import shlex

    words = ["surveygraph", "--home", str(settings.home), "generate", "--resume", run_dir.name]
    if Path(run_dir).parent.resolve() != Path(settings.runs_dir).resolve():
        words += ["--out", str(Path(run_dir).parent)]
    return shlex.join(words)


@contextmanager
def _sigterm_as_interrupt():
    """SIGTERM (a scheduler, `kill`, a container stop) stops a run as Ctrl-C does: the run is saved
    at its last finished step and the resume command printed (it used to exit 143 with neither).
    Yields a list that holds the signal's number once one arrived."""
    import signal
    import threading

    received: list[int] = []
    if threading.current_thread() is not threading.main_thread():  # signals reach the main thread only
        yield received
        return

    def stop(signum, _frame):
        received.append(signum)
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield received
    finally:
        signal.signal(signal.SIGTERM, previous)


def _resume_hint(run_dir, settings) -> None:
    if run_dir is not None:
        command = resume_command(run_dir, settings) if settings is not None else \
            f"surveygraph generate --resume {Path(run_dir).name}"
        console.print(f"resume it with: {command}", highlight=False, soft_wrap=True)


def run_graph(call, settings=None):
    """Run a graph call; Ctrl-C, SIGTERM, a model server that fails for good or a crash leaves a
    checkpoint and says how to resume. An error before the run existed names no run to resume."""
    from ..graphs.runner import RunInterrupted

    with _sigterm_as_interrupt() as signals:
        try:
            with progress_bar(transient=True, percent=True) as bar:  # drawn on terminals only; lines print above it
                if settings is not None:
                    start_clock(bar, settings)
                try:
                    return call()
                finally:
                    RUN_BAR.clear()
        except UserError as exc:
            run_dir = getattr(exc, "run_dir", None)
            if not (exc.resumable and run_dir is not None):
                raise  # nothing started, or resuming cannot help (e.g. too little on the topic)
            # the server went away or refused the key mid-run: resumable once that is fixed
            console.print(f"[bold red]error:[/] {plain(exc)}", highlight=False, soft_wrap=True)
            _resume_hint(run_dir, settings)
            raise typer.Exit(exc.exit_code) from None
        except RunInterrupted as stop:
            what = "terminated (SIGTERM)" if signals else "interrupted"
            console.print(f"{what}: run {stop.run_id} is saved at its last finished step", highlight=False,
                          soft_wrap=True)
            _resume_hint(stop.run_dir, settings)
            raise typer.Exit(EXIT_TERMINATED if signals else EXIT_INTERRUPTED) from None
        except Exception as exc:  # noqa: BLE001 - one readable line; the checkpoint allows --resume
            console.print(f"[bold red]error:[/] run stopped: {type(exc).__name__}: {plain(exc)}", highlight=False)
            _resume_hint(getattr(exc, "run_dir", None), settings)
            raise typer.Exit(1) from exc
