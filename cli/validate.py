"""CLI commands: validate (how far each metric agrees with reference rankings and human labels)
and calibrate-tau (derive the encoder-specific alignment thresholds)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Optional

import typer

from ..errors import UserError
from .common import console, get_settings, out, progress_bar, split_list



def _progress(total: int, label: str):
    bar = progress_bar(transient=False)
    task = bar.add_task(label, total=total)

    def step(message: str) -> None:
        bar.update(task, advance=1, description=message[:60])
    return bar, step


def _command_line() -> str:
    """The command as typed, with any evaluation setting given through the environment."""
    import os

    env = [f"{k}={shlex.quote(v)}" for k, v in sorted(os.environ.items()) if k.startswith("SURVEYGRAPH_EVALUATION__")]
    return " ".join([*env, "surveygraph", *(shlex.quote(a) for a in sys.argv[1:])])


def _print_table(results: dict, disciplines: list[str]) -> None:
    from rich.console import Console
    from rich.table import Table

    from ..evaluation.validity_report import NOTHING_MEASURED, _acc, _ci, _f, anything_measured, ordered, own_row

    if not anything_measured(results):
        out.print(NOTHING_MEASURED, highlight=False)
        return
    table = Table(title="Validity: agreement with the reference ranking (ρ, concordance) and human labels")
    for col in ("metric", "kind", "comp.", "ρ", "95% CI", "conc.", *[d[:4] for d in disciplines], "acc."):
        table.add_column(col, justify="left" if col in ("metric", "kind", "comp.") else "right")
    for name in ordered(results):
        e = results[name]
        row = own_row(e)
        block = e["by_component"].get(e["component"]) or e["by_component"].get("overall") or {}
        per = [_f(block.get("disciplines", {}).get(d, {}).get("rho")) for d in disciplines]
        table.add_row(name, e["kind"], e["component"], _f(row and row["rho"]), _ci(row and row["rho_ci"]),
                      _f(row and row["concordance"], 3), *per, _acc(e)[0])
    # Redirected to a file, Rich would squeeze the 13 columns into 80 and cut every name.
    wide = out if out.is_terminal else Console(width=200, no_color=True)
    wide.print(table)


def validate_command(
    ctx: typer.Context,
    root: Path = typer.Argument(..., help="Folder with one sub-folder per system, files <discipline>__<topic>.md."),
    human_dir: Path = typer.Option(..., "--human-dir", help="Human surveys, file names matching the systems' files."),
    reference_scores: Optional[Path] = typer.Option(None, "--reference-scores", help="CSV table,system,discipline,value (default: SurveyLens Tables 2, 4, 16-18 shipped with the package)."),
    labels: Optional[Path] = typer.Option(None, "--labels", help="Pairwise human labels JSONL (meta-eval format, optional discipline field)."),
    judges: Optional[str] = typer.Option(None, "--judges", help="Comma list of LLM judges to validate too (sam, sgsim, surveylens, checklist)."),
    judge_llm: Optional[str] = typer.Option(None, "--judge-llm", help="Judge model: local, gguf:PATH or provider:model."),
    metrics: Optional[str] = typer.Option(None, "--metrics", help="Comma list of metric families: structure, integrity, alignment, sgsim, quality (default: all with inputs)."),
    systems: Optional[str] = typer.Option(None, "--systems", help="Comma list of system folders (default: all)."),
    disciplines: Optional[str] = typer.Option(None, "--disciplines", help="Comma list of disciplines (file-stem prefixes; default: all)."),
    max_topics: Optional[int] = typer.Option(None, "--max-topics", min=2, help="Use only the first N topics per discipline (quick iterations)."),
    out_dir: Path = typer.Option(Path("validity"), "--out", help="Output folder for validity.{md,csv,json}."),
    force: bool = typer.Option(False, "--force", help="Write into a non-empty --out folder."),
    bootstrap: int = typer.Option(1000, "--bootstrap", min=10, help="Bootstrap rounds for the intervals."),
    seed: int = typer.Option(0, "--seed", help="Bootstrap seed."),
    tau_mode: Optional[str] = typer.Option(None, "--tau-mode", help="calibrated (encoder-specific τ, default) or paper (τ = evaluation.tau, 0.95)."),
    write_package_validity: bool = typer.Option(False, "--write-package-validity", help="Also replace the package's evaluation/data/validity.json (maintainers)."),
) -> None:
    """Measure how far every leaderboard metric (and selected judges) can be trusted."""
    from ..evaluation import validity as V
    from ..evaluation import validity_report as R

    from ..evaluation.scoring import FAMILIES

    allowed = tuple(f for f in FAMILIES if f not in ("coverage", "judges"))  # coverage needs bench refs
    families = split_list(metrics, allowed, "metric family")
    if tau_mode not in (None, "calibrated", "paper"):
        raise UserError(f"--tau-mode must be calibrated or paper, not {tau_mode!r}")
    if labels is not None and not labels.is_file():
        raise UserError(f"labels file not found: {labels}")
    if out_dir.exists() and not out_dir.is_dir():
        raise UserError(f"--out is a file, not a folder: {out_dir}")
    if out_dir.is_dir() and any(out_dir.iterdir()) and not force:
        raise UserError(f"{out_dir} is not empty; pass --force to write into it")
    reference = V.load_reference_scores(reference_scores or V.REFERENCE_CSV)
    settings = get_settings(ctx, **{"evaluation.tau_mode": tau_mode, "llm.judge": judge_llm})
    judge_names = split_list(judges) or []
    system_list, disc_list = split_list(systems), split_list(disciplines)
    parts = V.split_by_discipline(V.discover(root, human_dir, systems=system_list), max_topics, disc_list)
    first = next(iter(parts.values()))
    notes = V.check_reference_overlap(reference, first.systems, list(parts), explicit=reference_scores is not None)
    n_surveys = sum(len(p.system_files) for p in parts.values())
    console.print(f"{len(first.systems)} systems × {len(parts)} discipline(s) "
                  f"({', '.join(f'{d} {len(p.topics)}' for d, p in parts.items())} topics): {n_surveys} surveys",
                  highlight=False)
    for note in notes:
        console.print(f"[yellow]note:[/] {note}", highlight=False)
    if judge_names:
        from .evaluate import _print_judge_estimate

        _print_judge_estimate(n_surveys + sum(len(p.topics) for p in parts.values()), judge_names, settings)
    total = V.planned_steps(parts)
    bar, step = _progress(total, "validate")
    with bar:
        run = V.run_harness(root, human_dir, settings, systems=system_list, disciplines=disc_list,
                            max_topics=max_topics, judges=judge_names, metrics=families, on_step=step)
    label_rows = None
    if labels is not None:
        label_rows, unmatched = V.read_labels(labels, run)
        notes.append(f"labels: {len(label_rows)} of {len(label_rows) + unmatched} rows match a scored topic")
        if not label_rows:
            raise UserError(f"no label row of {labels} names a scored topic (topic or discipline__topic)")
    with console.status("bootstrapping"):
        results = V.measure(run, reference, label_rows,
                            rounds=bootstrap, seed=seed)
    from ..evaluation.calibration import tau_summary

    meta = {"command": _command_line(), "date": R.now_utc(), "encoder": settings.evaluation.embedding_model,
            "tau_mode": settings.evaluation.tau_mode, "tau": tau_summary(settings.evaluation),
            "rounds": bootstrap, "seed": seed, "reference": str(reference.path.name),
            "labels": str(labels) if labels else None, "notes": notes,
            "disciplines": {d: len(b.topics) for d, b in run.boards.items()}, "systems": first.systems}
    t4 = R.table4(run, reference)
    _print_table(results, sorted(run.boards))
    paths = R.write_outputs(results, run, meta, t4, out_dir, write_package=write_package_validity)
    if t4:
        for metric, s in t4["stats"].items():
            out.print(f"Table 4 {metric}: Spearman {s['spearman_all_cells']:+.2f} over {s['cells']} cells, "
                      f"mean abs. diff {s['mean_abs_diff']:.3f}", highlight=False)
    console.print("wrote " + ", ".join(str(p) for p in paths), highlight=False)


def calibrate_tau_command(
    ctx: typer.Context,
    root: Path = typer.Argument(..., help="Folder with one sub-folder per system (as for validate / leaderboard)."),
    human_dir: Path = typer.Option(..., "--human-dir", help="Human surveys, file names matching the systems' files."),
    encoder: str = typer.Option("minilm", "--encoder", help="Encoder to calibrate (minilm, minilm-static, or a model name)."),
    out_file: Optional[Path] = typer.Option(None, "--out", help="Calibration JSON (default: the package's evaluation/data/calibration/<encoder>.json)."),
    force: bool = typer.Option(False, "--force", help="Replace an existing calibration file."),
    false_match_rate: float = typer.Option(0.01, "--false-match-rate", help="α: share of unrelated-topic entries allowed above τ."),
    systems: Optional[str] = typer.Option(None, "--systems", help="Comma list of system folders (default: all)."),
    max_topics: Optional[int] = typer.Option(None, "--max-topics", min=1, help="Use only the first N topics per discipline."),
) -> None:
    """Derive per-component alignment thresholds τ for an encoder from same- vs unrelated-topic pairs."""
    from ..evaluation import calibration as C
    from ..evaluation.validity import LeaderboardInputs, discipline_of, discover, split_by_discipline

    if not 0.0 < false_match_rate < 0.5:
        raise UserError("--false-match-rate must be in (0, 0.5)")
    target = out_file or C.calibration_path(encoder)
    if target.exists() and not force:
        raise UserError(f"{target} exists; pass --force to replace it")
    inputs = discover(root, human_dir, systems=split_list(systems))
    if max_topics is not None:  # the same first-N-per-discipline subset as validate --max-topics
        parts = split_by_discipline(inputs, max_topics).values()
        inputs = LeaderboardInputs(
            systems=inputs.systems, topics=[t for p in parts for t in p.topics],
            human_files={t: f for p in parts for t, f in p.human_files.items()},
            system_files={k: f for p in parts for k, f in p.system_files.items()})
    settings = get_settings(ctx)
    bar, step = _progress(len(inputs.system_files), f"calibrating {encoder}")
    with bar:
        data = C.calibrate(inputs, settings, encoder=encoder, discipline_of=discipline_of,
                           false_match_rate=false_match_rate, on_step=step, command=_command_line())
    C.write_calibration(data, target, force=force)
    for comp, block in data["components"].items():
        out.print(f"{comp:9s} τ = {block['tau']:.4f}  same-topic hit rate {block['hit_rate_same_topic']:.3f} "
                  f"(at 0.95: {block['hit_rate_same_topic_at_paper_tau']:.3f}), unrelated "
                  f"{block['hit_rate_unrelated']:.3f}; medians same {block['same_topic_quantiles']['0.5']:.3f} / "
                  f"unrelated {block['unrelated_quantiles']['0.5']:.3f}", highlight=False)
    console.print(f"wrote {target}")


def register(app: typer.Typer) -> None:
    """Add this module's commands to the main app."""
    app.command("validate")(validate_command)
    app.command("calibrate-tau")(calibrate_tau_command)
