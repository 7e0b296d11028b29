"""Numbers of one `generate` run for the offline-floor benchmark (benchmarks/results/offline_floor.md).

    python benchmarks/offline_floor.py RUN_DIR [RUN_DIR ...]

Per run: words of survey.md, pipe tables and figures in survey.md, the self-evaluation's claim
support and structure counts, subsections that are multi-paper syntheses (>= 2 distinct papers
cited and no "Title (year): ..." list line), subsection statuses and the gate's winners.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

LIST_LINE = re.compile(r"(?:^|(?<=[.\]] ))[^.\[\]]{3,200}\(\d{4}\): ")  # "Title (2025): first sentence [n]."
MARKER = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")


def run_numbers(run_dir: Path) -> dict:
    markdown = (run_dir / "survey.md").read_text(encoding="utf-8")
    survey = json.loads((run_dir / "survey.json").read_text(encoding="utf-8"))
    manifest = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
    evaluation = json.loads((run_dir / "evaluation.json").read_text(encoding="utf-8"))
    metrics = {m["name"]: m.get("value") for m in evaluation.get("metrics", [])}
    subsections = [s for s in survey["sections"] if s.get("level") == 2]
    synthesis = 0
    for sub in subsections:
        cited = {n.strip() for m in MARKER.finditer(sub["text"]) for n in m.group(1).split(",")}
        synthesis += len(cited) >= 2 and not LIST_LINE.search(sub["text"])
    return {
        "run": run_dir.name,
        "words (survey.md)": len(markdown.split()),
        "pipe tables": len(re.findall(r"^\|(?:\s*-+\s*\|)+\s*$", markdown, re.M)),
        "figures": len(re.findall(r"^!\[[^\]]*\]\([^)]+\.png\)", markdown, re.M)),
        "claim support": metrics.get("integrity.claim_support"),
        "structure.tables": metrics.get("structure.tables"),
        "structure.figures": metrics.get("structure.figures"),
        "references": metrics.get("integrity.references"),
        "subsections": len(subsections),
        "multi-paper syntheses": synthesis,
        "subsection status": dict(Counter(manifest.get("subsection_status", {}).values())),
        "gate winners": dict(Counter(g["winner"] for g in manifest.get("gate", {}).values())),
        "quality": (evaluation.get("quality") or {}).get("overall"),
        "seconds (sum of node timings)": round(sum(manifest.get("timings_s", {}).values())),
    }


if __name__ == "__main__":
    for arg in sys.argv[1:]:
        print(json.dumps(run_numbers(Path(arg)), indent=1))
