"""Training data of the quality model: ASG-Bench drafts, SurveyLens reference scores, expert labels.

Drafts live at ``ROOT/<system>/<discipline>__<topic>.md``; reference scores come from the CSV
shipped in ``evaluation/data`` (SurveyLens §6 Tables 2, 16-18, columns table,system,discipline,
value). Features are cached per file (path, size, mtime, feature version) in one JSON file, so
retraining after a model change re-reads nothing.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import sys
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ...errors import UserError
from ..jsonl import read_jsonl
from .features import ALL_FEATURES, outline_features, survey_features

# Cached features are stale when the features or the parsers that read the surveys change.
_FEATURE_SOURCES = [Path(__file__).parent / "features.py", *(Path(__file__).parents[1] / name for name in (
    "markdown_parser.py", "references.py", "citations.py", "parsers.py", "structure.py", "integrity.py"))]
FEATURE_VERSION = hashlib.sha1(",".join(ALL_FEATURES).encode() + b"".join(
    f.read_bytes().replace(b"\r\n", b"\n") for f in _FEATURE_SOURCES if f.is_file())).hexdigest()[:12]
REFERENCE_CSV = Path(__file__).resolve().parents[1] / "data" / "surveylens_reference_scores.csv"
# SurveyLens scored the human surveys' reference lists too: their mean is 3.13, above every system's
# (spec §6, Fig. 9; per discipline it is not published). The human surveys of the training data join
# the reference fit as one more "system" with that score in each discipline, so the model learns what
# their lists have that the systems' lack; they are never part of a reported system ranking.
HUMAN = "HumanSurvey"
HUMAN_REFERENCE_SCORE = 3.13
TABLES = {"overall": "table2_overall", "outline": "table16_outline", "content": "table17_content",
          "reference": "table18_reference"}


@dataclass
class Draft:
    system: str
    discipline: str
    topic: str
    path: Path
    features: dict[str, float]


def load_reference_scores(path: Path = REFERENCE_CSV) -> dict[str, dict[tuple[str, str], float]]:
    """component -> (system folder, discipline) -> SurveyLens rubric score."""
    if not Path(path).is_file():
        raise UserError(f"reference scores not found: {path}")
    out: dict[str, dict[tuple[str, str], float]] = {c: {} for c in TABLES}
    by_table = {t: c for c, t in TABLES.items()}
    with open(path, newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            if row["table"] in by_table:
                out[by_table[row["table"]]][(row["system"], row["discipline"].lower())] = float(row["value"])
    return out


def _cache_path() -> Path:
    from ...settings import Settings

    return Settings().home / "cache" / "quality_features.json"


def _load_cache(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return data if data.get("version") == FEATURE_VERSION else {"version": FEATURE_VERSION, "files": {}}
    except (OSError, json.JSONDecodeError):
        return {"version": FEATURE_VERSION, "files": {}}


def _save_cache(path: Path, cache: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(cache), encoding="utf-8")
    os.replace(tmp, path)  # never a half-written cache


def load_drafts(root: Path, systems: set[str], *, cache_file: Path | None = None,
                progress: bool = True) -> list[Draft]:
    """Features of every system draft under ``root`` whose system has reference scores."""
    from ..parsers import parse_survey

    root = Path(root)
    if not root.is_dir():
        raise UserError(f"training data folder not found: {root}")
    files = sorted(p for s in sorted(systems) if (root / s).is_dir() for p in (root / s).glob("*.md"))
    if not files:
        raise UserError(f"no <system>/<discipline>__<topic>.md drafts under {root} for {sorted(systems)}")
    cache_file = cache_file or _cache_path()
    cache = _load_cache(cache_file)
    drafts, start, fresh = [], time.monotonic(), 0
    for i, path in enumerate(files, 1):
        stat = path.stat()
        key = f"{path.resolve()}|{stat.st_size}|{int(stat.st_mtime)}"
        discipline, _, topic = path.stem.partition("__")
        if key not in cache["files"]:
            survey = parse_survey(path, system=path.parent.name, topic=topic)
            cache["files"][key] = survey_features(survey)
            fresh += 1
        drafts.append(Draft(path.parent.name, discipline.lower(), topic, path, cache["files"][key]))
        if progress and fresh and (i % 50 == 0 or i == len(files)):
            rate = (time.monotonic() - start) / i
            print(f"features {i}/{len(files)} · ETA {rate * (len(files) - i):.0f}s", file=sys.stderr)
    if fresh:
        _save_cache(cache_file, cache)
    return drafts


@dataclass
class OutlineLabel:
    discipline: str
    system_a: str
    system_b: str
    choice: str  # a | b | tie
    features_a: dict[str, float]
    features_b: dict[str, float]
    lines_a: int
    lines_b: int


@lru_cache(maxsize=None)  # each outline is judged in several pairs
def _outline_only(text: str, topic: str) -> dict[str, float]:
    from ..markdown_parser import parse_markdown

    survey = parse_markdown(text)
    survey.topic = topic
    return outline_features(survey, None)


def load_outline_labels(path: Path) -> list[OutlineLabel]:
    """Expert pairwise outline judgments (SurveyLens human study) with outline-only features."""
    if not Path(path).is_file():
        raise UserError(f"labels file not found: {path}")
    labels = []
    for _line, row in read_jsonl(Path(path), "outline labels"):
        a, b = row.get("outline_a") or "", row.get("outline_b") or ""
        labels.append(OutlineLabel(
            discipline=str(row["discipline"]).lower(), system_a=row["system_a"], system_b=row["system_b"],
            choice=row["choice"], features_a=dict(_outline_only(a, row.get("topic", ""))),
            features_b=dict(_outline_only(b, row.get("topic", ""))),
            lines_a=sum(1 for ln in a.splitlines() if ln.strip()),
            lines_b=sum(1 for ln in b.splitlines() if ln.strip())))
    return labels


def load_training_set(data: Path, labels_path: Path | None = None, reference_scores: Path = REFERENCE_CSV,
                      cache_file: Path | None = None) -> tuple[list[Draft], list[Draft], dict, list[OutlineLabel]]:
    """(system drafts with every rubric score, the human surveys of their disciplines, the rubric
    scores with the human reference score added, the expert outline labels when the file exists)."""
    data = Path(data)
    targets = load_reference_scores(reference_scores)
    systems = {s for s, _ in targets["overall"]}
    drafts = [d for d in load_drafts(data, systems, cache_file=cache_file)
              if all((d.system, d.discipline) in targets[c] for c in targets)]
    disciplines = {d.discipline for d in drafts}
    humans = [d for d in load_drafts(data, {HUMAN}, cache_file=cache_file) if d.discipline in disciplines] \
        if (data / HUMAN).is_dir() else []
    targets["reference"].update({(HUMAN, disc): HUMAN_REFERENCE_SCORE for disc in disciplines})
    labels_path = labels_path or data / "human_outline_labels.jsonl"
    labels = load_outline_labels(labels_path) if labels_path.is_file() else []
    return drafts, humans, targets, labels
