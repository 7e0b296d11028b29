"""Running the generation graph: run directories, SQLite checkpoints, resume and section reruns.

Every run lives in ``<runs>/<slug>-<timestamp>/`` with ``run.json`` (topic + settings snapshot,
so a resume uses the same configuration) and ``checkpoints.sqlite`` (thread id = run id).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import time
import contextlib
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterator

from ..agents.deps import GenerationDeps
from ..agents.exporter import manifest, new_run_dir, write_json
from ..errors import RunAlreadyFinished, UserError
from ..retrieval.locking import crash_point
from ..sanitize import check_topic, is_redacted, redact, redact_text
from ..settings import Settings, check_folder
from .checkpoint_serde import PaperRefSerializer
from .generation import build_generation_graph

UpdateCallback = Callable[[str, dict], None]
CHECKPOINTS = "checkpoints.sqlite"
LLM_CALLS = "llm_calls.jsonl"  # every LLM call of the run, across resumed sessions
PLAN_NODES = {"gather_topic_context", "plan_sections", "plan_subsections"}


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C during a run: the last checkpoint is kept; says which run to resume."""

    def __init__(self, run_id: str, run_dir: Path):
        super().__init__(f"run {run_id} interrupted")
        self.run_id, self.run_dir = run_id, run_dir


@dataclass
class RunResult:
    run_id: str
    run_dir: Path
    state: dict = field(default_factory=dict)

    @property
    def budget_exhausted(self) -> bool:
        return bool(self.state.get("budget_exhausted"))

    @property
    def finished(self) -> bool:
        return "export" in self.state


def build_deps(settings: Settings, *, chat_models: dict | None = None, corpus: Any = None,
               outlines: Any = None, bench_refs: Path | None = None,
               human: Path | None = None) -> GenerationDeps:
    """Real dependencies from settings; tests and callers may pass their own pieces."""
    from ..llm import build_role_clients

    if corpus is None:
        from ..retrieval.corpus import Corpus

        corpus = Corpus(settings)
    if outlines is None and settings.generation.outline_demos != "none":
        from ..retrieval.outlines import OutlineStore

        outlines = OutlineStore(settings)
    clients = build_role_clients(settings, chat_models=chat_models)
    return GenerationDeps(settings=settings, corpus=corpus, outlines=outlines, clients=clients,
                          bench_refs=Path(bench_refs) if bench_refs else None,
                          human=Path(human) if human else None)


@contextmanager
def _checkpointer(run_dir: Path, deps: GenerationDeps) -> Iterator[Any]:
    """SQLite in the run directory, or the PostgreSQL database of ``generation.checkpointer``;
    papers the store holds are checkpointed by id (checkpoint_serde.py)."""
    serde = PaperRefSerializer(deps.corpus)
    url = deps.settings.generation.checkpointer
    if url:
        yield from _postgres_checkpointer(url, serde)
        return
    from langgraph.checkpoint.sqlite import SqliteSaver

    conn = sqlite3.connect(run_dir / CHECKPOINTS, check_same_thread=False)
    try:
        yield SqliteSaver(conn, serde=serde)
    finally:
        conn.close()


def postgres_connection(url: str, name: str, target: str, **options: Any):
    """A psycopg connection to ``url``; a bad URL, a missing client or an unreachable server is
    one UserError naming ``name`` (the setting) or ``target`` (what the database is for)."""
    if not url.startswith(("postgresql://", "postgres://")):
        raise UserError(f"{name} must be a postgresql:// URL, not {redact_text(url)!r}")
    try:
        import psycopg
    except ImportError:
        raise UserError(f"{name} needs PostgreSQL's client: pip install 'surveygraph[postgres]'") from None
    try:
        return psycopg.Connection.connect(url, **options)
    except psycopg.OperationalError as exc:
        raise UserError(f"cannot reach {target} {redact_text(url)}: "
                        f"{redact_text(str(exc)).strip().splitlines()[-1]}") from None


