"""SGSimEval LLM judges (specs/sgsimeval.md §2-4): outline (1-5), the five content scores (1-5),
reference score (1-5), hierarchy (0-100), faithfulness (0-100) and supportiveness (0-100).

Cost caps: faithfulness judges at most ``caps.citing_sentences`` citing sentences and hierarchy
at most ``caps.parents`` parent nodes, picked evenly across the survey; supportiveness judges at
most ``caps.reference_batches`` batches of 20. The local judge (slow on a CPU) gets small caps,
API judges large ones. ``details`` records how many were judged out of how many.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...models import MetricResult, Survey
from .base import (
    Judge, failed_result, is_local_model, rationale_of, mean, outline_text, reference_lines, render_prompt,
    scored_runs, structured_error_types, trim_lines, trim_sections, trim_text,
)
from .verdicts import ContentScores, HierarchyVerdict, Likert, SupportCount

CONTENT_CRITERIA = ("coverage", "structure", "relevance", "language", "criticalness")
REFERENCE_BATCH = 20


@dataclass(frozen=True)
class Caps:
    citing_sentences: int
    parents: int
    reference_batches: int


LOCAL_CAPS = Caps(citing_sentences=8, parents=8, reference_batches=3)
API_CAPS = Caps(citing_sentences=40, parents=30, reference_batches=15)


def caps_for(judge: Judge) -> Caps:
    return LOCAL_CAPS if is_local_model(judge.model_spec or "local") else API_CAPS


def evenly_spaced(items: list, k: int) -> list:
    """k items spread over the list (all of them when there are at most k)."""
    if len(items) <= k:
        return list(items)
    step = len(items) / k
    return [items[int(i * step)] for i in range(k)]


# --- hierarchy -------------------------------------------------------------------------------
def outline_tree(levels: list[int]) -> dict[int, list[int]]:
    """parent index -> child indices; parent = nearest preceding node with a smaller level."""
    children: dict[int, list[int]] = {}
    stack: list[int] = []
    for i, level in enumerate(levels):
        while stack and levels[stack[-1]] >= level:
            stack.pop()
        if stack:
            children.setdefault(stack[-1], []).append(i)
        stack.append(i)
    return children


def normalized_levels(levels: list[int]) -> list[int]:
    """Shift so the top level is 1 (a '#'-titled paper would otherwise start at 2, §9.2)."""
    if not levels:
        return []
    low = min(levels)
    return [lv - low + 1 for lv in levels]


def hierarchy_score(parents: list[tuple[int, float]], d_max: int) -> float:
    """H = 100·ΣL_i·w_i/Σw_i with w_i = (Dmax − d_i + 1)/Dmax over (depth d_i, L_i) parents;
    100 when there are no parents."""
    if not parents:
        return 100.0
    weights = [(d_max - d + 1) / d_max for d, _ in parents]
    return round(100.0 * sum(w * L for w, (_, L) in zip(weights, parents)) / sum(weights), 4)


def judge_hierarchy(survey: Survey, topic: str, judge: Judge) -> MetricResult:
    titles = [e.title for e in survey.outline]
    levels = normalized_levels([e.level for e in survey.outline])
    tree = outline_tree(levels)
    chosen = evenly_spaced(sorted(tree), caps_for(judge).parents)
    parents: list[tuple[int, float]] = []
    notes = []
    for p in chosen:
        kids = [titles[c] for c in tree[p]]
        prompt = render_prompt("sgsim_hierarchy", topic=topic, parent_index=p + 1,
                               parent_title=titles[p], children=kids)
        try:
            answers = [v.included for v in judge.ask_runs("judge.sgsim.hierarchy", prompt, HierarchyVerdict)]
        except structured_error_types() as exc:
            return failed_result("sgsim.hierarchy", exc)
        fractions = [(a.count("Yes") / len(a)) if a else 1.0 for a in answers]  # empty -> 1.0 (R)
        parents.append((levels[p], mean(fractions)))
        notes.append(f"{titles[p]}: {sum(a.count('Yes') for a in answers)}/{sum(len(a) for a in answers)} Yes")
    value = hierarchy_score(parents, max(levels) if levels else 1)
    return MetricResult(
        name="sgsim.hierarchy", family="rubric", value=value,
        rationale=("no parent sections: 100 by definition" if not parents else
                   f"{len(parents)} parent sections judged; lowest: " +
                   min(notes, key=lambda n: n.split(": ")[1])),
        details={"scale": "0-100", "parents_judged": len(parents), "parents_total": len(tree),
                 "per_parent": notes},
    )


# --- scalar rubric scores ---------------------------------------------------------------------
def _likert(name: str, judge: Judge, node: str, prompt: str) -> MetricResult:
    return scored_runs(name, judge, node, prompt, Likert, scale="1-5", rubric="SGSimEval")


def judge_content(survey: Survey, topic: str, judge: Judge) -> list[MetricResult]:
    prompt = render_prompt("sgsim_content", topic=topic, content=trim_sections(survey, judge.budget))
    try:
        verdicts = judge.ask_runs("judge.sgsim.content", prompt, ContentScores)
    except structured_error_types() as exc:
        return [failed_result(f"sgsim.content.{c}", exc) for c in CONTENT_CRITERIA]
    results = []
    for c in CONTENT_CRITERIA:
        scores = [float(getattr(v, c)) for v in verdicts]
        results.append(MetricResult(name=f"sgsim.content.{c}", family="rubric", value=mean(scores),
                                    rationale=rationale_of([v.notes for v in verdicts],
                                                           f"{mean(scores):.1f}/5 on the SGSimEval {c} rubric"),
                                    details={"scale": "1-5", "runs": scores}))
    return results


# --- counted scores ---------------------------------------------------------------------------
def _count_result(name: str, counts: list[SupportCount], judged: int, available: int,
                  what: str) -> MetricResult:
    total = sum(c.total for c in counts)
    supported = sum(min(c.supported, c.total) for c in counts)  # a count above total is capped
    value = round(100.0 * supported / total, 2) if total else 0.0
    return MetricResult(
        name=name, family="rubric", value=value,
        rationale=f"{supported} of {total} {what} judged supported"
                  + (f" ({judged} of {available} sampled)" if judged < available else ""),
        details={"scale": "0-100", "total": total, "supported": supported,
                 "judged": judged, "available": available},
    )


def judge_faithfulness(survey: Survey, topic: str, judge: Judge) -> MetricResult:
    entries = {r.key: (r.text or r.title or r.key) for r in survey.references}
    rows = [c for c in survey.citations if any(k in entries for k in c.ref_keys)]
    if not rows:
        return MetricResult(name="sgsim.faithfulness", family="rubric", value=0.0,
                            rationale="no citing sentence resolves to a reference entry (F = 0)",
                            details={"scale": "0-100", "total": 0, "supported": 0})
    counts = []
    per_item = max(64, judge.budget // 4)
    limit = caps_for(judge).citing_sentences
    for row in evenly_spaced(rows, limit):
        cited = [trim_text(entries[k], 120) for k in row.ref_keys if k in entries]
        prompt = render_prompt("sgsim_faithfulness", topic=topic,
                               sentence=trim_text(row.sentence, per_item),
                               references=trim_lines(cited, per_item))
        try:
            counts += judge.ask_runs("judge.sgsim.faithfulness", prompt, SupportCount)
        except structured_error_types() as exc:
            return failed_result("sgsim.faithfulness", exc)
    return _count_result("sgsim.faithfulness", counts, min(len(rows), limit),
                         len(rows), "in-text citations")


def judge_supportiveness(survey: Survey, topic: str, judge: Judge) -> MetricResult:
    refs = reference_lines(survey)
    batches = [refs[i:i + REFERENCE_BATCH] for i in range(0, len(refs), REFERENCE_BATCH)]
    chosen = evenly_spaced(batches, caps_for(judge).reference_batches)
    counts = []
    for batch in chosen:
        lines = [trim_text(r, 80) for r in batch]
        prompt = render_prompt("sgsim_supportiveness", topic=topic, count=len(lines),
                               references="\n".join(lines))
        try:
            counts += judge.ask_runs("judge.sgsim.supportiveness", prompt, SupportCount)
        except structured_error_types() as exc:
            return failed_result("sgsim.supportiveness", exc)
    return _count_result("sgsim.supportiveness", counts, sum(len(b) for b in chosen), len(refs),
                         "references")


def judge_sgsim(survey: Survey, topic: str, judge: Judge) -> list[MetricResult]:
    budget = judge.budget
    results = [_likert("sgsim.outline", judge, "judge.sgsim.outline",
                       render_prompt("sgsim_outline", topic=topic, outline=outline_text(survey, budget)))]
    results.append(judge_hierarchy(survey, topic, judge))
    results += judge_content(survey, topic, judge)
    results.append(judge_faithfulness(survey, topic, judge))
    results.append(_likert("sgsim.reference", judge, "judge.sgsim.reference",
                           render_prompt("sgsim_reference", topic=topic,
                                         references=trim_lines(reference_lines(survey), budget))))
    results.append(judge_supportiveness(survey, topic, judge))
    return results
