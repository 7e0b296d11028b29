"""Where the offline default job stands with blind readers: the stored reader panels
(benchmarks/data/reader_panels/<version>/, written by benchmarks/reader_panel.py), latest version.

Each panel is one topic read blind by a fresh reader: our default survey against the four
SurveyBench systems' drafts, scored 1-5 with SurveyLens' components. The self-evaluation quotes
this because the learned quality score does not rank our drafts where readers do
(benchmarks/results/quality_panels.md): the readers' verdict on this job's output is the honest
reference point until it does.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

PANELS = Path(__file__).resolve().parents[1] / "benchmarks" / "data" / "reader_panels"


def _version_number(path: Path) -> int:
    match = re.fullmatch(r"v(\d+)", path.name)
    return int(match.group(1)) if match else -1


def reader_standing(panels: Path = PANELS) -> str | None:
    """One plain sentence on the latest panel version, or None when no panels are stored."""
    versions = sorted((p for p in panels.glob("v*") if p.is_dir() and _version_number(p) >= 0), key=_version_number)
    rows = []
    for version in reversed(versions):
        rows = [json.loads(f.read_text(encoding="utf-8")) for f in sorted(version.glob("*.json"))]
        if rows:
            break
    if not rows:
        return None
    ours, others, last = [], [], 0
    for panel in rows:
        by_system = {d["system"]: float(d["overall"]) for d in panel["drafts"]}
        ours.append(by_system.pop("surveygraph"))
        others.extend(by_system.values())
        last += panel["ranking"][-1] == "surveygraph"
    commit = rows[0].get("ours", {}).get("commit", "")
    return (f"blind readers (reader panels {version.name}, the offline default at {commit}, {len(rows)} topics): "
            f"its surveys scored {sum(ours) / len(ours):.2f} on average ({min(ours):.2f}-{max(ours):.2f}) "
            f"against {sum(others) / len(others):.2f} for the four SurveyBench systems' drafts, last on {last} "
            f"of {len(rows)} topics (their reasons: benchmarks/results/reader_panels.md)")
