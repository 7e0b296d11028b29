"""Objective figures of our offline survey next to the four systems' drafts (issue 17, item 6).

    python benchmarks/side_by_side.py --home <data home with the shared corpus and outlines> \
        [--topics "Graph Neural Networks,..."] [--data ../shared/data]

For each SurveyBench topic: generate with the default job (bundled model, floors) while the
same-topic human outline is excluded from the demonstrations (``generation.exclude_outlines``),
then measure ours and the AutoSurvey, SurveyForge, LLMxMR-V2 and OpenAI DeepResearch drafts of
weaidb_surveybench on the same figures: headings copied verbatim from any of the 20 human outlines,
headings the validator rejects (generic, broken, duplicates), repeated sentences, inflection
glitches; for ours also the on-topic share of cited works against the labelled relevance set,
heading-content similarity (MiniLM cosine of a subsection heading to the centroid of the papers it
cites) and minutes. The blind SurveyLens reading is separate (a fresh reader scores anonymised
drafts); this script is what can be computed.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import DEFAULT_DATA, REPO_ROOT, load_average, offline_env  # noqa: E402

SYSTEMS = ("AutoSurvey", "SurveyForge", "LLMxMR-V2", "OpenAI_DeepResearch")
LABELLED = ["Retrieval-Augmented Generation for Large Language Models", "Graph Neural Networks",
            "Hallucination in Large Language Models", "Vision-Language-Action Models",
            "Large Language Models for Time Series", "Large Language Models for Recommendation",
            "3D Gaussian Splatting"]
FRAME = {"introduction", "conclusion", "conclusions", "references", "abstract", "acknowledgments"}
# "integrateds" (an -ed verb inflected again) and "report that Theoretically," (a sentence adverb
# after "that"); real -eds words ("needs", "embeds", "exceeds") do not count
GLITCH = re.compile(r"\b(?!(?:embeds|sheds|beds|breeds|weds)\b)[a-z]{2,}[^e\W]eds\b|"
                    r"\b(?:report|note|find)s? that [A-Z][a-z]+ly,")
# A sentence led by one work's citation ("Smith et al. [3] propose ...", "In Smith [3], ..."): the
# paper-by-paper form; a synthesis relates works instead (a sentence citing two or more).
CITATION_LED = re.compile(r"^(?:In |The (?:paper|survey|work|study) by )?[A-Z][\w'’-]+(?: et al\.| and [A-Z][\w'’-]+)? \[\d+\]")
NUMBERING = re.compile(r"^\s*(?:[IVX]+\.|\d+(?:\.\d+)*\.?)\s+")


def human_headings(data: Path) -> set[str]:
    from surveygraph.models import normalize_title

    outlines = json.loads((data / "weaidb_surveybench" / "HumanSurvey" / "outlines.json").read_text())
    heads = set()
    for item in outlines:
        for line in str(item.get("outline", "")).splitlines():
            title = re.sub(r"^\s*[\d.]+\s*", "", line).strip()
            if title:
                heads.add(normalize_title(title))
    return {h for h in heads if h and h not in FRAME}


def text_figures(headings: list[str], text: str, topic: str, human: set[str]) -> dict:
    from surveygraph.agents.outline.headings import validate_heading
    from surveygraph.agents.text import CITATION_MARKER, marker_numbers
    from surveygraph.models import normalize_title

    body = [NUMBERING.sub("", h).strip() for h in headings]  # drafts number their headings
    body = [h for h in body if normalize_title(h) not in FRAME]
    taken: set[str] = set()
    rejected = 0
    for heading in body:
        rejected += bool(validate_heading(heading, topic=topic, taken=taken))
        taken.add(normalize_title(heading))
    prose = " ".join(line for line in text.splitlines() if not line.startswith("|"))
    sentences = [s.strip() for s in re.split(r"(?<=[.!?])\s+(?=[A-Z])", prose) if len(s.split()) >= 7]
    copied = [h for h in body if normalize_title(h) in human]
    cited = [s for s in sentences if CITATION_MARKER.search(s)]
    multi = sum(1 for s in cited if len({n for m in CITATION_MARKER.finditer(s) for n in marker_numbers(m.group(1))}) >= 2)
    led = sum(1 for s in sentences if CITATION_LED.match(s))
    one_word = [h for h in body if len(h.split()) == 1]  # a keyword, not a concept ("Context", "Video")
    return {"headings": len(body), "one_word": len(one_word), "one_word_titles": one_word,
            "copied": len(copied), "copied_titles": copied,
            "multi": f"{multi / len(cited):.2f}" if cited else "n/a", "led": f"{led / len(sentences):.2f}" if sentences else "n/a",
            "rejected": rejected, "repeated": sum(c - 1 for c in Counter(sentences).values() if c > 1),
            "glitches": len(GLITCH.findall(prose))}


def ours(topic: str, home: Path, encode, labels: dict[str, int]) -> dict:
    from surveygraph.graphs.runner import build_deps, start_run
    from surveygraph.settings import Settings

    settings = Settings(home=home, generation={"exclude_outlines": [topic], "self_evaluate": False})
    started = time.perf_counter()
    result = start_run(topic, build_deps(settings), runs_dir=Path(tempfile.mkdtemp(prefix="sbs-")))
    minutes = (time.perf_counter() - started) / 60
    state = result.state
    survey = json.loads((result.run_dir / "survey.json").read_text(encoding="utf-8"))
    cited = [r.get("arxiv_id") for r in survey["references"]]
    judged = [labels[a] for a in cited if a in labels]
    papers = state.get("papers") or {}
    sims = []
    for section in state["outline"]:
        for sub in section["subsections"]:
            ids = [p for p in (state.get("readings") or {}).get(sub["id"], {}).get("paper_ids", []) if p in papers]
            if ids:
                vectors = encode([f"{papers[p]['title']}. {papers[p].get('abstract', '')}" for p in ids])
                centroid = vectors.mean(axis=0)
                head = encode([sub["title"]])[0]
                sims.append(float(head @ centroid / (np.linalg.norm(head) * np.linalg.norm(centroid))))
    markdown = (result.run_dir / "survey.md").read_text(encoding="utf-8").split("## References")[0]
    headings = re.findall(r"^#{2,3} (.+)$", markdown, re.M)
    demos = [d.get("topic") for d in state.get("demos") or []]
    return {"minutes": round(minutes, 2), "cited": len(cited),
            "on_topic": f"{sum(judged)}/{len(judged)}" if judged else "n/a",
            "heading_sim": f"{np.mean(sims):.2f} (min {min(sims):.2f})" if sims else "n/a",
            "same_topic_demo": topic in demos, **text_figures(headings, markdown, topic, HUMAN)}


def theirs(system: str, topic: str, data: Path) -> dict | None:
    from surveygraph.evaluation.parsers import parse_survey

    path = data / "weaidb_surveybench" / system / f"{topic}.md"
    if not path.is_file():
        return None
    survey = parse_survey(path, system=system, topic=topic)
    headings = [e.title for e in survey.outline if e.level <= 2]
    return {"cited": len(survey.references), **text_figures(headings, survey.text, topic, HUMAN)}


HUMAN: set[str] = set()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", required=True)
    parser.add_argument("--data", default=str(DEFAULT_DATA))
    parser.add_argument("--topics", default=",".join(LABELLED[:5]))
    args = parser.parse_args()
    offline_env()
    from surveygraph.retrieval.embeddings import get_embedder
    from surveygraph.settings import load_settings

    data = Path(args.data)
    HUMAN.update(human_headings(data))
    embedder = get_embedder(load_settings(**{"embedding.model": "minilm"}))
    encode = lambda texts: np.asarray(embedder.encode(list(texts)), dtype=float)  # noqa: E731
    labels: dict[str, dict[str, int]] = {}
    for line in (REPO_ROOT / "tests" / "data" / "relevance_labels.jsonl").read_text().splitlines():
        row = json.loads(line)
        labels.setdefault(row["topic"], {})[row["arxiv_id"]] = row["label"]
    print(f"# side by side ({load_average()})")
    print("| topic | system | cited | on-topic (labelled) | heading-content sim | headings | one-word headings | copied from a "
          "human outline | rejected headings | repeated sentences | glitches | cited sentences citing 2+ works | "
          "sentences led by one work's citation | minutes |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for topic in [t.strip() for t in args.topics.split(",") if t.strip()]:
        row = ours(topic, Path(args.home), encode, labels.get(topic, {}))
        assert not row["same_topic_demo"], "the same-topic human outline leaked into the demonstrations"
        copied = f" ({'; '.join(row['copied_titles'])})" if row["copied_titles"] else ""
        one_word = f" ({'; '.join(row['one_word_titles'])})" if row["one_word_titles"] else ""
        print(f"| {topic} | **ours** | {row['cited']} | {row['on_topic']} | {row['heading_sim']} | {row['headings']} | "
              f"{row['one_word']}{one_word} | {row['copied']}{copied} | {row['rejected']} | {row['repeated']} | {row['glitches']} | {row['multi']} | "
              f"{row['led']} | {row['minutes']} |")
        for system in SYSTEMS:
            other = theirs(system, topic, data)
            if other:
                print(f"| {topic} | {system} | {other['cited']} | n/a | n/a | {other['headings']} | {other['one_word']} | "
                      f"{other['copied']} | "
                      f"{other['rejected']} | {other['repeated']} | {other['glitches']} | {other['multi']} | {other['led']} | |")


if __name__ == "__main__":
    main()
