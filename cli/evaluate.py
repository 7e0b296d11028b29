"""CLI commands: evaluate (one draft) and leaderboard (systems × topics against human surveys)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from ..errors import UserError
from ..settings import check_output_folder
from .common import JUDGE_LLM_HELP, console, get_settings, out, progress_bar, split_list

METRIC_FAMILIES = ("structure", "integrity", "coverage", "alignment", "sgsim", "quality")
FORMATS = ("json", "md", "html")


def _settings(ctx: typer.Context, tau, lam, sim_mode, rescale, judge_llm=None):
    # τ's range is the setting's (evaluation.tau, the one rule of the CLI, the Python API and the
    # server). An explicit --tau is a fixed threshold: it replaces the encoder-calibrated τ.
    return get_settings(ctx, **{"evaluation.tau": tau, "evaluation.lam": lam,
                                "evaluation.tau_mode": "paper" if tau is not None else None,
                                "evaluation.sim_mode": sim_mode, "evaluation.rescale_maxsim": rescale,
                                "llm.judge": judge_llm})




def _print_judge_estimate(n_surveys: int, judges: list[str], settings) -> None:
    from ..evaluation.judges import estimate_judge_cost

    est = estimate_judge_cost(n_surveys, judges, settings)
    console.print(
        f"judges {', '.join(judges)} on {n_surveys} survey(s) with {est['judge_model']}: "
        f"~{est['calls']} calls, ~{est['input_tokens']:,} input + ~{est['output_tokens']:,} output tokens"
        + (f", ~${est['usd']:.2f}" if isinstance(est.get("usd"), (int, float)) else "")
        + f" ({est['note']})", highlight=False)


def _judgment_progress(status, name: str):
    """Judge calls take seconds to a minute each with the local model: count them on the spinner,
    or every tenth as a line when the output is not a terminal (logs)."""
    count = 0

    def tick(node: str) -> None:
        nonlocal count
        count += 1
        status.update(f"evaluating {name}: {count} judge calls, last {node}")
        if not console.is_terminal and count % 10 == 0:
            console.print(f"{count} judge calls done (last {node})", highlight=False)
    return tick




def evaluate_command(
    ctx: typer.Context,
    draft: Path = typer.Argument(..., help="Survey to score (.md, .txt, .tex, .pdf, .json or a run folder)."),
    human: Optional[Path] = typer.Option(None, "--human", help="Human-written survey of the same topic (enables alignment and sgsim)."),
    bench_refs: Optional[Path] = typer.Option(None, "--bench-refs", help="Benchmark reference set (.json/.jsonl/.bib/.md) for SAM-R coverage."),
    metrics: Optional[str] = typer.Option(None, "--metrics", help=f"Comma list of metric families: {','.join(METRIC_FAMILIES)} (default: every family whose inputs are given)."),
    judges: Optional[str] = typer.Option(None, "--judges", help="Comma list of LLM judges (sam, sgsim, surveylens, checklist)."),
    judge_llm: Optional[str] = typer.Option(None, "--judge-llm", help=JUDGE_LLM_HELP),
    fmt: str = typer.Option("json", "--format", help="Report format: json, md or html."),
    out_file: Optional[Path] = typer.Option(None, "--out", help="Write the report here instead of stdout."),
    force: bool = typer.Option(False, "--force", help="Overwrite an existing --out file."),
    topic: Optional[str] = typer.Option(None, "--topic", help="Topic label (default: the survey's own, else the file name, else its title when the file name is generic like survey.md)."),
    tau: Optional[float] = typer.Option(None, "--tau", help="Fixed alignment threshold τ for every component (default: the encoder-calibrated τ; 0.95 = SurveyLens)."),
    lam: Optional[float] = typer.Option(None, "--lam", help="Redundancy strength λ of RA-AlignF1 (default 1.0)."),
    sim_mode: Optional[str] = typer.Option(None, "--sim-mode", help="cosine (paper) or chroma_l2 (2cos-1, SGSimEval's code); default cosine."),
    rescale_maxsim: Optional[bool] = typer.Option(None, "--rescale-maxsim/--no-rescale-maxsim", help="Divide τ-MaxSim by (1-τ)."),
) -> None:
    """Score one survey draft: structure, citation integrity, coverage, alignment, similarity, judges."""
    from ..evaluation.inputs import read_survey
    from ..evaluation.parsers import default_topic
    from ..evaluation.report import render_report
    from ..evaluation.scoring import evaluate_survey

    if fmt not in FORMATS:
        raise UserError(f"unknown --format {fmt!r} (use json, md or html)")
    families = split_list(metrics, METRIC_FAMILIES, "metric family")
    judge_names = split_list(judges) or []
    if families:
        needs = {"alignment": human, "sgsim": human, "coverage": bench_refs}
        flag = {"alignment": "--human", "sgsim": "--human", "coverage": "--bench-refs"}
        missing = [f for f in families if f in needs and needs[f] is None]
        if missing:
            raise UserError(f"{', '.join(missing)} need(s) {flag[missing[0]]}")
    for label, path in (("DRAFT", draft), ("--human", human), ("--bench-refs", bench_refs)):
        if path is not None and not path.exists():
            raise UserError(f"{label} not found: {path}")
    if out_file is not None and out_file.exists() and not force:
        raise UserError(f"{out_file} exists; pass --force to overwrite it")
    settings = _settings(ctx, tau, lam, sim_mode, rescale_maxsim, judge_llm)
    if judge_names:
        _print_judge_estimate(1 + (human is not None), judge_names, settings)
    survey = read_survey(draft, "DRAFT")
    survey.topic = topic or default_topic(survey, draft)
    human_survey = read_survey(human, "--human") if human is not None else None
    if human_survey is not None:
        human_survey.topic = survey.topic
    with console.status(f"evaluating {draft.name}") as status:
        report = evaluate_survey(survey, settings, human=human_survey, bench_refs=bench_refs,
                                 judges=judge_names, metrics=families,
                                 on_judgment=_judgment_progress(status, draft.name))
    report.survey = str(draft)
    text = render_report(report, fmt)  # type: ignore[arg-type]
    if out_file is None:
        out.print(text, end="", markup=False, highlight=False, soft_wrap=True)
    else:
        out_file.parent.mkdir(parents=True, exist_ok=True)
        out_file.write_text(text, encoding="utf-8")
        console.print(f"wrote {out_file}")
    for warning in report.warnings:
        console.print(f"[yellow]warning:[/] {warning}", highlight=False)


def leaderboard_command(
    ctx: typer.Context,
    root: Path = typer.Argument(..., help="Folder with one sub-folder per system, one file per topic."),
    human_dir: Path = typer.Option(..., "--human-dir", help="Human surveys, file names matching the systems' files."),
    out_dir: Path = typer.Option(..., "--out", help="Output folder for leaderboard.{md,csv,json} and report.html."),
    bench_refs_dir: Optional[Path] = typer.Option(None, "--bench-refs-dir", help="Folder of <topic>_bench.json reference sets (adds SAM-R)."),
    systems: Optional[str] = typer.Option(None, "--systems", help="Comma list of system folders (default: all)."),
    topics: Optional[str] = typer.Option(None, "--topics", help="Comma list of topics (file stems; default: all shared)."),
    metrics: Optional[str] = typer.Option(None, "--metrics", help=f"Comma list of metric families: {','.join(METRIC_FAMILIES)}."),
    judges: Optional[str] = typer.Option(None, "--judges", help="Comma list of LLM judges (costly: an estimate is printed first)."),
    judge_llm: Optional[str] = typer.Option(None, "--judge-llm", help=JUDGE_LLM_HELP),
    force: bool = typer.Option(False, "--force", help="Write into a non-empty --out folder."),
    tau: Optional[float] = typer.Option(None, "--tau", help="Fixed alignment threshold τ for every component (default: the encoder-calibrated τ; 0.95 = SurveyLens)."),
    lam: Optional[float] = typer.Option(None, "--lam", help="Redundancy strength λ of RA-AlignF1 (default 1.0)."),
    sim_mode: Optional[str] = typer.Option(None, "--sim-mode", help="cosine or chroma_l2 (default cosine)."),
    rescale_maxsim: Optional[bool] = typer.Option(None, "--rescale-maxsim/--no-rescale-maxsim", help="Divide τ-MaxSim by (1-τ)."),
    rank_by: str = typer.Option("quality", "--rank-by", help="quality (mean quality.overall, the validated offline score) or alignment (mean rank of the reference-alignment metrics)."),
) -> None:
    """Rank systems: score every system's survey per topic against the human survey."""

    from ..evaluation.leaderboard import discover, run_leaderboard, write_leaderboard

    families = split_list(metrics, METRIC_FAMILIES, "metric family")
    if families and "coverage" in families and bench_refs_dir is None:
        raise UserError("coverage needs --bench-refs-dir")
    if rank_by not in ("quality", "alignment"):
        raise UserError(f"unknown --rank-by {rank_by!r} (use quality or alignment)")
    if rank_by == "quality" and families and "quality" not in families:
        families = [*families, "quality"]  # the ranking needs it; it is fast and needs no model
    check_output_folder(out_dir, force, "--out", "--force")
    inputs = discover(root, human_dir, systems=split_list(systems), topics=split_list(topics),
                      bench_refs_dir=bench_refs_dir)
    settings = _settings(ctx, tau, lam, sim_mode, rescale_maxsim, judge_llm)
    judge_names = split_list(judges) or []
    n_surveys = len(inputs.system_files)
    console.print(f"{len(inputs.systems)} systems ({', '.join(inputs.systems)}) × {len(inputs.topics)} topics: "
                  f"{n_surveys} surveys; bench refs for {len(inputs.bench_files)} topic(s)", highlight=False)
    if judge_names:
        _print_judge_estimate(n_surveys + len(inputs.topics), judge_names, settings)
    steps = len(inputs.topics) * len(inputs.systems) + 1
    with progress_bar(transient=False) as progress:
        task = progress.add_task("leaderboard", total=steps)

        current = {"survey": "", "judged": 0}

        def on_step(message: str) -> None:
            current["survey"] = message[:50]
            progress.update(task, advance=1, description=current["survey"])

        def on_judgment(node: str) -> None:
            current["judged"] += 1
            progress.update(task, description=f"{current['survey']} · {current['judged']} judge calls")

        board = run_leaderboard(inputs, settings, judges=judge_names, metrics=families, rank_by=rank_by,
                                on_step=on_step, on_judgment=on_judgment)
        progress.update(task, completed=steps, description="done")
    paths = write_leaderboard(board, out_dir)
    ranks = board.mean_ranks()
    for i, system in enumerate(board.ranking, 1):
        if board.ranks_by_quality():
            ci, mean = board.interval(system, "quality.overall"), board.mean(system, "quality.overall")
            shown = ("quality.overall n/a: no survey of this system was scored" if mean is None else
                     f"quality.overall {mean:.2f}" + (f" [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else ""))
        else:
            shown = f"mean alignment rank {ranks[system]:.2f}"
        out.print(f"{i}. {system}  ({shown})", highlight=False, markup=False)  # a folder name, printed as spelled
    console.print("wrote " + ", ".join(str(p) for p in paths), highlight=False)


def register(app: typer.Typer) -> None:
    """Add this module's commands to the main app."""
    app.command("evaluate")(evaluate_command)
    app.command("leaderboard")(leaderboard_command)
