"""Entry points for the LangGraph server, ``langgraph dev`` and Studio (see langgraph.json).

Absolute imports on purpose: the server loads this file by path. Both graphs are compiled here at
import, which the server does in a worker thread; no request path runs blocking code:

- ``generation``: the generation graph with a typed input (``topic``) and a typed context
  (:class:`GenerationOptions`: models, outline size, switches) that Studio shows as a form. Its
  dependencies (paper store, outline DB, model clients) are built inside the first node that
  needs them (nodes run in worker threads), once per thread and option set, and never enter the
  state or the config, so the server's checkpointer only ever serialises plain data. A run opens
  ``<home>/runs/<slug>-<timestamp>/`` first (``run.json``) and leaves the same files as the CLI.
- ``evaluation``: one survey (a server path or Markdown text) scored by the evaluation graph.

Settings (home, API keys, model defaults) come from the server's environment ``SURVEYGRAPH_*`` /
surveygraph.toml, read once at import.
"""

# No ``from __future__ import annotations``: the server (and tests) may load this file under a
# module name that is not in sys.modules, where string annotations of the schemas cannot resolve.
import functools
import json
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Annotated, Any, Callable, Literal, Optional

from langgraph.config import get_config
from langgraph.graph import END, START, StateGraph
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from typing_extensions import NotRequired, TypedDict

from surveygraph.agents.deps import GenerationDeps
from surveygraph.agents.exporter import new_run_dir, write_json
from surveygraph.errors import UserError
from surveygraph.evaluation.judges import JUDGE_NAMES
from surveygraph.evaluation.scoring import FAMILIES
from surveygraph.graphs.generation import build_generation_graph
from surveygraph.graphs.runner import valid_topic
from surveygraph.sanitize import redact
from surveygraph.settings import Settings, invalid_setting, load_settings

# Enumerations Studio shows as choices, taken from the code that defines them.
JudgeName = Literal[tuple(JUDGE_NAMES)]  # type: ignore[valid-type]
MetricFamily = Literal[tuple(f for f in FAMILIES if f != "judges")]  # type: ignore[valid-type]

BASE_SETTINGS = load_settings()  # once, at import (a worker thread of the server)


def like_setting(dotted: str) -> Any:
    """The type and range of the setting ``dotted`` ("generation.sections"), for an option that
    sets it: the server checks what the CLI and the Python API check, from the one definition."""
    section, name = dotted.split(".")
    info = Settings.model_fields[section].annotation.model_fields[name]
    return Annotated[(info.annotation, *info.metadata)] if info.metadata else info.annotation


class ServerUserError(ValueError):
    """A user mistake (bad path, empty topic, too little on the topic) as the server shows it.

    langgraph-api passes a node error's message to the client only for ValueError-like built-ins
    and replaces every other with "An internal error occurred"; ``UserError`` is not one, so the
    server entry re-raises it as this, keeping its one-line message."""


class ServerOptions(BaseModel):
    """A run's options (its ``context``): a bad or unknown one is one ``ServerUserError`` line, not
    pydantic's multi-line report (LangGraph builds the options before any node runs)."""

    model_config = ConfigDict(extra="forbid")

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise ServerUserError(str(invalid_setting(exc, "context."))) from None


class GenerationInput(TypedDict):
    """What a generation run starts from."""

    topic: str


class GenerationOutput(TypedDict, total=False):
    """What a generation run returns (the thread's state holds the rest: papers, readings, drafts)."""

    topic: str
    run_id: str
    run_dir: str
    outline: list[dict]
    export: dict  # file name -> path on the server
    evaluation: dict  # EvaluationReport dump of the self-evaluation
    fallbacks: list[dict]
    failures: list[dict]
    budget_exhausted: bool


class GenerationOptions(ServerOptions):
    """Per-run options (the run's ``context``); unset = the server's settings."""

    llm: Optional[str] = Field(None, description="Model for every role: local, gguf:PATH or provider:model (default: llm.default, 'local').")
    planner_llm: Optional[str] = Field(None, description="Model for planning (default: llm).")
    writer_llm: Optional[str] = Field(None, description="Model for writing (default: llm).")
    judge_llm: Optional[str] = Field(None, description="Model for the self-evaluation's judges (default: llm).")
    sections: Optional[like_setting("generation.sections")] = Field(None, description="First-level sections (default 5).")
    subsections: Optional[like_setting("generation.subsections")] = Field(None, description="Subsections per section (default 3).")
    papers_per_subsection: Optional[like_setting("generation.papers_per_subsection")] = Field(None, description="Papers given to each subsection's writer (default 8).")
    outline_demos: Optional[like_setting("generation.outline_demos")] = Field(None, description="Human outlines shown to the planner (default related).")
    memory_subquery: Optional[bool] = Field(None, description="MS: sub-queries guided by section memory (default on).")
    memory_retrieval: Optional[bool] = Field(None, description="MR: retrieve from memory M, not the whole store (default on).")
    tre: Optional[bool] = Field(None, description="TRE: temporal reranking of the top-K (default on).")
    polish: Optional[bool] = Field(None, description="Polish merged drafts (default on).")
    self_evaluate: Optional[bool] = Field(None, description="Score the survey at the end (default on).")
    judges: Optional[list[JudgeName]] = Field(None, description="LLM judges of the self-evaluation (default none).")
    max_tokens: Optional[like_setting("llm.max_tokens")] = Field(None, description="Token budget of the whole run (default unlimited).")
    max_output_tokens: Optional[like_setting("llm.max_output_tokens")] = Field(None, description="Output cap per model call (default 512).")
    bench_refs: Optional[str] = Field(None, description="Benchmark reference set on the server, for coverage.")
    human: Optional[str] = Field(None, description="Human survey of the topic on the server, for alignment.")


