"""Score several systems' surveys on shared topics against human surveys and rank the systems.

Input layout: ROOT/<system>/<topic>.<ext> and HUMAN_DIR/<topic>.<ext> (file stems match);
optional BENCH_DIR/<topic>_bench.json for SAM-R. Outputs: leaderboard.{md,csv,json} and
report.html (see :func:`write_leaderboard`).
"""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from ..errors import UserError
from ..models import EvaluationReport, Survey
from ..sanitize import markdown_cell, spreadsheet_cell
from ..settings import Settings
from .alignment import similarity, tau_maxsim
from .calibration import resolve_tau, tau_summary
from .report import VALIDITY_NOTE, format_value

SURVEY_SUFFIXES = {".md", ".markdown", ".txt", ".tex", ".pdf", ".json"}
# Higher is better for these; the ranking averages each system's rank over the ones present.
RANK_METRICS = ("ra_align_f1", "tau_maxsim", "tau_maxsim.union", "sgsim.sigma", "sam_r")
HEADLINE_METRICS = RANK_METRICS + (
    "ra_align_f1.outline", "ra_align_f1.content", "ra_align_f1.reference",
    "sgsim.sigma.outline", "sgsim.sigma.content", "sgsim.sigma.reference", "sam_r.recall",
)
NON_JUDGE_FAMILIES = {"structure", "integrity", "coverage", "alignment", "similarity", "quality"}
QUALITY_METRICS = ("quality.overall", "quality.outline", "quality.content", "quality.reference")
# How systems are ranked: the learned quality score (validated against SurveyLens' rubric), or
# the mean of the reference-alignment metrics' ranks (the pre-quality default).
RANK_BY = {"quality": "quality.overall", "alignment": "reference alignment (mean rank)"}


@dataclass
class LeaderboardInputs:
    systems: list[str]
    topics: list[str]
    human_files: dict[str, Path]
    system_files: dict[tuple[str, str], Path]
    bench_files: dict[str, Path] = field(default_factory=dict)


def _survey_files(folder: Path) -> dict[str, Path]:
    return {p.stem: p for p in sorted(folder.iterdir())
            if p.is_file() and p.suffix.lower() in SURVEY_SUFFIXES and not p.name.startswith(".")}


def discover(root: Path, human_dir: Path, *, systems: list[str] | None = None,
             topics: list[str] | None = None, bench_refs_dir: Path | None = None) -> LeaderboardInputs:
    """Find systems (sub-folders of ROOT, the human dir excluded) and topics (human file stems
    that at least one system also has). Raises UserError for missing folders or names."""
    root, human_dir = Path(root), Path(human_dir)
    for label, folder in (("ROOT", root), ("--human-dir", human_dir)):
        if not folder.is_dir():
            raise UserError(f"{label} is not a folder: {folder}")
    if bench_refs_dir is not None and not Path(bench_refs_dir).is_dir():
        raise UserError(f"--bench-refs-dir is not a folder: {bench_refs_dir}")
    found = sorted(p.name for p in root.iterdir()
                   if p.is_dir() and not p.name.startswith(".") and p.resolve() != human_dir.resolve())
    if systems:
        missing = [s for s in systems if s not in found]
        if missing:
            raise UserError(f"no such system folder under {root}: {', '.join(missing)} (found: {', '.join(found)})")
        found = list(systems)
    if not found:
        raise UserError(f"no system folders under {root}")
    human_files = _survey_files(human_dir)
    per_system = {s: _survey_files(root / s) for s in found}
    shared = [t for t in human_files if any(t in files for files in per_system.values())]
    if topics:
        missing = [t for t in topics if t not in shared]
        if missing:
            raise UserError(f"topics without a human and a system file: {', '.join(missing)}")
        shared = list(topics)
    if not shared:
        raise UserError(f"no topic file in {human_dir} has a same-named file in any system folder")
    bench_files = {}
    if bench_refs_dir is not None:
        bench_files = {t: Path(bench_refs_dir) / f"{t}_bench.json" for t in shared
                       if (Path(bench_refs_dir) / f"{t}_bench.json").is_file()}
    return LeaderboardInputs(
        systems=found, topics=shared, human_files={t: human_files[t] for t in shared},
        system_files={(s, t): per_system[s][t] for s in found for t in shared if t in per_system[s]},
        bench_files=bench_files)


