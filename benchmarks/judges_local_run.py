"""All LLM judges on one weAIDB draft, with timings (the acceptance check for the judges).

    python benchmarks/judges_local_run.py --topic "Graph Neural Networks" --system SurveyForge \
        --home /tmp/judges-home [--judge local] [--threads 1] [--log FILE]

Prints the cost estimate, one line per judgment as it finishes, then every score with its
rationale. Re-running with the same --log resumes from the judgments already made.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from surveygraph.evaluation.judges import JUDGE_NAMES, estimate_judge_cost, run_judges
from surveygraph.evaluation.judges.base import make_judge
from surveygraph.evaluation.parsers import parse_survey
from surveygraph.settings import load_settings

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    ap.add_argument("--topic", default="Graph Neural Networks")
    ap.add_argument("--system", default="SurveyForge")
    ap.add_argument("--judges", default=",".join(JUDGE_NAMES))
    ap.add_argument("--home", type=Path, required=True)
    ap.add_argument("--judge", default=None, help="judge model spec (default: settings)")
    ap.add_argument("--threads", type=int, default=None, help="llama.cpp threads for the local model")
    ap.add_argument("--log", type=Path, default=None)
    args = ap.parse_args()
    settings = load_settings(home=args.home, **{"llm.judge": args.judge, "llm.local_threads": args.threads})
    bench = args.data / "weaidb_surveybench"
    draft = parse_survey(bench / args.system / f"{args.topic}.md", topic=args.topic, system=args.system)
    human = parse_survey(bench / "HumanSurvey" / f"{args.topic}.md", topic=args.topic, system="human")
    names = args.judges.split(",")
    print(estimate_judge_cost(1, names, settings), flush=True)
    judge = make_judge(settings, log_path=args.log)
    judge.on_judgment = lambda node: print(f"{time.strftime('%H:%M:%S')} {node}", flush=True)
    started = time.perf_counter()
    results = run_judges(draft, human=human, topic=args.topic, names=names, settings=settings, judge=judge)
    print(f"seconds {time.perf_counter() - started:.1f}; calls made {judge.asked}; "
          f"judgments in log {len(judge.log)}", flush=True)
    for m in results:
        print(f"{m.name:28s} {m.value!s:>10} | {m.rationale}", flush=True)


if __name__ == "__main__":
    main()
