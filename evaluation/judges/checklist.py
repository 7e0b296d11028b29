"""DeepSynth-Eval checklists (specs/deepsynth_eval.md): judging, clipped group scores, S_all /
S_gen / S_con / precision, and checklist generation from a human survey.

Trimming: one subgroup's requirements are judged against the part of the report that matters to
them — report sections are ranked by BM25 against the requirement text and the best ones are
kept (in report order) until the judge's input budget is full.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Callable

from rank_bm25 import BM25Okapi

from ...errors import UserError
from ...models import MetricResult, SurveySection, normalize_title
from ..jsonl import read_jsonl
from .base import (
    Judge, approx_tokens, render_prompt, structured_error_types, trim_text,
)
from .verdicts import checklist_verdict

LABELS = ("mentioned_correct", "not_mentioned", "mentioned_incorrect")


# --- task files ---------------------------------------------------------------------------------
def load_tasks(path: Path) -> list[dict]:
    """Tasks in DeepSynth-Eval's ``example_tasks.jsonl`` format (group → sub_groups → requirements)."""
    tasks = []
    for n, task in read_jsonl(path, "checklist task"):
        if not isinstance(task.get("checklist"), list):
            raise UserError(f"{path}:{n}: a task needs a 'checklist' list of groups")
        for g in task["checklist"]:
            if not isinstance(g.get("sub_groups"), list):
                raise UserError(f"{path}:{n}: group {g.get('group_name')!r} has no 'sub_groups' list")
        tasks.append(task)
    if not tasks:
        raise UserError(f"no tasks in {path}")
    return tasks


def write_tasks(tasks: list[dict], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(t, ensure_ascii=False) + "\n" for t in tasks), encoding="utf-8")


# --- scoring (faithful to the reference Python in the spec) --------------------------------------
def group_score(group: dict, floor_at_zero: bool = False) -> tuple[float, dict[str, int]]:
    got = tot = 0.0
    cnt = {"c": 0, "i": 0, "n": 0}
    for sg in group["sub_groups"]:
        res = sg.get("eval_result") or ["not_mentioned"] * len(sg["requirements"])
        for req, lab in zip(sg["requirements"], res):
            w = float(req.get("reward", 1.0))
            tot += w
            if lab == "mentioned_correct":
                got += w
                cnt["c"] += 1
            elif lab == "mentioned_incorrect":
                got -= w
                cnt["i"] += 1
            elif lab == "not_mentioned":
                cnt["n"] += 1
    clip = float(group.get("clip_factor", 0.8 if group.get("strict") else 1.0))
    s = 0.0 if tot == 0 else min(got / (clip * tot), 1.0)
    return (max(0.0, s) if floor_at_zero else s), cnt


def task_scores(task: dict, floor_at_zero: bool = False) -> tuple[dict[str, float | None], dict[str, int]]:
    acc = {k: [0.0, 0.0] for k in ("all", "gen", "con")}
    counts = {"c": 0, "i": 0, "n": 0}
    for g in task["checklist"]:
        s, cnt = group_score(g, floor_at_zero)
        w = float(g.get("weight", 1.0))
        for k in ("all", "con" if g.get("strict") else "gen"):
            acc[k][0] += s * w
            acc[k][1] += w
        for k in counts:
            counts[k] += cnt[k]
    return {k: (v[0] / v[1] if v[1] else None) for k, v in acc.items()}, counts


def precision_pct(correct: int, incorrect: int) -> float:
    """Eq. 7 ×100. With no mentioned item it is 0/0; like scikit-learn's ``zero_division=0`` we
    report 0 (a survey that mentions nothing has no correct content) and flag it as undefined."""
    return 100.0 * correct / (correct + incorrect) if correct + incorrect else 0.0


def benchmark_scores(tasks: list[dict], floor_at_zero: bool = False) -> dict:
    """Overall = mean S_all over all tasks; General/Constraint over tasks that have such groups;
    precision pooled (micro) over all items; all ×100."""
    per_task = [task_scores(t, floor_at_zero) for t in tasks]
    def avg(key: str) -> float | None:
        vals = [s[key] for s, _ in per_task if s[key] is not None]
        return 100.0 * sum(vals) / len(vals) if vals else None
    c = sum(cnt["c"] for _, cnt in per_task)
    i = sum(cnt["i"] for _, cnt in per_task)
    n = sum(cnt["n"] for _, cnt in per_task)
    items = c + i + n
    return {
        "overall": avg("all"), "general": avg("gen"), "constraint": avg("con"),
        "precision": precision_pct(c, i), "precision_defined": bool(c + i),
        "correct_pct": 100.0 * c / items if items else None,
        "incorrect_pct": 100.0 * i / items if items else None,
        "not_mentioned_pct": 100.0 * n / items if items else None,
        "tasks": len(tasks), "floor_at_zero": floor_at_zero,
    }


