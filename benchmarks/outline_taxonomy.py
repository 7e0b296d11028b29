"""Outline figures on SurveyBench topics (issue 29): one-word and generic headings, headings taken
from another topic's human outline, and heading-content agreement of each subsection's cited works.

    python benchmarks/outline_taxonomy.py --home <data home> [--topics tuning|heldout|all|"A,B"]
        [--pool-cache /tmp/outline-pools] [--show]
    python benchmarks/outline_taxonomy.py --home <data home> --topics "A" --pool-cache <dir> --sizes 100,300,700

Runs only the planning and reading steps of the default offline job (the bundled model writes no
headings, so the outline is the deterministic taxonomy) with the same-topic human outline excluded
(``generation.exclude_outlines``, as benchmarks/side_by_side.py does). Pools are cached per topic
(``--pool-cache``) so variants of the outline step are compared on the same memory M.

Agreement has two automatic proxies (evaluation/structure.py): *lexical*, a cited work is about
its subsection's heading when every content word of one of the heading's phrases occurs in its title
or abstract; *nearest heading*, the work's MiniLM vector is closer to its own subsection's heading
than to any other subsection heading of the outline. *Method subsections about their section*: the
lexical proxy of a method section's heading over each of its subsections' cited works (a subsection
is a kind of what its section names). ``--show`` prints the outlines: only ever pass
it for tuning topics (the held-out topics are for the blind comparison; their outlines are not read).
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import DEFAULT_DATA, load_average, offline_env  # noqa: E402

TUNING = ["Retrieval-Augmented Generation for Large Language Models", "3D Gaussian Splatting",
          "Hallucination in Large Language Models", "Vision-Language-Action Models",
          "Large Language Models for Time Series", "Graph Neural Networks", "LLM-based Multi-Agent",
          "Efficient Inference for Large Language Models", "Scientific Large Language Models",
          "Generative Diffusion Models"]
HELDOUT = ["3D Object Detection in Autonomous Driving", "Agentic Reinforcement Learning",
           "Alignment of Large Language Models", "Evaluation of Large Language Models",
           "Explainability for Large Language Models", "Large Language Models for Recommendation",
           "Multimodal Large Language Models", "Reinforcement Learning for Large Language Models",
           "Safety in Large Language Models", "Vision Transformers"]


def topics_from(arg: str) -> list[str]:
    named = {"tuning": TUNING, "heldout": HELDOUT, "all": TUNING + HELDOUT}
    return named.get(arg) or [t.strip() for t in arg.split(",") if t.strip()]


def plan_and_read(topic: str, home: Path, cache: Path | None) -> tuple[dict, object, float]:
    """The state after planning and reading (pool from the cache when present), deps, seconds."""
    from surveygraph.agents.planner import gather_topic_context, plan_sections, plan_subsections
    from surveygraph.agents.reader import read_subsection
    from surveygraph.graphs.runner import build_deps
    from surveygraph.memory import PaperMemory
    from surveygraph.settings import Settings

    settings = Settings(home=home, generation={"exclude_outlines": [topic], "self_evaluate": False})
    deps = build_deps(settings)
    state: dict = {"topic": topic}
    cached = cache / f"{topic}.pkl" if cache else None
    if cached and cached.is_file():
        state.update(pickle.loads(cached.read_bytes()))
    else:
        state.update(gather_topic_context(state, deps))
        if cached:
            cache.mkdir(parents=True, exist_ok=True)
            cached.write_bytes(pickle.dumps({k: state[k] for k in state if k != "topic"}))
    started = time.perf_counter()
    for node in (plan_sections, plan_subsections):
        update = node(state, deps)
        papers = {**(state.get("papers") or {}), **(update.pop("papers", None) or {})}
        state.update(update, papers=papers)
    seconds = time.perf_counter() - started
    memory = PaperMemory.from_state(state)
    readings = {}
    for section in state["outline"]:
        for sub in section["subsections"]:
            task = {"topic": topic, "section_id": section["id"], "subsection": sub, "memory": memory.overall,
                    "memory_titles": memory.section_titles(section["id"]), "relevance": state.get("relevance") or {}}
            readings.update(read_subsection(task, deps)["readings"])
    state["readings"] = readings
    return state, deps, seconds


FRAME = {"introduction", "conclusion", "conclusions", "references", "abstract", "acknowledgments"}


def other_topic_headings(data: Path, topic: str) -> list[str]:
    """Every heading of the human outlines of the other SurveyBench topics (frame headings left out)."""
    import re

    from surveygraph.models import normalize_title

    items = json.loads((data / "weaidb_surveybench" / "HumanSurvey" / "outlines.json").read_text())
    heads = [re.sub(r"^\s*[\d.]+\s*", "", line).strip() for item in items if item.get("topic") != topic
             for line in str(item.get("outline", "")).splitlines()]
    return [h for h in heads if h and normalize_title(h) not in FRAME]


def outline_figures(state: dict, *, encode, foreign: list[str]) -> dict:
    """Counts over every body heading; agreement over subsections and the works they cite."""
    from surveygraph.evaluation.headings import (foreign_headings, is_bare_generic, is_one_word,
                                                  lexical_agreement, nearest_heading_agreement, restates_topic)
    from surveygraph.agents.outline.roles import METHODS

    papers = state.get("papers") or {}
    headings = [h["title"] for s in state["outline"] for h in [s, *s["subsections"]]]
    def cited(sub: dict) -> list[str]:
        return [f"{papers[p].get('title', '')}. {papers[p].get('abstract', '')}"
                for p in state["readings"].get(sub["id"], {}).get("paper_ids", []) if p in papers]

    subs = [(sub["title"], cited(sub)) for s in state["outline"] for sub in s["subsections"]]
    # a method section's heading against its subsections' works: is each subsection a kind of what
    # its section names ("Node Classification" under "Link Prediction" is not, a blind reader wrote)
    within = [(s["title"], cited(sub)) for s in state["outline"] if s.get("role") == METHODS for sub in s["subsections"]]
    return {"headings": len(headings), "one_word": sum(map(is_one_word, headings)),
            "generic": sum(map(is_bare_generic, headings)), "foreign": len(foreign_headings(headings, foreign)),
            "restating": sum(restates_topic(h, state["topic"]) for h in headings),
            "lexical": lexical_agreement(subs), "within": lexical_agreement(within), "nearest": nearest_heading_agreement(subs, encode),
            "cited": len({p for s in state["readings"].values() for p in s.get("paper_ids", [])})}


def time_by_size(topic: str, home: Path, cache: Path, sizes: list[int]) -> None:
    """plan_sections wall time on the first N papers of the topic's cached pool (M, most probable
    first), with the load average at each measurement."""
    from surveygraph.agents.planner import plan_sections
    from surveygraph.graphs.runner import build_deps
    from surveygraph.settings import Settings

    cached = cache / f"{topic}.pkl"
    if not cached.is_file():
        raise SystemExit(f"no cached pool for {topic!r} in {cache}: run the figures once with --pool-cache")
    pool = pickle.loads(cached.read_bytes())
    deps = build_deps(Settings(home=home, generation={"exclude_outlines": [topic], "self_evaluate": False}))
    plan_sections({"topic": topic, **pool, "memory": pool["memory"][:20]}, deps)  # loads the KB and encoder once
    for n in sizes:
        state = {"topic": topic, **pool, "memory": pool["memory"][:n]}
        started = time.perf_counter()
        outline = plan_sections(state, deps)["outline"]
        seconds = time.perf_counter() - started
        print(f"| {topic} | {len(state['memory'])} | {seconds:.1f} | {len(outline)} | {load_average()} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", required=True)
    parser.add_argument("--data", default=str(DEFAULT_DATA))
    parser.add_argument("--topics", default="tuning")
    parser.add_argument("--pool-cache", default="")
    parser.add_argument("--show", action="store_true", help="print the outlines (tuning topics only)")
    parser.add_argument("--json", default="", help="write per-topic figures to this file")
    parser.add_argument("--sizes", default="", help="time plan_sections on the first N papers of each cached "
                        "pool instead, e.g. 100,300,500,700 (needs --pool-cache)")
    args = parser.parse_args()
    offline_env()
    if args.sizes:
        print("| topic | papers | plan_sections s | sections | load average |\n|---|---:|---:|---:|---|")
        for topic in topics_from(args.topics):
            time_by_size(topic, Path(args.home), Path(args.pool_cache), [int(n) for n in args.sizes.split(",")])
        return
    from surveygraph.agents.outline.vectors import memory_encoder
    from surveygraph.errors import UserError

    topics = topics_from(args.topics)
    if args.show and set(topics) & set(HELDOUT):
        raise SystemExit("--show is for tuning topics only: the held-out outlines are not read")
    rows = []
    print(f"# outline figures ({load_average()})")
    print("| topic | pool | headings | one-word | generic | from another topic | restating the topic | "
          "agreement (lexical) | method subsections about their section | agreement (nearest heading) | cited | plan s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    encode = None
    for topic in topics:
        try:
            state, deps, seconds = plan_and_read(topic, Path(args.home), Path(args.pool_cache) if args.pool_cache else None)
        except UserError as exc:  # the pool step refuses a topic the store holds too little on
            print(f"| {topic} | refused: {str(exc)[:90]} | | | | | | | | | | |", flush=True)
            continue
        encode = encode or memory_encoder(deps.settings)
        foreign = other_topic_headings(Path(args.data), topic)
        fig = outline_figures(state, encode=encode, foreign=foreign)
        fig.update(topic=topic, pool=len(state.get("memory") or []), seconds=round(seconds, 1))
        rows.append(fig)
        print(f"| {topic} | {fig['pool']} | {fig['headings']} | {fig['one_word']} | {fig['generic']} | "
              f"{fig['foreign']} | {fig['restating']} | {fig['lexical']:.2f} | {fig['within']:.2f} | {fig['nearest']:.2f} | {fig['cited']} | {fig['seconds']} |", flush=True)
        if args.show:
            for section in state["outline"]:
                print(f"    {section['id']} {section['title']}  [{len(section.get('paper_ids') or [])}]")
                for sub in section["subsections"]:
                    cited = state["readings"].get(sub["id"], {}).get("paper_ids", [])
                    print(f"        {sub['id']} {sub['title']}  [{len(sub.get('paper_ids') or [])} placed, {len(cited)} cited]")
    total = {k: sum(r[k] for r in rows) for k in ("headings", "one_word", "generic", "foreign", "restating")}
    lex = sum(r["lexical"] for r in rows) / max(len(rows), 1)
    near = sum(r["nearest"] for r in rows) / max(len(rows), 1)
    within = sum(r["within"] for r in rows) / max(len(rows), 1)
    print(f"| **all {len(rows)}** | | {total['headings']} | {total['one_word']} "
          f"({total['one_word'] / max(total['headings'], 1):.0%}) | {total['generic']} | {total['foreign']} | "
          f"{total['restating']} | "
          f"{lex:.2f} | {within:.2f} | {near:.2f} | {sum(r['cited'] for r in rows) / max(len(rows), 1):.0f} | |")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
