"""The generate command's progress bar: expected seconds per step, measured on earlier runs.

The bar counts expected seconds, not steps, so its first ETA is not the planning time multiplied by
the number of steps (it once read 4,766 s for a 7-minute run); its clock restarts when the outline
is known.
"""

from __future__ import annotations

import json
from pathlib import Path

RUN_BAR: dict = {}  # the live progress bar of the run in progress (set up by _run_graph)
PER_SUBSECTION = ("read_subsection", "write_subsection")
CLOSING = ("polish_sections", "illustrate", "write_frame", "export_survey", "self_evaluate")


def measured_step_costs(runs_dir: Path) -> dict[str, float]:
    """Seconds per step from the newest finished run of this data home (its manifest's timings):
    a read and a write per subsection, and each closing step once. Equal weights when there is none
    yet. The bar counts these expected seconds, so its first ETA is not planning time multiplied by
    the number of steps (it read 4,766 s for a 7-minute run)."""
    costs = dict.fromkeys((*PER_SUBSECTION, *CLOSING), 1.0)
    manifests = sorted(Path(runs_dir).glob("*/manifest.json"), key=lambda p: p.stat().st_mtime, reverse=True) \
        if Path(runs_dir).is_dir() else []
    for path in manifests[:10]:
        try:
            manifest = json.loads(path.read_text(encoding="utf-8"))
            timings, n = manifest.get("timings_s") or {}, len(manifest.get("subsection_status") or {})
        except (OSError, ValueError):
            continue
        if n and all(timings.get(step) is not None for step in (*PER_SUBSECTION, *CLOSING)):
            # a step that took no measurable time still moves the bar a little
            floor = 0.01
            costs = {step: max(floor, timings[step] / n) for step in PER_SUBSECTION}
            costs.update({step: max(floor, timings[step]) for step in CLOSING})
            break
    return costs


def advance_bar(node: str, update: dict) -> None:
    """Move the bar by the step's expected seconds; its total is known once the outline is, and the
    clock restarts there (planning time says nothing about the rate of the steps after it)."""
    bar = RUN_BAR.get("bar")
    if bar is None:
        return
    costs = RUN_BAR.get("costs") or {}
    if node == "plan_subsections" and update.get("outline"):
        n = sum(len(s["subsections"]) for s in update["outline"])
        total = n * sum(costs.get(step, 1.0) for step in PER_SUBSECTION) + sum(costs.get(s, 1.0) for s in CLOSING)
        bar.reset(RUN_BAR["task"], total=total)
    if node in costs:
        bar.advance(RUN_BAR["task"], costs[node])
