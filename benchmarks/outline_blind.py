"""Files for the blind outline comparison and the heading-content labelling (issue 29).

    # 1. anonymised, shuffled outlines per topic (ours from a fresh default plan, the four systems'
    #    extracted from weaidb_surveybench), and a key file kept apart
    python benchmarks/outline_blind.py outlines --home <data home> --topics heldout --out <outline dir>
    # 2. per subsection of ours: the heading and its cited works (title, abstract) to label 1/0
    python benchmarks/outline_blind.py labels --home <data home> --topics heldout --out <outline dir>

Ours is planned and read with the default offline settings and the same-topic human outline excluded
(``generation.exclude_outlines``; the knowledge base excludes that survey by topic and title). This
script never prints an outline: the held-out topics are read by the blind readers only.

Layout: <out>/outlines/<topic>/outline_{A..E}.md (levels 1-2, numbering removed, frame headings
dropped), <out>/key/<topic>.json ({letter: system}), <out>/labels/<topic>.md (a form to fill) and
<out>/labels/<topic>.json (the same, machine-readable, with an empty ``label`` per work).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import DEFAULT_DATA, load_average, offline_env  # noqa: E402
from outline_taxonomy import plan_and_read, topics_from  # noqa: E402

SYSTEMS = ("AutoSurvey", "SurveyForge", "LLMxMR-V2", "OpenAI_DeepResearch")
FRAME = re.compile(r"^(abstract|introduction|conclusions?|references|acknowledge?ments?|future (work|directions)|"
                   r"related work|appendix)\b", re.I)
NUMBERING = re.compile(r"^\s*(?:[IVX]+\.|\d+(?:\.\d+)*\.?|[A-Z]\.)\s+")


def _clean(title: str) -> str:
    return NUMBERING.sub("", " ".join(str(title).split())).strip(" #*")


def system_outline(data: Path, system: str, topic: str) -> list[tuple[int, str]] | None:
    from surveygraph.evaluation.parsers import parse_survey

    path = data / "weaidb_surveybench" / system / f"{topic}.md"
    if not path.is_file():
        return None
    survey = parse_survey(path, system=system, topic=topic)
    entries = [(e.level, _clean(e.title)) for e in survey.outline]
    if entries:  # a draft whose title is its only level-1 heading: its sections are one level down
        top = min(lv for lv, _ in entries)
        if sum(lv == top for lv, _ in entries) == 1 and len(entries) > 1:
            entries = [(lv - 1, t) for lv, t in entries if lv > top]
    return _body(entries)


def _body(entries: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """Levels 1-2, frame headings (and their children) left out."""
    kept, skipping = [], False
    for level, title in entries:
        if level == 1:
            skipping = bool(FRAME.match(title))
        if not skipping and level <= 2 and title:
            kept.append((level, title))
    return kept


def our_outline(state: dict) -> list[tuple[int, str]]:
    return [(lv, h["title"]) for s in state["outline"] for lv, h in [(1, s), *[(2, sub) for sub in s["subsections"]]]]


def _markdown(topic: str, entries: list[tuple[int, str]]) -> str:
    lines, section, sub = [f"# Outline of a survey on: {topic}", ""], 0, 0
    for level, title in entries:
        if level == 1:
            section, sub = section + 1, 0
            lines.append(f"{section}. {title}")
        else:
            sub += 1
            lines.append(f"    {section}.{sub} {title}")
    return "\n".join(lines) + "\n"


def write_outlines(topic: str, state: dict, data: Path, out: Path, seed: int) -> None:
    outlines = {"surveygraph": our_outline(state)}
    for system in SYSTEMS:
        found = system_outline(data, system, topic)
        if found:
            outlines[system] = found
    systems = sorted(outlines)
    random.Random(f"{seed}:{topic}").shuffle(systems)
    folder = out / "outlines" / topic
    folder.mkdir(parents=True, exist_ok=True)
    key = {}
    for letter, system in zip("ABCDEFG", systems):
        (folder / f"outline_{letter}.md").write_text(_markdown(topic, outlines[system]), encoding="utf-8")
        key[letter] = system
    (out / "key").mkdir(parents=True, exist_ok=True)
    (out / "key" / f"{topic}.json").write_text(json.dumps(key, indent=1), encoding="utf-8")


def write_labels(topic: str, state: dict, out: Path) -> None:
    papers = state.get("papers") or {}
    rows, lines = [], [f"# Heading-content labels: {topic}", "",
                       "For each work, write 1 if the work is about the heading above it, else 0.", ""]
    for section in state["outline"]:
        for sub in section["subsections"]:
            cited = [p for p in state["readings"].get(sub["id"], {}).get("paper_ids", []) if p in papers]
            lines += [f"## {sub['id']} {sub['title']}", f"(section: {section['title']})", ""]
            works = []
            for n, pid in enumerate(cited, 1):
                paper = papers[pid]
                lines += [f"{n}. [ ] **{paper.get('title', '')}**", f"   {str(paper.get('abstract', ''))[:900]}", ""]
                works.append({"paper_id": pid, "title": paper.get("title", ""), "abstract": paper.get("abstract", ""),
                              "label": None})
            rows.append({"id": sub["id"], "heading": sub["title"], "section": section["title"], "works": works})
    folder = out / "labels"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{topic}.md").write_text("\n".join(lines), encoding="utf-8")
    (folder / f"{topic}.json").write_text(json.dumps(rows, indent=1), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["outlines", "labels", "both"])
    parser.add_argument("--home", required=True)
    parser.add_argument("--data", default=str(DEFAULT_DATA))
    parser.add_argument("--topics", default="heldout")
    parser.add_argument("--out", required=True)
    parser.add_argument("--seed", type=int, default=29)
    parser.add_argument("--pool-cache", default="", help="reuse pools cached by outline_taxonomy.py")
    args = parser.parse_args()
    offline_env()
    out = Path(args.out)
    print(f"writing blind outline files to {out} ({load_average()})")
    for topic in topics_from(args.topics):
        state, _, _ = plan_and_read(topic, Path(args.home), Path(args.pool_cache) if args.pool_cache else None)
        if args.what in ("outlines", "both"):
            write_outlines(topic, state, Path(args.data), out, args.seed)
        if args.what in ("labels", "both"):
            write_labels(topic, state, out)
        print(f"  {topic}: done", flush=True)


if __name__ == "__main__":
    main()
