"""SurveyForge SAM-O (outline, 0-100) and SAM-C (structure / relevance / coverage, 0-100 each,
judged against the topic's reference human survey). Prompts: prompts/judge_sam_o.txt and
prompts/judge_sam_c.txt (the A.9 rubrics, see specs/sgsimeval.md §8)."""

from __future__ import annotations

from ...models import MetricResult, Survey
from .base import Judge, mean_if_complete, outline_text, render_prompt, scored_runs, trim_sections
from .verdicts import Score100

SAM_C_DIMENSIONS = ("structure", "relevance", "coverage")


def _score_runs(name: str, judge: Judge, node: str, prompt: str) -> MetricResult:
    return scored_runs(name, judge, node, prompt, Score100, scale="0-100", rubric="SurveyForge")


def sam_o_prompt(survey: Survey, topic: str, budget: int) -> str:
    return render_prompt("sam_o", topic=topic, outline=outline_text(survey, budget))


def sam_c_prompt(survey: Survey, human: Survey, topic: str, dimension: str, budget: int) -> str:
    half = budget // 2  # the reference and the candidate share the input budget equally
    return render_prompt("sam_c", topic=topic, dimension=dimension,
                         human_review=trim_sections(human, half),
                         ai_review=trim_sections(survey, half))


def judge_sam(survey: Survey, human: Survey | None, topic: str, judge: Judge) -> list[MetricResult]:
    results = [_score_runs("sam_o", judge, "judge.sam_o", sam_o_prompt(survey, topic, judge.budget))]
    if human is None:
        reason = "SAM-C needs the topic's reference human survey (--human)"
        results += [MetricResult(name=f"sam_c.{d}", family="rubric", value=None, rationale=reason)
                    for d in (*SAM_C_DIMENSIONS, "avg")]
        return results
    parts = []
    for dim in SAM_C_DIMENSIONS:
        prompt = sam_c_prompt(survey, human, topic, dim, judge.budget)
        parts.append(_score_runs(f"sam_c.{dim}", judge, f"judge.sam_c.{dim}", prompt))
    results += parts
    avg = mean_if_complete(parts)
    results.append(MetricResult(
        name="sam_c.avg", family="rubric", value=avg,
        rationale="mean of SAM-C structure, relevance and coverage (eq. 5)"
        if avg is not None else "a SAM-C dimension failed; no average",
        details={"scale": "0-100"},
    ))
    return results