def _postgres_checkpointer(url: str, serde: Any) -> Iterator[Any]:
    try:
        from langgraph.checkpoint.postgres import PostgresSaver
        from psycopg.rows import dict_row
    except ImportError:
        raise UserError("generation.checkpointer needs pip install 'surveygraph[postgres]'") from None
    conn = postgres_connection(  # the connection PostgresSaver.from_conn_string makes, with our serializer
        url, "generation.checkpointer", "the checkpoint database", autocommit=True, prepare_threshold=0,
        row_factory=dict_row)
    try:
        saver = PostgresSaver(conn, serde=serde)
        saver.setup()  # creates or migrates LangGraph's tables; idempotent
        yield saver
    finally:
        conn.close()


def _config(run_id: str, settings: Settings) -> dict:
    return {"configurable": {"thread_id": run_id}, "max_concurrency": settings.generation.concurrency,
            "recursion_limit": 100}


def _stream(graph: Any, graph_input: dict | None, config: dict, on_update: UpdateCallback | None,
            step_wall: dict[str, float]) -> None:
    """Run the graph; ``step_wall`` gets the wall seconds from the previous step's end to each
    step's end (parallel reads and writes share their phase's time): the next run's progress bar
    expects these (cli/run_progress.py)."""
    last = time.monotonic()
    for chunk in graph.stream(graph_input, config, stream_mode="updates"):
        now = time.monotonic()
        nodes = [node for node in chunk if not node.startswith("__")]
        for node in nodes:
            step_wall[node] = step_wall.get(node, 0.0) + (now - last) / len(nodes)
        last = now
        for node, update in chunk.items():
            if on_update is not None and not node.startswith("__"):
                on_update(node, update or {})
            crash_point(f"after-{node}")  # fault-injection tests: a worker killed after a checkpointed step


def _execute(deps: GenerationDeps, run_dir: Path, graph_input: dict | None,
             on_update: UpdateCallback | None, extra_manifest: dict | None = None) -> RunResult:
    run_id = run_dir.name
    config = _config(run_id, deps.settings)
    # Calls of earlier sessions of this run (before a crash) count in the manifest and the budget.
    earlier = deps.clients.meter.attach_journal(run_dir / LLM_CALLS)
    deps.clients.budget.add(sum(e["input_tokens"] + e["output_tokens"] for e in earlier if not e.get("cached")))
    step_wall: dict[str, float] = {}
    stack = contextlib.ExitStack()
    try:
        saver = stack.enter_context(_checkpointer(run_dir, deps))
    except Exception as exc:  # e.g. an unreachable checkpoint database: nothing checkpointed, nothing to resume
        exc.nothing_checkpointed = True  # type: ignore[attr-defined]
        raise
    with stack:
        graph = build_generation_graph(deps, checkpointer=saver)
        try:
            _stream(graph, graph_input, config, on_update, step_wall)
        except KeyboardInterrupt:
            # Finished steps are checkpointed (SQLite commits per step): name the run to resume.
            raise RunInterrupted(run_id, run_dir) from None
        except Exception as exc:
            exc.run_dir = run_dir  # type: ignore[attr-defined]  # lets callers print the resume command
            raise
        state = dict(graph.get_state(config).values)
    if "export" in state:  # final manifest: includes the export and self-evaluation timings
        write_json(run_dir / "manifest.json", manifest(state, deps, {**(extra_manifest or {}), "step_wall_s": step_wall}))
    return RunResult(run_id=run_id, run_dir=run_dir, state=state)


def _write_run_record(run_dir: Path, topic: str, deps: GenerationDeps, **extra: Any) -> None:
    # Secrets (a password in llm.base_url, API keys) are masked; run_settings takes them back
    # from the current configuration on resume.
    write_json(run_dir / "run.json", redact({
        "run_id": run_dir.name, "topic": topic,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "settings": deps.settings.model_dump(mode="json"),
        "bench_refs": str(deps.bench_refs) if deps.bench_refs else None,
        "human": str(deps.human) if deps.human else None, **extra,
    }))


