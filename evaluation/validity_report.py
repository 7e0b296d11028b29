"""Writing the validity harness's results: validity.{md,csv,json}, the Table 4 reproduction, the
package summary the leaderboard reads (``data/validity.json``) and the terminal table."""

from __future__ import annotations

import csv
import io
import json
import math
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from ..errors import UserError
from ..sanitize import markdown_cell
from .validity import PACKAGE_VALIDITY, REFERENCE_COMPONENTS, HarnessRun, ReferenceScores
from .validity_stats import concordance, spearman

TABLE4 = {"ra_align_f1": "table4_ra_align_f1", "tau_maxsim.union": "table4_tau_maxsim"}
ALIGN_COMPONENT_METRICS = ("ra_align_f1.outline", "ra_align_f1.content", "ra_align_f1.reference",
                           "tau_maxsim.union.outline", "tau_maxsim.union.content", "tau_maxsim.union.reference")


def _f(v, digits: int = 2) -> str:
    """ρ-like values signed with 2 decimals; shares (digits=3) unsigned; "–" when missing."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    return f"{v:+.2f}" if digits == 2 else f"{v:.{digits}f}"


def _ci(ci) -> str:
    return "" if not ci or ci[0] is None else f"[{ci[0]:+.2f}, {ci[1]:+.2f}]"


def own_row(entry: dict) -> dict | None:
    """The pooled validity row against the metric's own component (else overall)."""
    by = entry["by_component"]
    block = by.get(entry["component"]) or by.get("overall")
    return block["pooled"] if block else None


def ordered(results: dict[str, dict]) -> list[str]:
    """Grouped by component, best pooled ρ first; metrics without ρ last."""
    def key(name):
        row = own_row(results[name])
        rho = row["rho"] if row and row["rho"] is not None else -math.inf
        return (REFERENCE_COMPONENTS.index(results[name]["component"]), -rho, name)
    return sorted(results, key=key)


def _acc(entry: dict) -> tuple[str, str]:
    labels = entry.get("labels")
    if not labels or labels["pooled"]["accuracy"] is None:
        return "–", ""
    p = labels["pooled"]
    lo, hi = p["accuracy_ci"]
    return f"{p['accuracy']:.3f}", "" if lo is None else f"[{lo:.3f}, {hi:.3f}]"


# --- long CSV -------------------------------------------------------------------------------
def to_csv(results: dict[str, dict]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["metric", "kind", "metric_component", "reference_component", "discipline", "rho", "rho_lo",
                "rho_hi", "concordance", "concordance_lo", "concordance_hi", "n_systems", "n_pairs",
                "pairwise_accuracy", "accuracy_lo", "accuracy_hi", "n_labels"])
    r = lambda v: "" if v is None else repr(round(v, 6))  # noqa: E731
    for name in ordered(results):
        e = results[name]
        for comp, block in e["by_component"].items():
            for disc, row in [("pooled", block["pooled"]), *sorted(block["disciplines"].items())]:
                acc = ((e["labels"] or {}).get("disciplines", {}).get(disc) if disc != "pooled"
                       else (e["labels"] or {}).get("pooled")) if comp == e["component"] else None
                acc = acc or {"accuracy": None, "accuracy_ci": [None, None], "n_labels": ""}
                w.writerow([name, e["kind"], e["component"], comp, disc, r(row["rho"]), r(row["rho_ci"][0]),
                            r(row["rho_ci"][1]), r(row["concordance"]), r(row["concordance_ci"][0]),
                            r(row["concordance_ci"][1]), row["n_systems"], row["n_pairs"], r(acc["accuracy"]),
                            r(acc["accuracy_ci"][0]), r(acc["accuracy_ci"][1]), acc["n_labels"]])
        if not e["by_component"] and e["labels"]:
            a = e["labels"]["pooled"]
            w.writerow([name, e["kind"], e["component"], "", "pooled", *[""] * 8, r(a["accuracy"]),
                        r(a["accuracy_ci"][0]), r(a["accuracy_ci"][1]), a["n_labels"]])
    return buf.getvalue()


# --- Markdown -------------------------------------------------------------------------------
NOTHING_MEASURED = ("Nothing was measured: there are no reference scores for these systems and disciplines "
                    "and no --labels file, so no metric can be checked against people here. The scores "
                    "themselves are what `surveygraph leaderboard` reports.")


def anything_measured(results: dict[str, dict]) -> bool:
    return any(e["by_component"] or (e.get("labels") or {}).get("pooled", {}).get("accuracy") is not None
               for e in results.values())


