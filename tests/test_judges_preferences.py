"""LLM-proxy preferences for the SurveyLens BT weights: double round-robin with position swapping,
with a scripted judge (no model)."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from tests.scripted_llm import ScriptedChatModel
from surveygraph.errors import UserError
from surveygraph.evaluation.judges.base import make_judge
from surveygraph.evaluation.judges.preferences import (
    collect_preferences, judge_pairs, ordered_pairs, preference_rows, score_aspects, summarize,
)
from surveygraph.evaluation.judges.surveylens import ASPECTS, learn_weights
from surveygraph.models import OutlineEntry, Survey, SurveySection
from surveygraph.settings import load_settings

MARK = "STRONG"
PREF_TASK = "which survey's"


def survey(name: str, strong: bool) -> Survey:
    titles = ["Introduction", f"{MARK} Taxonomy" if strong else "Taxonomy", f"Methods of {name}"]
    outline = [OutlineEntry(level=1, title=t) for t in titles]
    sections = [SurveySection(heading=t, level=1, text=f"{name} text about {t.lower()}.") for t in titles]
    return Survey(title=f"{name} survey", topic="RAG", outline=outline, sections=sections)


def sides(prompt: str) -> tuple[str, str]:
    a = prompt.split("--- Survey A", 1)[1]
    a, b = a.split("--- Survey B", 1)
    return a, b


def marker_responder(prompt: str) -> str:
    """Aspect scores: the marked survey is better on Substantive Integrity only. Preferences:
    the survey containing the marker wins, whatever its position; neither or both = Tie."""
    if "You are a domain reviewer" in prompt and PREF_TASK in prompt:
        a, b = sides(prompt)
        label = "A" if MARK in a and MARK not in b else "B" if MARK in b and MARK not in a else "Tie"
        return json.dumps({"notes": "compared", "better": label})
    if "You are a domain reviewer" in prompt:
        names = re.search(r"in this order: (.*)\.", prompt).group(1).split(", ")
        first = 5 if MARK in prompt.split("Survey outline", 1)[-1] else 2
        return json.dumps({"aspects": [{"aspect_name": a, "notes": "ok", "score": first if i == 0 else 3}
                                       for i, a in enumerate(names)]})
    raise AssertionError("unrouted prompt: " + prompt[:200])


def judge_with(responder, tmp_home):
    import surveygraph.llm as llm

    model = ScriptedChatModel(responder=responder)
    settings = load_settings()
    clients = llm.build_role_clients(settings, chat_models={"judge": model})
    return model, make_judge(settings, clients)


def pref_calls(model) -> list[str]:
    return [c for c in model.calls if PREF_TASK in c]


@pytest.fixture
def three():
    return {"RAG": {"good": survey("good", True), "bad1": survey("bad1", False), "bad2": survey("bad2", False)}}


def test_every_pair_is_asked_in_both_orders(tmp_home, three):
    model, judge = judge_with(marker_responder, tmp_home)
    rows = collect_preferences(three, component="outline", judge=judge)
    assert len(model.calls) == 3 + 6  # one aspect-scoring call per survey, two per pair
    prefs = pref_calls(model)
    assert len(prefs) == 6
    seen = set()
    for p in prefs:
        a, b = sides(p)
        names = [n for n in ("good", "bad1", "bad2") if f"Methods of {n}" in a] + \
                [n for n in ("good", "bad1", "bad2") if f"Methods of {n}" in b]
        assert len(names) == 2
        seen.add(tuple(names))
        assert "good survey" not in p and "bad1 survey" not in p  # names and titles hidden
    assert seen == {("bad1", "bad2"), ("bad2", "bad1"), ("bad1", "good"), ("good", "bad1"),
                    ("bad2", "good"), ("good", "bad2")}
    assert ordered_pairs(three)[:2] == [("RAG", "bad1", "bad2"), ("RAG", "bad2", "bad1")]
    assert len(rows) == 4


def test_position_swap_is_undone_and_ties_dropped(tmp_home, three):
    model, judge = judge_with(marker_responder, tmp_home)
    scores = score_aspects(three, component="outline", judge=judge)
    judgments = judge_pairs(three, component="outline", judge=judge)
    rows = preference_rows(judgments, "outline", scores)
    # the marked survey wins from position A and from position B
    assert {r["winner_system"] for r in rows} == {"good"}
    assert sorted(r["winner_position"] for r in rows) == ["A", "A", "B", "B"]
    assert {r["loser_system"] for r in rows} == {"bad1", "bad2"}
    assert all(r["winner"]["Substantive Integrity"] == 5 and r["loser"]["Substantive Integrity"] == 2 for r in rows)
    s = summarize(judgments)
    assert s["ties"] == 2 and s["decisive"] == 4 and s["failed"] == 0   # bad1 vs bad2: Tie both ways
    assert s["pairs_consistent"] == s["pairs_both_decisive"] == 2 and s["position_a_share"] == 0.5


def test_positional_judge_gives_opposite_rows(tmp_home, three):
    def always_a(prompt):
        if PREF_TASK in prompt:
            return '{"notes": "first one", "better": "A"}'
        return marker_responder(prompt)

    model, judge = judge_with(always_a, tmp_home)
    judgments = judge_pairs(three, component="outline", judge=judge)
    rows = preference_rows(judgments, "outline", score_aspects(three, component="outline", judge=judge))
    assert len(rows) == 6
    for x, y in (("good", "bad1"), ("good", "bad2"), ("bad1", "bad2")):
        winners = [r["winner_system"] for r in rows if {r["winner_system"], r["loser_system"]} == {x, y}]
        assert sorted(winners) == sorted([x, y])  # each order picked its seat A: they cancel
    assert summarize(judgments)["pairs_consistent"] == 0


def test_rows_feed_learn_weights(tmp_home, three):
    model, judge = judge_with(marker_responder, tmp_home)
    topics = {**three, "GNN": {"good": survey("g2", True), "bad": survey("b2", False)}}
    rows = collect_preferences(topics, component="outline", judge=judge)
    assert len(rows) == 4 + 2
    w = learn_weights({"discipline": "cs"}, rows)["weights"]["outline"]
    assert max(w, key=w.get) == "Substantive Integrity"
    assert w["Substantive Integrity"] > 0.5 and sum(w.values()) == pytest.approx(1.0)


def test_surveys_without_scores_are_not_judged(tmp_home, three):
    model, judge = judge_with(marker_responder, tmp_home)
    scores = {k: v for k, v in score_aspects(three, component="outline", judge=judge).items() if k[1] != "bad2"}
    before = len(model.calls)
    rows = collect_preferences(three, component="outline", judge=judge, aspect_scores=scores)
    assert len(model.calls) - before == 2  # only good vs bad1, both orders
    assert [r["winner_system"] for r in rows] == ["good", "good"]
    with pytest.raises(UserError, match="unknown component"):
        collect_preferences(three, component="abstract", judge=judge, aspect_scores=scores)


def write_system(root, name, strong):
    (root / name).mkdir(parents=True, exist_ok=True)
    for topic in ("T1", "T2"):
        (root / name / f"{topic}.md").write_text(
            f"# {name} on {topic}\n\n## Introduction to {topic} by {name}\nText [1].\n\n"
            f"## {MARK + ' ' if strong else ''}Taxonomy\nMore text.\n\n## References\n[1] A paper\n")


def test_preferences_cli_end_to_end_and_refuses_overwrite(tmp_home, monkeypatch, tmp_path):
    import surveygraph.llm as llm
    from surveygraph.cli import app

    model = ScriptedChatModel(responder=marker_responder)
    real = llm.build_role_clients
    monkeypatch.setattr(llm, "build_role_clients", lambda s, **kw: real(s, chat_models={"judge": model}))
    root = tmp_path / "systems"
    write_system(root, "sysA", True)
    write_system(root, "sysB", False)
    write_system(root, "Human", False)
    prefs = tmp_path / "prefs.jsonl"
    args = ["--home", str(tmp_home), "rubrics", "preferences", str(root), "--human-dir", str(root / "Human"),
            "--component", "outline", "--out", str(prefs)]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    assert "6 aspect-scoring calls + 12 preference calls" in res.output
    assert len(model.calls) == 6 + 12 and len(pref_calls(model)) == 12
    rows = [json.loads(l) for l in prefs.read_text().splitlines()]
    # sysA beats sysB and human in both orders on both topics; sysB vs human are ties (dropped)
    assert len(rows) == 8 and {r["winner_system"] for r in rows} == {"sysA"}
    assert {r["loser_system"] for r in rows} == {"sysB", "human"}
    assert all(set(r["winner"]) == set(ASPECTS["outline"]) and r["component"] == "outline" for r in rows)
    assert "8 preference rows from 12 verdicts" in res.output and "4 ties (dropped)" in res.output
    assert (tmp_home / "judgments" / "preferences.jsonl").is_file()

    again = CliRunner().invoke(app, args)
    assert isinstance(again.exception, UserError) and "exists" in str(again.exception)
    assert len(model.calls) == 18  # refused before any judging

    rubric = tmp_path / "cs.v1.json"
    rubric.write_text(json.dumps({"discipline": "cs", "components": {}}))
    weighted = tmp_path / "cs.v2.json"
    res = CliRunner().invoke(app, ["rubrics", "weights", str(rubric), "--prefs", str(prefs), "--out", str(weighted)])
    assert res.exit_code == 0, res.output
    w = json.loads(weighted.read_text())["weights"]["outline"]
    assert max(w, key=w.get) == "Substantive Integrity"

    bad = CliRunner().invoke(app, ["--home", str(tmp_home), "rubrics", "preferences", str(root),
                                   "--component", "abstract", "--out", str(tmp_path / "x.jsonl")])
    assert isinstance(bad.exception, UserError)
