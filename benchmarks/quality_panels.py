"""The offline quality score (evaluation/quality) against the blind readers, on the stored panels.

    python benchmarks/quality_panels.py --home <data home> [--data ../shared/data] [--cache <scores.json>] [--rubric]
    python benchmarks/quality_panels.py --home <data home> --phrasings c34,c35 [--cache <scores.json>]

Every draft of every panel in benchmarks/data/reader_panels/<version>/ (our default survey of that
version and the four SurveyBench systems' drafts) is scored with ``surveygraph.evaluate(...,
metrics=["quality"])``, no human survey given (as in generate's self-evaluation). Per panel: Spearman
between quality.overall and the reader's overall; where the score puts our draft; and every case
where our draft scores above a draft its reader rated at least 1.0 higher (issue 30's bars: mean
per-topic rho >= 0.6, no such case). ``--cache`` keeps scores between runs (a SurveyBench draft
read in several panels is scored once). ``--phrasings`` reads the user-phrasing panels instead
(``reader_phrasings.py``: key, verdict and our draft per panel id): every draft is scored against the
panel's user phrasing, the words the reader judged the request by.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import DEFAULT_DATA, REPO_ROOT, load_average, offline_env  # noqa: E402

PANELS = REPO_ROOT / "benchmarks" / "data" / "reader_panels"


def draft_key(version: str, draft: dict) -> str:
    return f"{version}:{draft['draft']}" if draft["system"] == "surveygraph" else draft["draft"]


def version_panels() -> list[tuple[str, dict]]:
    """The v* panels (one JSON per topic, written by reader_panel.py collect)."""
    return [(path.parent.name, json.loads(path.read_text())) for path in sorted(PANELS.glob("v*/*.json"))]


def phrasing_panels(versions: list[str]) -> list[tuple[str, dict]]:
    """The user-phrasing panels (reader_phrasings.py store) in the v* layout: topic = the user's
    phrasing; a SurveyBench draft's key names the phrasing too, as its score depends on it."""
    panels = []
    for version in versions:
        for key_file in sorted((PANELS / version).glob("*.key.json")):
            panel_id = key_file.name.removesuffix(".key.json")
            key = json.loads(key_file.read_text())
            verdict = json.loads((PANELS / version / f"{panel_id}.verdict.json").read_text())
            drafts = []
            for letter, system in sorted(key["letters"].items()):
                given = verdict["drafts"][letter]
                draft = (f"{panel_id}.ours.md.gz" if system == "surveygraph"
                         else f"weaidb_surveybench/{system}/{key['bench_topic']}.md")
                drafts.append({"system": system, "draft": draft, "phrasing": key["user_topic"],
                               "overall": round(sum(float(given[c]) for c in ("outline", "content", "reference"))
                                                / 3, 3)})
            panels.append((version, {"topic": key["user_topic"], "panel": panel_id, "group": key["bench_topic"],
                                     "drafts": drafts,
                                     "ranking": [key["letters"][letter] for letter in verdict["ranking"]]}))
    return panels


def score_key(version: str, draft: dict) -> str:
    key = draft_key(version, draft)
    return f"{key} @ {draft['phrasing']}" if "phrasing" in draft and draft["system"] != "surveygraph" else key


