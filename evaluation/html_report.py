"""Self-contained HTML reports (inline SVG charts, inline CSS; nothing fetched from a CDN)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import jinja2

from ..models import EvaluationReport
from ..sanitize import plain_text
from .report import format_value

if TYPE_CHECKING:
    from .leaderboard import Leaderboard

_ENV = jinja2.Environment(
    loader=jinja2.FileSystemLoader(str(Path(__file__).parent / "templates")),
    autoescape=jinja2.select_autoescape(["html", "j2"]),
    undefined=jinja2.StrictUndefined,
    # names and titles come from outside (folder names, file stems, survey titles): autoescape
    # makes tags inert, and this drops control and bidi-override characters that would spoof them
    finalize=lambda value: plain_text(value) if isinstance(value, str) else value,
)
_ENV.filters["fmt"] = format_value
PALETTE = ("#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7")
BAR_HEIGHT, LABEL_WIDTH, CHART_WIDTH = 22, 170, 520


def bar_chart(labels: list[str], values: list[float | None], colors: list[str]) -> dict:
    """Geometry for one horizontal bar chart; bars scale to the largest |value| (n/a = no bar)."""
    top = max((abs(v) for v in values if v is not None), default=0.0) or 1.0
    bars = []
    for i, (label, value) in enumerate(zip(labels, values)):
        width = 0.0 if value is None else CHART_WIDTH * abs(value) / top
        bars.append({"y": i * (BAR_HEIGHT + 6), "label": label, "width": round(width, 1),
                     "text_y": round(i * (BAR_HEIGHT + 6) + BAR_HEIGHT * 0.7, 1),
                     "text": format_value(value), "color": colors[i % len(colors)]})
    return {"bars": bars, "height": len(bars) * (BAR_HEIGHT + 6), "label_width": LABEL_WIDTH,
            "bar_height": BAR_HEIGHT, "width": LABEL_WIDTH + CHART_WIDTH + 90}


def render_leaderboard_html(board: "Leaderboard") -> str:
    from .leaderboard import RANK_METRICS, _validity_table, cell, display_metrics, metric_groups

    shown = display_metrics(board)
    colors = [PALETTE[i % len(PALETTE)] for i in range(len(board.ranking))]
    charts = [{"metric": m, "chart": bar_chart(board.ranking, [board.mean(s, m) for s in board.ranking], colors)}
              for m in shown]
    ranks = board.mean_ranks()
    per_topic = [m for m in ("quality.overall", *RANK_METRICS)
                 if m in board.metric_names() and m != "tau_maxsim.union"]
    return _ENV.get_template("leaderboard.html.j2").render(
        board=board, groups=metric_groups(board), charts=charts, ranks=ranks, per_topic=per_topic, colors=colors,
        validity=_validity_table(board), cell=lambda s, m: cell(board, s, m))


def render_single_report(report: EvaluationReport) -> str:
    families = list(dict.fromkeys(m.family for m in report.metrics))
    charted = [m for m in report.metrics if m.family in ("alignment", "similarity", "coverage")]
    chart = bar_chart([m.name for m in charted], [m.value for m in charted], [PALETTE[0]])
    from .quality.validity import metric_validity
    from .report import VALIDITY_NOTE

    validity = {m.name: metric_validity(m.name) for m in report.metrics}
    return _ENV.get_template("report.html.j2").render(report=report, families=families, chart=chart,
                                                      validity=validity, validity_note=VALIDITY_NOTE.replace("`", ""))