GENERATION_KEYS = {
    "llm": "llm.default", "planner_llm": "llm.planner", "writer_llm": "llm.writer", "judge_llm": "llm.judge",
    "sections": "generation.sections", "subsections": "generation.subsections",
    "papers_per_subsection": "generation.papers_per_subsection", "outline_demos": "generation.outline_demos",
    "memory_subquery": "generation.memory_subquery", "memory_retrieval": "generation.memory_retrieval",
    "tre": "generation.tre", "polish": "generation.polish", "self_evaluate": "generation.self_evaluate",
    "judges": "evaluation.judges", "max_tokens": "llm.max_tokens", "max_output_tokens": "llm.max_output_tokens",
}


def settings_with(overrides: dict[str, Any]) -> Settings:
    """BASE_SETTINGS with dotted ``overrides`` (None = keep), validated as a whole (a bad value is
    one ServerUserError line, as the CLI's and the Python API's)."""
    data = BASE_SETTINGS.model_dump()
    for dotted, value in overrides.items():
        if value is None:
            continue
        *parents, last = dotted.split(".")
        target = data
        for part in parents:
            target = target[part]
        target[last] = value
    try:
        return Settings(**data)
    except ValidationError as exc:
        raise ServerUserError(str(invalid_setting(exc))) from None


def run_options(config: dict, schema: type[BaseModel]) -> BaseModel:
    """The run's options: the runtime context (Studio, ``context=``), else ``configurable`` keys."""
    from langgraph.runtime import get_runtime

    configurable = config.get("configurable") or {}
    try:
        context = get_runtime().context
    except RuntimeError:  # called outside a run
        context = None
    if isinstance(context, schema):
        return context
    if isinstance(context, dict):
        return schema(**context)
    return schema(**{k: v for k, v in configurable.items() if k in schema.model_fields})


# --- generation: dependencies built per run, outside the checkpointed state and config -------
_LOCK = threading.Lock()
_CORPORA: dict[str, tuple[Any, Any]] = {}  # settings of the stores -> (Corpus, OutlineStore)
_DEPS: dict[tuple[str, str], GenerationDeps] = {}  # (thread, options) -> deps of that run
_MAX_RUNS = 8


def _stores(settings: Settings) -> tuple[Any, Any]:
    from surveygraph.retrieval.corpus import Corpus
    from surveygraph.retrieval.outlines import OutlineStore

    key = json.dumps([str(settings.home), settings.embedding.model_dump(), settings.store.model_dump()],
                     sort_keys=True, default=str)
    if key not in _CORPORA:
        _CORPORA[key] = (Corpus(settings), OutlineStore(settings))
    return _CORPORA[key]


def deps_for_run(config: dict) -> GenerationDeps:
    """The dependencies of the run ``config`` belongs to, built on first use (thread-safe)."""
    from surveygraph.graphs.runner import build_deps

    options = run_options(config, GenerationOptions)
    configurable = config.get("configurable") or {}
    thread = str(configurable.get("thread_id") or configurable.get("run_id") or "")
    key = (thread, options.model_dump_json())
    with _LOCK:
        if key not in _DEPS:
            settings = generation_settings(options)
            corpus, outlines = _stores(settings)
            if settings.generation.outline_demos == "none":
                outlines = None
            _DEPS[key] = build_deps(settings, corpus=corpus, outlines=outlines,
                                    bench_refs=options.bench_refs, human=options.human)
            while len(_DEPS) > _MAX_RUNS:
                _DEPS.pop(next(iter(_DEPS)))
        return _DEPS[key]


class RunDeps:
    """Stands in for ``GenerationDeps`` in the compiled graph: every attribute is looked up on the
    dependencies of the run currently executing (found from the node's config)."""

    def __getattr__(self, name: str) -> Any:
        return getattr(deps_for_run(get_config()), name)


