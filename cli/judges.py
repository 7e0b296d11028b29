"""CLI commands for the LLM judges: arena, meta-eval, rubrics build/preferences/weights, checklist generate/score."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Optional

import typer

from ..errors import UserError
from .common import JUDGE_LLM_HELP, console, get_settings, out, progress_bar, split_list

rubrics_app = typer.Typer(help="Build SurveyLens discipline rubrics and learn their aspect weights.",
                          no_args_is_help=True)
checklist_app = typer.Typer(help="DeepSynth-Eval checklists: generate from a human survey, score drafts.",
                            no_args_is_help=True)


def _progress(total: int, label: str):
    bar = progress_bar(transient=False)
    task = bar.add_task(label, total=total)
    return bar, (lambda *_: bar.advance(task))


def _show_cost(calls: int, input_tokens: int, output_tokens: int, model: str) -> None:
    console.print(f"judge: {model} — about {calls} calls, {input_tokens:,} input and "
                  f"{output_tokens:,} output tokens")


def _judge(ctx: typer.Context, log: Optional[Path], batch: str, judge_model: Optional[str]):
    from ..evaluation.judges.base import make_judge

    settings = get_settings(ctx, **{"llm.judge": judge_model})
    return settings, make_judge(settings, log_path=log, batch=batch)


def arena(
    ctx: typer.Context,
    root: Path = typer.Argument(..., help="Folder with one sub-folder of <topic>.md drafts per system."),
    human_dir: Optional[Path] = typer.Option(None, "--human-dir", help="Human surveys <topic>.md (player 'human')."),
    topics: Optional[str] = typer.Option(None, "--topics", help="Comma-separated topics (file stems)."),
    systems: Optional[str] = typer.Option(None, "--systems", help="Comma-separated system folders."),
    battles_per_pair: int = typer.Option(1, "--battles-per-pair", min=1, help="Battles per pair and topic (orders alternate)."),
    seed: int = typer.Option(0, "--seed", help="Seed for pairing order and bootstrap."),
    max_battles: Optional[int] = typer.Option(None, "--max-battles", min=1, help="Judge only a random subset of this many battles."),
    bootstrap: int = typer.Option(200, "--bootstrap", min=10, help="Bootstrap rounds for the intervals."),
    log: Optional[Path] = typer.Option(None, "--log", help="Judgment log JSONL (default <home>/judgments/arena.jsonl)."),
    out_dir: Optional[Path] = typer.Option(None, "--out", help="Output folder (default <home>/arena/<time>)."),
    judge_model: Optional[str] = typer.Option(None, "--judge-llm", help=JUDGE_LLM_HELP),
    judge_alias: Optional[str] = typer.Option(None, "--judge", hidden=True),  # old name
) -> None:
    """Battle systems (human included) on shared topics and rate them per dimension D1-D5."""
    judge_model = judge_model or judge_alias
    from rich.table import Table

    from ..evaluation import arena as A
    drafts = A.discover_drafts(root, human_dir, split_list(topics), split_list(systems))
    battles = A.build_battles(drafts, battles_per_pair, seed)[:max_battles]  # already shuffled
    settings, judge = _judge(ctx, log, "arena", judge_model)
    per_call = judge.budget + 700  # both drafts are trimmed to share the judge's input budget
    _show_cost(len(battles), len(battles) * per_call, len(battles) * 80, judge.model_spec)
    console.print(f"{len(drafts)} topics, {len(battles)} battles; log: {judge.log.path}")
    bar, tick = _progress(len(battles), "arena battles")
    with bar:
        A.judge_battles(battles, drafts, judge, progress=tick)
    failed = sum(1 for b in battles if not b.outcomes)
    if failed == len(battles):
        raise UserError("every battle failed to get a verdict; see the log for the judge's errors")
    table = A.ratings([b for b in battles if b.outcomes], rounds=bootstrap, seed=seed)
    table.update({"topics": list(drafts), "battles": len(battles), "failed": failed,
                  "judge": judge.model_spec, "seed": seed})
    target = out_dir or settings.home / "arena" / datetime.now().strftime("%Y%m%d-%H%M%S")
    paths = A.write_outputs(target, battles, table)
    for dim, block in table["dimensions"].items():
        t = Table(title=f"{dim} {block['name']} ({block['battles']} battles)")
        for col in ("player", "BT Elo", "95% CI", "online Elo"):
            t.add_column(col, justify="left" if col == "player" else "right")
        for p, r in sorted(block["ratings"].items(), key=lambda kv: -kv[1]["bt_elo"]):
            t.add_row(p, f"{r['bt_elo']:.0f}", f"[{r['ci_low']:.0f}, {r['ci_high']:.0f}]", f"{r['online_elo']:.0f}")
        out.print(t)
        share = block["position_a_share"]
        if share is not None and block["battles"] >= 6 and abs(share - 0.5) >= 0.3:
            out.print(f"  [yellow]position bias: the judge chose draft A in {share:.0%} of decisive verdicts[/]")
        wr = block["win_rate_vs_human"]
        if wr["decisive"]:
            out.print(f"  systems' decisive win rate vs human: {wr['wins']}/{wr['decisive']} = {wr['rate']:.1%}")
    if failed:
        console.print(f"[yellow]{failed} battles had no verdict (judge failed); left out of the ratings[/]")
    console.print("wrote " + ", ".join(str(p) for p in paths))


def meta_eval(
    ctx: typer.Context,
    labels: Path = typer.Argument(..., help="JSONL of {topic, system_a, system_b, choice: a|b|tie}, or an arena battles.jsonl."),
    metric: str = typer.Option(..., "--metric", help="Metric name, e.g. sam_o or surveylens.overall."),
    scores: Optional[Path] = typer.Option(None, "--scores", help="CSV topic,system,score (or a column named after the metric) or JSON/JSONL rows."),
    leaderboard_json: Optional[Path] = typer.Option(None, "--leaderboard-json", help="leaderboard.json from `surveygraph leaderboard`."),
    bootstrap: int = typer.Option(1000, "--bootstrap", min=10, help="Bootstrap rounds."),
    seed: int = typer.Option(0, "--seed"),
    as_json: bool = typer.Option(False, "--json", help="Print the full result as JSON."),
    dimension: str = typer.Option("D5", "--dimension", help="With arena battles as labels: D1-D5 (default D5, overall)."),
) -> None:
    """Agreement of a metric with pairwise human labels: accuracy, Spearman, Kendall (+ CIs)."""
    from ..evaluation.meta_eval import load_labels, load_scores, meta_evaluate

    if (scores is None) == (leaderboard_json is None):
        raise UserError("give exactly one of --scores FILE or --leaderboard-json FILE")
    if dimension not in ("D1", "D2", "D3", "D4", "D5"):
        raise UserError(f"--dimension must be D1-D5, not {dimension!r}")
    if not labels.is_file():
        raise UserError(f"labels file not found: {labels}")
    rows = load_labels(labels, dimension)
    result = meta_evaluate(rows, load_scores(scores or leaderboard_json, metric), rounds=bootstrap, seed=seed)
    result["metric"] = metric
    if as_json:
        out.print_json(json.dumps(result))
        return
    out.print(f"metric {metric}: {result['pairs']} of {result['labels']} labelled pairs scored, "
              f"{result['systems']} systems")
    for key in ("accuracy", "spearman", "kendall"):
        r = result[key]
        value = "n/a" if r["value"] is None else f"{r['value']:.3f}"
        ci = "" if r["ci_low"] is None else f"  95% CI [{r['ci_low']:.3f}, {r['ci_high']:.3f}]"
        out.print(f"  {key:9s} {value}{ci}")


@rubrics_app.command("build")
def rubrics_build(
    ctx: typer.Context,
    human_dir: Path = typer.Option(..., "--human-dir", help="Folder of human surveys (.md, .json, ...)."),
    discipline: str = typer.Option("cs", "--discipline", help="Discipline id used in the file name."),
    limit: Optional[int] = typer.Option(None, "--limit", min=1, help="Use only the first N surveys."),
    n: int = typer.Option(5, "--criteria", min=1, max=10, help="Criteria per aspect."),
    out_path: Optional[Path] = typer.Option(None, "--out", help="Rubric file (default: next <discipline>.v<N>.json)."),
    log: Optional[Path] = typer.Option(None, "--log", help="Judgment log JSONL (resume)."),
    judge_model: Optional[str] = typer.Option(None, "--judge-llm", help=JUDGE_LLM_HELP),
    judge_alias: Optional[str] = typer.Option(None, "--judge", hidden=True),  # old name
) -> None:
    """Expand the 11 SurveyLens aspects per human survey and merge them per discipline."""
    judge_model = judge_model or judge_alias
    from ..evaluation.judges import surveylens as SL
    from ..evaluation.parsers import parse_survey

    if not human_dir.is_dir():
        raise UserError(f"human directory not found: {human_dir}")
    files = sorted(p for p in human_dir.iterdir() if p.suffix.lower() in {".md", ".markdown", ".json"}
                   and p.name != "outlines.json")[:limit]
    if not files:
        raise UserError(f"no survey files in {human_dir}")
    target = out_path or SL.next_rubric_path(discipline)
    if target.exists():
        raise UserError(f"{target} exists; rubrics are versioned, choose another --out")
    humans = [parse_survey(p, topic=p.stem) for p in files]
    settings, judge = _judge(ctx, log, f"rubrics-{discipline}", judge_model)
    calls = len(humans) * 11 + 11
    _show_cost(calls, calls * (judge.budget + 500), calls * 400, judge.model_spec)
    bar, tick = _progress(calls - 11, "expanding aspects")
    with bar:
        rubric = SL.build_rubric(humans, discipline, judge, n=n, progress=tick)
    quality = rubric["quality"]
    if not any(a["criteria"] for comp in rubric["components"].values() for a in comp.values()):
        raise UserError(f"the judge ({judge.model_spec}) wrote no usable criterion ({quality['dropped_criteria']} "
                        f"dropped, {quality['failed_calls']} failed calls), so no rubric was written; "
                        "use a stronger judge (--judge-llm provider:model)")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(rubric, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    out.print(f"wrote {target} ({quality['dropped_criteria']} unusable criteria dropped, "
              f"{quality['merge_fallbacks']} merge fallbacks, {quality['failed_calls']} failed calls)")


@rubrics_app.command("weights")
def rubrics_weights(
    rubric_path: Path = typer.Argument(..., help="Rubric JSON to learn weights for."),
    prefs: Path = typer.Option(..., "--prefs", help="JSONL {component, winner: {aspect: score}, loser: {...}}."),
    out_path: Path = typer.Option(..., "--out", help="Where to write the rubric with weights (new file)."),
    alpha: float = typer.Option(0.01, "--alpha", min=0.0, help="L2 strength."),
) -> None:
    """Learn Bradley–Terry aspect weights per component from pairwise preferences."""
    from ..evaluation.judges import surveylens as SL

    if out_path.exists():
        raise UserError(f"{out_path} exists; choose a new file")
    rubric = SL.load_rubric("", path=rubric_path)
    from ..evaluation.jsonl import read_jsonl

    rows = [row for _, row in read_jsonl(prefs, "preferences")]
    rubric.pop("path", None)
    learned = SL.learn_weights(rubric, rows, alpha=alpha)
    out_path.write_text(json.dumps(learned, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    for comp, w in learned["weights"].items():
        out.print(f"{comp} ({learned['weights_pairs'][comp]} pairs): " +
                  ", ".join(f"{a} {v:.3f}" for a, v in w.items()))
    out.print(f"wrote {out_path}")


@rubrics_app.command("preferences")
def rubrics_preferences(
    ctx: typer.Context,
    root: Path = typer.Argument(..., help="Folder with one sub-folder of <topic>.md surveys per system."),
    component: str = typer.Option(..., "--component", help="outline, content or reference."),
    human_dir: Optional[Path] = typer.Option(None, "--human-dir", help="Human surveys <topic>.md (player 'human')."),
    systems: Optional[str] = typer.Option(None, "--systems", help="Comma-separated system folders."),
    topics: Optional[str] = typer.Option(None, "--topics", help="Comma-separated topics (file stems)."),
    discipline: str = typer.Option("cs", "--discipline", help="Discipline (prompt category, default rubric)."),
    rubric_path: Optional[Path] = typer.Option(None, "--rubric", help="Rubric JSON for the aspect scores (default: newest <discipline>.v<N>.json)."),
    out_path: Optional[Path] = typer.Option(None, "--out", help="Preferences JSONL to write (new file; default <home>/preferences/<component>-<time>.jsonl)."),
    log: Optional[Path] = typer.Option(None, "--log", help="Judgment log JSONL (default <home>/judgments/preferences.jsonl; resume)."),
    judge_model: Optional[str] = typer.Option(None, "--judge-llm", help=JUDGE_LLM_HELP),
    judge_alias: Optional[str] = typer.Option(None, "--judge", hidden=True),  # old name
) -> None:
    """LLM-proxy preferences for `rubrics weights`: every pair of surveys on a topic, both A/B orders."""
    judge_model = judge_model or judge_alias
    from ..evaluation import arena as A
    from ..evaluation.judges import preferences as P
    from ..evaluation.judges import surveylens as SL
    from ..evaluation.parsers import parse_survey

    if component not in SL.COMPONENTS:
        raise UserError(f"--component must be one of {', '.join(SL.COMPONENTS)}, not {component!r}")
    if out_path is not None and out_path.exists():
        raise UserError(f"{out_path} exists; choose a new file")
    rubric = SL.load_rubric(discipline, path=rubric_path)
    drafts = A.discover_drafts(root, human_dir, split_list(topics), split_list(systems))
    surveys = {t: {p: parse_survey(path, system=p, topic=t) for p, path in players.items()}
               for t, players in drafts.items()}
    settings, judge = _judge(ctx, log, "preferences", judge_model)
    target = out_path or settings.home / "preferences" / f"{component}-{datetime.now():%Y%m%d-%H%M%S}.jsonl"
    if target.exists():
        raise UserError(f"{target} exists; choose a new file")
    calls = P.count_calls(surveys, judge.runs)
    total = calls["scoring"] + calls["preferences"]
    _show_cost(total, total * (judge.budget + 600), calls["scoring"] * 300 + calls["preferences"] * 40,
               judge.model_spec)
    console.print(f"{len(surveys)} topics, {calls['surveys']} surveys: {calls['scoring']} aspect-scoring calls "
                  f"+ {calls['preferences']} preference calls (each pair in both orders); "
                  f"rubric: {(rubric or {}).get('path', 'none (universal aspects only)')}; log: {judge.log.path}")
    bar, tick = _progress(calls["surveys"] + calls["preferences"], f"{component} preferences")
    with bar:
        scores = P.score_aspects(surveys, component=component, judge=judge, rubric=rubric,
                                 discipline=discipline, progress=tick)
        judgments = P.judge_pairs(surveys, component=component, judge=judge, discipline=discipline,
                                  only=set(scores), progress=tick)
    rows = P.preference_rows(judgments, component, scores, judge.model_spec)
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("x", encoding="utf-8") as fh:
        fh.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    s = P.summarize(judgments)
    unscored = calls["surveys"] - len(scores)
    out.print(f"{len(rows)} preference rows from {s['calls']} verdicts: {s['decisive']} decisive, "
              f"{s['ties']} ties (dropped), {s['failed']} failed"
              + (f"; {unscored} surveys without complete aspect scores left out" if unscored else ""))
    if s["pairs_both_decisive"]:
        out.print(f"  same winner in both orders: {s['pairs_consistent']}/{s['pairs_both_decisive']} pairs; "
                  f"position A chosen in {s['position_a_share']:.0%} of decisive verdicts")
    if not rows:
        console.print("[yellow]no preference rows: `rubrics weights` would keep equal weights[/]")
    out.print(f"wrote {target}")


@checklist_app.command("generate")
def checklist_generate(
    ctx: typer.Context,
    human: Path = typer.Argument(..., help="Human survey (Markdown or any parse_survey format)."),
    out_path: Path = typer.Option(..., "--out", help="Task JSONL to write (DeepSynth-Eval format)."),
    topic: Optional[str] = typer.Option(None, "--topic", help="Topic (default: the file name)."),
    general_groups: int = typer.Option(4, "--general-groups", min=1),
    constraint_groups: int = typer.Option(1, "--constraint-groups", min=0),
    construction: Optional[str] = typer.Option(
        None, "--construction",
        help="auto (judge writes groups, extractive fallback), llm, or extractive (no model). "
             "Default: evaluation.checklist_construction."),
    log: Optional[Path] = typer.Option(None, "--log"),
    judge_model: Optional[str] = typer.Option(None, "--judge-llm", help=JUDGE_LLM_HELP),
    judge_alias: Optional[str] = typer.Option(None, "--judge", hidden=True),  # old name
) -> None:
    """Generate a checklist task (general + constraint groups) from a human survey."""
    judge_model = judge_model or judge_alias
    from ..evaluation.judges.checklist import write_tasks
    from ..evaluation.judges.checklist_build import CONSTRUCTION_MODES, generate_task
    from ..evaluation.parsers import parse_survey

    if out_path.exists():
        raise UserError(f"{out_path} exists; choose a new file")
    if not human.is_file():
        raise UserError(f"human survey not found: {human}")
    settings = get_settings(ctx, **{"llm.judge": judge_model})
    mode = construction or settings.evaluation.checklist_construction
    if mode not in CONSTRUCTION_MODES:
        raise UserError(f"--construction must be one of {', '.join(CONSTRUCTION_MODES)}, not {mode!r}")
    survey = parse_survey(human, topic=topic or human.stem)
    judge = None if mode == "extractive" else _judge(ctx, log, "checklist", judge_model)[1]
    bar, tick = _progress(general_groups + constraint_groups, "generating groups")
    with bar:
        task = generate_task(survey, topic or human.stem, judge, construction=mode,
                             max_general=general_groups, max_constraint=constraint_groups, progress=tick)
    write_tasks([task], out_path)
    n_items = sum(len(sg["requirements"]) for g in task["checklist"] for sg in g["sub_groups"])
    built = task["construction"]
    out.print(f"wrote {out_path}: {len(task['checklist'])} groups ({built['llm_groups']} written by the judge, "
              f"{built['extractive_groups']} extracted), {n_items} requirements")


@checklist_app.command("score")
def checklist_score(
    ctx: typer.Context,
    tasks_path: Path = typer.Argument(..., help="Task JSONL (DeepSynth-Eval format)."),
    draft: Optional[Path] = typer.Option(None, "--draft", help="Report to score (default: each task's survey_result)."),
    floor_at_zero: bool = typer.Option(False, "--floor-at-zero", help="Clip group scores at 0 (paper P2) instead of the code's behaviour."),
    scored_out: Optional[Path] = typer.Option(None, "--scored-out", help="Write tasks with eval_result here."),
    log: Optional[Path] = typer.Option(None, "--log"),
    judge_model: Optional[str] = typer.Option(None, "--judge-llm", help=JUDGE_LLM_HELP),
    judge_alias: Optional[str] = typer.Option(None, "--judge", hidden=True),  # old name
) -> None:
    """Judge every checklist subgroup and print Overall / General / Constraint / Precision."""
    judge_model = judge_model or judge_alias
    from ..evaluation.judges.checklist import benchmark_scores, load_tasks, score_task, write_tasks

    tasks = load_tasks(tasks_path)
    if draft is not None and not draft.is_file():
        raise UserError(f"draft not found: {draft}")
    if scored_out is not None and scored_out.exists():
        raise UserError(f"{scored_out} exists; choose a new file")
    report = draft.read_text(encoding="utf-8", errors="replace") if draft else None
    settings, judge = _judge(ctx, log, "checklist", judge_model)
    n_sub = sum(len(g["sub_groups"]) for t in tasks for g in t["checklist"])
    _show_cost(n_sub, n_sub * (judge.budget + 600), n_sub * 60, judge.model_spec)
    bar, tick = _progress(n_sub, "checklist subgroups")
    with bar:
        scored = [score_task(t, judge, report, progress=tick) for t in tasks]
    if scored_out is not None:
        write_tasks(scored, scored_out)
    result = benchmark_scores(scored, floor_at_zero)
    for key in ("overall", "general", "constraint", "precision", "correct_pct", "incorrect_pct", "not_mentioned_pct"):
        v = result[key]
        out.print(f"{key:18s} {'n/a' if v is None else f'{v:.1f}'}")


def register(app: typer.Typer) -> None:
    """Add this module's commands to the main app."""
    app.command("arena")(arena)
    app.command("meta-eval")(meta_eval)
    app.add_typer(rubrics_app, name="rubrics")
    app.add_typer(checklist_app, name="checklist")
