"""Validity harness: how far each leaderboard metric (and each selected judge) can be trusted.

Over a multi-discipline folder (ROOT/<system>/<discipline>__<topic>.md, human surveys in
--human-dir) it runs the leaderboard once per discipline (so τ-MaxSim's cross-topic unions stay
within a discipline, as in SurveyLens Table 4), adds trivial count baselines, and measures every
metric against reference system scores (default: SurveyLens' rubric tables, shipped as
``data/surveylens_reference_scores.csv``) per discipline and pooled (see validity_stats), and
against pairwise human labels (the ``meta-eval`` format) when a labels file is given.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from ..errors import UserError
from ..settings import Settings
from .leaderboard import NON_JUDGE_FAMILIES, Leaderboard, LeaderboardInputs, discover, run_leaderboard
from .meta_eval import load_labels, pair_credit
from .validity_stats import DisciplineData, pairwise_accuracy, validity

DATA_DIR = Path(__file__).resolve().parent / "data"
REFERENCE_CSV = DATA_DIR / "surveylens_reference_scores.csv"
PACKAGE_VALIDITY = DATA_DIR / "validity.json"
REFERENCE_COMPONENTS = ("overall", "outline", "content", "reference")
NO_DISCIPLINE = "all"
# SurveyLens column names and other spellings -> the file-stem prefix used in asg_bench.
DISCIPLINE_ALIASES = {
    "edu": "education", "med": "medicine", "bio": "biology", "phys": "physics", "eng": "engineering",
    "bus": "business", "soc": "sociology", "psy": "psychology", "env": "environmental_science",
    "cs": "computer_science", "computer science": "computer_science", "environmental science":
    "environmental_science", "environment": "environmental_science", "social science": "sociology",
}


def normalize_discipline(name: str) -> str:
    low = " ".join(str(name).strip().lower().replace("_", " ").replace("-", " ").split())
    return DISCIPLINE_ALIASES.get(low, low.replace(" ", "_"))


def discipline_of(topic: str) -> str:
    """The file-stem prefix before "__" (normalised); NO_DISCIPLINE for stems without one."""
    return normalize_discipline(topic.split("__", 1)[0]) if "__" in topic else NO_DISCIPLINE


# --- reference scores -----------------------------------------------------------------------
@dataclass
class ReferenceScores:
    path: Path
    tables: dict[str, dict[str, dict[str, float]]]  # table -> discipline -> system -> value

    def component_table(self, component: str) -> str | None:
        """The rubric table of a component: the table whose name ends with ``_<component>``."""
        return next((t for t in sorted(self.tables) if t.endswith(f"_{component}")), None)

    def scores(self, component: str, discipline: str) -> dict[str, float]:
        table = self.component_table(component)
        return self.tables.get(table, {}).get(discipline, {}) if table else {}

    @property
    def systems(self) -> set[str]:
        return {s for by_disc in self.tables.values() for scores in by_disc.values() for s in scores}

    @property
    def disciplines(self) -> set[str]:
        return {d for by_disc in self.tables.values() for d in by_disc}


def load_reference_scores(path: Path) -> ReferenceScores:
    """Long CSV ``table,system,discipline,value`` (one row per cell)."""
    path = Path(path)
    if not path.is_file():
        raise UserError(f"reference scores file not found: {path}")
    with path.open(encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        missing = {"table", "system", "discipline", "value"} - set(reader.fieldnames or [])
        if missing:
            raise UserError(f"{path}: missing column(s) {', '.join(sorted(missing))} "
                            "(expected table,system,discipline,value)")
        tables: dict[str, dict[str, dict[str, float]]] = {}
        for n, row in enumerate(reader, 2):
            try:
                value = float(row["value"])
            except (TypeError, ValueError):
                raise UserError(f"{path}:{n}: value {row['value']!r} is not a number") from None
            by_disc = tables.setdefault(row["table"].strip(), {})
            by_disc.setdefault(normalize_discipline(row["discipline"]), {})[row["system"].strip()] = value
    if not tables:
        raise UserError(f"no rows in {path}")
    return ReferenceScores(path, tables)


# --- which component a metric is meant to measure -------------------------------------------
def metric_component(name: str) -> str:
    low = name.lower()
    if "overall" in low:
        return "overall"
    if any(k in low for k in ("outline", "sam_o", "hierarchy", "sections")):
        return "outline"
    if any(k in low for k in ("reference", "sam_r", ".ref", "supportiveness", "citation", "integrity")):
        return "reference"
    if "content" in low or "sam_c" in low or low.startswith("structure."):
        return "content"
    return "overall"


# --- baselines ------------------------------------------------------------------------------
# Trivial counts every metric is compared with: the structure family's raw counts (sections =
# outline lines, words, references, ...) are baselines, not quality metrics. The label file adds
# "the outline with more lines wins" on the labels' own outline text.
LABEL_LINES_BASELINE = "baseline.label_outline_lines"


def is_baseline(metric: str) -> bool:
    return metric == LABEL_LINES_BASELINE or (metric.startswith("structure.") and ".ratio." not in metric)


def outline_line_count(text: str) -> int:
    return sum(1 for line in str(text).splitlines() if line.strip())


# --- running --------------------------------------------------------------------------------
@dataclass
class HarnessRun:
    boards: dict[str, Leaderboard]  # discipline -> leaderboard

    def metric_names(self) -> list[str]:
        names: dict[str, None] = {}
        for board in self.boards.values():
            names.update(dict.fromkeys(board.metric_names()))
        return list(names)

    def value(self, discipline: str, system: str, topic: str, metric: str) -> float | None:
        return self.boards[discipline].value(system, topic, metric)

    def mean(self, discipline: str, system: str, metric: str) -> float | None:
        return self.boards[discipline].mean(system, metric)

    def kind(self, metric: str) -> str:
        if is_baseline(metric):
            return "baseline"
        board = next(iter(self.boards.values()))
        return "metric" if board._family(metric) in NON_JUDGE_FAMILIES else "judge"


def split_by_discipline(inputs: LeaderboardInputs, max_topics: int | None = None,
                        only: list[str] | None = None) -> dict[str, LeaderboardInputs]:
    groups: dict[str, list[str]] = {}
    for topic in inputs.topics:
        groups.setdefault(discipline_of(topic), []).append(topic)
    if only:
        wanted = [normalize_discipline(d) for d in only]
        unknown = [d for d in wanted if d not in groups]
        if unknown:
            raise UserError(f"no topics of discipline(s) {', '.join(unknown)} (found: {', '.join(sorted(groups))})")
        groups = {d: groups[d] for d in wanted}
    out = {}
    for disc, topics in sorted(groups.items()):
        topics = sorted(topics)[:max_topics]
        out[disc] = LeaderboardInputs(
            systems=inputs.systems, topics=topics, human_files={t: inputs.human_files[t] for t in topics},
            system_files={k: v for k, v in inputs.system_files.items() if k[1] in topics})
    return out


def check_reference_overlap(reference: ReferenceScores | None, systems: list[str], disciplines: list[str],
                            *, explicit: bool) -> list[str]:
    """Notes about what the reference covers; raises UserError on name mismatches a user must fix."""
    if reference is None:
        return ["no reference scores given: ρ and concordance are not computed"]
    known_sys = [s for s in systems if s in reference.systems]
    known_disc = [d for d in disciplines if d in reference.disciplines]
    if (explicit or known_disc) and len(known_sys) < 2:
        raise UserError(
            f"the reference scores ({reference.path.name}) name {len(known_sys)} of the systems "
            f"{', '.join(systems)}; they have: {', '.join(sorted(reference.systems))} "
            "(rename the folders, or give --reference-scores with these system names)")
    if explicit and not known_disc:
        raise UserError(f"the reference scores ({reference.path.name}) have no discipline among "
                        f"{', '.join(disciplines)}; they have: {', '.join(sorted(reference.disciplines))}")
    notes = []
    if not known_disc:
        notes.append(f"no reference scores for discipline(s) {', '.join(disciplines)} in {reference.path.name}: "
                     "ρ and concordance are not computed (no reference exists for this data)")
    elif len(known_disc) < len(disciplines):
        notes.append(f"no reference scores for: {', '.join(d for d in disciplines if d not in known_disc)}")
    missing_sys = [s for s in systems if s not in reference.systems]
    if known_disc and missing_sys:
        notes.append(f"systems without reference scores (left out of ρ): {', '.join(missing_sys)}")
    return notes


def run_harness(root: Path, human_dir: Path, settings: Settings, *, systems: list[str] | None = None,
                disciplines: list[str] | None = None, max_topics: int | None = None,
                judges: list[str] | None = None, metrics: list[str] | None = None,
                on_step: Callable[[str], None] | None = None,
                on_judgment: Callable[[str], None] | None = None) -> HarnessRun:
    step = on_step or (lambda _m: None)
    if metrics and "structure" not in metrics:
        metrics = ["structure", *metrics]  # the count baselines: cheap, no embeddings
    parts = split_by_discipline(discover(root, human_dir, systems=systems), max_topics, disciplines)
    run = HarnessRun(boards={})
    for disc, inputs in parts.items():
        run.boards[disc] = run_leaderboard(inputs, settings, judges=judges or [], metrics=metrics,
                                           on_step=lambda m, d=disc: step(f"{d}: {m}"), on_judgment=on_judgment)
    return run


def planned_steps(parts: dict[str, LeaderboardInputs]) -> int:
    """Progress steps of run_harness: one per (system, topic) plus the union τ-MaxSim per discipline."""
    return sum(len(p.topics) * len(p.systems) + 1 for p in parts.values())


# --- measuring ------------------------------------------------------------------------------
def _discipline_data(run: HarnessRun, disc: str, metric: str, reference: dict[str, float]) -> DisciplineData:
    board = run.boards[disc]
    systems = list(board.systems)
    per_topic = np.array([[_num(run.value(disc, s, t, metric)) for t in board.topics] for s in systems], float)
    means = np.array([_num(run.mean(disc, s, metric)) for s in systems], float)
    has_topics = per_topic.size and not np.isnan(per_topic).all()
    return DisciplineData(systems, means, np.array([_num(reference.get(s)) for s in systems], float),
                          per_topic if has_topics else None)


def _num(v) -> float:
    return math.nan if v is None else float(v)


def label_credits(run: HarnessRun, labels: list[dict], metric: str) -> dict[str, list[float]]:
    """discipline -> credits of the labelled pairs the metric scores on both sides."""
    out: dict[str, list[float]] = {}
    for row in labels:
        disc, stem = row["_discipline"], row["_stem"]
        if disc not in run.boards:
            continue
        if metric == LABEL_LINES_BASELINE:  # the issue's "more lines wins", on the labels' text
            scores = {(stem, row["system_a"]): outline_line_count(row.get("outline_a", "")),
                      (stem, row["system_b"]): outline_line_count(row.get("outline_b", ""))}
        else:
            scores = {(stem, s): v for s in (row["system_a"], row["system_b"])
                      if (v := run.value(disc, s, stem, metric)) is not None and not math.isnan(v)}
        credit = pair_credit({**row, "topic": stem}, scores)
        if credit is not None:
            out.setdefault(disc, []).append(credit)
    return out


def read_labels(path: Path, run: HarnessRun) -> tuple[list[dict], int]:
    """Labels with the file stem of their topic; (rows matched to a scored topic, rows unmatched)."""
    rows, unmatched = [], 0
    topics = {t: d for d, board in run.boards.items() for t in board.topics}
    for row in load_labels(Path(path)):
        stem = row["topic"]
        if stem not in topics and row.get("discipline"):
            stem = f"{normalize_discipline(row['discipline'])}__{row['topic']}"
        if stem in topics:
            rows.append({**row, "_stem": stem, "_discipline": topics[stem]})
        else:
            unmatched += 1
    return rows, unmatched


def measure(run: HarnessRun, reference: ReferenceScores | None, labels: list[dict] | None = None,
            *, rounds: int = 1000, seed: int = 0) -> dict[str, dict]:
    """metric -> {"kind", "component", "by_component": {comp: validity()}, "labels": {...}}."""
    names = run.metric_names()
    if labels:
        names.append(LABEL_LINES_BASELINE)
    results = {}
    for metric in names:
        entry = {"kind": run.kind(metric),
                 "component": metric_component(metric), "by_component": {}, "labels": None}
        if reference is not None and metric != LABEL_LINES_BASELINE:
            for comp in REFERENCE_COMPONENTS:
                data = {d: _discipline_data(run, d, metric, reference.scores(comp, d)) for d in run.boards
                        if reference.scores(comp, d)}
                if data:
                    entry["by_component"][comp] = validity(data, rounds=rounds, seed=seed)
        if labels:
            credits = label_credits(run, labels, metric)
            pooled = [c for values in credits.values() for c in values]
            entry["labels"] = {"pooled": pairwise_accuracy(pooled, rounds=rounds, seed=seed),
                               "disciplines": {d: pairwise_accuracy(v, rounds=rounds, seed=seed)
                                               for d, v in sorted(credits.items())}}
        results[metric] = entry
    return results
