"""Self-evaluation at the end of a run: structural and citation checks (+ coverage with bench
refs, alignment with a human survey) and the LLM judges in ``evaluation.judges`` (none by default;
``generate --judges sam,sgsim,surveylens,checklist``).

Calls the evaluation graph's ``evaluate_survey``, stores ``evaluation.json`` and a one-screen
``evaluation.md`` in the run directory, and refreshes the manifest.
"""

from __future__ import annotations

from pathlib import Path

from ..evaluation.reader_standing import reader_standing
from ..memory import paper_from_dump
from ..models import Paper
from .deps import GenerationDeps
from .exporter import build_survey, manifest, write_json


def summary_lines(report: dict, limit: int = 60) -> list[str]:
    """One line per metric: name, value and its measured validity (ρ vs the SurveyLens rubric)."""
    from ..evaluation.quality.validity import metric_validity

    lines = [f"{'metric':<40} {'value':>12}  validity (ρ vs SurveyLens rubric)"] if report.get("metrics") else []
    for metric in report.get("metrics", [])[:limit]:
        value = metric.get("value")
        shown = "n/a" if value is None else (f"{value:.4f}" if isinstance(value, float) else str(value))
        lines.append(f"{metric['name']:<40} {shown:>12}  {metric_validity(metric['name'])}")
    lines += [f"warning: {w}" for w in report.get("warnings", [])[:5]]
    return lines


def quality_summary(data: dict, survey) -> dict:
    """The offline quality score (overall + components), a verdict placing it among the ASG-Bench
    reference systems (``model_v6.json``), and the reasons a reader should know: components below
    the median system with what pulled them down, text copied from the cited abstracts, and the
    references and headings that read as off the topic."""
    from ..evaluation.quality import load_model, score_survey, verdict

    metrics = {m["name"].split(".", 1)[1]: m for m in data.get("metrics", [])
               if m.get("name", "").startswith("quality.") and m.get("value") is not None}
    if {"outline", "content", "reference", "overall"} <= set(metrics):
        scores = {c: metrics[c]["value"] for c in ("outline", "content", "reference", "overall")}
    else:
        scores, metrics = score_survey(survey), {}
    return {"scores": {k: round(float(v), 3) for k, v in scores.items()}, "verdict": verdict(scores),
            "component_verdicts": {c: verdict(scores, component=c) for c in ("outline", "content", "reference")},
            "reasons": quality_reasons(scores, metrics, load_model())}


def quality_reasons(scores: dict, metrics: dict, model: dict) -> list[str]:
    """Plain sentences on why the score is what it is (empty when nothing stands out)."""
    import numpy as np

    reasons = []
    for component in ("outline", "content", "reference"):
        ref = model["components"][component].get("reference_systems") or {}
        details = (metrics.get(component) or {}).get("details") or {}
        if not ref or scores[component] >= float(np.median(list(ref.values()))):
            continue
        median = float(np.median(list(ref.values())))
        why = []
        p = (details.get("on_topic_probability") or {}).get(component)
        if p is not None and p < 0.5:
            why.append(f"it reads as off the topic (P(on topic) {p:.2f}; form alone: {details['form_score']:.2f})")
        if component == "content" and details.get("copied_share") is not None and details["copied_share"] >= 0.25:
            why.append(f"{details['copied_share']:.0%} of the cited sentences' wording repeats the abstracts they "
                       "cite, which counts as the sources' writing, not the survey's")
        weakest = sorted((v, k) for k, v in (details.get("contributions") or {}).items() if v < 0)[:2]
        if weakest:
            why.append("weakest features: " + ", ".join(f"{k} ({v:+.2f})" for v, k in weakest))
        reasons.append(f"{component} {scores[component]:.2f} is below the median reference system ({median:.2f})"
                       + (": " + "; ".join(why) if why else ""))
    details = (metrics.get("reference") or metrics.get("overall") or {}).get("details") or {}
    for kind in ("references", "headings"):
        flagged = (details.get("off_topic") or {}).get(kind) or []
        if flagged:
            count = (details.get("off_topic_counts") or {}).get(kind, len(flagged))
            shown = "; ".join(f'"{t[:80]}"' for t, _ in flagged[:5])
            reasons.append(f"{count} {kind} are less related to the topic than 95% of what human surveys cite or "
                           f"title on theirs, for example: {shown}")
    for note in details.get("notes") or []:
        reasons.append(note)
    return reasons


