"""Parse every weAIDB SurveyBench Markdown file and report, per system: headings, references,
titled references, citation markers resolved to a reference entry, parse time, and the
SurveyLens structural ratios (ratio of means over the 20 paired topics, generated / human).

    python benchmarks/parsers_bench.py [--data ../shared/data]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import DEFAULT_DATA, load_average  # noqa: E402

from surveygraph.evaluation.parsers import parse_survey  # noqa: E402
from surveygraph.evaluation.structure import COUNT_KEYS, structural_counts  # noqa: E402

SYSTEMS = ["AutoSurvey", "SurveyForge", "LLMxMR-V2", "OpenAI_DeepResearch", "HumanSurvey"]


def title_recall(data: Path) -> None:
    """Gold = SurveyForge's reference lists of 10 of the same human surveys (titles from Semantic
    Scholar); a gold title counts as found when a parsed title matches it at rapidfuzz ratio >= 90."""
    import json

    from rapidfuzz import fuzz, process

    from surveygraph.models import normalize_title

    human = {}
    for path in sorted((data / "weaidb_surveybench" / "HumanSurvey").glob("*.md")):
        survey = parse_survey(path)
        human[normalize_title(survey.title)] = (path.stem, survey)
    print("\n## Reference-title recall on human surveys (gold: SurveyForge human_written_ref)\n")
    print("| survey | gold titles | parsed entries | found |")
    print("|---|---|---|---|")
    recalls = []
    for gold_file in sorted((data / "surveyforge_surveybench" / "human_written_ref").glob("*.json")):
        gold = [normalize_title(v["title"]) for v in json.loads(gold_file.read_text()).values() if v.get("title")]
        match = process.extractOne(normalize_title(gold_file.stem), list(human), scorer=fuzz.ratio)
        name, survey = human[match[0]]
        parsed = [normalize_title(r.title or "") for r in survey.references]
        found = sum(1 for t in gold if process.extractOne(t, parsed, scorer=fuzz.ratio, score_cutoff=90))
        recalls.append(found / len(gold))
        print(f"| {name} | {len(gold)} | {len(parsed)} | {found / len(gold):.3f} |")
    print(f"| **mean** | | | **{statistics.mean(recalls):.3f}** |")


def _resolved(survey) -> tuple[int, int]:
    markers = {r.key for r in survey.references} | {a for r in survey.references for a in r.aliases}
    cited = [k for c in survey.citations for k in c.ref_keys]
    return sum(k in markers for k in cited), len(cited)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    data = parser.parse_args().data
    root = data / "weaidb_surveybench"
    if not root.is_dir():
        raise SystemExit(f"weAIDB SurveyBench not found under {root} (pass --data)")
    print(f"# parsers benchmark ({load_average()})\n")
    print("| system | files | headings (mean) | references (mean) | titled refs | markers resolved | parse ms (median) |")
    print("|---|---|---|---|---|---|---|")
    counts: dict[str, dict[str, list[int]]] = {}
    for system in SYSTEMS:
        files = sorted((root / system).glob("*.md"))
        heads, refs, titled, total_refs, ok, cited, times = [], [], 0, 0, 0, 0, []
        counts[system] = {k: [] for k in COUNT_KEYS}
        for path in files:
            start = time.perf_counter()
            survey = parse_survey(path, system=system)
            times.append((time.perf_counter() - start) * 1000)
            heads.append(len(survey.outline))
            refs.append(len(survey.references))
            titled += sum(1 for r in survey.references if r.title)
            total_refs += len(survey.references)
            good, n = _resolved(survey)
            ok, cited = ok + good, cited + n
            for key, value in structural_counts(survey).items():
                counts[system][key].append(value)
        print(f"| {system} | {len(files)} | {statistics.mean(heads):.1f} | {statistics.mean(refs):.1f} | "
              f"{titled / max(total_refs, 1):.3f} | {ok / max(cited, 1):.3f} ({ok}/{cited}) | "
              f"{statistics.median(times):.0f} |")
    print("\n## Structural ratios generated / human (ratio of means over 20 paired topics)\n")
    print("| system | " + " | ".join(COUNT_KEYS) + " |")
    print("|---" * (len(COUNT_KEYS) + 1) + "|")
    human = {k: statistics.mean(v) for k, v in counts["HumanSurvey"].items()}
    for system in SYSTEMS[:-1]:
        cells = []
        for key in COUNT_KEYS:
            mean = statistics.mean(counts[system][key])
            cells.append(f"{mean / human[key]:.2f}" if human[key] else "n/a")
        print(f"| {system} | " + " | ".join(cells) + " |")
    print("\n## Human means\n")
    print(" | ".join(f"{k}={v:.0f}" for k, v in human.items()))
    title_recall(data)


if __name__ == "__main__":
    main()
