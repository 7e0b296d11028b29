"""SurveyLens discipline-aware rubric judge (specs/surveylens.md §2).

Rubrics: the 11 universal aspects (3 outline / 5 content / 3 reference) expanded into criteria
per human survey and merged per discipline (``build_rubric``), stored as versioned JSON
(``evaluation/rubrics/<discipline>.v<N>.json``). Scoring: one judge call per component scoring all
its aspects 1-5; S^RUB = 5·Σ w̃_k·x̄_k with x̄ = x/5 and Bradley–Terry weights w̃ when the rubric
has learned ones (``learn_weights``), equal weights otherwise (said in ``details``).
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterable

import numpy as np
from pydantic import BaseModel, Field
from rapidfuzz import fuzz, process

from ...errors import UserError
from ...models import MetricResult, Survey
from ..bradley_terry import fit_aspect_weights
from .base import (
    Judge, approx_tokens, failed_result, mean, mean_if_complete, outline_text, rationale_of, render_prompt,
    structured_error_types, trim_lines, trim_sections, usable_note,
)
from .verdicts import AspectVerdict

RUBRICS_DIR = Path(__file__).resolve().parents[1] / "rubrics"
COMPONENTS = ("outline", "content", "reference")
ASPECTS: dict[str, dict[str, str]] = {  # Table 7, 3/5/3
    "outline": {
        "Substantive Integrity": "depth, breadth, scholarly merit of the content coverage",
        "Structural Coherence": "logical architecture and organisational flow of the outline",
        "Formal Precision": "technical execution of hierarchy and presentation",
    },
    "content": {
        "Scope and Relevance": "breadth and alignment with the central research theme",
        "Structural Coherence": "logical organisation, transitions, narrative consistency",
        "Synthesis and Integration": "ability to construct cohesive frameworks",
        "Critical Insight and Novelty": "depth of critique, original frameworks, research gaps",
        "Scholarly Communication": "clarity, terminology precision, citation standards",
    },
    "reference": {
        "Bibliometric Comprehensiveness": "coverage extent and inclusion of seminal works",
        "Evidential Integrity": "reliability of claims and correctness of attributions",
        "Referential Pertinence and Compliance": "thematic alignment and citation formatting standards",
    },
}
CRITERIA_PER_ASPECT = 5
_RUBRIC_FILE = re.compile(r"^(?P<d>[a-z0-9_-]+)\.v(?P<v>\d+)\.json$")


class Criterion(BaseModel):
    criterion_name: str = Field(max_length=120)
    description: str = Field(max_length=400)
    example: str = Field("", max_length=400)


class ExpandVerdict(BaseModel):
    aspect_name: str
    expanded_criteria: list[Criterion] = Field(max_length=10)


class MergeVerdict(BaseModel):
    aspect_name: str
    component_name: str = ""
    merged_expanded_criteria: list[Criterion] = Field(max_length=10)


# --- rubric files -------------------------------------------------------------------------------
def rubric_versions(discipline: str, directory: Path = RUBRICS_DIR) -> list[tuple[int, Path]]:
    found = []
    for path in directory.glob(f"{discipline}.v*.json"):
        m = _RUBRIC_FILE.match(path.name)
        if m and m["d"] == discipline:
            found.append((int(m["v"]), path))
    return sorted(found)


def load_rubric(discipline: str, path: Path | None = None, directory: Path = RUBRICS_DIR) -> dict | None:
    """The given rubric file, else the newest ``<discipline>.v<N>.json``; None when there is none."""
    if path is None:
        versions = rubric_versions(discipline, directory)
        if not versions:
            return None
        path = versions[-1][1]
    if not Path(path).is_file():
        raise UserError(f"rubric file not found: {path}")
    try:
        rubric = json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise UserError(f"rubric file {path} is not valid JSON: {exc}") from exc
    rubric.setdefault("path", str(path))
    return rubric


def next_rubric_path(discipline: str, directory: Path = RUBRICS_DIR) -> Path:
    versions = rubric_versions(discipline, directory)
    return directory / f"{discipline}.v{(versions[-1][0] + 1) if versions else 1}.json"


def component_input(survey: Survey, component: str, budget: int) -> str:
    if component == "outline":
        return outline_text(survey, budget)
    if component == "content":
        return trim_sections(survey, budget)
    titles = [r.title or r.text or r.key for r in survey.references]
    return trim_lines(titles, budget)


def build_rubric(humans: list[Survey], discipline: str, judge: Judge, n: int = CRITERIA_PER_ASPECT,
                 progress: Callable[[str], None] | None = None) -> dict:
    """Expand every aspect per human survey (Fig. 11), then merge per discipline (Fig. 12)."""
    if not humans:
        raise UserError("rubric building needs at least one human survey")
    components: dict[str, dict] = {}
    quality = {"failed_calls": 0, "dropped_criteria": 0, "merge_fallbacks": 0}
    for component in COMPONENTS:
        components[component] = {}
        for aspect, description in ASPECTS[component].items():
            pooled: list[dict] = []
            for human in humans:
                prompt = render_prompt(
                    "surveylens_expand", component=component, discipline=discipline,
                    aspect_name=aspect, aspect_description=description, n=n,
                    component_content=component_input(human, component, judge.budget))
                try:
                    verdict = judge.ask("judge.surveylens.expand", prompt, ExpandVerdict)
                    pooled += [c.model_dump() for c in verdict.expanded_criteria]
                except structured_error_types():
                    quality["failed_calls"] += 1
                if progress:
                    progress(f"expand {component}/{aspect}: {human.title or human.topic}")
            usable = _usable_criteria(pooled)
            quality["dropped_criteria"] += sum(not _is_usable(c) for c in pooled)
            lines = [json.dumps(c, ensure_ascii=False) for c in usable]
            merged: list[dict] = []
            if lines:
                try:
                    merge = judge.ask("judge.surveylens.merge", render_prompt(
                        "surveylens_merge", component=component, discipline=discipline, aspect_name=aspect,
                        n=n, all_criteria_json=trim_lines(lines, judge.budget)), MergeVerdict)
                    merged = _usable_criteria([c.model_dump() for c in merge.merged_expanded_criteria])
                except structured_error_types():
                    quality["failed_calls"] += 1
            if not merged and usable:  # an unusable merge keeps the per-survey criteria, deduplicated
                quality["merge_fallbacks"] += 1
                merged = usable[:n]
            components[component][aspect] = {"description": description, "criteria": merged}
    return {
        "discipline": discipline,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "generator_model": judge.model_spec,
        "source_surveys": [h.title or h.topic for h in humans],
        "criteria_per_aspect": n,
        "components": components,
        "quality": quality,
    }


def _is_usable(criterion: dict) -> bool:
    """A real name and a description of a few words (small models copy the format text or write "1")."""
    name, desc = (criterion.get("criterion_name") or "").strip(), (criterion.get("description") or "").strip()
    return usable_note(name) and len(desc.split()) >= 4 and "..." not in name + desc


def _usable_criteria(criteria: list[dict]) -> list[dict]:
    """The usable criteria, one per name."""
    out, seen = [], set()
    for c in criteria:
        key = (c.get("criterion_name") or "").strip().lower()
        if _is_usable(c) and key not in seen:
            seen.add(key)
            out.append(c)
    return out


# --- weights ------------------------------------------------------------------------------------
def rubric_weights(rubric: dict | None, component: str) -> tuple[list[float], str]:
    names = list(ASPECTS[component])
    learned = ((rubric or {}).get("weights") or {}).get(component)
    if learned and all(name in learned for name in names):
        w = np.array([float(learned[name]) for name in names])
        if w.sum() > 0:
            return list(w / w.sum()), "bradley-terry (learned)"
    return [1.0 / len(names)] * len(names), "equal (no learned weights in the rubric)"


def learn_weights(rubric: dict, preferences: Iterable[dict], alpha: float = 0.01) -> dict:
    """Fit BT aspect weights per component from preference rows
    ``{"component", "winner": {aspect: score 1-5}, "loser": {aspect: score 1-5}}``."""
    by_component: dict[str, tuple[list, list]] = {c: ([], []) for c in COMPONENTS}
    for row in preferences:
        comp = row.get("component")
        if comp not in by_component:
            raise UserError(f"preference row has unknown component {comp!r}")
        names = list(ASPECTS[comp])
        try:
            by_component[comp][0].append([float(row["winner"][a]) / 5.0 for a in names])
            by_component[comp][1].append([float(row["loser"][a]) / 5.0 for a in names])
        except (KeyError, TypeError, ValueError) as exc:
            raise UserError(f"preference row for {comp} lacks aspect scores: {exc}") from exc
    weights, counts = {}, {}
    for comp, (win, lose) in by_component.items():
        k = len(ASPECTS[comp])
        w = fit_aspect_weights(np.array(win).reshape(-1, k), np.array(lose).reshape(-1, k), alpha)
        weights[comp] = dict(zip(ASPECTS[comp], map(float, w)))
        counts[comp] = len(win)
    return {**rubric, "weights": weights, "weights_pairs": counts, "weights_alpha": alpha}


# --- scoring ------------------------------------------------------------------------------------
def criteria_payload(rubric: dict | None, component: str) -> str:
    payload = []
    for aspect, description in ASPECTS[component].items():
        entry = ((rubric or {}).get("components") or {}).get(component, {}).get(aspect)
        criteria = [{"criterion_name": c.get("criterion_name", ""), "description": c.get("description", "")}
                    for c in (entry or {}).get("criteria", [])]
        payload.append({"aspect_name": aspect, "description": description, "criteria": criteria})
    return json.dumps(payload, ensure_ascii=False, indent=1)


def content_stats(survey: Survey) -> dict:
    text = survey.text
    return {"sections": len(survey.sections), "words": len(text.split()),
            "figures": text.count("!["), "table_rows": sum(1 for l in text.splitlines() if l.startswith("|")),
            "citations": len(survey.citations), "references": len(survey.references)}


def s_rub(weights: list[float], scores: list[float]) -> float:
    """S^RUB = 5·Σ w̃_k·x̄_k with x̄_k = x_k/5 (so the result stays on the 1-5 scale)."""
    return 5.0 * sum(w * (x / 5.0) for w, x in zip(weights, scores))


def match_aspects(verdict: AspectVerdict, names: list[str]) -> dict[str, tuple[int, str]]:
    """Map returned aspect names onto the catalogue (fuzzy, then by position)."""
    matched: dict[str, tuple[int, str]] = {}
    for pos, item in enumerate(verdict.aspects):
        best = process.extractOne(item.aspect_name, names, scorer=fuzz.token_set_ratio)
        name = best[0] if best and best[1] >= 70 else (names[pos] if pos < len(names) else None)
        if name and name not in matched:
            matched[name] = (item.score, item.notes)
    return matched


def judge_component(survey: Survey, component: str, judge: Judge, rubric: dict | None,
                    discipline: str) -> MetricResult:
    name = f"surveylens.{component}"
    names = list(ASPECTS[component])
    empty = (component == "reference" and not survey.references) or \
            (component == "outline" and not survey.outline) or (component == "content" and not survey.text)
    if empty:  # decided explicitly (§2.6): an empty component gets the scale minimum, no call
        return MetricResult(name=name, family="rubric", value=1.0,
                            rationale=f"the survey has no {component}: minimum score 1",
                            details={"scale": "1-5", "empty": True})
    payload = criteria_payload(rubric, component)
    budget = max(256, judge.budget - approx_tokens(payload))
    prompt = render_prompt("surveylens_eval", category=discipline, component=component,
                           criteria_payload=payload, aspect_names=names,
                           survey_input=component_input(survey, component, budget),
                           stats=json.dumps(content_stats(survey)))
    try:
        verdicts = judge.ask_runs(f"judge.surveylens.{component}", prompt, AspectVerdict)
    except structured_error_types() as exc:
        return failed_result(name, exc)
    per_aspect: dict[str, list[float]] = {a: [] for a in names}
    notes: dict[str, str] = {}
    for verdict in verdicts:
        for aspect, (score, note) in match_aspects(verdict, names).items():
            per_aspect[aspect].append(float(score))
            notes.setdefault(aspect, note)
    weights, source = rubric_weights(rubric, component)
    present = [(w, mean(per_aspect[a])) for w, a in zip(weights, names) if per_aspect[a]]
    if not present:
        return MetricResult(name=name, family="rubric", value=None,
                            rationale="the judge scored none of the aspects")
    total_w = sum(w for w, _ in present)  # renormalise over the aspects the judge did score
    value = s_rub([w / total_w for w, _ in present], [x for _, x in present])
    missing = [a for a in names if not per_aspect[a]]
    return MetricResult(
        name=name, family="rubric", value=round(value, 4),
        rationale=rationale_of(["; ".join(f"{a}: {notes[a]}" for a in names if usable_note(notes.get(a, "")))[:600]],
                               "aspect scores " + ", ".join(f"{a} {mean(v):.1f}" for a, v in per_aspect.items() if v)
                               + f" (1-5), {source.split(' ')[0]} weights"),
        details={"scale": "1-5", "aspects": {a: mean(v) for a, v in per_aspect.items()},
                 "weights": dict(zip(names, weights)), "weights_source": source,
                 "rubric": (rubric or {}).get("path", "universal aspects only (no rubric file)"),
                 "missing_aspects": missing},
    )


def judge_surveylens(survey: Survey, topic: str, judge: Judge, rubric: dict | None = None,
                     discipline: str = "cs") -> list[MetricResult]:
    parts = [judge_component(survey, c, judge, rubric, discipline) for c in COMPONENTS]
    overall = mean_if_complete(parts)
    parts.append(MetricResult(
        name="surveylens.overall", family="rubric", value=overall,
        rationale="unweighted mean of the outline, content and reference S^RUB scores"
        if overall is not None else "a component failed; no overall score",
        details={"scale": "1-5", "discipline": discipline}))
    return parts