@dataclass
class Leaderboard:
    systems: list[str]
    topics: list[str]
    reports: dict[str, dict[str, EvaluationReport]]  # system -> topic -> report
    union_maxsim: dict[str, dict[str, float]]  # system -> {"tau_maxsim.union[.comp]": value}
    ranking: list[str] = field(default_factory=list)
    config: dict = field(default_factory=dict)
    rank_by: str = "quality"

    def metric_names(self) -> list[str]:
        names: dict[str, None] = {}
        for by_topic in self.reports.values():
            for report in by_topic.values():
                names.update(dict.fromkeys(m.name for m in report.metrics))
        for values in self.union_maxsim.values():
            names.update(dict.fromkeys(values))
        return list(names)

    def value(self, system: str, topic: str, metric: str) -> float | None:
        report = self.reports.get(system, {}).get(topic)
        return report.flat().get(metric) if report else None

    def mean(self, system: str, metric: str) -> float | None:
        if metric in self.union_maxsim.get(system, {}):
            return self.union_maxsim[system][metric]
        values = [self.value(system, t, metric) for t in self.topics]
        values = [v for v in values if v is not None and not math.isnan(v)]
        return float(np.mean(values)) if values else None

    def ranked_metrics(self) -> list[str]:
        names = self.metric_names()
        judged = [n for n in names if self._family(n) not in NON_JUDGE_FAMILIES
                  and not n.endswith((".hp", ".balanced"))]
        return [m for m in RANK_METRICS if m in names] + judged

    def _family(self, metric: str) -> str:
        for by_topic in self.reports.values():
            for report in by_topic.values():
                found = report.get(metric)
                if found is not None:
                    return found.family
        return "alignment"

    def interval(self, system: str, metric: str) -> tuple[float, float] | None:
        """95% bootstrap interval of the system's mean over topics (topics resampled)."""
        from .quality.validity import bootstrap_interval

        if metric in self.union_maxsim.get(system, {}):
            return None
        return bootstrap_interval([self.value(system, t, metric) for t in self.topics
                                   if self.value(system, t, metric) is not None])

    def ranks_by_quality(self) -> bool:
        return self.rank_by == "quality" and "quality.overall" in self.metric_names()

    def rank_label(self) -> str:
        return RANK_BY["quality"] if self.ranks_by_quality() else RANK_BY["alignment"]

    def rank_systems(self) -> list[str]:
        """Best first: by mean quality.overall, else by mean alignment rank; ties by name."""
        if self.ranks_by_quality():
            return sorted(self.systems, key=lambda s: (-_or_neg_inf(self.mean(s, "quality.overall")), s))
        ranks = self.mean_ranks()
        return sorted(self.systems, key=lambda s: (-_or_neg_inf(-ranks[s]), s))

    def mean_ranks(self) -> dict[str, float]:
        """Each system's rank (1 = best) per ranked metric, averaged; missing = last place."""
        ranks: dict[str, list[float]] = {s: [] for s in self.systems}
        for metric in self.ranked_metrics():
            scored = sorted(self.systems, key=lambda s: -_or_neg_inf(self.mean(s, metric)))
            for position, system in enumerate(scored, 1):
                ranks[system].append(position)
        return {s: float(np.mean(r)) if r else math.nan for s, r in ranks.items()}


def _or_neg_inf(value: float | None) -> float:
    return -math.inf if value is None or math.isnan(value) else value