def valid_topic(topic: object) -> str:
    """The topic as a run uses it, or one UserError: the rule of the CLI, the Python API and the
    LangGraph server (empty, absurd, over-long or pasted topics; anything that is not text)."""
    if topic is not None and not isinstance(topic, str):
        raise UserError(f"the topic must be text, not {type(topic).__name__}: give a survey topic such as "
                        "\"Graph Neural Networks\"")
    return check_topic(topic)


def check_runs_dir(runs_dir: Path) -> Path:
    """A folder for run directories (``--out``, ``out=``), or one UserError before anything starts."""
    check_folder(Path(runs_dir), "the runs folder (--out)", "give a folder for the run directories")
    return Path(runs_dir)


def start_run(topic: str, deps: GenerationDeps, *, runs_dir: Path | None = None,
              on_update: UpdateCallback | None = None,
              on_created: Callable[[Path], None] | None = None) -> RunResult:
    """A new run of the whole graph for ``topic``; ``on_created`` sees the run directory (with
    its run.json) before the graph starts (a batch worker records it so another can resume).
    A run that fails before its first checkpoint (an unreachable checkpoint database) leaves no
    run directory behind: there would be nothing to resume."""
    topic = valid_topic(topic)  # empty, absurd or pasted topics: a clear UserError
    run_dir = new_run_dir(check_runs_dir(Path(runs_dir or deps.settings.runs_dir)), topic)
    _write_run_record(run_dir, topic, deps)
    if on_created is not None:
        on_created(run_dir)
    return _in_new_run_dir(run_dir, lambda: start_graph(run_dir, deps, on_update=on_update))


def _in_new_run_dir(run_dir: Path, run: Callable[[], RunResult]) -> RunResult:
    """``run()`` on a run directory just made; if it fails before anything is checkpointed (an
    unreachable checkpoint database) the directory goes: there would be nothing to resume."""
    try:
        return run()
    except Exception as exc:
        if getattr(exc, "nothing_checkpointed", False):
            shutil.rmtree(run_dir, ignore_errors=True)
        raise


def start_graph(run_dir: Path, deps: GenerationDeps, *, on_update: UpdateCallback | None = None) -> RunResult:
    """Run the graph from its start on an existing run directory."""
    topic = run_record(run_dir)["topic"]
    graph_input = {"topic": topic, "run_id": run_dir.name, "run_dir": str(run_dir)}
    return _execute(deps, run_dir, graph_input, on_update)


def find_run(ref: str, runs_dir: Path) -> Path:
    """A run directory from its id (under runs_dir) or its path."""
    for candidate in (Path(ref), Path(runs_dir) / ref):
        if (candidate / "run.json").is_file() and ((candidate / CHECKPOINTS).is_file() or _external_checkpoints(candidate)):
            return candidate.resolve()
    raise UserError(f"no run '{ref}' found (looked for {Path(runs_dir) / ref}/run.json)")


def _external_checkpoints(run_dir: Path) -> bool:
    try:
        return bool(run_record(run_dir)["settings"]["generation"].get("checkpointer"))
    except (OSError, ValueError, KeyError, TypeError):
        return False


def run_record(run_dir: Path) -> dict:
    return json.loads((run_dir / "run.json").read_text(encoding="utf-8"))


def run_settings(run_dir: Path, secrets_from: Settings | None = None, **llm_overrides: str | None) -> Settings:
    """The settings snapshot of a run; model choices may be overridden (same graph config).

    Values masked when run.json was written (see sanitize.redact) come from ``secrets_from``
    (the current configuration; default: environment and config files)."""
    data = restore_redacted(run_record(run_dir)["settings"], secrets_from)
    for role, spec in llm_overrides.items():
        if spec is not None:
            data["llm"][role] = spec
    return Settings(**data)


