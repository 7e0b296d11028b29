"""Ablation: run the generation graph once per variant and tabulate what changed.

Variants switch one SurveyForge component off (MS, MR, TRE, outline demonstrations, polish) or
the relevance judge. With a labelled relevance file the table also says how on-topic the pool and
the cited works are (pool precision / recall, cited on-topic share): measurable offline.
The table reports papers retrieved, input coverage against a benchmark reference set (when
given), citations, tokens and the self-evaluation scores; ``ablation.md`` and ``ablation.csv``.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any, Callable

from ..agents.exporter import new_run_dir
from ..errors import UserError
from ..evaluation.coverage import input_coverage, load_bench_refs
from ..models import Paper, Reference
from ..retrieval.topic_judge import load_labels
from ..settings import Settings
from .runner import RunResult, UpdateCallback, start_run

VARIANTS: dict[str, dict[str, Any]] = {
    "full": {},
    "no-ms": {"memory_subquery": False},
    "no-mr": {"memory_retrieval": False},
    "no-tre": {"tre": False},
    "no-topic-fusion": {"topic_fusion": False},
    "outline-none": {"outline_demos": "none"},
    "outline-random": {"outline_demos": "random"},
    "no-polish": {"polish": False},
    "no-illustrate": {"illustrate": False},
    "no-relevance": {"relevance": False},
    "no-facet-gate": {"facet_gate": False},
}


def parse_variants(spec: str) -> list[str]:
    names = [v.strip() for v in spec.split(",") if v.strip()]
    unknown = [v for v in names if v not in VARIANTS]
    if unknown or not names:
        raise UserError(f"unknown variant(s) {', '.join(unknown) or '(none)'}; choose from {', '.join(VARIANTS)}")
    return list(dict.fromkeys(names))


def variant_settings(settings: Settings, variant: str) -> Settings:
    generation = settings.generation.model_copy(update=VARIANTS[variant])
    return settings.model_copy(update={"generation": generation})


def retrieved_ids(state: dict) -> list[str]:
    seen: dict[str, None] = {}
    for reading in (state.get("readings") or {}).values():
        seen.update(dict.fromkeys(reading.get("paper_ids", [])))
    return list(seen)


def _arxiv(paper_id: str) -> str:
    return paper_id.split(":", 1)[1] if paper_id.startswith("arxiv:") else paper_id


def relevance_columns(state: dict, labels: dict[str, int]) -> dict[str, Any]:
    """The pool and the cited works against labelled judgments of the topic (papers without a
    label are not counted): measurable without a capable model."""
    memory = [_arxiv(p) for p in state.get("memory") or []]
    candidates = memory + [_arxiv(p) for p in (state.get("relevance") or {}).get("excluded", [])]
    cited = [_arxiv(p) for p in (state.get("survey") or {}).get("references", [])]  # paper ids

    def share(ids: list[str]) -> float | None:
        judged = [labels[i] for i in ids if i in labels]
        return round(sum(judged) / len(judged), 4) if judged else None

    positives = [i for i in candidates if labels.get(i) == 1]
    return {"pool_precision": share(memory),
            "pool_recall": round(sum(i in set(memory) for i in positives) / len(positives), 4) if positives else None,
            "cited_on_topic": share(cited), "cited_labelled": sum(i in labels for i in cited)}


def variant_row(variant: str, result: RunResult, bench: list[Reference] | None, tokens: dict,
                *, fuzzy: int = 92, labels: dict[str, int] | None = None) -> dict:
    state = result.state
    papers = state.get("papers") or {}
    retrieved = retrieved_ids(state)
    row: dict[str, Any] = {
        "variant": variant, "run_id": result.run_id, "pool": len(state.get("memory") or []),
        "papers_retrieved": len(retrieved),
        "input_coverage": None, "citations": len((state.get("survey") or {}).get("references", [])),
        "dropped_citations": (state.get("integrity") or {}).get("dropped_total", 0),
        # Calls answered from the LLM response cache (a variant repeating an earlier variant's
        # prompt) cost no tokens: the cached_calls column says how many there were.
        "llm_calls": tokens.get("total", {}).get("calls", 0),
        "cached_calls": tokens.get("total", {}).get("cached_calls", 0),
        "tokens_in": tokens.get("total", {}).get("input_tokens", 0),
        "tokens_out": tokens.get("total", {}).get("output_tokens", 0),
        "seconds": round(sum((state.get("timings") or {}).values()), 1),
        "fallbacks": len(state.get("fallbacks") or []), "failures": len(state.get("failures") or []),
    }
    if bench is not None and retrieved:
        # The same matching as SAM-R (arXiv id, normalised title, then fuzzy title) so this column
        # and the self-evaluation's input_coverage agree.
        chosen = [Paper.model_validate(papers[p]) for p in retrieved if p in papers]
        row["input_coverage"] = round(input_coverage(chosen, bench, fuzzy=fuzzy)["coverage"], 4)
    if labels:
        row.update(relevance_columns(state, labels))
    for metric in (state.get("evaluation") or {}).get("metrics", []):
        if isinstance(metric.get("value"), (int, float)):
            row[f"eval:{metric['name']}"] = round(float(metric["value"]), 4)
    return row


def write_tables(rows: list[dict], out_dir: Path, topic: str) -> tuple[Path, Path]:
    columns = list(dict.fromkeys(k for row in rows for k in row))
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns)
    writer.writeheader()
    writer.writerows(rows)
    csv_path = out_dir / "ablation.csv"
    csv_path.write_text(buffer.getvalue(), encoding="utf-8")

    def cell(value: Any) -> str:
        return "" if value is None else (f"{value:.4f}" if isinstance(value, float) else str(value))

    lines = [f"# Ablation: {topic}", "", "| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(cell(row.get(c)) for c in columns) + " |" for row in rows]
    md_path = out_dir / "ablation.md"
    md_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return md_path, csv_path


def run_ablation(topic: str, variants: list[str], settings: Settings, *,
                 make_deps: Callable[[Settings], Any], out_dir: Path | None = None,
                 bench_refs: Path | None = None, relevance_labels: Path | None = None,
                 on_variant: Callable[[str], None] | None = None,
                 on_update: UpdateCallback | None = None) -> tuple[Path, list[dict]]:
    """Run every variant into ``<out>/ablation-<slug>-<ts>/`` and write the tables there."""
    bench = load_bench_refs(Path(bench_refs)) if bench_refs else None
    labels = load_labels(Path(relevance_labels), topic) if relevance_labels else None
    if relevance_labels and not labels:
        raise UserError(f"{relevance_labels} has no judgment for the topic {topic!r}")
    root = new_run_dir(Path(out_dir or settings.runs_dir), f"ablation {topic}")
    rows = []
    for variant in variants:
        if on_variant is not None:
            on_variant(variant)
        deps = make_deps(variant_settings(settings, variant))
        result = start_run(topic, deps, runs_dir=root / variant, on_update=on_update)
        rows.append(variant_row(variant, result, bench, deps.clients.meter.to_dict(),
                                fuzzy=settings.evaluation.ref_match_fuzzy, labels=labels))
        write_tables(rows, root, topic)  # after each variant, so a stopped ablation keeps its rows
    return root, rows