def _union_maxsim(gen: dict[str, list[Survey]], humans: list[Survey], embed, settings: Settings) -> dict:
    """τ-MaxSim over the cross-topic unions E_c and G_c (SurveyLens Eq. 8), per system."""
    from .scoring import COMPONENTS, alignment_entries

    cfg = settings.evaluation
    human_entries = [alignment_entries(h) for h in humans]
    out: dict[str, dict[str, float]] = {}
    for system, surveys in gen.items():
        entries = [alignment_entries(s) for s in surveys]
        values = {}
        for comp in COMPONENTS:
            g = [t for e in entries for t in e[comp]]
            h = [t for e in human_entries for t in e[comp]]
            values[f"tau_maxsim.union.{comp}"] = tau_maxsim(
                similarity(embed(g), embed(h), cfg.sim_mode), tau=resolve_tau(cfg, comp)[0], rescale=cfg.rescale_maxsim)
        values["tau_maxsim.union"] = float(np.mean(list(values.values())))
        out[system] = values
    return out


def run_leaderboard(inputs: LeaderboardInputs, settings: Settings, *, judges: list[str] | None = None,
                    metrics: list[str] | None = None, rank_by: str = "quality",
                    on_step: Callable[[str], None] | None = None,
                    on_judgment: Callable[[str], None] | None = None) -> Leaderboard:
    """Evaluate every (system, topic) survey against the topic's human survey; ``on_step`` is
    called per survey, ``on_judgment`` after every judge call sent to the model."""
    from .scoring import embedding_memo, evaluate_survey
    from .parsers import parse_survey

    step = on_step or (lambda _msg: None)
    embed = embedding_memo(settings)
    judge_names = settings.evaluation.judges if judges is None else judges
    reports: dict[str, dict[str, EvaluationReport]] = {s: {} for s in inputs.systems}
    generated: dict[str, list[Survey]] = {s: [] for s in inputs.systems}
    humans: list[Survey] = []
    parsed = {(system, topic): _parse(parse_survey, path, topic, system)
              for (system, topic), path in inputs.system_files.items() if topic in inputs.topics}
    if metrics is None or "quality" in metrics:
        step(f"reading what {len(parsed)} surveys are about")
        _read_topics_at_once(list(parsed.values()), settings, embed)
    for topic in inputs.topics:
        human = _parse(parse_survey, inputs.human_files[topic], topic, "human")
        humans.append(human)
        human_scores = _human_judge_scores(human, judge_names, settings, on_judgment)
        bench = inputs.bench_files.get(topic)
        for system in inputs.systems:
            path = inputs.system_files.get((system, topic))
            step(f"{system} / {topic}")
            if path is None:
                continue
            survey = parsed[system, topic]
            generated[system].append(survey)
            report = evaluate_survey(survey, settings, human=human, bench_refs=bench, judges=judge_names,
                                     metrics=metrics, embed=embed, human_judge_scores=human_scores,
                                     on_judgment=on_judgment)
            report.survey = str(path)
            reports[system][topic] = report
    union = {}
    if metrics is None or "alignment" in metrics:
        step("cross-topic τ-MaxSim")
        union = _union_maxsim(generated, humans, embed, settings)
    board = Leaderboard(systems=inputs.systems, topics=inputs.topics, reports=reports, union_maxsim=union,
                        config={"tau": tau_summary(settings.evaluation), "lam": settings.evaluation.lam,
                                "sim_mode": settings.evaluation.sim_mode,
                                "rescale_maxsim": settings.evaluation.rescale_maxsim,
                                "embedding": settings.evaluation.embedding_model, "judges": list(judge_names)})
    if rank_by not in RANK_BY:
        raise UserError(f"unknown --rank-by {rank_by!r} (use {' or '.join(RANK_BY)})")
    board.rank_by = rank_by
    board.ranking = board.rank_systems()
    return board


def _read_topics_at_once(surveys: list[Survey], settings: Settings, embed) -> None:
    """Encode every survey's topic-reading texts in one call, into the memo the quality score reads
    them from. One call per survey padded a batch to each survey's long outline text: 16 calls on
    two topics took 22 s of MiniLM, one call 11 s (BENCHMARKS.md, quality_panels.md)."""
    from .quality.reading import topic_texts
    from .scoring import gate_encoder
    from .topicality import load_gate

    gate = load_gate()
    memo = gate_encoder({"configurable": {"settings": settings, "embed": embed}}) if gate else None
    if memo is not None:
        memo([text for survey in surveys for text in topic_texts(survey, gate)])


