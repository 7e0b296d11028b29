"""Render one EvaluationReport as JSON, Markdown or a self-contained HTML page."""

from __future__ import annotations

import json
from typing import Literal

from ..models import EvaluationReport
from ..sanitize import markdown_cell
from .quality.validity import metric_validity

# Shown above every report's tables (the leaderboard says the same above its own).
VALIDITY_NOTE = ("Validity: Spearman ρ [95% CI] of the metric's system ranking against SurveyLens' "
                 "human-validated rubric ranking (`surveygraph validate`); \"not validated\" = never measured.")

ReportFormat = Literal["json", "md", "html"]
FAMILY_ORDER = ("quality", "structure", "integrity", "coverage", "alignment", "similarity")


def format_value(value: float | None, digits: int = 4) -> str:
    if value is None:
        return "n/a"
    if float(value).is_integer() and abs(value) >= 1:
        return str(int(value))
    return f"{value:.{digits}f}"


def _families(report: EvaluationReport) -> list[str]:
    present = list(dict.fromkeys(m.family for m in report.metrics))
    return [f for f in FAMILY_ORDER if f in present] + [f for f in present if f not in FAMILY_ORDER]


def render_json(report: EvaluationReport) -> str:
    return json.dumps(report.model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n"


def render_markdown(report: EvaluationReport) -> str:
    # the title, system, topic and notes come from the scored file: literal text, never Markdown/HTML
    title = markdown_cell(report.survey or report.topic or "survey")
    lines = [f"# Evaluation: {title}", ""]
    if report.system or report.topic:
        lines += [f"- system: {markdown_cell(report.system) or '-'}", f"- topic: {markdown_cell(report.topic) or '-'}", ""]
    lines += [VALIDITY_NOTE, ""]
    for family in _families(report):
        lines += [f"## {family}", "", "| metric | value | validity | note |", "|---|---:|---|---|"]
        for m in report.metrics:
            if m.family == family:
                note = markdown_cell((m.rationale or "")[:160])
                lines.append(f"| {m.name} | {format_value(m.value)} | {metric_validity(m.name)} | {note} |")
        lines.append("")
    if report.warnings:
        lines += ["## warnings", ""] + [f"- {markdown_cell(w)}" for w in report.warnings] + [""]
    return "\n".join(lines)


def render_html(report: EvaluationReport) -> str:
    from .html_report import render_single_report

    return render_single_report(report)


def render_report(report: EvaluationReport, fmt: ReportFormat = "json") -> str:
    renderers = {"json": render_json, "md": render_markdown, "html": render_html}
    if fmt not in renderers:
        raise ValueError(f"unknown report format {fmt!r} (use json, md or html)")
    return renderers[fmt](report)
