"""Blind reader panels on a user's phrasing: our default survey on the words a user types, beside the
four SurveyBench systems' drafts on the matching SurveyBench topic (issues 28-30, panels c22 onwards).

    # 1. one line per panel, ``id|user phrasing|SurveyBench topic``; generates ours (the SurveyBench
    #    topic's human outline excluded) and writes <out>/<id>/{panel/draft_A..E.md,key.json,prompt.txt}
    python benchmarks/reader_phrasings.py prepare --list panels.txt --home <data home> --out <dir>
    # 2. one fresh reader per panel (a helper that never saw the code or the key) is told only:
    #    "Your task is written in the file <out>/<id>/prompt.txt. Read that file and follow it exactly."
    #    It writes <out>/<id>/verdict.json (READER_FORMAT).
    # 3. the panel's row (ours, rank, outline median, the four systems) and the stored copy
    python benchmarks/reader_phrasings.py table --out <dir> c36a c36b ...
    python benchmarks/reader_phrasings.py store --version c36 --out <dir> c36a c36b ...

``store`` copies key, verdict and our draft (gzipped) to benchmarks/data/reader_panels/<version>/, the
layout quality_panels.py reads. The letters are shuffled with a seed drawn from the panel id, so a
panel is rebuilt identically; the key stays outside the folder the reader is told to open.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import random
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import DEFAULT_DATA, load_average, offline_env  # noqa: E402
from reader_panel import COMPONENTS, OURS, PANELS, SYSTEMS  # noqa: E402  (the same panels, one source)

PROMPT = """You are an expert researcher reading literature surveys. A colleague asked for a survey on:

    "{user}"

Five drafts were written for that request by different systems. They are in the folder
{panel}/ as draft_A.md, draft_B.md, draft_C.md, draft_D.md and draft_E.md. Read all five in
full (every section and the reference list). Do not open any other file and do not look for
who wrote which draft.

Score each draft from 1 (poor) to 5 (excellent), in steps of 0.5, on three components, judged
for the colleague's request above (a draft about a broader or different topic serves the request
less well; say so when it happens):
- outline: Substantive Integrity (depth, breadth and scholarly merit of what the outline covers),
  Structural Coherence (logical architecture and flow of the sections: a taxonomy of the field's
  method families, problems, evaluation and applications, named as the field names them), Formal
  Precision (execution of the hierarchy and the headings).
- content: Scope and Relevance (alignment with the request), Structural Coherence (organisation,
  transitions), Synthesis and Integration (comparison across works, frameworks rather than one
  summary after another), Critical Insight (critique, research gaps), Scholarly Communication
  (clarity, precise terms, citations that support the claims).
- reference: Bibliometric Comprehensiveness (coverage, seminal works), Evidential Integrity (claims
  attributed correctly), Referential Pertinence and Compliance (references on the request's topic,
  complete entries).

Write your verdict as JSON to {verdict} with exactly this form:
{{"reader": "{reader}",
 "drafts": {{"A": {{"outline": 3.0, "content": 2.5, "reference": 3.0,
                  "reasons": "two to six sentences, quoting the drafts where you can"}},
            "B": {{...}}, "C": {{...}}, "D": {{...}}, "E": {{...}}}},
 "ranking": ["best letter", "...", "worst letter"]}}