def _parse(parse_survey, path: Path, topic: str, system: str) -> Survey:
    survey = parse_survey(path)
    survey.topic = topic
    survey.system = system
    return survey


def _human_judge_scores(human: Survey, names: list[str], settings: Settings,
                        on_judgment: Callable[[str], None] | None = None) -> dict[str, float] | None:
    """Judge scores of the human survey itself: the Q_human of SGSimEval's Balanced score."""
    if not names:
        return None
    from .judges import run_judges

    results = run_judges(human, human=None, topic=human.topic, names=names, settings=settings,
                         on_judgment=on_judgment)
    return {m.name: m.value for m in results if m.value is not None}


# --- writing --------------------------------------------------------------------------------
def summary_rows(board: Leaderboard) -> list[dict]:
    ranks = board.mean_ranks()
    rows = []
    for system in board.ranking:
        mean_rank = None if math.isnan(ranks[system]) else ranks[system]
        row = {"rank": board.ranking.index(system) + 1, "system": system, "mean_rank": mean_rank}
        row.update({m: board.mean(system, m) for m in board.metric_names()})
        rows.append(row)
    return rows


def to_csv(board: Leaderboard) -> str:
    """Wide CSV: one row per (system, topic) plus a ``mean`` row per system."""
    metrics = board.metric_names()
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["system", "topic", *metrics])
    for system in board.ranking:
        name = spreadsheet_cell(system)
        writer.writerow([name, "mean", *[_csv(board.mean(system, m)) for m in metrics]])
        for topic in board.topics:
            writer.writerow([name, spreadsheet_cell(topic), *[_csv(board.value(system, topic, m)) for m in metrics]])
    return buffer.getvalue()


def _csv(value: float | None) -> str:
    return "" if value is None else repr(round(value, 6))


def to_json(board: Leaderboard) -> str:
    data = {
        "config": board.config, "systems": board.ranking, "topics": board.topics,
        "rank_by": board.rank_label(), "ranked_by": board.ranked_metrics(), "summary": summary_rows(board),
        "intervals": {s: {m: board.interval(s, m) for m in QUALITY_METRICS if m in board.metric_names()}
                      for s in board.ranking},
        "validity": _validity_table(board),
        "union_maxsim": board.union_maxsim,
        "reports": {s: {t: r.model_dump(mode="json") for t, r in by_topic.items()}
                    for s, by_topic in board.reports.items()},
    }
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def metric_groups(board: Leaderboard) -> list[tuple[str, list[str]]]:
    """(heading, metrics) groups shown in the Markdown and HTML summaries."""
    names = board.metric_names()
    judged = [n for n in names if board._family(n) not in NON_JUDGE_FAMILIES]
    groups = [("Quality score (offline, learned; SurveyLens 1-5 scale)", [m for m in QUALITY_METRICS if m in names]),
              ("Alignment, similarity and coverage", [m for m in HEADLINE_METRICS if m in names]),
              ("LLM judges (with SGSimEval HP / Balanced)", judged),
              ("Structure, generated / human (1.0 = parity)",
               [n for n in names if n.startswith("structure.ratio.")]),
              ("Citation integrity", [n for n in names if n.startswith("integrity.") and n.endswith("_rate")])]
    return [(title, metrics) for title, metrics in groups if metrics]


def display_metrics(board: Leaderboard) -> list[str]:
    return [m for _, metrics in metric_groups(board) for m in metrics]


def _validity_table(board: Leaderboard) -> dict[str, str]:
    """Metric -> measured validity; the quality model's disciplines are its training data, so its
    leave-one-discipline-out ρ (model_v6.json) is shown beside the harness figure."""
    from .quality.validity import metric_validity

    return {m: metric_validity(m) for m in display_metrics(board)}


