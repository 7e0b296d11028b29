"""Every ASG-Bench draft through the full quality reading: form, topicality gate, per-reference share.

    python benchmarks/quality_read.py --data ../shared/data/asg_bench [--limit N] [--out readings.pkl]

Scores each draft (nine systems and the human surveys) with ``read_quality`` and the MiniLM encoder,
then prints the system-level Spearman ρ against SurveyLens' rubric (form and read, mean over the
disciplines) and each system's mean reference and overall score: the table of BENCHMARKS.md
"Quality model v5" and "Quality model v6". About 2.5 s per draft on 2 cores (23 min for all 538).
"""

from __future__ import annotations

import argparse
import pickle
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import DEFAULT_DATA, offline_env  # noqa: E402

COMPONENTS = ("outline", "content", "reference", "overall")


def read_all(root: Path, limit: int | None) -> list[dict]:
    from surveygraph.evaluation.parsers import parse_survey
    from surveygraph.evaluation.quality.reading import read_quality
    from surveygraph.evaluation.scoring import gate_memo
    from surveygraph.settings import load_settings

    encode = gate_memo(load_settings())
    files = sorted(p for d in sorted(root.iterdir()) if d.is_dir() for p in d.glob("*__*.md"))[:limit]
    rows, start = [], time.monotonic()
    for i, path in enumerate(files, 1):
        discipline, _, topic = path.stem.partition("__")
        reading = read_quality(parse_survey(path, system=path.parent.name, topic=topic), encode=encode)
        rows.append({"system": path.parent.name, "discipline": discipline.lower(), "topic": topic,
                     "form": reading.form_scores, "read": reading.scores, "on_topic": reading.on_topic,
                     "references_on_topic": reading.references_on_topic})
        if i % 50 == 0:
            print(f"{i}/{len(files)} drafts, {time.monotonic() - start:.0f} s", file=sys.stderr)
    return rows


def system_rho(rows: list[dict], kind: str) -> dict[str, float]:
    from surveygraph.evaluation.quality.dataset import load_reference_scores

    targets = load_reference_scores()
    out = {}
    for component in COMPONENTS:
        rhos = []
        for discipline in sorted({r["discipline"] for r in rows}):
            means = defaultdict(list)
            for r in rows:
                if r["discipline"] == discipline and (r["system"], discipline) in targets[component]:
                    means[r["system"]].append(r[kind][component])
            systems = sorted(means)
            rhos.append(spearmanr([np.mean(means[s]) for s in systems],
                                  [targets[component][(s, discipline)] for s in systems]).statistic)
        out[component] = float(np.mean(rhos))
    return out


def report(rows: list[dict]) -> str:
    lines = [f"system-level ρ, {kind}: " + ", ".join(f"{c} {v:+.3f}" for c, v in system_rho(rows, kind).items())
             for kind in ("form", "read")]
    lines += ["", "| system | reference form | reference read | share of references on topic | overall form | overall read |",
              "|---|---|---|---|---|---|"]
    by_system = defaultdict(list)
    for r in rows:
        by_system[r["system"]].append(r)
    for system in sorted(by_system, key=lambda s: -np.mean([r["read"]["reference"] for r in by_system[s]])):
        group = by_system[system]
        shares = [r["references_on_topic"] for r in group if r["references_on_topic"] is not None]
        mean = lambda kind, c: np.mean([r[kind][c] for r in group])  # noqa: E731
        lines.append(f"| {system} | {mean('form', 'reference'):.2f} | {mean('read', 'reference'):.2f} | "
                     f"{np.mean(shares):.2f} | {mean('form', 'overall'):.2f} | {mean('read', 'overall'):.2f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(DEFAULT_DATA / "asg_bench"))
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--out", default=None, help="also pickle the per-draft rows here")
    args = parser.parse_args()
    offline_env()
    rows = read_all(Path(args.data), args.limit)
    if args.out:
        Path(args.out).write_bytes(pickle.dumps(rows))
    print(report(rows))


if __name__ == "__main__":
    main()
