"""Self-evaluation at the end of a run: structural and citation checks (+ coverage with bench
refs, alignment with a human survey) and the LLM judges in ``evaluation.judges`` (none by default;
``generate --judges sam,sgsim,surveylens,checklist``).

Calls the evaluation graph's ``evaluate_survey``, stores ``evaluation.json`` and a one-screen
``evaluation.md`` in the run directory, and refreshes the manifest.
"""

from __future__ import annotations

from pathlib import Path

from ..memory import paper_from_dump
from ..models import Paper
from .deps import GenerationDeps
from .exporter import build_survey, manifest, write_json


def summary_lines(report: dict, limit: int = 60) -> list[str]:
    lines = []
    for metric in report.get("metrics", [])[:limit]:
        value = metric.get("value")
        shown = "n/a" if value is None else (f"{value:.4f}" if isinstance(value, float) else str(value))
        lines.append(f"{metric['name']:<40} {shown}")
    lines += [f"warning: {w}" for w in report.get("warnings", [])[:5]]
    return lines


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
        from ..graphs.evaluation import evaluate_survey as evaluate
    try:
        human = None
        if deps.human is not None:
            from ..evaluation.parsers import parse_survey

            human = parse_survey(deps.human, topic=state.get("topic", ""))
        report = evaluate(build_survey(state), deps.settings, bench_refs=deps.bench_refs, human=human,
                          judges=list(deps.settings.evaluation.judges), retrieved=retrieved_papers(state),
                          on_judgment=deps.on_judgment)
        data = report.model_dump(mode="json")
        fallbacks = []
    except Exception as exc:  # noqa: BLE001 - a broken evaluator must not lose the written survey
        data = {"metrics": [], "warnings": [f"self-evaluation failed: {type(exc).__name__}: {exc}"]}
        fallbacks = [{"node": "self_evaluate", "reason": data["warnings"][0][:300]}]
    write_json(run_dir / "evaluation.json", data)
    (run_dir / "evaluation.md").write_text(
        "# Self-evaluation\n\n```\n" + "\n".join(summary_lines(data)) + "\n```\n", encoding="utf-8")
    view = {**state, "evaluation": data, "fallbacks": (state.get("fallbacks") or []) + fallbacks}
    write_json(run_dir / "manifest.json", manifest(view, deps))
    return {"evaluation": data, "fallbacks": fallbacks}
