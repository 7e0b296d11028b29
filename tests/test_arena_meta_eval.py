"""Bradley–Terry ratings, bootstrap intervals, online Elo, arena bookkeeping and meta-evaluation."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from surveygraph.cli import app
from surveygraph.errors import UserError
from surveygraph.evaluation import arena as A
from surveygraph.evaluation.bradley_terry import bootstrap_bt_elo, bt_elo_ratings, online_elo
from surveygraph.evaluation.meta_eval import load_labels, load_scores, meta_evaluate, pair_credit

FIXTURES = Path(__file__).parent / "fixtures"


def simulate(strengths: dict[str, float], n: int, seed: int = 0, tie_rate: float = 0.0):
    """Battles drawn from Elo-scale BT with the given ratings."""
    rng = np.random.default_rng(seed)
    players = list(strengths)
    battles = []
    for _ in range(n):
        a, b = rng.choice(players, 2, replace=False)
        p = 1 / (1 + 10 ** ((strengths[b] - strengths[a]) / 400))
        if rng.random() < tie_rate:
            battles.append((a, b, 0.5))
        else:
            battles.append((a, b, 1.0 if rng.random() < p else 0.0))
    return players, battles


def test_bt_recovers_known_ratings():
    truth = {"p1": 1200.0, "p2": 1050.0, "p3": 950.0, "p4": 800.0}  # mean 1000
    players, battles = simulate(truth, 6000, seed=1, tie_rate=0.1)
    fit = bt_elo_ratings(battles, players)
    assert np.mean(list(fit.values())) == pytest.approx(1000.0, abs=1e-6)
    for p in players:
        assert fit[p] == pytest.approx(truth[p], abs=35)


def test_bootstrap_interval_contains_truth():
    truth = {"a": 1150.0, "b": 1000.0, "c": 850.0}
    players, battles = simulate(truth, 1500, seed=3)
    ci = bootstrap_bt_elo(battles, players, rounds=150, seed=0)
    for p in players:
        lo, hi = ci[p]
        assert lo < truth[p] < hi and hi - lo < 150


def test_ties_are_half_wins_and_online_elo():
    # a beats b once and they tie once: P(a>b) MLE = 0.75 -> gap = 400 log10(3)
    fit = bt_elo_ratings([("a", "b", 1.0), ("b", "a", 0.5)], ["a", "b"])
    assert fit["a"] - fit["b"] == pytest.approx(400 * math.log10(3), abs=1.0)
    elo = online_elo([("a", "b", 1.0)], ["a", "b"])
    assert elo["a"] == pytest.approx(1516.0) and elo["b"] == pytest.approx(1484.0)


def _drafts(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "systems"
    for system in ("sysA", "sysB"):
        for topic in ("T1", "T2"):
            (root / system).mkdir(parents=True, exist_ok=True)
            (root / system / f"{topic}.md").write_text(f"# {topic}\n\n## Intro\nDraft text [1].\n\n## References\n[1] A paper\n")
    human = root / "HumanSurvey"
    human.mkdir()
    for topic in ("T1", "T2"):
        (human / f"{topic}.md").write_text(f"# {topic}\n\n## Intro\nhuman text [1].\n\n## References\n[1] A paper\n")
    return root, human


def test_battles_pair_every_player_per_topic_and_hide_nothing_to_judge(tmp_path):
    root, human = _drafts(tmp_path)
    drafts = A.discover_drafts(root, human)  # the human folder inside root is not a system
    assert set(drafts) == {"T1", "T2"} and set(drafts["T1"]) == {"sysA", "sysB", "human"}
    battles = A.build_battles(drafts, battles_per_pair=2, seed=0)
    assert len(battles) == 2 * 3 * 2
    pairs = {}
    for b in battles:
        assert b.system_a != b.system_b
        pairs.setdefault(b.battle_id.rsplit("|", 1)[0], []).append((b.system_a, b.system_b))
    assert all(o[0] == (o[1][1], o[1][0]) for o in pairs.values())  # the two orders alternate
    prompt = A.battle_prompt(battles[0], drafts, 2000)
    assert "sysA" not in prompt and "sysB" not in prompt
    assert "Conduct a literature review on" in prompt
    for question in ("starting point for a literature review", "fewer obvious omissions",
                     "appropriately support the statements", "rather than listing papers independently",
                     "non-obvious research gaps"):
        assert question in prompt


def test_win_rate_vs_human_counts_decisive_only():
    mk = lambda a, b, d5: A.ArenaBattle("x", "t", a, b, {d: d5 for d in A.DIMENSIONS})
    battles = [mk("human", "s", "A"), mk("s", "human", "A"), mk("human", "s", "Tie"),
               mk("s", "human", "BothBad"), mk("s", "t", "A")]
    assert A.win_rate_vs_human(battles, "D5") == {"wins": 1, "decisive": 2, "rate": 0.5}
    assert A.position_a_share(battles, "D5") == 1.0  # every decisive verdict picked draft A


def test_meta_eval_hand_case():
    rows = load_labels(FIXTURES / "meta_eval_labels.jsonl")
    scores = load_scores(FIXTURES / "meta_eval_scores.csv", "score")
    # t1: a>b ok (80>70), beta-vs-gamma labelled a but 70<75 -> 0, tie -> 0.5;
    # t2: ok (90>60), labelled b = beta (60) vs gamma 65 -> 0, labelled b = alpha 90 > gamma -> 1
    credits = [pair_credit(r, scores) for r in rows]
    assert credits == [1.0, 0.0, 0.5, 1.0, 0.0, 1.0]
    result = meta_evaluate(rows, scores, rounds=200, seed=0)
    assert result["accuracy"]["value"] == pytest.approx(3.5 / 6)
    # label ranking: alpha > beta > gamma (beta beat gamma twice); metric means: alpha 85,
    # gamma 70, beta 65 -> Spearman 0.5, Kendall 1/3
    assert result["spearman"]["value"] == pytest.approx(0.5)
    assert result["kendall"]["value"] == pytest.approx(1 / 3)
    lo, hi = result["accuracy"]["ci_low"], result["accuracy"]["ci_high"]
    assert lo <= 3.5 / 6 <= hi


def test_meta_eval_reads_leaderboard_json(tmp_path):
    reports = {s: {t: {"system": s, "topic": t, "metrics": [{"name": "sam_o", "family": "rubric", "value": v}]}
                   for t, v in by_topic.items()}
               for s, by_topic in {"alpha": {"t1": 80, "t2": 90}, "beta": {"t1": 70, "t2": 60}}.items()}
    path = tmp_path / "leaderboard.json"
    path.write_text(json.dumps({"systems": ["alpha", "beta"], "reports": reports}))
    assert load_scores(path, "sam_o") == {("t1", "alpha"): 80.0, ("t2", "alpha"): 90.0,
                                          ("t1", "beta"): 70.0, ("t2", "beta"): 60.0}


def test_meta_eval_cli(tmp_home):
    runner = CliRunner()
    res = runner.invoke(app, ["meta-eval", str(FIXTURES / "meta_eval_labels.jsonl"), "--metric", "score",
                              "--scores", str(FIXTURES / "meta_eval_scores.csv"), "--bootstrap", "50"])
    assert res.exit_code == 0, res.output
    assert "accuracy  0.583" in res.output and "spearman  0.500" in res.output
    bad = runner.invoke(app, ["meta-eval", "nope.jsonl", "--metric", "x", "--scores", "y.csv"])
    assert isinstance(bad.exception, UserError) and "labels file not found" in str(bad.exception)


def test_meta_eval_takes_arena_battles_as_labels(tmp_path):
    battles = tmp_path / "battles.jsonl"
    rows = [("t1", "alpha", "beta", {"D5": "A", "D1": "B"}), ("t1", "beta", "gamma", {"D5": "BothBad", "D1": "A"}),
            ("t2", "gamma", "alpha", {"D5": "B"}), ("t2", "beta", "alpha", {})]  # the last battle failed
    battles.write_text("".join(json.dumps({"battle_id": f"{t}|{a}|{b}", "topic": t, "system_a": a, "system_b": b,
                                           "outcomes": o}) + "\n" for t, a, b, o in rows))
    assert [r["choice"] for r in load_labels(battles)] == ["a", "tie", "b"]
    assert [r["choice"] for r in load_labels(battles, "D1")] == ["b", "a"]
    res = CliRunner().invoke(app, ["meta-eval", str(battles), "--metric", "score", "--dimension", "D5",
                                   "--scores", str(FIXTURES / "meta_eval_scores.csv"), "--bootstrap", "50"])
    assert res.exit_code == 0, res.output
    assert "3 of 3 labelled pairs scored" in res.output
    bad = CliRunner().invoke(app, ["meta-eval", str(battles), "--metric", "score", "--dimension", "D9",
                                   "--scores", str(FIXTURES / "meta_eval_scores.csv")])
    assert isinstance(bad.exception, UserError) and "D1-D5" in str(bad.exception)
