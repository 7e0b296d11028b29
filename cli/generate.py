"""CLI commands: ``generate`` (one survey, resume, section rerun) and ``ablate`` (variants)."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Optional

import typer

from ..errors import EXIT_OK, RunAlreadyFinished, UserError
from ..settings import GenerationSettings, LLMSettings
from .common import (JUDGE_LLM_HELP, console, fail, get_settings, out, plain, quiet_third_party,
                     split_list, require_writable_home)
from .run_progress import advance_bar, run_graph


def _default(model, name: str):
    """A setting's built-in default, so --help states the true one (TOML/env may override it)."""
    return model.model_fields[name].default


def topic_reading(relevance: dict) -> str:
    """How the pool read the topic, so that a user whose words the field does not use sees why the
    papers are what they are ("stopping chatbots like ChatGPT from making up facts" is read as
    'chatbot or chatgpt' + 'fact', not as hallucination) and can rephrase."""
    facets = [" ".join(u.get("phrase", "") for u in f.get("units", [])) for f in relevance.get("facets") or []]
    dropped = [w for f in relevance.get("facets") or [] for w in f.get("phrasing", [])]
    dropped += [str(f.get("phrase", f)) if isinstance(f, dict) else str(f) for f in relevance.get("facets_not_asked") or []]
    if not facets:
        return ""
    said = " + ".join(f"'{f}'" for f in facets if f)
    return f"; topic read as {said}" + (f" (not asked of papers: {', '.join(dropped)})" if dropped else "")


def describe_update(node: str, update: dict) -> str | None:
    """One progress line per finished node / subsection (None = nothing worth showing)."""
    if node == "gather_topic_context":
        return (f"plan: {len(update.get('memory', []))} papers in memory M, {len(update.get('demos', []))} demo outlines"
                + topic_reading(update.get("relevance") or {}))
    if node == "plan_sections":
        return "plan: sections " + " | ".join(s["title"] for s in update.get("outline", []))
    if node == "plan_subsections":
        return f"plan: {sum(len(s['subsections']) for s in update.get('outline', []))} subsections"
    if node == "read_subsection":
        for sid, reading in update.get("readings", {}).items():
            return f"read {sid}: {len(reading['subqueries'])} queries, {len(reading['paper_ids'])} papers"
    if node == "write_subsection":
        for sid, draft in update.get("drafts", {}).items():
            return f"write {sid}: {draft['status']} ({len(draft['text'].split())} words)"
    if node == "polish_sections" and "integrity" in update:
        i = update["integrity"]
        return f"polish: {i['cited_papers']} papers cited, {i['dropped_total']} unresolvable markers dropped"
    if node == "illustrate" and update.get("survey"):
        survey = update["survey"]
        return f"illustrate: {len(survey.get('tables', []))} tables, {len(survey.get('figures', []))} figure(s)"
    if node == "write_frame" and update:
        return "polish: abstract, introduction, conclusion"
    if node == "export_survey":
        return "export: " + ", ".join(Path(p).name for p in update.get("export", {}).values())
    if node == "self_evaluate" and update:
        evaluation = update.get("evaluation", {})
        verdict = (evaluation.get("quality") or {}).get("verdict")  # the offline quality score's one line
        return f"self-evaluation: {len(evaluation.get('metrics', []))} metrics" + (f"; {verdict}" if verdict else "")
    return None


def _printer(node: str, update: dict) -> None:
    line = describe_update(node, update)
    if line:
        console.print(f"[dim]•[/] {plain(line)}", highlight=False)  # titles are model output
    advance_bar(node, update)  # in a log, the progress line with the ETA follows the step's line


def _judgment_ticker(every: int = 5):
    """Judge calls in the self-evaluation take seconds to a minute each with the local model."""
    count = 0

    def tick(node: str) -> None:
        nonlocal count
        count += 1
        if count % every == 0:
            console.print(f"[dim]•[/] self-evaluation: {count} judge calls (last {node})", highlight=False)
    return tick


def _announce_models(settings) -> None:
    """One line naming the models (says so when the bundled local model is used)."""
    from ..llm import describe_default_model

    console.print(describe_default_model(settings), highlight=False)


def _open_corpus(settings):
    """The paper store. An empty one is set up from the shared data when it is there (the README's
    one-command main job); otherwise refused early, before any model loads."""
    from ..retrieval.corpus import Corpus
    from ..retrieval.default_data import set_up_empty_home

    require_writable_home(settings, "generate")  # runs, caches and the store's Chroma client
    corpus = Corpus(settings)
    if corpus.count() == 0:
        done = set_up_empty_home(settings, corpus, progress=True,
                                 notify=lambda m: console.print(m, highlight=False, markup=False))
        if done is None:
            raise UserError(f"the paper store under {settings.home} is empty and no shared data was found "
                            "(SURVEYGRAPH_SHARED_DATA or ../shared/data): run `surveygraph corpus ingest FILE` first")
        for line in done:
            console.print(line, highlight=False, markup=False)
        corpus = Corpus(settings)
    return corpus


