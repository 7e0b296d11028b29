"""Each draft scored against its own topic and against the least related topic of another discipline.

    python benchmarks/quality_unrelated.py [--data ../shared/data]

The drafts and the choice of the unrelated topic are those of
``tests/test_quality_metamorphic.py::test_scored_against_an_unrelated_topic_every_component_falls``
(ASG-Bench's first topic of three disciplines, five systems each, and SurveyBench's RAG drafts);
this prints the table of BENCHMARKS.md "Scored against an unrelated topic" with the shipped model.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import DEFAULT_DATA, offline_env  # noqa: E402

COMPONENTS = ("outline", "content", "reference", "overall")
ROOM = 2.1  # as in the test: a drop of 1.0 to the floor of 1 needs a score above 2.0
RAG = "Retrieval-Augmented Generation for Large Language Models"


def cases(data: Path, encode):
    from surveygraph.evaluation.markdown_parser import parse_markdown
    from surveygraph.evaluation.parsers import parse_survey

    gemini = sorted((data / "asg_bench" / "Gemini").glob("*__*.md"))
    first: dict[str, str] = {}
    for path in gemini:
        first.setdefault(path.stem.split("__", 1)[0], path.stem)
    everything = sorted(p.stem for p in gemini)

    def least_related(topic: str, candidates: list[str]) -> str:
        vectors = encode([topic, *candidates])
        return candidates[int((vectors[1:] @ vectors[0]).argmin())]

    for discipline in sorted(first)[:3]:
        own = first[discipline].split("__", 1)[1]
        unrelated = least_related(own, [t.split("__", 1)[1] for t in everything if not t.startswith(discipline + "__")])
        for system in ("Gemini", "Qwen", "LLMxMapReduce_V2", "SurveyForge", "HumanSurvey"):
            path = data / "asg_bench" / system / f"{first[discipline]}.md"
            yield system, own, parse_survey(path, system=system, topic=own), unrelated
    unrelated = least_related(RAG, [t.split("__", 1)[1] for t in everything])
    for system in ("SurveyForge", "OpenAI_DeepResearch", "LLMxMR-V2", "AutoSurvey"):
        survey = parse_markdown((data / "weaidb_surveybench" / system / f"{RAG}.md").read_text(encoding="utf-8"), name="rag")
        survey.topic = RAG
        yield system, "RAG (SurveyBench)", survey, unrelated


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(DEFAULT_DATA))
    args = parser.parse_args()
    offline_env()
    from surveygraph.evaluation.quality.reading import read_quality
    from surveygraph.evaluation.scoring import gate_memo
    from surveygraph.settings import load_settings

    encode = gate_memo(load_settings())
    print("| draft | topic | unrelated topic | own: outline / content / reference / overall | unrelated | room (all > 2.1) |")
    print("|---|---|---|---|---|---|")
    for system, topic, survey, unrelated in cases(Path(args.data), encode):
        own = read_quality(survey, encode=encode).scores
        other = read_quality(survey.model_copy(update={"topic": unrelated}), encode=encode).scores
        room = all(own[c] > ROOM for c in COMPONENTS[:3])
        print(f"| {system} | {topic} | {unrelated} | {' / '.join(f'{own[c]:.2f}' for c in COMPONENTS)} | "
              f"{' / '.join(f'{other[c]:.2f}' for c in COMPONENTS)} | {'yes' if room else 'no'} |")


if __name__ == "__main__":
    main()