def restore_redacted(data: dict, current: Settings | None) -> dict:
    """``data`` (a settings dump) with each masked value taken from ``current``."""
    masked = [(section, key) for section, values in data.items() if isinstance(values, dict)
              for key, value in values.items() if is_redacted(value)]
    if not masked:
        return data
    if current is None:
        from ..settings import load_settings

        current = load_settings(None)
    now = current.model_dump(mode="json")
    for section, key in masked:
        value = (now.get(section) or {}).get(key)
        if value is None or is_redacted(value):
            raise UserError(f"this run's {section}.{key} holds a secret that is not saved in run.json; "
                            f"set it again (e.g. SURVEYGRAPH_{section.upper()}__{key.upper()}) to resume")
        data[section][key] = value
    return data


def _saved_state(run_dir: Path, deps: GenerationDeps) -> tuple[dict, tuple]:
    with _checkpointer(run_dir, deps) as saver:
        graph = build_generation_graph(deps, checkpointer=saver)
        snapshot = graph.get_state(_config(run_dir.name, deps.settings))
    return dict(snapshot.values), tuple(snapshot.next)


def resume_run(run_dir: Path, deps: GenerationDeps, *, on_update: UpdateCallback | None = None) -> RunResult:
    """Continue an interrupted run from its last checkpoint (finished branches are not redone)."""
    values, pending = _saved_state(run_dir, deps)
    if not values:
        raise UserError(f"run '{run_dir.name}' has no checkpoint to resume from")
    if "export" in values and not pending:
        raise RunAlreadyFinished(f"run '{run_dir.name}' already finished; use --rerun-section ID to redraft a part, "
                                 "or --pdf to build its PDF")
    # No pending step but no export either (stopped between steps, or the last step failed):
    # start the graph again on the same thread; its saved outline, readings and drafts are kept,
    # so only what is missing runs (see route_start / send_reads / send_writes).
    graph_input = None if pending else {"topic": values["topic"], "run_id": run_dir.name, "run_dir": str(run_dir)}
    return _execute(deps, run_dir, graph_input, on_update, {"resumed": True})


def subsection_ids(outline: list[dict], ref: str) -> list[str]:
    """A subsection id ("2.1") or a section id ("2", all of its subsections)."""
    for section in outline:
        if section["id"] == ref:
            return [sub["id"] for sub in section["subsections"]]
        if any(sub["id"] == ref for sub in section["subsections"]):
            return [ref]
    known = ", ".join(sub["id"] for s in outline for sub in s["subsections"])
    raise UserError(f"no section '{ref}' in this run (subsections: {known})")


def rerun_section(source_dir: Path, section_ref: str, deps: GenerationDeps, *,
                  runs_dir: Path | None = None, on_update: UpdateCallback | None = None) -> RunResult:
    """Re-read and re-draft one (sub)section of a finished run into a NEW run directory."""
    values, _pending = _saved_state(source_dir, deps)
    if not values.get("outline"):
        raise UserError(f"run '{source_dir.name}' has no outline yet; resume it instead")
    targets = set(subsection_ids(values["outline"], section_ref))
    topic = values["topic"]
    run_dir = new_run_dir(check_runs_dir(Path(runs_dir or deps.settings.runs_dir)), topic)
    _write_run_record(run_dir, topic, deps, rerun_of=source_dir.name, rerun_section=section_ref)
    inherited = [f for f in values.get("fallbacks", []) if f.get("node") in PLAN_NODES]
    graph_input = {
        "topic": topic, "run_id": run_dir.name, "run_dir": str(run_dir),
        "papers": values.get("papers", {}), "memory": values.get("memory", []),
        "section_memory": values.get("section_memory", {}), "demos": values.get("demos", []),
        "outline": values["outline"],
        "readings": {k: v for k, v in values.get("readings", {}).items() if k not in targets},
        "drafts": {k: v for k, v in values.get("drafts", {}).items() if k not in targets},
        "fallbacks": inherited,
    }
    return _in_new_run_dir(run_dir, lambda: _execute(deps, run_dir, graph_input, on_update,
                                                     {"rerun_of": source_dir.name, "rerun_section": section_ref}))