def main_table(results: dict[str, dict], disciplines: list[str]) -> list[str]:
    if not anything_measured(results):
        return [NOTHING_MEASURED]
    head = ["metric", "kind", "component", "ρ pooled", "95% CI", "concordance", *[d[:4] for d in disciplines],
            "ρ vs overall", "label acc.", "acc. 95% CI"]
    lines = ["| " + " | ".join(head) + " |", "|---|---|---|" + "---:|" * (len(head) - 3)]
    for name in ordered(results):
        e = results[name]
        row = own_row(e)
        block = e["by_component"].get(e["component"]) or e["by_component"].get("overall")
        per = [_f((block or {}).get("disciplines", {}).get(d, {}).get("rho")) for d in disciplines]
        overall = (e["by_component"].get("overall") or {}).get("pooled") or {}
        acc, acc_ci = _acc(e)
        lines.append("| " + " | ".join([
            name, e["kind"], e["component"], _f(row and row["rho"]), _ci(row and row["rho_ci"]),
            _f(row and row["concordance"], 3), *per, _f(overall.get("rho")), acc, acc_ci]) + " |")
    return lines


def table4(run: HarnessRun, reference: ReferenceScores | None) -> dict | None:
    """Our RA-AlignF1 / τ-MaxSim (mean of components) per system × discipline vs the paper's."""
    if reference is None or not all(t in reference.tables for t in TABLE4.values()):
        return None
    out = {"cells": [], "stats": {}, "constant_components": []}
    for metric, table in TABLE4.items():
        ours, paper, rhos = [], [], []
        for disc, board in sorted(run.boards.items()):
            ref = reference.tables[table].get(disc, {})
            systems = [s for s in board.systems if s in ref and board.mean(s, metric) is not None]
            x = [board.mean(s, metric) for s in systems]
            y = [ref[s] for s in systems]
            out["cells"] += [{"metric": metric, "discipline": disc, "system": s, "ours": a, "paper": b}
                             for s, a, b in zip(systems, x, y)]
            ours += x
            paper += y
            rhos.append(spearman(x, y) if len(systems) >= 3 else math.nan)
        if ours:
            valid = [r for r in rhos if not math.isnan(r)]
            out["stats"][metric] = {
                "spearman_all_cells": spearman(ours, paper), "mean_spearman_per_discipline":
                float(np.mean(valid)) if valid else None, "concordance_all_cells": concordance(ours, paper)[0],
                "mean_abs_diff": float(np.mean(np.abs(np.array(ours) - np.array(paper)))), "cells": len(ours)}
    for disc, board in sorted(run.boards.items()):
        for metric in ALIGN_COMPONENT_METRICS:
            values = [board.mean(s, metric) for s in board.systems]
            values = [v for v in values if v is not None]
            if len(values) >= 2 and np.ptp(values) == 0:
                out["constant_components"].append(f"{disc}: {metric} = {values[0]:.4f} for every system")
    return out


def table4_markdown(t4: dict | None) -> list[str]:
    if not t4:
        return []
    lines = ["## SurveyLens Table 4 reproduction", "",
             "Ours: RA-AlignF1 = mean over components of the per-topic F1, averaged over the discipline's "
             "topics; τ-MaxSim = mean over components of τ-MaxSim over the discipline's cross-topic unions "
             "(spec §3.3-3.4). The paper's τ-MaxSim values exceed 1 − τ, so they were probably rescaled; "
             "compare rankings (ρ) more than levels.", "",
             "| metric | cells | Spearman (all cells) | mean per-discipline Spearman | concordance | mean abs. diff |",
             "|---|---:|---:|---:|---:|---:|"]
    for metric, s in t4["stats"].items():
        lines.append(f"| {metric} | {s['cells']} | {_f(s['spearman_all_cells'])} | "
                     f"{_f(s['mean_spearman_per_discipline'])} | {_f(s['concordance_all_cells'], 3)} | "
                     f"{s['mean_abs_diff']:.3f} |")
    lines += ["", "Components constant across systems: "
              + ("; ".join(t4["constant_components"]) if t4["constant_components"] else "none."), "",
              "| discipline | system | metric | ours | paper |", "|---|---|---|---:|---:|"]
    lines += [f"| {markdown_cell(c['discipline'])} | {markdown_cell(c['system'])} | {c['metric']} | {c['ours']:.3f} | {c['paper']:.2f} |"
              for c in sorted(t4["cells"], key=lambda c: (c["metric"], c["discipline"], c["system"]))]
    return lines + [""]


