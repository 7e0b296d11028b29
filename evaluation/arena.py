"""LitReview-Arena-style battles between survey systems (specs/litreview_arena.md).

Layout: ``ROOT/<system>/<topic>.md`` for every system and ``HUMAN_DIR/<topic>.md`` for the human
player ("human"). Per topic, every pair of players meets ``battles_per_pair`` times with a random
A/B order (alternating orders when a pair meets more than once, i.e. position swapping); system
names never reach the judge. Each battle gets the five verdicts D1-D5 in {A, B, Tie, BothBad}.
Ratings per dimension: Bradley–Terry on the Elo scale (mean 1000; Tie and BothBad = half a win),
bootstrap percentile intervals, online Elo (1500, K = 32), decisive win rate against the human.
"""

from __future__ import annotations

import csv
import itertools
import json
import random
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable

from ..errors import UserError
from ..models import Survey
from .bradley_terry import Battle, bootstrap_bt_elo, bt_elo_ratings, online_elo
from .judges.base import Judge, render_prompt, structured_error_types, trim_lines, trim_sections
from .judges.verdicts import ArenaVerdict

DIMENSIONS = ("D1", "D2", "D3", "D4", "D5")
DIMENSION_NAMES = {"D1": "Literature Coverage", "D2": "Claim Support", "D3": "Paper Structure",
                   "D4": "Research Suggestions", "D5": "Overall Utility"}
HUMAN = "human"
OUTCOME_Y = {"A": 1.0, "B": 0.0, "Tie": 0.5, "BothBad": 0.5}


@dataclass
class ArenaBattle:
    battle_id: str
    topic: str
    system_a: str
    system_b: str
    outcomes: dict[str, str] | None = None
    notes: str = ""


def discover_drafts(root: Path, human_dir: Path | None, topics: list[str] | None = None,
                    systems: list[str] | None = None) -> dict[str, dict[str, Path]]:
    """topic -> player -> draft path, keeping topics that at least two players wrote."""
    if not root.is_dir():
        raise UserError(f"arena root is not a directory: {root}")
    if human_dir is not None and not human_dir.is_dir():
        raise UserError(f"human directory not found: {human_dir}")
    players: dict[str, Path] = {}
    for sub in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
        if human_dir is not None and sub.resolve() == human_dir.resolve():
            continue
        players[sub.name] = sub
    if systems:
        missing = [s for s in systems if s not in players]
        if missing:
            raise UserError(f"system(s) not under {root}: {', '.join(missing)} (found: {', '.join(players)})")
        players = {s: players[s] for s in systems}
    if human_dir is not None:
        players[HUMAN] = human_dir
    drafts: dict[str, dict[str, Path]] = {}
    for player, folder in players.items():
        for path in folder.glob("*.md"):
            drafts.setdefault(path.stem, {})[player] = path
    if topics:
        unknown = [t for t in topics if t not in drafts]
        if unknown:
            raise UserError(f"topic(s) with no drafts: {', '.join(unknown)}")
        drafts = {t: drafts[t] for t in topics}
    drafts = {t: d for t, d in sorted(drafts.items()) if len(d) >= 2}
    if not drafts:
        raise UserError("no topic has drafts from two players")
    return drafts


def build_battles(drafts: dict[str, dict[str, Path]], battles_per_pair: int = 1,
                  seed: int = 0) -> list[ArenaBattle]:
    rng = random.Random(seed)
    battles = []
    for topic, players in drafts.items():
        for x, y in itertools.combinations(sorted(players), 2):
            first_a = rng.random() < 0.5
            for k in range(battles_per_pair):
                a, b = (x, y) if (first_a ^ (k % 2 == 1)) else (y, x)
                battles.append(ArenaBattle(battle_id=f"{topic}|{x}|{y}|{k}", topic=topic,
                                           system_a=a, system_b=b))
    rng.shuffle(battles)
    return battles


def draft_survey(path: Path) -> Survey:
    from .parsers import parse_survey

    return parse_survey(path)


def draft_text(survey: Survey, budget: int) -> str:
    """A draft for the judge: 80% of its budget for the sections (every heading kept), 20% for
    the head of its reference list, so D1/D2 can see what is cited."""
    refs = [r.title or r.text or r.key for r in survey.references]
    ref_budget = budget // 5 if refs else 0
    text = trim_sections(survey, budget - ref_budget)
    if refs:
        text += f"\n\nReferences ({len(refs)} entries):\n" + trim_lines(refs, ref_budget)
    return text


