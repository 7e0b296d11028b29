"""LLM judges: SurveyForge SAM, SGSimEval, SurveyLens rubrics, DeepSynth checklists.

``run_judges`` is what ``surveygraph evaluate --judges ...`` calls; ``estimate_judge_cost``
gives the token cost shown before a large batch starts.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from ...errors import UserError
from ...models import MetricResult, Survey
from ...settings import Settings
from .base import API_INPUT_BUDGET_TOKENS, Judge, input_budget_tokens, is_local_model, make_judge

if TYPE_CHECKING:  # pragma: no cover
    from ...llm import RoleClients

JUDGE_NAMES = ("sam", "sgsim", "surveylens", "checklist")

# Calls per survey for each judge family (before judge_runs). sgsim: outline, content, reference
# + hierarchy parents + citing sentences + reference batches up to the caps in sgsim_judges
# (local 8/8/3, API 30/40/15; weAIDB surveys reach the local caps and about half the API ones).
# checklist: a generated task has 4 general groups × 2 subgroups + 1 constraint group × ~4,
# plus 5 generation calls.
TYPICAL_CALLS = {"sam": 4, "sgsim": 22, "surveylens": 3, "checklist": 17}
API_SGSIM_CALLS = 45
# Output tokens per call: a short note plus the scores (surveylens: one note per aspect).
OUTPUT_TOKENS = {"sam": 60, "sgsim": 40, "surveylens": 160, "checklist": 60}
SMALL_INPUT_SGSIM_CALLS = 3  # all sgsim calls but outline, content, reference have short prompts


def _check_names(names: list[str]) -> list[str]:
    unknown = [n for n in names if n not in JUDGE_NAMES]
    if unknown:
        raise UserError(f"unknown judge(s) {', '.join(unknown)}; choose from {', '.join(JUDGE_NAMES)}")
    return list(dict.fromkeys(names))


def run_judges(survey: Survey, *, human: Survey | None, topic: str, names: list[str],
               settings: Settings, clients: "RoleClients | None" = None,
               checklist_task: dict | None = None, judge: Judge | None = None,
               log_path: Path | None = None, rubric: dict | None = None,
               discipline: str = "cs", floor_at_zero: bool = False,
               on_judgment: Callable[[str], None] | None = None) -> list[MetricResult]:
    """Every selected judge's scores for ``survey``; each MetricResult has a rationale.

    ``checklist`` scores ``checklist_task`` (DeepSynth format) when given, else a task generated
    from ``human`` (judgments are logged, so the generation is reused on the next run)."""
    names = _check_names(names)
    topic = topic or survey.topic or survey.title
    judge = judge or make_judge(settings, clients, log_path=log_path)
    if on_judgment is not None:
        judge.on_judgment = on_judgment
    results: list[MetricResult] = []
    if "sam" in names:
        from .sam import judge_sam

        results += judge_sam(survey, human, topic, judge)
    if "sgsim" in names:
        from .sgsim_judges import judge_sgsim

        results += judge_sgsim(survey, topic, judge)
    if "surveylens" in names:
        from .surveylens import judge_surveylens, load_rubric

        results += judge_surveylens(survey, topic, judge, rubric or load_rubric(discipline), discipline)
    if "checklist" in names:
        results += _run_checklist(survey, human, topic, judge, checklist_task, floor_at_zero)
    return results


def _run_checklist(survey: Survey, human: Survey | None, topic: str, judge: Judge,
                   task: dict | None, floor_at_zero: bool) -> list[MetricResult]:
    from .base import structured_error_types
    from .checklist import checklist_results, score_task
    from .checklist_build import generate_task

    names = ("checklist.s_all", "checklist.s_gen", "checklist.s_con", "checklist.precision")
    if task is None:
        if human is None:
            return [MetricResult(name=n, family="checklist", value=None,
                                 rationale="needs a checklist task (--checklist) or a human survey to generate one")
                    for n in names]
        try:
            task = generate_task(human, topic, judge,
                                 construction=judge.settings.evaluation.checklist_construction)
        except (UserError, *structured_error_types()) as exc:
            return [MetricResult(name=n, family="checklist", value=None,
                                 rationale=f"checklist generation failed: {exc}") for n in names]
    report = "\n\n".join(f"{'#' * max(1, s.level)} {s.heading}\n{s.text}" for s in survey.sections)
    return checklist_results(score_task(task, judge, report), floor_at_zero)


def estimate_judge_cost(n_surveys: int, names: list[str], settings: Settings, *,
                        avg_survey_tokens: int = 20000) -> dict[str, Any]:
    """Expected judge calls and tokens for ``n_surveys`` surveys (input is capped by trimming)."""
    names = _check_names(names)
    runs = settings.evaluation.judge_runs
    budget = input_budget_tokens(settings)
    per_call_input = min(avg_survey_tokens, budget) + 900  # trimmed survey + fixed prompt text
    per_judge: dict[str, dict[str, int]] = {}
    local = is_local_model(settings.llm.for_role("judge"))
    for name in names:
        per_survey = API_SGSIM_CALLS if (name == "sgsim" and not local) else TYPICAL_CALLS[name]
        calls = per_survey * runs * n_surveys
        small = (per_survey - SMALL_INPUT_SGSIM_CALLS) * runs * n_surveys if name == "sgsim" else 0
        input_tokens = (calls - small) * per_call_input + small * 700
        if name == "sam":  # SAM-C shows the human review as well; both fit in the same budget
            input_tokens = calls * per_call_input
        per_judge[name] = {"calls": calls, "input_tokens": input_tokens,
                           "output_tokens": calls * OUTPUT_TOKENS[name]}
    total = {k: sum(v[k] for v in per_judge.values()) for k in ("calls", "input_tokens", "output_tokens")}
    return {"surveys": n_surveys, "judge_model": settings.llm.for_role("judge"), "runs": runs,
            "input_budget_per_call": budget, **total, "per_judge": per_judge,
            "note": "estimate; real counts depend on outline depth, citations and references"}


__all__ = ["JUDGE_NAMES", "run_judges", "estimate_judge_cost", "make_judge", "Judge",
           "API_INPUT_BUDGET_TOKENS"]