def extractive_caveat(gate: dict) -> str | None:
    """A note when subsections are the extractive floor: their sentences come from the abstracts
    they cite, and the content score counts that copied wording as the sources' writing."""
    steps = [g for g in (gate or {}).values() if g.get("step") == "write_subsection"]
    floor = sum(1 for g in steps if g.get("winner") == "floor")
    if not floor:
        return None
    plainly = "this survey is an annotated reading list, not a synthesis: " if floor == len(steps) else ""
    return (f"note: {plainly}{floor} of {len(steps)} subsections are the extractive floor (sentences taken from "
            "the abstracts they cite); the content score counts their copied wording as the sources' writing, "
            "not the survey's")


def quality_lines(quality: dict) -> list[str]:
    scores = quality["scores"]
    caveat = [quality["caveat"], ""] if quality.get("caveat") else []
    caveat += [f"readers: {quality['readers']}", ""] if quality.get("readers") else []
    reasons = [f"- {r}" for r in quality.get("reasons") or []]
    return ["## Quality (offline learned score, SurveyLens 1-5 scale)", "",
            " · ".join(f"{c} {scores[c]:.2f}" for c in ("overall", "outline", "content", "reference")),
            "", quality["verdict"], "", *reasons, *([""] if reasons else []), *caveat]


def retrieved_papers(state: dict) -> list[Paper]:
    """Every paper given to a writer (the run's retrieved set, for input coverage)."""
    papers, seen, out = state.get("papers") or {}, set(), []
    for reading in (state.get("readings") or {}).values():
        for pid in reading.get("paper_ids", []):
            if pid in papers and pid not in seen:
                seen.add(pid)
                out.append(paper_from_dump(papers[pid]))
    return out


def self_evaluate(state: dict, deps: GenerationDeps) -> dict:
    if not deps.settings.generation.self_evaluate:
        return {}
    run_dir = Path(state["run_dir"])
    evaluate = deps.evaluate
    if evaluate is None:
        from ..evaluation.scoring import evaluate_survey as evaluate
    try:
        human = None
        if deps.human is not None:
            from ..evaluation.parsers import parse_survey

            human = parse_survey(deps.human, topic=state.get("topic", ""))
        survey = build_survey(state)
        report = evaluate(survey, deps.settings, bench_refs=deps.bench_refs, human=human,
                          judges=list(deps.settings.evaluation.judges), retrieved=retrieved_papers(state),
                          on_judgment=deps.on_judgment)
        data = report.model_dump(mode="json")
        data["quality"] = quality_summary(data, survey)
        if caveat := extractive_caveat(state.get("gate") or {}):
            data["quality"]["caveat"] = caveat
            # the offline default's output: what blind readers made of it, beside the learned score
            if standing := reader_standing():
                data["quality"]["readers"] = standing
        fallbacks = []
    except Exception as exc:  # noqa: BLE001 - a broken evaluator must not lose the written survey
        data = {"metrics": [], "warnings": [f"self-evaluation failed: {type(exc).__name__}: {exc}"]}
        fallbacks = [{"node": "self_evaluate", "reason": data["warnings"][0][:300]}]
    write_json(run_dir / "evaluation.json", data)
    quality = quality_lines(data["quality"]) if data.get("quality") else []
    (run_dir / "evaluation.md").write_text(
        "# Self-evaluation\n\n" + "\n".join(quality) + "```\n" + "\n".join(summary_lines(data)) + "\n```\n",
        encoding="utf-8")
    view = {**state, "evaluation": data, "fallbacks": (state.get("fallbacks") or []) + fallbacks}
    write_json(run_dir / "manifest.json", manifest(view, deps))
    return {"evaluation": data, "fallbacks": fallbacks}
