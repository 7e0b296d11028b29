"""Bradley–Terry / bootstrap sanity benchmark on simulated arena battles.

Draws battles from Elo-scale BT with known ratings (10% ties), fits BT, and reports the mean
absolute rating error and how often the 95% bootstrap interval covers the true rating.

    python benchmarks/judges_bt_sim.py --reps 30 --battles 300 --rounds 200
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from surveygraph.evaluation.bradley_terry import bootstrap_bt_elo, bt_elo_ratings

TRUTH = {"human": 1250.0, "sysA": 1100.0, "sysB": 1000.0, "sysC": 900.0, "sysD": 750.0}


def simulate(rng: np.random.Generator, n: int, tie_rate: float = 0.1):
    players = list(TRUTH)
    battles = []
    for _ in range(n):
        a, b = rng.choice(players, 2, replace=False)
        if rng.random() < tie_rate:
            battles.append((a, b, 0.5))
            continue
        p = 1 / (1 + 10 ** ((TRUTH[b] - TRUTH[a]) / 400))
        battles.append((a, b, 1.0 if rng.random() < p else 0.0))
    return players, battles


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--battles", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    errors, covered, widths = [], 0, []
    started = time.perf_counter()
    for rep in range(args.reps):
        players, battles = simulate(rng, args.battles)
        fit = bt_elo_ratings(battles, players)
        ci = bootstrap_bt_elo(battles, players, rounds=args.rounds, seed=rep)
        for p in players:
            errors.append(abs(fit[p] - TRUTH[p]))
            covered += ci[p][0] <= TRUTH[p] <= ci[p][1]
            widths.append(ci[p][1] - ci[p][0])
    seconds = time.perf_counter() - started
    n = args.reps * len(TRUTH)
    print(f"reps={args.reps} battles={args.battles} rounds={args.rounds}")
    print(f"mean |error| = {np.mean(errors):.1f} Elo; 95% CI coverage = {covered / n:.3f} "
          f"({covered}/{n}); mean CI width = {np.mean(widths):.0f} Elo; {seconds:.1f} s")


if __name__ == "__main__":
    main()