def battle_prompt(battle: ArenaBattle, drafts: dict[str, dict[str, Path]], budget: int) -> str:
    half = budget // 2  # both drafts get the same share, so trimming favours neither position
    paths = drafts[battle.topic]
    return render_prompt("arena", query=f"Conduct a literature review on {battle.topic}",
                         draft_a=draft_text(draft_survey(paths[battle.system_a]), half),
                         draft_b=draft_text(draft_survey(paths[battle.system_b]), half))


def judge_battles(battles: list[ArenaBattle], drafts: dict[str, dict[str, Path]], judge: Judge,
                  progress: Callable[[], None] | None = None) -> list[ArenaBattle]:
    for battle in battles:
        try:
            v = judge.ask("judge.arena", battle_prompt(battle, drafts, judge.budget), ArenaVerdict)
            battle.outcomes = {d: getattr(v, d) for d in DIMENSIONS}
            battle.notes = v.notes
        except structured_error_types() as exc:
            battle.notes = f"judge failed: {str(exc).splitlines()[0][:200]}"
        if progress:
            progress()
    return battles


def dimension_battles(battles: list[ArenaBattle], dim: str) -> list[Battle]:
    return [(b.system_a, b.system_b, OUTCOME_Y[b.outcomes[dim]]) for b in battles if b.outcomes]


def win_rate_vs_human(battles: list[ArenaBattle], dim: str) -> dict:
    """Model wins / decisive human-vs-model outcomes (Tie and BothBad dropped)."""
    wins = decisive = 0
    for b in battles:
        if not b.outcomes or HUMAN not in (b.system_a, b.system_b):
            continue
        label = b.outcomes[dim]
        if label not in ("A", "B"):
            continue
        decisive += 1
        winner = b.system_a if label == "A" else b.system_b
        wins += winner != HUMAN
    return {"wins": wins, "decisive": decisive, "rate": wins / decisive if decisive else None}


def position_a_share(battles: list[ArenaBattle], dim: str) -> float | None:
    """Share of decisive verdicts that picked the first draft: far from 0.5 = position bias."""
    labels = [b.outcomes[dim] for b in battles if b.outcomes and b.outcomes[dim] in ("A", "B")]
    return labels.count("A") / len(labels) if labels else None


def ratings(battles: list[ArenaBattle], rounds: int = 200, seed: int = 0) -> dict:
    players = sorted({p for b in battles for p in (b.system_a, b.system_b)})
    table: dict = {"players": players, "dimensions": {}}
    for dim in DIMENSIONS:
        data = dimension_battles(battles, dim)
        bt = bt_elo_ratings(data, players)
        ci = bootstrap_bt_elo(data, players, rounds=rounds, seed=seed)
        elo = online_elo(data, players)
        table["dimensions"][dim] = {
            "name": DIMENSION_NAMES[dim], "battles": len(data),
            "ratings": {p: {"bt_elo": bt[p], "ci_low": ci[p][0], "ci_high": ci[p][1],
                            "online_elo": elo[p]} for p in players},
            "win_rate_vs_human": win_rate_vs_human(battles, dim),
            "position_a_share": position_a_share(battles, dim),
        }
    return table


def write_outputs(out_dir: Path, battles: list[ArenaBattle], table: dict) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [out_dir / "ratings.json", out_dir / "ratings.csv", out_dir / "battles.jsonl"]
    existing = [p for p in paths if p.exists()]
    if existing:
        raise UserError(f"{existing[0]} exists; choose another --out directory")
    paths[0].write_text(json.dumps(table, indent=2), encoding="utf-8")
    with paths[1].open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["dimension", "player", "bt_elo", "ci_low", "ci_high", "online_elo"])
        for dim, block in table["dimensions"].items():
            for p, r in block["ratings"].items():
                w.writerow([dim, p, f"{r['bt_elo']:.1f}", f"{r['ci_low']:.1f}", f"{r['ci_high']:.1f}",
                            f"{r['online_elo']:.1f}"])
    paths[2].write_text("".join(json.dumps(asdict(b)) + "\n" for b in battles), encoding="utf-8")
    return paths
