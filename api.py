"""The Python API: one call each to write a survey, score one, or rank systems.

    import surveygraph as sg
    run = sg.generate("Vision Transformers", sections=2, subsections=1)
    report = sg.evaluate(run, human="human.md")
    board = sg.leaderboard("systems/", "human/", out="board/")

Options are Settings fields by name (``sections=2``, ``llm="local"``, ``tau=0.9``, ``home=...``);
a name found in two sub-models (``tre``) or any field can be given dotted with ``__``
(``generation__tre=False``). Everything heavy is imported inside the calls.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from .errors import UserError

if TYPE_CHECKING:
    from .evaluation.leaderboard import Leaderboard
    from .models import EvaluationReport, Survey
    from .settings import Settings

Progress = Callable[[str], None]

# Short names the CLI also uses, for fields whose own name is ambiguous or unlike the flag.
ALIASES = {
    "llm": "llm.default", "planner_llm": "llm.planner", "writer_llm": "llm.writer",
    "judge_llm": "llm.judge", "max_tokens": "llm.max_tokens", "tre": "generation.tre",
    "judges": "evaluation.judges", "embedding_model": "embedding.model",
}


def _fields() -> dict[str, list[str]]:
    """Field name -> dotted paths where it occurs (top level and one level of sub-models)."""
    from pydantic import BaseModel

    from .settings import Settings

    found: dict[str, list[str]] = {}
    for name, info in Settings.model_fields.items():
        sub = info.annotation
        if isinstance(sub, type) and issubclass(sub, BaseModel):
            for inner in sub.model_fields:
                found.setdefault(inner, []).append(f"{name}.{inner}")
        else:
            found.setdefault(name, []).append(name)
    return found


def option_keys(options: dict[str, Any]) -> dict[str, Any]:
    """``{"sections": 2, "llm": "local"}`` -> ``{"generation.sections": 2, "llm.default": "local"}``;
    an unknown or ambiguous name is a UserError naming the close matches."""
    fields = _fields()
    dotted: dict[str, Any] = {}
    for name, value in options.items():
        if "__" in name:
            key = name.replace("__", ".")
            head, _, tail = key.partition(".")
            if f"{head}.{tail}" not in fields.get(tail, []):
                raise UserError(f"unknown setting {key!r}")
        elif ALIASES.get(name):
            key = ALIASES[name]
        elif len(fields.get(name, [])) == 1:
            key = fields[name][0]
        elif name in fields:
            raise UserError(f"option {name!r} is ambiguous: write one of "
                            + ", ".join(p.replace(".", "__") for p in fields[name]))
        else:
            close = difflib.get_close_matches(name, [*fields, *ALIASES], n=3)
            raise UserError(f"unknown option {name!r}" + (f" (did you mean {', '.join(close)}?)" if close else ""))
        dotted[key] = value
    return dotted


def make_settings(config: str | Path | None = None, **options: Any) -> "Settings":
    """Settings from defaults < TOML < env < ``options`` (None values leave a field alone)."""
    from .settings import checked_settings

    dotted = option_keys(options)
    if dotted.get("evaluation.tau") is not None and "tau_mode" in _fields():
        dotted.setdefault("evaluation.tau_mode", "paper")  # an explicit τ is fixed, as `evaluate --tau`
    return checked_settings(Path(config) if config else None, **dotted)


@dataclass
class Run:
    """A finished (or budget-stopped) generation run and the files it left in ``run_dir``."""

    run_id: str
    run_dir: Path
    state: dict = field(default_factory=dict, repr=False)

    def _file(self, name: str) -> Path | None:
        path = self.run_dir / name
        return path if path.is_file() else None

    @property
    def finished(self) -> bool:
        return "export" in self.state or self._file("survey.json") is not None

    @property
    def markdown(self) -> Path | None:
        return self._file("survey.md")

    @property
    def json(self) -> Path | None:
        return self._file("survey.json")

    @property
    def tex(self) -> Path | None:
        return self._file("survey.tex")

    @property
    def bib(self) -> Path | None:
        return self._file("references.bib")

    @property
    def survey(self) -> "Survey":
        from .evaluation.parsers import parse_survey

        if self.json is None:
            raise UserError(f"run {self.run_id} has no survey.json (not finished; resume it)")
        return parse_survey(self.json)

    @property
    def manifest(self) -> dict:
        path = self._file("manifest.json")
        return json.loads(path.read_text(encoding="utf-8")) if path else {}

    @property
    def evaluation(self) -> "EvaluationReport | None":
        from .models import EvaluationReport

        path = self._file("evaluation.json")
        if path is None:
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
        return EvaluationReport.model_validate({k: v for k, v in data.items() if k in EvaluationReport.model_fields})


def _callback(on_progress: object) -> Progress | None:
    """``on_progress`` checked before anything runs (a string here once failed after 59 s of work)."""
    if on_progress is not None and not callable(on_progress):
        raise UserError(f"on_progress must be a function taking one line (e.g. print), not "
                        f"{type(on_progress).__name__} {on_progress!r}")
    return on_progress  # type: ignore[return-value]


def _chat_models(chat_models: object) -> dict | None:
    if chat_models is not None and not isinstance(chat_models, dict):
        raise UserError(f"chat_models must map a role or model spec to a chat model, not {type(chat_models).__name__}")
    return chat_models


def _judges(names: object) -> list[str] | None:
    from .cli.common import check_choices
    from .evaluation.judges import JUDGE_NAMES

    return None if names is None else check_choices(names, JUDGE_NAMES, "judge")


def _metric_families(metrics: object) -> list[str] | None:
    from .cli.common import check_choices
    from .evaluation.scoring import FAMILIES

    return None if metrics is None else check_choices(metrics, tuple(f for f in FAMILIES if f != "judges"),
                                                      "metric families")


def _node_progress(on_progress: Progress | None):
    if on_progress is None:
        return None
    from .cli.generate import describe_update

    def on_update(node: str, update: dict) -> None:
        line = describe_update(node, update)
        if line:
            on_progress(line)
    return on_update


def _judge_progress(on_progress: Progress | None):
    if on_progress is None:
        return None
    count = 0

    def tick(node: str) -> None:
        nonlocal count
        count += 1
        on_progress(f"judge call {count} ({node})")
    return tick


def _existing(path: str | Path | None, what: str) -> Path | None:
    if path is None:
        return None
    if not Path(path).exists():
        raise UserError(f"{what} not found: {path}")
    return Path(path)


def generate(topic: str, *, on_progress: Progress | None = None, bench_refs: str | Path | None = None,
             human: str | Path | None = None, out: str | Path | None = None, config: str | Path | None = None,
             chat_models: dict | None = None, **options: Any) -> Run:
    """Write a survey on ``topic`` into ``<home>/runs/<slug>-<timestamp>/`` (or ``out``).

    ``on_progress(line)`` gets the CLI's progress lines; ``chat_models`` maps a role or model spec
    to a ready LangChain chat model (instead of building one from ``llm``). Ctrl-C raises
    ``graphs.runner.RunInterrupted`` (a KeyboardInterrupt) whose ``run_id`` :func:`resume` takes."""
    from .graphs.runner import build_deps, check_runs_dir, start_run, valid_topic
    from .retrieval.corpus import Corpus

    # Every option is checked before anything is written or loaded (the CLI's rules and ranges).
    topic = valid_topic(topic)
    on_progress, chat_models = _callback(on_progress), _chat_models(chat_models)
    settings = make_settings(config, **options)
    _judges(settings.evaluation.judges)
    runs_dir = check_runs_dir(Path(out).resolve()) if out is not None else None
    bench, human_path = _existing(bench_refs, "bench refs file"), _existing(human, "human survey")
    corpus = Corpus(settings)
    if corpus.count() == 0:
        from .retrieval.default_data import set_up_empty_home

        done = set_up_empty_home(settings, corpus, progress=False, notify=on_progress or (lambda _m: None))
        if done is None:
            raise UserError(f"the paper store under {settings.home} is empty and no shared data was found "
                            "(SURVEYGRAPH_SHARED_DATA or ../shared/data): run `surveygraph corpus ingest FILE` first")
        for line in done:
            (on_progress or (lambda _m: None))(line)
        corpus = Corpus(settings)
    deps = build_deps(settings, corpus=corpus, chat_models=chat_models, bench_refs=bench, human=human_path)
    deps.on_judgment = _judge_progress(on_progress)
    result = start_run(topic, deps, runs_dir=runs_dir, on_update=_node_progress(on_progress))
    return Run(run_id=result.run_id, run_dir=result.run_dir, state=result.state)


def resume(run: str | Path | Run, *, on_progress: Progress | None = None, config: str | Path | None = None,
           chat_models: dict | None = None, **options: Any) -> Run:
    """Continue an interrupted run (its id, folder or ``Run``) with the settings it started with."""
    from .graphs.runner import build_deps, find_run, resume_run, run_record, run_settings

    on_progress, chat_models = _callback(on_progress), _chat_models(chat_models)
    base = make_settings(config, **options)
    ref = str(run.run_dir if isinstance(run, Run) else run)
    run_dir = find_run(ref, base.runs_dir)
    record = run_record(run_dir)
    deps = build_deps(run_settings(run_dir, secrets_from=base), chat_models=chat_models,
                      bench_refs=record.get("bench_refs"), human=record.get("human"))
    deps.on_judgment = _judge_progress(on_progress)
    result = resume_run(run_dir, deps, on_update=_node_progress(on_progress))
    return Run(run_id=result.run_id, run_dir=result.run_dir, state=result.state)


def _is_markdown_text(source: object) -> bool:
    return isinstance(source, str) and ("\n" in source or source.lstrip().startswith("#"))


def _source_path(source: object) -> Path | None:
    """The file a survey was given as (None for text, a Survey or a Run)."""
    return Path(source) if isinstance(source, (str, Path)) and not _is_markdown_text(source) else None


def load_survey(source: "str | Path | Survey | Run", topic: str | None = None, what: str = "survey") -> "Survey":
    """A Survey from a Survey, a Run, a path (any form ``evaluate`` reads) or Markdown text. A path
    is read as the CLI reads it (``read_survey``: size-capped, text-checked, refused when it holds no
    survey), so /dev/zero or a binary is one NotASurvey line, not a parse of whatever it holds."""
    from .evaluation.inputs import read_survey
    from .evaluation.parsers import parse_markdown
    from .models import Survey

    if isinstance(source, Survey):
        survey = source
    elif isinstance(source, Run):
        survey = source.survey
    elif _is_markdown_text(source):
        survey = parse_markdown(source, name="survey")
    elif isinstance(source, (str, Path)):
        survey = read_survey(Path(source), what)
    else:
        raise UserError(f"cannot evaluate a {type(source).__name__}: give a path, Markdown text, a Survey or a Run")
    if topic:
        survey.topic = topic
    return survey


def evaluate(survey: "str | Path | Survey | Run", human: "str | Path | Survey | None" = None, *,
             bench_refs: str | Path | None = None, metrics: list[str] | None = None,
             judges: list[str] | None = None, topic: str | None = None, on_progress: Progress | None = None,
             config: str | Path | None = None, **options: Any) -> "EvaluationReport":
    """Score one survey (structure, integrity; + coverage with ``bench_refs``; + alignment and
    SGSimEval similarity with ``human``; + the LLM ``judges``)."""
    from .evaluation.scoring import evaluate_survey

    on_progress, metrics, judges = _callback(on_progress), _metric_families(metrics), _judges(judges)
    settings = make_settings(config, **options)
    from .evaluation.inputs import require_survey
    from .evaluation.parsers import default_topic

    # the CLI's rule: a file with no survey text is refused (NotASurvey), not scored as zeros
    target = require_survey(load_survey(survey, topic), _source_path(survey) or "the survey")
    target.topic = default_topic(target, _source_path(survey))
    human_survey = require_survey(load_survey(human, target.topic, "human survey"),
                                  _source_path(human) or "the human survey") if human is not None else None
    bench = _existing(bench_refs, "bench refs file")
    return evaluate_survey(target, settings, human=human_survey, bench_refs=bench,
                           judges=list(judges) if judges is not None else None, metrics=metrics,
                           on_judgment=_judge_progress(on_progress))


def leaderboard(root: str | Path, human_dir: str | Path, *, out: str | Path | None = None,
                bench_refs_dir: str | Path | None = None, systems: list[str] | None = None,
                topics: list[str] | None = None, metrics: list[str] | None = None,
                judges: list[str] | None = None, on_progress: Progress | None = None,
                config: str | Path | None = None, force: bool = False, **options: Any) -> "Leaderboard":
    """Rank systems (sub-folders of ``root``, one file per topic) against the human surveys;
    with ``out`` also writes leaderboard.{md,csv,json} and report.html there (a folder that
    holds files only with ``force=True``, as the CLI's ``--force``)."""
    from .evaluation.leaderboard import discover, run_leaderboard, write_leaderboard
    from .settings import check_output_folder

    on_progress, metrics, judges = _callback(on_progress), _metric_families(metrics), _judges(judges)
    if out is not None:
        check_output_folder(Path(out), force, "out", "force=True")
    settings = make_settings(config, **options)
    inputs = discover(Path(root), Path(human_dir), systems=systems, topics=topics,
                      bench_refs_dir=_existing(bench_refs_dir, "bench refs folder"))
    board = run_leaderboard(inputs, settings, judges=judges or [], metrics=metrics, on_step=on_progress,
                            on_judgment=_judge_progress(on_progress))
    if out is not None:
        write_leaderboard(board, Path(out))
    return board