def score_all(home: Path, data: Path, cache: Path | None, panels: list[tuple[str, dict]]) -> dict[str, dict]:
    import surveygraph as sg

    scores = json.loads(cache.read_text()) if cache and cache.is_file() else {}
    for version, panel in panels:
        for draft in panel["drafts"]:
            key = score_key(version, draft)
            if key in scores:
                continue
            if draft["system"] == "surveygraph":
                text = gzip.open(PANELS / version / draft["draft"], "rt", encoding="utf-8").read()
                with tempfile.NamedTemporaryFile("w", suffix=".md", delete=False, encoding="utf-8") as tmp:
                    tmp.write(text)
                source = tmp.name
            else:
                source = str(data / draft["draft"])
            report = sg.evaluate(source, metrics=["quality"], topic=panel["topic"], home=str(home))
            scores[key] = {m.name: m.value for m in report.metrics}
            if cache:
                cache.write_text(json.dumps(scores))
    return scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--cache", type=Path)
    parser.add_argument("--phrasings", help="comma-separated user-phrasing panel versions (c33,c34,...) "
                        "to read instead of the v* panels")
    parser.add_argument("--rubric", action="store_true",
                        help="also the ASG-Bench system-level agreement of the reader-chosen weights (~2 min)")
    args = parser.parse_args()
    offline_env()
    from scipy.stats import spearmanr

    started = time.perf_counter()
    panels = phrasing_panels(args.phrasings.split(",")) if args.phrasings else version_panels()
    scores = score_all(args.home, args.data, args.cache, panels)
    print(f"# quality.overall against the blind readers ({time.perf_counter() - started:.0f} s; {load_average()})\n")
    print("| panel | topic | Spearman (5 drafts) | ours: score (rank by score) | ours: reader (rank by reader) |")
    print("|---|---|---:|---|---|")
    by_version: dict[str, list[float]] = {}
    above = []
    for version, panel in panels:
        quality = [scores[score_key(version, d)]["quality.overall"] for d in panel["drafts"]]
        reader = [d["overall"] for d in panel["drafts"]]
        ours = next(i for i, d in enumerate(panel["drafts"]) if d["system"] == "surveygraph")
        rho = float(spearmanr(quality, reader).correlation)
        by_version.setdefault(version, []).append(rho)
        by_score = sorted(range(len(quality)), key=lambda i: -quality[i])
        print(f"| {panel.get('panel', version)} | {panel['topic']} | {rho:.2f} | {quality[ours]:.2f} ({by_score.index(ours) + 1}) | "
              f"{reader[ours]:.2f} ({panel['ranking'].index('surveygraph') + 1}) |")
        above += [(version, panel["topic"], d["system"], quality[ours], quality[i], reader[ours], reader[i])
                  for i, d in enumerate(panel["drafts"])
                  if i != ours and reader[i] >= reader[ours] + 1.0 and quality[ours] > quality[i]]
    every = [r for rhos in by_version.values() for r in rhos]
    print("\n| panels | n | mean per-topic Spearman |\n|---|---:|---:|")
    for version, rhos in by_version.items():
        print(f"| {version} | {len(rhos)} | {np.nanmean(rhos):.3f} |")
    print(f"| all | {len(every)} | {np.nanmean(every):.3f} |")
    print(f"\nOur draft scored above a draft its reader rated >= 1.0 higher: {len(above)}")
    for version, topic, system, q_ours, q_other, r_ours, r_other in above:
        print(f"- {version} {topic}: ours {q_ours:.2f} vs {system} {q_other:.2f} (readers {r_ours:.2f} vs {r_other:.2f})")
    held = component_weights_loto(scores, panels)
    if args.rubric:
        weights = [tuple(round(float(w), 2) for w in h[1]) for h in held]
        rubric_agreement(args.data, {"the mean (shipped)": (1 / 3, 1 / 3, 1 / 3),
                                     "the weights the folds chose most": max(set(weights), key=weights.count)})


def component_weights_loto(scores: dict[str, dict], stored: list[tuple[str, dict]]) -> list:
    """Which components carry the readers' order: each component alone, and weights of the three
    (a grid, 0-4 each, normalised) chosen on the other topics' panels and read on the held-out
    topic's (all versions of a topic are held out together). An experiment, not the shipped score."""
    from itertools import product

    from scipy.stats import spearmanr

    panels = []
    for version, panel in stored:
        parts = [[scores[score_key(version, d)][f"quality.{c}"] for c in ("outline", "content", "reference")]
                 for d in panel["drafts"]]
        panels.append((panel.get("group", panel["topic"]), np.array(parts), [d["overall"] for d in panel["drafts"]]))

    def mean_rho(weights, keep) -> float:
        rhos = [spearmanr(parts @ weights, reader).correlation for topic, parts, reader in panels if keep(topic)]
        return float(np.nanmean(rhos))

    print("\n| component alone | mean per-panel Spearman |\n|---|---:|")
    for i, name in enumerate(("outline", "content", "reference")):
        print(f"| {name} | {mean_rho(np.eye(3)[i], lambda t: True):.3f} |")
    grid = [np.array(w) / sum(w) for w in product(range(5), repeat=3) if sum(w)]
    topics = sorted({t for t, _, _ in panels})
    held = []
    for topic in topics:
        best = max(grid, key=lambda w: mean_rho(w, lambda t: t != topic))
        held.append((topic, best, mean_rho(best, lambda t: t == topic)))
    print("\n| held-out topic | weights (O, C, R) chosen on the others | its panels' mean Spearman |\n|---|---|---:|")
    for topic, weights, rho in held:
        print(f"| {topic} | {', '.join(f'{w:.2f}' for w in weights)} | {rho:.2f} |")
    print(f"| **mean over {len(held)} topics** | | **{np.mean([h[2] for h in held]):.3f}** |")
    return held


def rubric_agreement(data: Path, weightings: dict[str, tuple[float, float, float]]) -> None:
    """System-level agreement with SurveyLens' overall rubric score on ASG-Bench (mean per-discipline
    Spearman of system means; the shipped component models, in-sample) for each weighting of the
    three components: what a reader-weighted overall would cost the issue's second bar."""
    from surveygraph.evaluation.quality.agreement import discipline_rho
    from surveygraph.evaluation.quality.dataset import load_training_set
    from surveygraph.evaluation.quality.model import component_score, load_model

    drafts, _, targets, _ = load_training_set(data / "asg_bench")
    model = load_model()
    parts = np.array([[component_score(d.features, c, model) for c in ("outline", "content", "reference")]
                      for d in drafts])
    print("\n| overall as | mean per-discipline Spearman with the rubric's overall (ASG-Bench, in-sample) |\n|---|---:|")
    for name, weights in weightings.items():
        rho = discipline_rho(drafts, parts @ np.array(weights), targets, "overall")
        print(f"| {name} | {np.mean(list(rho.values())):.3f} ({', '.join(f'{k} {v:.2f}' for k, v in rho.items())}) |")


if __name__ == "__main__":
    main()
