"""Blind reader panels: our default survey against the four SurveyBench systems, read anonymised.

    # 1. generate ours (same-topic human outline excluded) and write anonymised, shuffled panels
    python benchmarks/reader_panel.py prepare --version v1 --home <data home> --topics "A,B" \
        --out <panel dir> [--data ../shared/data]
    # 2. a reader who did not write the code scores <out>/<version>/<slug>/draft_*.md into
    #    <out>/<version>/<slug>/verdict.json (format: READER_FORMAT below)
    # 3. join verdicts with the keys and store them as benchmark data
    python benchmarks/reader_panel.py collect --version v1 --out <panel dir>

Panels are the reader labels of issue 30: the offline quality score is validated on them (and fitted
on them only leave-one-topic-out). ``prepare`` keeps the key (which letter is which system) in
``<out>/<version>/keys/``, apart from what the reader is given. ``collect`` writes one JSON per topic
to ``benchmarks/data/reader_panels/<version>/<slug>.json`` and our own draft beside it, gzipped (the
other systems' drafts stay in ../shared/data and are referred to by path).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import random
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import DEFAULT_DATA, REPO_ROOT, load_average, offline_env  # noqa: E402

SYSTEMS = ("AutoSurvey", "SurveyForge", "LLMxMR-V2", "OpenAI_DeepResearch")
OURS = "surveygraph"
PANELS = REPO_ROOT / "benchmarks" / "data" / "reader_panels"
COMPONENTS = ("outline", "content", "reference")
READER_FORMAT = {"drafts": {"A": {"outline": "1-5", "content": "1-5", "reference": "1-5",
                                  "overall": "mean of the three", "reasons": "..."}}, "ranking": ["A", "..."]}


def slug(topic: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", topic.lower()).strip("-")


def generate_ours(topic: str, home: Path) -> tuple[Path, dict]:
    """Our default survey on ``topic`` in a fresh run, the same-topic human outline excluded."""
    offline_env()
    import surveygraph as sg

    started = time.perf_counter()
    run = sg.generate(topic, home=str(home), generation__exclude_outlines=[topic])
    manifest = json.loads((Path(run.markdown).parent / "manifest.json").read_text(encoding="utf-8"))
    return Path(run.markdown), {"seconds": round(time.perf_counter() - started, 1), "run_id": run.run_id,
                                "cited": len(run.survey.references),
                                "commit": _commit(), "pool": manifest.get("relevance", {}).get("kept")}


def _commit() -> str:
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO_ROOT, capture_output=True,
                          text=True).stdout.strip()


def prepare(args: argparse.Namespace) -> None:
    root = args.out / args.version
    (root / "keys").mkdir(parents=True, exist_ok=True)
    for topic in [t.strip() for t in args.topics.split(",") if t.strip()]:
        folder = root / slug(topic)
        if folder.exists():
            print(f"{topic}: {folder} exists, kept as it is")
            continue
        ours, run = generate_ours(topic, args.home)
        sources = {OURS: ours, **{s: args.data / "weaidb_surveybench" / s / f"{topic}.md" for s in SYSTEMS}}
        names = sorted(sources)
        # The order depends on the topic and version only, so a panel can be rebuilt identically.
        random.Random(hashlib.sha256(f"{args.version}/{topic}".encode()).hexdigest()).shuffle(names)
        folder.mkdir(parents=True)
        key = {"topic": topic, "version": args.version, "ours": run, "letters": {}}
        for letter, name in zip("ABCDE", names):
            shutil.copyfile(sources[name], folder / f"draft_{letter}.md")
            key["letters"][letter] = {"system": name, "source": str(sources[name])}
        (root / "keys" / f"{slug(topic)}.json").write_text(json.dumps(key, indent=1), encoding="utf-8")
        print(f"{topic}: panel in {folder} (ours: {run['cited']} works, {run['seconds']} s)", flush=True)
    print(load_average())


def collect(args: argparse.Namespace) -> None:
    root = args.out / args.version
    target = PANELS / args.version
    target.mkdir(parents=True, exist_ok=True)
    for key_file in sorted((root / "keys").glob("*.json")):
        key = json.loads(key_file.read_text(encoding="utf-8"))
        verdict_file = root / key_file.stem / "verdict.json"
        if not verdict_file.is_file():
            print(f"{key['topic']}: no verdict yet")
            continue
        verdict = json.loads(verdict_file.read_text(encoding="utf-8"))
        drafts = []
        for letter, entry in sorted(key["letters"].items()):
            scores = verdict["drafts"][letter]
            row = {"letter": letter, "system": entry["system"],
                   **{c: float(scores[c]) for c in COMPONENTS},
                   "overall": round(sum(float(scores[c]) for c in COMPONENTS) / 3, 3),
                   "reasons": scores.get("reasons", "")}
            if entry["system"] == OURS:
                stored = f"{key_file.stem}.ours.md.gz"
                with gzip.open(target / stored, "wt", encoding="utf-8") as handle:
                    handle.write((root / key_file.stem / f"draft_{letter}.md").read_text(encoding="utf-8"))
                row["draft"] = stored
            else:
                row["draft"] = f"weaidb_surveybench/{entry['system']}/{key['topic']}.md"
            drafts.append(row)
        record = {"topic": key["topic"], "version": args.version, "ours": key["ours"],
                  "reader": verdict.get("reader", "blind reader (fresh agent)"),
                  "ranking": [key["letters"][letter]["system"] for letter in verdict.get("ranking", [])],
                  "drafts": drafts}
        (target / f"{key_file.stem}.json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
        print(f"{key['topic']}: " + ", ".join(f"{d['system']} {d['overall']:.2f}" for d in drafts))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    first = sub.add_parser("prepare")
    first.add_argument("--version", required=True)
    first.add_argument("--home", type=Path, required=True)
    first.add_argument("--topics", required=True)
    first.add_argument("--out", type=Path, required=True)
    first.add_argument("--data", type=Path, default=DEFAULT_DATA)
    second = sub.add_parser("collect")
    second.add_argument("--version", required=True)
    second.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    prepare(args) if args.command == "prepare" else collect(args)


if __name__ == "__main__":
    main()