# --- judging ------------------------------------------------------------------------------------
def report_sections(text: str) -> list[SurveySection]:
    """Split a Markdown report at headings (a report without headings is one section)."""
    sections: list[SurveySection] = []
    heading, level, body = "", 1, []
    for line in text.splitlines():
        m = re.match(r"^(#{1,6})\s+(.*)", line)
        if m:
            if heading or any(b.strip() for b in body):
                sections.append(SurveySection(heading=heading, level=level, text="\n".join(body).strip()))
            heading, level, body = m[2].strip(), len(m[1]), []
        else:
            body.append(line)
    if heading or any(b.strip() for b in body):
        sections.append(SurveySection(heading=heading, level=level, text="\n".join(body).strip()))
    return sections


def _tokens(text: str) -> list[str]:
    return normalize_title(text).split()


def relevant_excerpt(sections: list[SurveySection], query: str, budget: int) -> str:
    """The report sections most relevant to ``query`` (BM25), in report order, within budget."""
    if sum(approx_tokens(s.heading + s.text) for s in sections) <= budget:
        return "\n\n".join(f"## {s.heading}\n{s.text}".strip() for s in sections)
    bm25 = BM25Okapi([_tokens(s.heading + " " + s.text) or ["_"] for s in sections])
    scores = bm25.get_scores(_tokens(query))
    order = sorted(range(len(sections)), key=lambda i: -scores[i])
    chosen, used = set(), 0
    for i in order:
        cost = approx_tokens(sections[i].heading + sections[i].text) + 4
        if used + cost <= budget:
            chosen.add(i)
            used += cost
        elif used < budget * 0.5:  # a long best section: keep its opening instead of skipping it
            chosen.add(i)
            sections[i] = SurveySection(heading=sections[i].heading, level=sections[i].level,
                                        text=trim_text(sections[i].text, budget - used - 4))
            used = budget
    return "\n\n".join(f"## {sections[i].heading}\n{sections[i].text}".strip() for i in sorted(chosen))


def judge_subgroup(sections: list[SurveySection], subgroup: dict, judge: Judge) -> list[str]:
    reqs = [r["content"] for r in subgroup["requirements"]]
    criteria = "\n".join(f"{i}. {r}" for i, r in enumerate(reqs, 1))
    budget = max(256, judge.budget - approx_tokens(criteria))
    prompt = render_prompt("checklist", survey_content=relevant_excerpt(list(sections), criteria, budget),
                           criteria_text=criteria, req_cnt=len(reqs))
    # The verdict schema demands exactly len(reqs) labels, so a wrong-length answer is retried by
    # the LLM client with a repair prompt that names the length (llm.retries, 3 by default: the
    # spec's three attempts); after that the subgroup counts as not mentioned, as in DeepSynth.
    try:
        return list(judge.ask("judge.checklist", prompt, checklist_verdict(len(reqs))).labels)
    except structured_error_types():
        return ["not_mentioned"] * len(reqs)


def score_task(task: dict, judge: Judge, report: str | None = None,
               progress: Callable[[], None] | None = None) -> dict:
    """Judge every subgroup of ``task`` against ``report`` (default: its ``survey_result``);
    returns a copy of the task with ``eval_result`` filled."""
    text = report if report is not None else task.get("survey_result") or ""
    sections = report_sections(text)
    scored = json.loads(json.dumps(task))
    scored["survey_result"] = text
    for group in scored["checklist"]:
        for sg in group["sub_groups"]:
            sg["eval_result"] = judge_subgroup(sections, sg, judge) if sections else \
                ["not_mentioned"] * len(sg["requirements"])
            if progress:
                progress()
    return scored


def checklist_results(scored: dict, floor_at_zero: bool = False) -> list[MetricResult]:
    scores, cnt = task_scores(scored, floor_at_zero)
    precision = precision_pct(cnt["c"], cnt["i"])
    detail = {"scale": "0-100", "correct": cnt["c"], "incorrect": cnt["i"], "not_mentioned": cnt["n"],
              "floor_at_zero": floor_at_zero, "task_id": scored.get("task_id"),
              "groups": [{"group": g["group_name"], "strict": bool(g.get("strict")),
                          "score": round(group_score(g, floor_at_zero)[0], 4)} for g in scored["checklist"]]}
    why = f"{cnt['c']} correct, {cnt['i']} incorrect, {cnt['n']} not mentioned of {sum(cnt.values())} items"
    out = []
    for key, label in (("all", "s_all"), ("gen", "s_gen"), ("con", "s_con")):
        v = scores[key]
        out.append(MetricResult(name=f"checklist.{label}", family="checklist",
                                value=None if v is None else round(100.0 * v, 4),
                                rationale=why if v is not None else f"the task has no {'constraint' if key == 'con' else 'general'} groups",
                                details=detail if key == "all" else {"scale": "0-100"}))
    out.append(MetricResult(
        name="checklist.precision", family="checklist", value=precision,
        rationale=why if cnt["c"] + cnt["i"] else
        f"{why}: precision 0/0 (nothing mentioned, so nothing correct) is reported as 0, "
        "scikit-learn's zero_division convention",
        details={"scale": "0-100", "defined": bool(cnt["c"] + cnt["i"])}))
    return out