def _existing_file(path: Optional[Path], what: str) -> Optional[Path]:
    if path is not None and not path.is_file():
        raise UserError(f"{what} not found: {path}")
    return path


def _report(result, console_out=out) -> None:
    state = result.state
    if result.budget_exhausted:
        console.print("token budget spent: stopped early; what was written is kept and exported", highlight=False)
    # One line per (step, reason): 15 subsections skipped for the same reason are one line.
    grouped: dict[tuple[str, str], list[str]] = {}
    for fallback in state.get("fallbacks", []):
        reason = str(fallback.get("reason") or "")
        grouped.setdefault((str(fallback.get("node")), reason), []).append(str(fallback.get("item", "") or ""))
    for (node, reason), items in list(grouped.items())[:10]:
        where = f" ({len(items)}x: {', '.join(i for i in items if i)[:60]})" if len(items) > 1 else \
            (f" {items[0]}" if items[0] else "")
        console.print(f"[yellow]fallback[/] {plain(node)}{plain(where)}: {plain(reason)}", highlight=False)
    if state.get("failures"):
        console.print(f"[yellow]{len(state['failures'])} LLM call(s) failed[/] (see manifest.json)", highlight=False)
    path = result.run_dir / "survey.md" if result.finished else result.run_dir
    console_out.print(str(path), soft_wrap=True, highlight=False)


def _exit_if_unusable(result, deps) -> None:
    """A finished run without a usable survey (no text, or every LLM call failed) exits with
    EXIT_DEGRADED; its files stay in the run directory (see agents/outcome.py)."""
    from ..agents.outcome import run_outcome

    if not result.finished:
        return
    outcome = run_outcome(result.state, deps.clients.meter.entries())
    if outcome["exit_code"] != EXIT_OK:
        console.print(f"[bold red]error:[/] {plain(outcome['message'])}; files kept in {plain(result.run_dir)}",
                      highlight=False, soft_wrap=True)
        raise typer.Exit(outcome["exit_code"])


def _maybe_pdf(result, wanted: bool) -> None:
    """--pdf: compile the exported survey.tex; a missing TeX or a failed build is one error line
    (TeX's own) and a non-zero exit, and the survey (already written) stands."""
    tex = result.run_dir / "survey.tex"
    if not wanted or not tex.is_file():
        return
    from ..agents.latex_document import compile_pdf

    try:
        pdf = compile_pdf(tex)
    except UserError as exc:  # the survey stands; the PDF asked for does not: say TeX's error, exit non-zero
        fail(f"pdf: {exc}", exc.exit_code)
    out.print(str(pdf), soft_wrap=True, highlight=False)


def _user_errors(command):
    """User mistakes become one ``error: ...`` line and exit status 2 (also under CliRunner)."""

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except UserError as exc:
            fail(str(exc), exc.exit_code)

    return wrapper


def _announce_judges(settings, human) -> None:
    """The self-evaluation's judge cost, before the run starts (judges also score the human survey)."""
    if settings.evaluation.judges and settings.generation.self_evaluate:
        from .evaluate import _print_judge_estimate

        _print_judge_estimate(1 + (human is not None), list(settings.evaluation.judges), settings)


