"""Assemble BENCHMARKS.md from the per-area result files in benchmarks/results/.

Usage: python benchmarks/assemble.py   (rewrites BENCHMARKS.md; the summary lives in
benchmarks/results/_summary.md, each area's numbers and commands in its own file)
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# One area a line, so that branches adding areas merge without conflicts.
ORDER = [
    "sources",
    "retrieval",
    "llm",
    "generation",
    "relevance",
    "topic_pool",
    "reader_panels",
    "quality_panels",
    "session8_generation",
    "session10_generation",
    "session12_generation",
    "outline_taxonomy",
    "offline_floor",
    "content_synthesis",
    "content_checks",
    "parsers",
    "evaluation",
    "validity",
    "quality",
    "quality_meaning",
    "quality_meaning_readings",
    "quality_v5",
    "quality_v6",
    "quality_v7",
    "quality_limits",
    "judges",
    "reliability",
    "reliability_inputs",
    "faults_data",
    "install",
    "scale",
    "protocols",
]


def demote(markdown: str) -> str:
    """Shift every heading one level down so each area nests under BENCHMARKS.md's title."""
    return re.sub(r"^(#{1,5}) ", lambda m: "#" + m.group(1) + " ", markdown, flags=re.M)


def main() -> None:
    results = ROOT / "benchmarks" / "results"
    parts = [(results / "_summary.md").read_text().rstrip()]
    for name in ORDER:
        path = results / f"{name}.md"
        if path.is_file():
            parts.append(demote(path.read_text()).rstrip())
    (ROOT / "BENCHMARKS.md").write_text("\n\n".join(parts) + "\n")


if __name__ == "__main__":
    main()
