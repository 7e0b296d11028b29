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
    """v1..v14 (SurveyBench topic names), then c19.. (a user's phrasings of them, from session 19
    on: the newer panels), in the order they were read."""
    match = re.fullmatch(r"([vc])(\d+)", path.name)
    if not match:
        return -1
    return int(match.group(2)) + (1000 if match.group(1) == "c" else 0)


def _named_panels(version: Path) -> list[dict]:
    """A v-panel as stored (system, overall per draft; the ranking)."""
    return [json.loads(f.read_text(encoding="utf-8")) for f in sorted(version.glob("*.json"))]


def _lettered_panels(version: Path) -> list[dict]:
    """A c-panel: the anonymised letters (``<id>.key.json``) and the reader's verdict
    (``<id>.verdict.json``, SurveyLens components per letter), read as a v-panel."""
    rows = []
    for key_file in sorted(version.glob("*.key.json")):
        verdict_file = key_file.with_name(key_file.name.replace(".key.json", ".verdict.json"))
        if not verdict_file.is_file():
            continue
        key, verdict = (json.loads(f.read_text(encoding="utf-8")) for f in (key_file, verdict_file))
        letters = key.get("letters") if isinstance(key, dict) else None
        verdicts = verdict.get("drafts") if isinstance(verdict, dict) else None
        if not isinstance(letters, dict) or not isinstance(verdicts, dict):
            continue  # a key of another reading kept beside the panels (an outline A/B), no panel
        try:
            drafts = [{"system": system, "overall": sum(float(verdicts[letter][c]) for c in
                                                        ("outline", "content", "reference")) / 3}
                      for letter, system in letters.items() if letter in verdicts]
        except (KeyError, TypeError, ValueError):
            continue  # a verdict without the three components is no reading to quote
        if any(d["system"] == "surveygraph" for d in drafts):
            # a tie is no verdict against us: ours ranks first among equal scores
            ranking = sorted(drafts, key=lambda d: (-d["overall"], d["system"] != "surveygraph"))
            rows.append({"drafts": drafts, "ranking": [d["system"] for d in ranking]})
    return rows


def reader_standing(panels: Path = PANELS) -> str | None:
    """One plain sentence on the latest panel version, or None when no panels are stored."""
    versions = sorted((p for p in panels.glob("[vc]*") if p.is_dir() and _version_number(p) >= 0),
                      key=_version_number)
    rows, version = [], None
    for version in reversed(versions):
        rows = _lettered_panels(version) if version.name.startswith("c") else _named_panels(version)
        if rows:
            break
    if not rows or version is None:
        return None
    ours, others, last = [], [], 0
    for panel in rows:
        by_system = {d["system"]: float(d["overall"]) for d in panel["drafts"]}
        ours.append(by_system.pop("surveygraph"))
        others.extend(by_system.values())
        last += panel["ranking"][-1] == "surveygraph"
    commit = rows[0].get("ours", {}).get("commit", "")
    which = f"the offline default at {commit}" if commit else "the offline default on topics as users phrase them"
    # a c-version may read one phrasing twice (before and after a change): it counts panels, not topics
    unit = "panels" if version.name.startswith("c") else "topics"
    return (f"blind readers (reader panels {version.name}, {which}, {len(rows)} {unit}): "
            f"its surveys scored {sum(ours) / len(ours):.2f} on average ({min(ours):.2f}-{max(ours):.2f}) "
            f"against {sum(others) / len(others):.2f} for the four SurveyBench systems' drafts, last on {last} "
            f"of {len(rows)} {unit} (their reasons: benchmarks/results/reader_panels.md)")