def register(app: typer.Typer) -> None:
    """Add this module's commands to the main app."""

    @app.command()
    @_user_errors
    def generate(
        ctx: typer.Context,
        topic: Optional[str] = typer.Argument(None, help="Survey topic (omit with --resume)."),
        llm: Optional[str] = typer.Option(None, "--llm", help="Model for every role: local, gguf:PATH, provider:model "
                                                            f"(default: settings llm.default, {_default(LLMSettings, 'default')!r})."),
        planner_llm: Optional[str] = typer.Option(None, "--planner-llm", help="Model for planning (default: llm.planner, else --llm)."),
        writer_llm: Optional[str] = typer.Option(None, "--writer-llm", help="Model for writing (default: llm.writer, else --llm)."),
        judge_llm: Optional[str] = typer.Option(None, "--judge-llm", help=JUDGE_LLM_HELP),
        out_dir: Optional[Path] = typer.Option(None, "--out", help="Runs directory (default: <home>/runs)."),
        bench_refs: Optional[Path] = typer.Option(None, "--bench-refs", help="Benchmark reference set for coverage."),
        judges: Optional[str] = typer.Option(
            None, "--judges", help="LLM judges for the self-evaluation: sam,sgsim,surveylens,checklist "
                                   "(default: evaluation.judges, none); the cost estimate is printed first."),
        human: Optional[Path] = typer.Option(
            None, "--human", help="Human survey of the topic for the self-evaluation (SAM-C, checklist, alignment)."),
        max_tokens: Optional[int] = typer.Option(None, "--max-tokens", min=1,
                                                  help="Token budget for the whole run (default: llm.max_tokens, unlimited)."),
        resume: Optional[str] = typer.Option(None, "--resume", help="Continue an interrupted run (RUN_ID or path)."),
        rerun_section: Optional[str] = typer.Option(
            None, "--rerun-section", help="With --resume RUN_ID: redraft this (sub)section into a new run."),
        no_ms: bool = typer.Option(False, "--no-ms", help="Sub-queries without section memory."),
        no_mr: bool = typer.Option(False, "--no-mr", help="Retrieve from the whole store, not memory M."),
        no_tre: bool = typer.Option(False, "--no-tre", help="Top-K by score instead of temporal reranking."),
        outline_demos: Optional[str] = typer.Option(None, "--outline-demos",
                                                     help=f"related | random | none (default: {_default(GenerationSettings, 'outline_demos')})."),
        no_polish: bool = typer.Option(False, "--no-polish", help="Merge drafts without polishing."),
        sections: Optional[int] = typer.Option(None, "--sections", min=1,
                                               help=f"First-level sections (default: {_default(GenerationSettings, 'sections')})."),
        subsections: Optional[int] = typer.Option(
            None, "--subsections", min=1, help=f"Subsections per section (default: {_default(GenerationSettings, 'subsections')})."),
        concurrency: Optional[int] = typer.Option(
            None, "--concurrency", min=1, help=f"Parallel subsections (default: {_default(GenerationSettings, 'concurrency')})."),
        preset: Optional[str] = typer.Option(
            None, "--preset", help="Survey length: default (5 x 3 subsections) | surveyforge (8 x 4, 15 papers "
                                   "and 4 paragraphs per subsection, for API models); --sections etc. still win."),
        pdf: bool = typer.Option(False, "--pdf", help="Also compile survey.tex to survey.pdf (needs lualatex, "
                                                      "xelatex or pdflatex; says so when none is installed)."),
        checkpointer: Optional[str] = typer.Option(
            None, "--checkpointer", help="postgresql:// URL to keep the run's checkpoints in (default: "
                                         "checkpoints.sqlite in the run directory); any machine can then --resume it."),
    ) -> None:
        """Write a survey on TOPIC: plan -> read -> write -> polish -> self-evaluation."""
        quiet_third_party()
        from ..graphs.runner import (RunResult, build_deps, check_runs_dir, find_run, rerun_section as rerun, resume_run,
                                     run_record, run_settings, start_run, valid_topic)

        if outline_demos not in (None, "related", "random", "none"):
            raise UserError("--outline-demos must be related, random or none")
        if rerun_section and not resume:
            raise UserError("--rerun-section needs --resume RUN_ID (the finished run to start from)")
        _existing_file(bench_refs, "bench refs file")
        _existing_file(human, "human survey")
        if human is not None:  # a binary, endless or empty --human would score 0 everywhere, silently
            from ..evaluation.inputs import read_survey

            read_survey(human, "--human")
        from ..evaluation.judges import JUDGE_NAMES

        judge_names = split_list(judges, JUDGE_NAMES, "judge")
        roles = {"default": llm, "planner": planner_llm, "writer": writer_llm, "judge": judge_llm}
        if resume:
            base = get_settings(ctx)
            run_dir = find_run(resume, out_dir or base.runs_dir)
            settings = run_settings(run_dir, secrets_from=base, **roles)
            if checkpointer is not None:
                settings.generation.checkpointer = checkpointer
            if max_tokens is not None:
                settings.llm.max_tokens = max_tokens
            if judge_names is not None:
                settings.evaluation.judges = judge_names
            corpus = _open_corpus(settings)
            _announce_models(settings)
            _announce_judges(settings, human or run_record(run_dir).get("human"))
            refs = bench_refs or run_record(run_dir).get("bench_refs")
            deps = build_deps(settings, corpus=corpus, bench_refs=refs,
                              human=human or run_record(run_dir).get("human"))
            deps.on_judgment = _judgment_ticker()
            if rerun_section:
                result = run_graph(lambda: rerun(run_dir, rerun_section, deps, runs_dir=out_dir or run_dir.parent,
                                                  on_update=_printer), settings)
            else:
                try:
                    result = run_graph(lambda: resume_run(run_dir, deps, on_update=_printer), settings)
                except RunAlreadyFinished:
                    if not pdf:
                        raise
                    # e.g. killed while TeX ran: the survey is written, only its PDF is missing
                    _maybe_pdf(RunResult(run_id=run_dir.name, run_dir=run_dir), pdf)
                    return
            _report(result)
            _maybe_pdf(result, pdf)
            _exit_if_unusable(result, deps)
            return
        if topic is None:
            raise UserError("give a TOPIC (or --resume RUN_ID)")
        topic = valid_topic(topic)  # before any store or model loads
        if out_dir is not None:
            check_runs_dir(out_dir)
        if preset not in (None, "default", "surveyforge"):
            raise UserError("--preset must be default or surveyforge")
        overrides = {f"llm.{role}": spec for role, spec in roles.items()}
        settings = get_settings(ctx, **overrides, **{
            "llm.max_tokens": max_tokens, "generation.sections": sections,
            "generation.subsections": subsections, "generation.concurrency": concurrency,
            "generation.outline_demos": outline_demos, "generation.preset": preset,
            "generation.memory_subquery": False if no_ms else None,
            "generation.memory_retrieval": False if no_mr else None,
            "generation.tre": False if no_tre else None,
            "generation.polish": False if no_polish else None,
            "evaluation.judges": judge_names, "generation.checkpointer": checkpointer,
        })
        corpus = _open_corpus(settings)
        _announce_models(settings)
        _announce_judges(settings, human)
        deps = build_deps(settings, corpus=corpus, bench_refs=bench_refs, human=human)
        deps.on_judgment = _judgment_ticker()
        result = run_graph(lambda: start_run(topic, deps, runs_dir=out_dir, on_update=_printer), settings)
        _report(result)
        _maybe_pdf(result, pdf)
        _exit_if_unusable(result, deps)

    @app.command()
    @_user_errors
    def ablate(
        ctx: typer.Context,
        topic: str = typer.Argument(..., help="Survey topic."),
        variants: str = typer.Option("full,no-ms,no-mr,no-tre,outline-none,outline-random,no-polish", "--variants",
                                     help="Comma-separated variants."),
        bench_refs: Optional[Path] = typer.Option(None, "--bench-refs", help="Benchmark reference set for coverage."),
        relevance_labels: Optional[Path] = typer.Option(
            None, "--relevance-labels", help="Labelled relevance judgments (JSONL: topic, arxiv_id, label), e.g. "
                                             "tests/data/relevance_labels.jsonl: adds pool precision/recall and the "
                                             "cited works' on-topic share."),
        llm: Optional[str] = typer.Option(None, "--llm", help=f"Model for every role (default: settings llm.default, "
                                                              f"{_default(LLMSettings, 'default')!r})."),
        out_dir: Optional[Path] = typer.Option(None, "--out", help="Where the ablation-<slug>-<time> folder goes (default: <home>/runs)."),
        max_tokens: Optional[int] = typer.Option(None, "--max-tokens", min=1,
                                                 help="Token budget per variant (default: llm.max_tokens, unlimited)."),
        sections: Optional[int] = typer.Option(None, "--sections", min=1,
                                               help=f"First-level sections (default: {_default(GenerationSettings, 'sections')})."),
        subsections: Optional[int] = typer.Option(
            None, "--subsections", min=1, help=f"Subsections per section (default: {_default(GenerationSettings, 'subsections')})."),
    ) -> None:
        """Run the graph once per variant and write ablation.md + ablation.csv."""
        quiet_third_party()
        from ..graphs.ablation import parse_variants, run_ablation
        from ..graphs.runner import build_deps

        names = parse_variants(variants)
        _existing_file(bench_refs, "bench refs file")
        _existing_file(relevance_labels, "relevance labels file")
        settings = get_settings(ctx, **{"llm.default": llm, "llm.max_tokens": max_tokens,
                                        "generation.sections": sections, "generation.subsections": subsections})
        corpus = _open_corpus(settings)
        _announce_models(settings)
        first = build_deps(settings, corpus=corpus, bench_refs=bench_refs)

        def make_deps(variant_settings):
            return build_deps(variant_settings, corpus=first.corpus, outlines=first.outlines, bench_refs=bench_refs)

        root, rows = run_graph(lambda: run_ablation(
            topic, names, settings, make_deps=make_deps, out_dir=out_dir, bench_refs=bench_refs,
            relevance_labels=relevance_labels, on_variant=lambda v: console.print(f"[bold]variant {v}[/]"), on_update=_printer))
        out.print(str(root / "ablation.md"), soft_wrap=True, highlight=False)
