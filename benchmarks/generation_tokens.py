"""Tokens per node and per survey, non-LLM overhead and in-graph tokens/s of the generation graph.

Examples (from the repository root):

  # real local model (Gemma 3 270M via llama.cpp), small survey over a 2,000-paper RAG slice
  python benchmarks/generation_tokens.py --home /tmp/sg-bench --papers 2000 --llm local \
      --sections 4 --subsections 2

  # SurveyForge-sized survey (8 x 4 subsections, 15 papers each) with a synthetic model that
  # writes ~1,500 words per subsection: measures our prompt sizes (input tokens), not quality
  python benchmarks/generation_tokens.py --home /tmp/sg-bench --papers 2000 --llm synthetic \
      --sections 8 --subsections 4 --papers-per-subsection 15 --synthetic-words 1500

The synthetic model counts tokens as characters / 4 (like the test model); local and API models
report their own token usage. Prints a Markdown report to stdout.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks._common import DEFAULT_DATA, corpus_file, load_average, offline_env  # noqa: E402

TOPIC = "Retrieval-Augmented Generation for Large Language Models"
RAG = re.compile(r"retrieval[- ]augmented|\bRAG\b|retriev", re.I)


def ensure_home(home: Path, data: Path, papers: int) -> None:
    """Ingest an evenly spaced slice of retrieval-related papers and the human outlines once."""
    from surveygraph.retrieval.corpus import Corpus
    from surveygraph.retrieval.loaders import paper_from_record
    from surveygraph.retrieval.outlines import OutlineStore
    from surveygraph.settings import Settings

    settings = Settings(home=home)
    corpus = Corpus(settings)
    if corpus.count() == 0:
        matches = []
        with gzip.open(corpus_file(data), "rt", encoding="utf-8") as fh:
            for line in fh:
                record = json.loads(line)
                if RAG.search(record.get("title", "")) or RAG.search(record.get("abstract", "")[:300]):
                    matches.append(record)
        step = max(1, len(matches) // papers)
        corpus.add_papers([paper_from_record(r) for r in matches[::step][:papers]], progress=True)
    outlines = OutlineStore(settings)
    if outlines.count() == 0:
        outlines.ingest_path(data / "weaidb_surveybench" / "HumanSurvey" / "outlines.json")


def synthetic_model(words: int):
    """A stand-in model with realistic output lengths and valid JSON/citations."""
    from tests.generation_helpers import survey_responder
    from tests.scripted_llm import ScriptedChatModel

    verbs = ["compares", "extends", "evaluates", "revisits", "combines", "questions", "scales", "simplifies"]
    objects = ["dense retrievers", "rerankers", "chunking policies", "long-context readers", "query rewriting",
               "citation faithfulness", "index compression", "agentic search loops", "knowledge graphs"]

    def respond(prompt: str) -> str:
        reply = survey_responder(prompt)
        if "TASK: write one subsection" in prompt:
            keys = re.findall(r'<paper id="(\d+)">', prompt) or ["1"]
            subsection = re.search(r"Subsection: (.+)", prompt).group(1)
            sentences, count = [], 0
            while count < words:  # unique sentences (polish would drop repeated ones)
                i = len(sentences)
                sentence = (f"In {subsection.lower()}, work {i + 1} {verbs[i % len(verbs)]} "
                            f"{objects[(i * 7) % len(objects)]} under setting {i // len(objects) + 1} "
                            f"[{keys[i % len(keys)]}].")
                sentences.append(sentence)
                count += len(sentence.split())
            reply = " ".join(sentences)
        return reply

    return ScriptedChatModel(responder=respond)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--home", type=Path, required=True, help="data home (corpus built here once)")
    parser.add_argument("--papers", type=int, default=2000)
    parser.add_argument("--llm", default="local", help="local | synthetic | any model spec")
    parser.add_argument("--synthetic-words", type=int, default=1500)
    parser.add_argument("--preset", default="default", help="generation preset: default | surveyforge")
    parser.add_argument("--sections", type=int, default=None, help="default: the preset's")
    parser.add_argument("--subsections", type=int, default=None, help="default: the preset's")
    parser.add_argument("--papers-per-subsection", type=int, default=None, help="default: the preset's")
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    offline_env()

    from surveygraph.graphs.runner import build_deps, start_run
    from surveygraph.settings import Settings

    ensure_home(args.home, args.data, args.papers)
    generation = {"preset": args.preset, "concurrency": args.concurrency, **{k: v for k, v in {
        "sections": args.sections, "subsections": args.subsections,
        "papers_per_subsection": args.papers_per_subsection}.items() if v is not None}}
    llm = {"cache": False}
    chat_models = None
    if args.llm == "synthetic":
        model = synthetic_model(args.synthetic_words)
        chat_models = {"planner": model, "writer": model, "judge": model}
    else:
        llm["default"] = args.llm
    settings = Settings(home=args.home, llm=llm, generation=generation)
    args.sections, args.subsections = settings.generation.sections, settings.generation.subsections
    args.papers_per_subsection = settings.generation.papers_per_subsection
    deps = build_deps(settings, chat_models=chat_models)
    load_before = load_average()
    started = time.perf_counter()
    result = start_run(TOPIC, deps, runs_dir=args.out or args.home / "bench-runs")
    wall = time.perf_counter() - started
    tokens = deps.clients.meter.to_dict()
    total = tokens["total"]
    survey_words = len((result.run_dir / "survey.md").read_text().split())
    print(f"## generation_tokens: llm={args.llm}, {args.sections}x{args.subsections} subsections, "
          f"K={args.papers_per_subsection}, corpus={deps.corpus.count()} papers")
    print(f"\n{load_before} (before); {load_average()} (after); run {result.run_dir.name}\n")
    print("| node | calls | input tokens | output tokens | LLM seconds |\n|---|---|---|---|---|")
    for node, row in sorted(tokens["by_node"].items()):
        print(f"| {node} | {row['calls']} | {row['input_tokens']} | {row['output_tokens']} | {row['seconds']:.1f} |")
    print(f"| **survey** | {total['calls']} | {total['input_tokens']} | {total['output_tokens']} | {total['seconds']:.1f} |")
    overhead = wall - total["seconds"]
    print(f"\n- wall time {wall:.1f} s; LLM time {total['seconds']:.1f} s; non-LLM overhead {overhead:.1f} s "
          f"(retrieval, graph, checkpoints, export, self-evaluation)")
    if args.llm != "synthetic" and total["seconds"] > 0:
        print(f"- output tokens/s inside the graph: {total['output_tokens'] / total['seconds']:.1f} "
              f"(all calls; includes prompt processing)")
    print(f"- survey length: {survey_words} words (survey.md); input tokens per survey word: "
          f"{total['input_tokens'] / max(1, survey_words):.2f}")
    print(f"- fallbacks: {len(result.state.get('fallbacks', []))}, failures: {len(result.state.get('failures', []))}, "
          f"citations dropped: {result.state.get('integrity', {}).get('dropped_total')}")


if __name__ == "__main__":
    main()
