"""LLM-proxy pairwise preferences for the SurveyLens Bradley–Terry aspect weights (specs/surveylens.md §2.5).

Schedule: a double round-robin with position swapping. For every topic and every unordered pair
of players (systems, and the human survey when given) the judge is asked "which survey's
<component> is better" twice — first with x as Survey A and y as Survey B, then swapped. Names
never reach the judge. Each ordered verdict is mapped back to the player it picked (a verdict "A"
picks whoever sat in position A in that call), so a judge that prefers the same survey in both
orders yields two identical rows, and a purely positional judge yields two opposite rows that
cancel out in the fit. Ties are dropped (the spec's default), as are failed judgments.

A preference row is what ``surveylens.learn_weights`` reads —
``{"component", "winner": {aspect: 1-5}, "loser": {aspect: 1-5}}`` — plus provenance (topic,
players, the winner's position, the judge's note). The aspect scores are the SurveyLens rubric
scores of the two surveys for that component (``surveylens.judge_component``, one call per survey
and judge run); a survey whose component the judge could not score completely takes no part.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Callable, Literal

from pydantic import BaseModel

from ...errors import UserError
from ...models import Survey
from .base import Judge, render_prompt, structured_error_types
from .surveylens import ASPECTS, COMPONENTS, component_input, judge_component
from .verdicts import NOTE

NODE = "judge.surveylens.preference"


class PreferenceVerdict(BaseModel):
    notes: str = NOTE
    better: Literal["A", "B", "Tie"]


@dataclass
class PairJudgment:
    """One ordered call: ``system_a`` sat in position A. ``label`` is None when the judge failed."""

    topic: str
    system_a: str
    system_b: str
    label: str | None
    notes: str = ""

    @property
    def winner(self) -> str | None:
        return {"A": self.system_a, "B": self.system_b}.get(self.label or "")

    @property
    def loser(self) -> str | None:
        return {"A": self.system_b, "B": self.system_a}.get(self.label or "")


def _check_component(component: str) -> None:
    if component not in COMPONENTS:
        raise UserError(f"unknown component {component!r}; use one of {', '.join(COMPONENTS)}")


def ordered_pairs(surveys_by_topic: dict[str, dict[str, Survey]]) -> list[tuple[str, str, str]]:
    """(topic, system in A, system in B): every unordered pair in both orders, A/B then B/A."""
    out = []
    for topic, players in surveys_by_topic.items():
        for x, y in itertools.combinations(sorted(players), 2):
            out += [(topic, x, y), (topic, y, x)]
    return out


def count_calls(surveys_by_topic: dict[str, dict[str, Survey]], runs: int = 1) -> dict[str, int]:
    """Judge calls: aspect scoring (one per survey and run) and preferences (two per pair)."""
    surveys = sum(len(p) for p in surveys_by_topic.values())
    return {"scoring": surveys * max(1, runs), "preferences": len(ordered_pairs(surveys_by_topic)),
            "surveys": surveys}


def score_aspects(surveys_by_topic: dict[str, dict[str, Survey]], *, component: str, judge: Judge,
                  rubric: dict | None = None, discipline: str = "cs",
                  progress: Callable[[], None] | None = None) -> dict[tuple[str, str], dict[str, float]]:
    """(topic, system) -> {aspect: mean 1-5 score} from the SurveyLens scorer. An empty component
    scores the minimum 1 on every aspect (as the scorer does); a survey the judge failed on, or
    scored only partly, is left out."""
    _check_component(component)
    names = list(ASPECTS[component])
    scores: dict[tuple[str, str], dict[str, float]] = {}
    for topic, players in surveys_by_topic.items():
        for system, survey in sorted(players.items()):
            result = judge_component(survey, component, judge, rubric, discipline)
            if result.details.get("empty"):
                scores[(topic, system)] = {a: 1.0 for a in names}
            elif result.value is not None and not result.details.get("missing_aspects"):
                aspects = result.details["aspects"]
                scores[(topic, system)] = {a: float(aspects[a]) for a in names}
            if progress:
                progress()
    return scores


def preference_prompt(survey_a: Survey, survey_b: Survey, topic: str, component: str, budget: int,
                      discipline: str = "cs") -> str:
    half = max(128, budget // 2)  # the same share for both, so trimming favours neither position
    return render_prompt("surveylens_preference", category=discipline, component=component, topic=topic,
                         survey_a=component_input(survey_a, component, half),
                         survey_b=component_input(survey_b, component, half))


def judge_pairs(surveys_by_topic: dict[str, dict[str, Survey]], *, component: str, judge: Judge,
                discipline: str = "cs", only: set[tuple[str, str]] | None = None,
                progress: Callable[[], None] | None = None) -> list[PairJudgment]:
    """Ask the judge about every pair in both orders. ``only`` restricts to pairs whose two
    (topic, system) keys are both in it (surveys without aspect scores are not worth a call)."""
    _check_component(component)
    judgments = []
    for topic, a, b in ordered_pairs(surveys_by_topic):
        if only is not None and ((topic, a) not in only or (topic, b) not in only):
            continue
        players = surveys_by_topic[topic]
        prompt = preference_prompt(players[a], players[b], topic, component, judge.budget, discipline)
        try:
            v = judge.ask(NODE, prompt, PreferenceVerdict)
            judgments.append(PairJudgment(topic, a, b, v.better, v.notes))
        except structured_error_types() as exc:
            judgments.append(PairJudgment(topic, a, b, None, f"judge failed: {str(exc).splitlines()[0][:200]}"))
        if progress:
            progress()
    return judgments


def preference_rows(judgments: list[PairJudgment], component: str,
                    aspect_scores: dict[tuple[str, str], dict[str, float]], judge_model: str = "") -> list[dict]:
    """One row per decisive ordered verdict whose two surveys have aspect scores (ties dropped)."""
    rows = []
    for j in judgments:
        if j.winner is None:
            continue
        win, lose = aspect_scores.get((j.topic, j.winner)), aspect_scores.get((j.topic, j.loser))
        if win is None or lose is None:
            continue
        rows.append({"component": component, "winner": dict(win), "loser": dict(lose),
                     "topic": j.topic, "winner_system": j.winner, "loser_system": j.loser,
                     "winner_position": j.label, "notes": j.notes, "judge": judge_model})
    return rows


def summarize(judgments: list[PairJudgment]) -> dict:
    """Counts, the share of decisive verdicts for position A, and how many pairs got the same
    winner in both orders (a position-bound judge gets none)."""
    decisive = [j for j in judgments if j.winner is not None]
    by_pair: dict[tuple, list[PairJudgment]] = {}
    for j in judgments:
        by_pair.setdefault((j.topic, *sorted((j.system_a, j.system_b))), []).append(j)
    both = [js for js in by_pair.values() if len(js) == 2 and all(j.winner for j in js)]
    return {"calls": len(judgments), "decisive": len(decisive),
            "ties": sum(1 for j in judgments if j.label == "Tie"),
            "failed": sum(1 for j in judgments if j.label is None),
            "position_a_share": (sum(1 for j in decisive if j.label == "A") / len(decisive)) if decisive else None,
            "pairs_both_decisive": len(both),
            "pairs_consistent": sum(1 for js in both if js[0].winner == js[1].winner)}


def collect_preferences(surveys_by_topic: dict[str, dict[str, Survey]], *, component: str, judge: Judge,
                        aspect_scores: dict[tuple[str, str], dict[str, float]] | None = None,
                        rubric: dict | None = None, discipline: str = "cs",
                        progress: Callable[[], None] | None = None) -> list[dict]:
    """Preference rows for ``learn_weights`` from a double round-robin with position swapping.
    ``aspect_scores`` maps (topic, system) to per-aspect 1-5 scores; when None they are scored
    here with the SurveyLens judge (``rubric``, ``discipline``)."""
    _check_component(component)
    if aspect_scores is None:
        aspect_scores = score_aspects(surveys_by_topic, component=component, judge=judge, rubric=rubric,
                                      discipline=discipline, progress=progress)
    judgments = judge_pairs(surveys_by_topic, component=component, judge=judge, discipline=discipline,
                            only=set(aspect_scores), progress=progress)
    return preference_rows(judgments, component, aspect_scores, judge.model_spec)