def readable_errors(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap a server node: a ``UserError`` leaves it as ``ServerUserError`` with the same message."""

    @functools.wraps(fn)
    def node(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except UserError as exc:
            raise ServerUserError(str(exc)) from exc

    return node


def generation_settings(options: GenerationOptions) -> Settings:
    return settings_with({dotted: getattr(options, name) for name, dotted in GENERATION_KEYS.items()})


def check_paths(options: GenerationOptions) -> None:
    """Files named in the run's context must exist before anything runs (not after planning)."""
    for name in ("human", "bench_refs"):
        path = getattr(options, name)
        if path is not None and not Path(path).is_file():
            raise UserError(f"context.{name}: no such file on the server: {path}")


def open_run(state: GenerationInput) -> dict:
    """Check the run's input and context as the CLI checks its arguments (the same rules), then
    create the run folder and its ``run.json`` (as the CLI does)."""
    config = get_config()
    topic = valid_topic(state.get("topic"))
    options = run_options(config, GenerationOptions)
    generation_settings(options)  # every value in range before models and stores load
    check_paths(options)
    deps = deps_for_run(config)
    run_dir = new_run_dir(deps.settings.runs_dir, topic)
    configurable = config.get("configurable") or {}
    write_json(run_dir / "run.json", {
        "run_id": run_dir.name, "topic": topic, "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "settings": redact(deps.settings.model_dump(mode="json")),  # no password/key in the file
        "bench_refs": str(deps.bench_refs) if deps.bench_refs else None,
        "human": str(deps.human) if deps.human else None,
        "server": {"thread_id": str(configurable.get("thread_id", "")),
                   "assistant_id": str(configurable.get("assistant_id", ""))},
    })
    return {"topic": topic, "run_id": run_dir.name, "run_dir": str(run_dir)}


generation = build_generation_graph(RunDeps(), input_schema=GenerationInput, output_schema=GenerationOutput,
                                    context_schema=GenerationOptions, open_run=open_run, wrap_node=readable_errors)


# --- evaluation -------------------------------------------------------------------------------
class EvaluationInput(TypedDict):
    """The survey to score and what to score it against (paths on the server, or Markdown text)."""

    survey: str
    human: NotRequired[Optional[str]]
    bench_refs: NotRequired[Optional[str]]
    topic: NotRequired[Optional[str]]


class EvaluationOutput(TypedDict):
    report: dict  # EvaluationReport.model_dump(mode="json")


class EvaluationServerState(EvaluationInput, EvaluationOutput, total=False):
    pass


class EvaluationOptions(ServerOptions):
    """Per-run options of the evaluation; unset = the server's settings."""

    metrics: Optional[list[MetricFamily]] = Field(None, description="Metric families (default: every family whose inputs are given).")
    judges: Optional[list[JudgeName]] = Field(None, description="LLM judges (default none; costly).")
    judge_llm: Optional[str] = Field(None, description="Judge model (default: llm.judge, else llm.default).")
    tau: Optional[like_setting("evaluation.tau")] = Field(None, description="Fixed alignment threshold τ (default: the encoder-calibrated τ).")
    lam: Optional[like_setting("evaluation.lam")] = Field(None, description="Redundancy strength λ of RA-AlignF1 (default 1.0).")
    sim_mode: Optional[like_setting("evaluation.sim_mode")] = Field(None, description="Similarity (default cosine).")


def evaluate(state: EvaluationServerState) -> dict:
    """Score the survey with the evaluation graph (its families run in parallel inside)."""
    from surveygraph.api import load_survey
    from surveygraph.evaluation.scoring import evaluate_survey

    options = run_options(get_config(), EvaluationOptions)
    settings = settings_with({"llm.judge": options.judge_llm, "evaluation.tau": options.tau,
                              # an explicit τ is a fixed threshold, as `evaluate --tau` (not the calibrated one)
                              "evaluation.tau_mode": "paper" if options.tau is not None else None,
                              "evaluation.lam": options.lam, "evaluation.sim_mode": options.sim_mode})
    from surveygraph.evaluation.inputs import require_survey

    if not str(state.get("survey") or "").strip():
        raise UserError("input.survey is empty: give a server path or the survey's Markdown text")
    survey = require_survey(load_survey(state["survey"], state.get("topic"), "input.survey"), "input.survey")
    survey.topic = survey.topic or survey.title
    human = require_survey(load_survey(state["human"], survey.topic, "input.human"), "input.human") \
        if state.get("human") else None
    bench = Path(state["bench_refs"]) if state.get("bench_refs") else None
    report = evaluate_survey(survey, settings, human=human, bench_refs=bench, metrics=options.metrics,
                             judges=list(options.judges or []))
    return {"report": report.model_dump(mode="json")}


def _evaluation_graph():
    graph = StateGraph(EvaluationServerState, EvaluationOptions, input_schema=EvaluationInput,
                       output_schema=EvaluationOutput)
    graph.add_node("evaluate", readable_errors(evaluate))
    graph.add_edge(START, "evaluate")
    graph.add_edge("evaluate", END)
    return graph.compile(name="surveygraph-evaluation")


evaluation = _evaluation_graph()


def make_graph():
    """Kept for langgraph.json files written before both graphs were exposed."""
    return generation