def cell(board: Leaderboard, system: str, metric: str) -> str:
    """Mean over topics, with its 95% interval over topics for the quality metrics."""
    if metric not in QUALITY_METRICS:
        return format_value(board.mean(system, metric))
    mean, ci = board.mean(system, metric), board.interval(system, metric)
    if mean is None:
        return "n/a"
    return f"{mean:.2f}" + (f" [{ci[0]:.2f}, {ci[1]:.2f}]" if ci is not None else "")


def _summary_table(board: Leaderboard, metrics: list[str], with_rank: bool) -> list[str]:
    ranks = board.mean_ranks()
    validity = _validity_table(board)
    head = ("| rank | system | mean alignment rank | " if with_rank else "| system | ") + " | ".join(metrics) + " |"
    rule = ("|---:|---|---:|" if with_rank else "|---|") + "---:|" * len(metrics)
    lines = [head, rule]
    lead = "| | *validity (ρ vs SurveyLens rubric)* | | " if with_rank else "| *validity (ρ vs SurveyLens rubric)* | "
    lines.append(lead + " | ".join(f"*{validity[m]}*" for m in metrics) + " |")
    for i, system in enumerate(board.ranking, 1):
        cells = " | ".join(cell(board, system, m) for m in metrics)
        mean_rank = "n/a" if math.isnan(ranks[system]) else f"{ranks[system]:.2f}"
        name = markdown_cell(system)  # a folder name from outside: literal text, never HTML or a link
        prefix = f"| {i} | {name} | {mean_rank} | " if with_rank else f"| {name} | "
        lines.append(prefix + cells + " |")
    return lines


def to_markdown(board: Leaderboard) -> str:
    cfg = board.config
    if board.ranks_by_quality():
        how = ("Rank = mean quality.overall over topics (the offline learned score, "
               "`surveygraph leaderboard --rank-by alignment` for the reference-alignment ranking); "
               "[lo, hi] = 95% bootstrap interval over topics.")
    else:
        how = f"Rank = reference alignment: mean of per-metric ranks over: {', '.join(board.ranked_metrics())}."
    lines = ["# Leaderboard", "",
             f"{len(board.systems)} systems × {len(board.topics)} topics; τ = {cfg.get('tau')}, "
             f"λ = {cfg.get('lam')}, similarity = {cfg.get('sim_mode')}, embedding = {cfg.get('embedding')}, "
             f"τ-MaxSim rescaled = {cfg.get('rescale_maxsim')}. Values are means over topics "
             "(tau_maxsim.union: over the cross-topic unions).",
             how, VALIDITY_NOTE, ""]
    for i, (title, metrics) in enumerate(metric_groups(board)):
        lines += [f"## {title}", "", *_summary_table(board, metrics, with_rank=i == 0), ""]
    lines += ["## Per topic", ""]
    per_topic = [m for m in ("quality.overall", *RANK_METRICS)
                 if m in board.metric_names() and m != "tau_maxsim.union"]
    for metric in per_topic:
        lines += [f"### {metric}", "", "| topic | " + " | ".join(markdown_cell(s) for s in board.ranking) + " |",
                  "|---|" + "---:|" * len(board.ranking)]
        for topic in board.topics:
            cells = [format_value(board.value(s, topic, metric)) for s in board.ranking]
            lines.append(f"| {markdown_cell(topic)} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def write_leaderboard(board: Leaderboard, out_dir: Path) -> list[Path]:
    """Write leaderboard.md/.csv/.json and report.html into ``out_dir`` (created if needed)."""
    from .html_report import render_leaderboard_html

    out_dir.mkdir(parents=True, exist_ok=True)
    files = {"leaderboard.md": to_markdown(board), "leaderboard.csv": to_csv(board),
             "leaderboard.json": to_json(board), "report.html": render_leaderboard_html(board)}
    paths = []
    for name, text in files.items():
        (out_dir / name).write_text(text, encoding="utf-8")
        paths.append(out_dir / name)
    return paths
