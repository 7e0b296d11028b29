"""Does the content score agree better with SurveyLens when it reads what the judge reads? (session 12)

    python benchmarks/content_trim.py [--data ../shared/data/asg_bench] [--chars 2000,6000]

SurveyLens' content judge gets "the survey content sections (trimmed for length)" (spec §2.3); the
trim is not published. This recomputes every content feature on each draft with each section cut
to its first N characters (at a sentence end), prints each feature's own system-level ρ against the
content rubric next to the untrimmed one, and the nested leave-one-discipline-out content ρ of the
content model refitted on the trimmed features.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

from surveygraph.evaluation.parsers import parse_survey
from surveygraph.evaluation.quality import train as T
from surveygraph.evaluation.quality.agreement import discipline_rho
from surveygraph.evaluation.quality.dataset import load_training_set
from surveygraph.evaluation.quality.features import CONTENT_FEATURES, Substance, content_features

ARGS = dict(zip(sys.argv[1::2], sys.argv[2::2]))
DATA = Path(ARGS.get("--data", "../shared/data/asg_bench"))
CHARS = tuple(int(n) for n in ARGS.get("--chars", "2000,6000").split(","))


def trimmed(survey, limit: int):
    view = survey.model_copy(deep=True)
    for section in view.sections:
        if len(section.text) > limit:
            cut = section.text[:limit]
            end = max(cut.rfind(". "), cut.rfind("\n"))
            section.text = cut[:end + 1] if end > limit // 2 else cut
    return view


def main() -> None:
    start = time.monotonic()
    drafts, _, targets, _ = load_training_set(DATA)
    full = {n: np.array([d.features[n] for d in drafts]) for n in CONTENT_FEATURES}
    per_limit: dict[int, list[dict[str, float]]] = {limit: [] for limit in CHARS}
    for i, d in enumerate(drafts, 1):
        survey = parse_survey(d.path, system=d.system, topic=d.topic)
        for limit in CHARS:
            view = trimmed(survey, limit)
            per_limit[limit].append(content_features(view, Substance(view, None)))
        if i % 100 == 0:
            print(f"  {i}/{len(drafts)} drafts · {time.monotonic() - start:.0f}s", file=sys.stderr)
    rho = lambda x: float(np.mean(list(discipline_rho(drafts, x, targets, "content").values())))  # noqa: E731
    result, _ = T.lodo(drafts, targets, "content")
    print(f"untrimmed: content LODO ρ {result['rho_mean']:+.3f}")
    for limit, rows in per_limit.items():
        for name in CONTENT_FEATURES:
            print(f"  {limit:>6} chars {name:<22} own ρ {rho(np.array([r[name] for r in rows])):+.3f}"
                  f" (untrimmed {rho(full[name]):+.3f})")
        saved = [dict(d.features) for d in drafts]
        for d, row in zip(drafts, rows):
            d.features.update(row)
        result, _ = T.lodo(drafts, targets, "content")
        for d, row in zip(drafts, saved):
            d.features.update(row)
        print(f"{limit} chars a section: content LODO ρ {result['rho_mean']:+.3f} "
              + str({k: round(v, 2) for k, v in result["rho_per_discipline"].items()}), flush=True)
    print(f"done in {time.monotonic() - start:.0f}s")


if __name__ == "__main__":
    main()
