"""Wall time and peak memory of the full weAIDB leaderboard (20 topics × 4 systems vs humans).

Runs ``surveygraph leaderboard`` twice in child processes against one fresh data home: the
first run is cold (empty embedding cache, model load), the second warm (cache filled). Peak
memory is each child's own max RSS (``os.wait4``). Prints a Markdown
block with the load average next to each number and copies the produced leaderboard.md.

    python benchmarks/leaderboard_bench.py [--data ../shared/data] [--topics "A,B"] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]


def run_once(cmd: list[str], env: dict, log: Path) -> tuple[float, float, str]:
    """(wall seconds, peak RSS MiB of this child, load average before the run)."""
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    start = time.perf_counter()
    with log.open("w") as stderr:
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=stderr)
        _, status, usage = os.wait4(proc.pid, 0)  # this child's own rusage, not a running max
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"leaderboard failed:\n{log.read_text()[-3000:]}")
    return wall, usage.ru_maxrss / 1024, load


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=REPO_ROOT.parent / "shared" / "data")
    parser.add_argument("--topics", default=None, help="comma list (default: all 20)")
    parser.add_argument("--bench-refs", action="store_true", help="also pass SurveyForge ref_bench (SAM-R, 10 topics)")
    parser.add_argument("--keep", type=Path, default=None, help="copy the warm run's output folder here")
    parser.add_argument("--home", type=Path, default=None,
                        help="data home to use and keep (default: a fresh temp home, deleted after)")
    args = parser.parse_args()
    weaidb = args.data / "weaidb_surveybench"
    if not (weaidb / "HumanSurvey").is_dir():
        sys.exit(f"weAIDB data not found under {args.data} (pass --data)")
    work = Path(tempfile.mkdtemp(prefix="lb-bench-"))
    home = args.home or work / "home"
    env = {**os.environ, "SURVEYGRAPH_HOME": str(home), "HF_HUB_OFFLINE": "1"}
    results = []
    try:
        for label in ("cold", "warm"):
            out = work / f"out-{label}"
            cmd = ["surveygraph", "leaderboard", str(weaidb), "--human-dir", str(weaidb / "HumanSurvey"),
                   "--out", str(out)]
            if args.topics:
                cmd += ["--topics", args.topics]
            if args.bench_refs:
                cmd += ["--bench-refs-dir", str(args.data / "surveyforge_surveybench" / "ref_bench")]
            wall, peak, load = run_once(cmd, env, work / f"{label}.log")
            results.append((label, wall, peak, load))
            print(f"{label}: {wall:.1f} s, peak RSS {peak:.0f} MiB, load avg {load}", file=sys.stderr)
        print("| run | wall time (s) | peak RSS (MiB) | load avg (1/5/15 min) before |")
        print("|---|---:|---:|---|")
        for label, wall, peak, load in results:
            print(f"| {label} | {wall:.1f} | {peak:.0f} | {load} |")
        print(f"\nCPU: {os.cpu_count()} cores. Command: `{' '.join(cmd)}` (home and out in a temp dir)\n")
        print((work / "out-warm" / "leaderboard.md").read_text())
        if args.keep:
            shutil.copytree(work / "out-warm", args.keep, dirs_exist_ok=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