def to_markdown(results: dict[str, dict], run: HarnessRun, meta: dict, t4: dict | None) -> str:
    disciplines = sorted(run.boards)
    lines = ["# Validity of the evaluation metrics", "",
             f"Command: `{meta.get('command', '')}`  ", f"Date: {meta.get('date', '')}; encoder: "
             f"{meta.get('encoder')}; τ: {meta.get('tau')}; bootstrap rounds: {meta.get('rounds')}.", "",
             f"{len(run.boards)} discipline(s) ({', '.join(disciplines)}); reference: {meta.get('reference')}; "
             f"labels: {meta.get('labels') or 'none'}.", ""]
    lines += [f"- {note}" for note in meta.get("notes", [])]
    in_sample = sorted(m for m in results if trained_on(m) & set(disciplines))
    if in_sample:
        lines.append(f"- in-sample: {', '.join(in_sample)} were fitted on these disciplines' reference scores, "
                     "so their ρ here is not a held-out figure (see the model's leave-one-discipline-out CV)")
    lines += ["", "ρ: Spearman between the systems' mean metric and the reference score of the metric's own "
              "component, per discipline, pooled = mean over disciplines; 95% CI: percentile bootstrap "
              "resampling topics within each discipline (disciplines, for metrics without per-topic values). "
              "Concordance: share of reference-ordered system pairs the metric orders the same way (0.5 = "
              "chance). Label acc.: agreement with the pairwise human outline labels (ties = 1/2). Rows "
              "of kind `baseline` are trivial counts; `baseline.label_outline_lines` is \"the outline "
              "with more lines wins\" on the labels' own outline text.", "",
              *main_table(results, disciplines), "", *table4_markdown(t4)]
    return "\n".join(lines) + "\n"


def trained_on(metric: str) -> set[str]:
    """Disciplines a learned metric was fitted on (the quality model's ``training_data``), so a
    validity measured on them is in-sample; empty for formula metrics."""
    if not metric.startswith("quality."):
        return set()
    from .quality.model import load_model

    try:
        return set(load_model()["training_data"]["disciplines"])
    except (UserError, KeyError, TypeError):
        return set()


def package_summary(results: dict[str, dict], meta: dict) -> dict:
    """The shipped summary the leaderboard reads (schema in the issue-9 brief); a learned metric
    validated on the disciplines it was fitted on is marked ``in_sample``."""
    validated = set(meta.get("disciplines", {}))
    metrics = {}
    for name in ordered(results):
        e = results[name]
        row = own_row(e) or {}
        acc = ((e.get("labels") or {}).get("pooled") or {}).get("accuracy")
        if row.get("rho") is None and acc is None:
            continue
        metrics[name] = {"component": e["component"], "rho": row.get("rho"),
                         "rho_ci": row.get("rho_ci", [None, None]), "concordance": row.get("concordance"),
                         "n_disciplines": row.get("n_disciplines", 0), "pairwise_accuracy": acc,
                         "in_sample": bool(trained_on(name) & validated)}
    return {"generated_by": meta.get("command", ""), "date": meta.get("date", ""),
            "encoder": meta.get("encoder", ""), "tau": meta.get("tau"), "metrics": metrics}


def write_outputs(results: dict[str, dict], run: HarnessRun, meta: dict, t4: dict | None, out_dir: Path,
                  *, write_package: bool = False) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    full = clean({"meta": meta, "metrics": results, "table4": t4})
    files = {"validity.md": to_markdown(results, run, meta, t4), "validity.csv": to_csv(results),
             "validity.json": json.dumps(full, indent=2, ensure_ascii=False, default=_json) + "\n"}
    paths = []
    for name, text in files.items():
        (out_dir / name).write_text(text, encoding="utf-8")
        paths.append(out_dir / name)
    if write_package:
        summary = clean(package_summary(results, meta))
        if not summary["metrics"]:
            raise UserError("no metric has a measured validity (no reference scores and no labels): "
                            "the package summary was not written")
        PACKAGE_VALIDITY.write_text(json.dumps(summary, indent=2, ensure_ascii=False, default=_json) + "\n",
                                    encoding="utf-8")
        paths.append(PACKAGE_VALIDITY)
    return paths


def clean(obj):
    """NaN -> None (JSON has no NaN), numpy scalars -> Python, recursively."""
    if isinstance(obj, dict):
        return {k: clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [clean(v) for v in obj]
    if isinstance(obj, (np.floating, np.integer)):
        obj = obj.item()
    if isinstance(obj, float) and math.isnan(obj):
        return None
    return obj


def _json(value):
    raise TypeError(f"not JSON serialisable: {type(value)}")


def now_utc() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