The ranking orders the drafts by the mean of their three scores (break ties by your judgment).
Reply with one line per draft: letter, the three scores, one sentence.
"""


def _line(text: str) -> tuple[str, str, str]:
    panel_id, user, bench = (part.strip() for part in text.split("|"))
    if not (DEFAULT_DATA / "weaidb_surveybench" / SYSTEMS[0] / f"{bench}.md").exists():
        raise SystemExit(f"{panel_id}: no SurveyBench topic named {bench!r}")
    return panel_id, user, bench


def prepare(args: argparse.Namespace) -> None:
    offline_env()
    import surveygraph as sg

    lines = [_line(text) for text in args.list.read_text(encoding="utf-8").splitlines() if text.strip()]
    for panel_id, user, bench in lines:
        folder = args.out / panel_id
        if folder.exists():
            print(f"{panel_id}: {folder} exists, kept as it is")
            continue
        started = time.perf_counter()
        run = sg.generate(user, home=str(args.home), generation__exclude_outlines=[bench])
        seconds = round(time.perf_counter() - started, 1)
        sources = {OURS: Path(run.markdown),
                   **{s: args.data / "weaidb_surveybench" / s / f"{bench}.md" for s in SYSTEMS}}
        names = sorted(sources)
        random.Random(hashlib.sha256(panel_id.encode()).hexdigest()).shuffle(names)
        (folder / "panel").mkdir(parents=True)
        letters = dict(zip("ABCDE", names))
        for letter, name in letters.items():
            shutil.copyfile(sources[name], folder / "panel" / f"draft_{letter}.md")
        key = {"user_topic": user, "bench_topic": bench, "letters": letters,
               "ours": {"run_id": run.run_id, "cited": len(run.survey.references), "seconds": seconds}}
        (folder / "key.json").write_text(json.dumps(key, indent=1), encoding="utf-8")
        (folder / "prompt.txt").write_text(PROMPT.format(user=user, panel=folder / "panel",
                                                         verdict=folder / "verdict.json",
                                                         reader=f"{panel_id}-reader"), encoding="utf-8")
        print(f"{panel_id}: {user!r} -> {len(run.survey.references)} cited works, {seconds} s", flush=True)
    print(load_average())


def _read(folder: Path) -> tuple[dict, dict]:
    key = json.loads((folder / "key.json").read_text(encoding="utf-8"))
    verdict = json.loads((folder / "verdict.json").read_text(encoding="utf-8"))
    return key, verdict


def row(panel_id: str, key: dict, verdict: dict) -> str:
    """One markdown row: ours (O / C / R, mean), rank of five, outline median of the four, their means."""
    scores = {key["letters"][letter]: entry for letter, entry in verdict["drafts"].items()}
    means = {name: sum(float(s[c]) for c in COMPONENTS) / 3 for name, s in scores.items()}
    ours = scores[OURS]
    rank = 1 + sum(means[name] > means[OURS] for name in SYSTEMS)
    ties = [name for name in SYSTEMS if abs(means[name] - means[OURS]) < 1e-9]
    order = [key["letters"][letter] for letter in verdict.get("ranking", [])]
    rank_text = f"{rank} of 5"
    if ties and order:
        rank_text += (f" (tied with {', '.join(ties)}; the reader's order puts ours "
                      f"{['first', 'second', 'third', 'fourth', 'last'][order.index(OURS)]})")
    outlines = sorted(float(scores[name]["outline"]) for name in SYSTEMS)
    median = (outlines[1] + outlines[2]) / 2
    others = ", ".join(f"{name} {means[name]:.2f}" for name in sorted(SYSTEMS))
    parts = " / ".join(f"{float(ours[c]):.1f}" for c in COMPONENTS)
    return (f"| {panel_id} | {key['user_topic']} | {key['bench_topic']} | {parts} | {means[OURS]:.2f} | "
            f"{rank_text} | {median:.2f} | {others} |")


def table(args: argparse.Namespace) -> None:
    print("| panel | user phrasing | SurveyBench topic | ours: outline / content / reference | ours: mean | rank "
          "| outline median | the four systems (mean) |\n|---|---|---|---|---:|---|---:|---|")
    for panel_id in args.ids:
        print(row(panel_id, *_read(args.out / panel_id)))
    for panel_id in args.ids:
        key, verdict = _read(args.out / panel_id)
        ours = next(letter for letter, name in key["letters"].items() if name == OURS)
        print(f"\n{panel_id} ours: {verdict['drafts'][ours]['reasons']}")


def store(args: argparse.Namespace) -> None:
    target = PANELS / args.version
    target.mkdir(parents=True, exist_ok=True)
    for panel_id in args.ids:
        folder = args.out / panel_id
        key, verdict = _read(folder)
        ours = next(letter for letter, name in key["letters"].items() if name == OURS)
        (target / f"{panel_id}.key.json").write_text(json.dumps(key, indent=1) + "\n", encoding="utf-8")
        (target / f"{panel_id}.verdict.json").write_text(json.dumps(verdict, indent=1) + "\n", encoding="utf-8")
        with gzip.open(target / f"{panel_id}.ours.md.gz", "wt", encoding="utf-8") as handle:
            handle.write((folder / "panel" / f"draft_{ours}.md").read_text(encoding="utf-8"))
        print(f"{panel_id}: stored in {target}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    first = sub.add_parser("prepare")
    first.add_argument("--list", type=Path, required=True, help="lines of 'id|user phrasing|SurveyBench topic'")
    first.add_argument("--home", type=Path, required=True)
    first.add_argument("--out", type=Path, required=True)
    first.add_argument("--data", type=Path, default=DEFAULT_DATA)
    for name in ("table", "store"):
        command = sub.add_parser(name)
        command.add_argument("--out", type=Path, required=True)
        command.add_argument("ids", nargs="+")
        if name == "store":
            command.add_argument("--version", required=True)
    args = parser.parse_args()
    {"prepare": prepare, "table": table, "store": store}[args.command](args)


if __name__ == "__main__":
    main()
