"""Shared pieces for the generation tests: a real corpus slice and a scripted survey model.

The corpus is a real slice of the shared arXiv corpus (RAG-related papers), embedded with the
real MiniLM embedder once per session. The scripted model answers each prompt template the way a
competent model would (routing on the template's TASK line), so graph behaviour is observable.
"""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

from tests.scripted_llm import ScriptedChatModel

RAG_PATTERN = re.compile(r"retrieval[- ]augmented|\bRAG\b", re.I)
SECTION_POOL = ["Retrieval Strategies", "Generation and Fusion", "Evaluation and Benchmarks",
                "Efficiency and Deployment", "Trustworthiness and Safety", "Multimodal Extensions"]
ASPECTS = ["Foundations", "Recent Advances", "Open Problems", "Applications"]
SHARED_SENTENCE = "Retrieval-augmented generation grounds model outputs in retrieved evidence."


def rag_papers(shared_data: Path, n: int = 200) -> list:
    """``n`` RAG-related papers spread evenly over the corpus's time span (so TRE has years to
    balance): every k-th match of a title/abstract pattern, in file (announcement) order."""
    from surveygraph.retrieval.loaders import paper_from_record

    matches = []
    with gzip.open(shared_data / "corpus" / "arxiv_2025_2026.jsonl.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            if "etrieval" not in line and "RAG" not in line:
                continue  # cheap pre-filter before parsing JSON
            record = json.loads(line)
            if RAG_PATTERN.search(record.get("title", "")) or RAG_PATTERN.search(record.get("abstract", "")[:300]):
                matches.append(record)
    step = max(1, len(matches) // n)
    return [paper_from_record(r) for r in matches[::step][:n]]


def _task(prompt: str) -> str:
    match = re.search(r"TASK: (.+)", prompt)
    return match.group(1) if match else ""


def _paper_blocks(prompt: str) -> list[tuple[str, str]]:
    return re.findall(r"^Paper \[(\d+)\]\nTitle: (.*?)\n", prompt, re.M)


def plan_sections_reply(prompt: str) -> str:
    n = int(re.search(r"Write exactly (\d+) first-level", prompt).group(1))
    # Realistic noise: an empty title and a duplicate the sanitiser must drop.
    items = [{"title": "", "description": "", "query": ""}]
    for title in SECTION_POOL[:n]:
        items.append({"title": title, "description": f"How RAG systems handle {title.lower()}.",
                      "query": f"retrieval-augmented generation {title.lower()}"})
    items.append({"title": SECTION_POOL[0], "description": "dup", "query": "dup"})
    return json.dumps({"sections": items})


def plan_subsections_reply(prompt: str) -> str:
    n = int(re.search(r"Write exactly (\d+) subsections", prompt).group(1))
    section = re.search(r'for the section "(.+?)"', prompt).group(1)
    items = [{"title": f"{aspect} of {section}", "description": f"{aspect} in {section.lower()}.",
              "query": f"{section.lower()} {aspect.lower()} retrieval augmented generation"}
             for aspect in ASPECTS[:n]]
    return json.dumps({"subsections": items})


def subqueries_reply(prompt: str) -> str:
    """Like a competent model: the memory titles that share the most words with the subsection."""
    block = re.search(r"<<DATA-\w+>>\n(.*?)<<END-\w+>>", prompt, re.S)
    titles = re.findall(r"^- (.+)$", block.group(1), re.M) if block else []
    subsection = re.search(r"Subsection: (.+)", prompt)
    words = set(re.findall(r"[a-z]{4,}", subsection.group(1).lower())) if subsection else set()
    ranked = sorted(titles, key=lambda t: -len(words & set(re.findall(r"[a-z]{4,}", t.lower()))))
    return json.dumps({"queries": [t[:80] for t in ranked[:3]] or ["retrieval augmented generation"]})


def write_reply(prompt: str) -> str:
    blocks = _paper_blocks(prompt)
    subsection = re.search(r"Subsection: (.+)", prompt).group(1)
    templates = ["{t} is relevant to {s} [{k}].", "Building on this, {t} reports complementary findings [{k}].",
                 "In contrast, {t} focuses on how such systems are evaluated [{k}].",
                 "Finally, {t} examines remaining limitations and costs [{k}]."]
    # A capable writer cites every paper it was given (the gate compares breadth with the floor's).
    templates += ["{t} also bears on {s} [{k}].", "{t} offers another view of the same question [{k}].",
                  "A related study, {t}, extends this line of work [{k}].", "{t} complements the works above [{k}]."]
    sentences = [templates[i % len(templates)].format(t=title, s=subsection.lower(), k=key)
                 for i, (key, title) in enumerate(blocks)]
    # (every sentence of a capable writer's first paragraph cites: an uncited opener cost the
    # scripted drafts the gate against the floor once pools grew)
    first = " ".join(sentences[:2])
    second = " ".join(sentences[2:]) + f" {SHARED_SENTENCE} Some claims cite a paper that was not given [99]."
    return first + "\n\n" + second.strip()


def frame_reply(prompt: str) -> str:
    part = re.search(r"TASK: write the (\w+)", prompt).group(1)
    return (f"This {part} summarises how retrieval-augmented generation systems retrieve, fuse and "
            f"evaluate evidence, and which challenges remain open for practitioners and researchers.")


def smooth_reply(prompt: str) -> str:
    return re.search(r"<<DATA-\w+>>\n(.*)\n<<END-\w+>>", prompt, re.S).group(1)


def survey_responder(prompt: str) -> str:
    task = _task(prompt)
    if task.startswith("outline the first-level"):
        return plan_sections_reply(prompt)
    if task.startswith("outline the subsections"):
        return plan_subsections_reply(prompt)
    if task.startswith("write search queries"):
        return subqueries_reply(prompt)
    if task.startswith("write one subsection"):
        return write_reply(prompt)
    if task.startswith("write the "):
        return frame_reply(prompt)
    if task.startswith("polish one section"):
        return smooth_reply(prompt)
    raise AssertionError(f"unexpected prompt: {prompt[:200]}")


def scripted_models(responder=survey_responder) -> tuple[ScriptedChatModel, dict]:
    model = ScriptedChatModel(responder=responder)
    return model, {"planner": model, "writer": model, "judge": model}


def use_scripted_model(monkeypatch) -> ScriptedChatModel:
    """Every role's chat model is one scripted model for this test (no response cache)."""
    from surveygraph.llm import roles

    model, _ = scripted_models()
    monkeypatch.setattr(roles, "make_chat_model", lambda spec, settings: model)
    monkeypatch.setenv("SURVEYGRAPH_LLM__CACHE", "false")
    return model


def prompts_for(model: ScriptedChatModel, task_prefix: str) -> list[str]:
    return [p for p in model.calls if _task(p).startswith(task_prefix)]


_CORPUS_HOMES: dict[str, Path] = {}


def corpus_home(shared_data: Path, n: int = 200) -> Path:
    """A data home holding a real corpus slice + the 20 human outlines, built once per process.

    Module-level cache rather than a fixture so every generation test module shares one build.
    """
    key = f"{shared_data}:{n}"
    if key not in _CORPUS_HOMES:
        import atexit
        import shutil
        import tempfile

        from surveygraph.retrieval.corpus import Corpus
        from surveygraph.retrieval.outlines import OutlineStore
        from surveygraph.settings import Settings

        home = Path(tempfile.mkdtemp(prefix="sg-gen-corpus-"))
        atexit.register(shutil.rmtree, home, True)
        settings = Settings(home=home)
        Corpus(settings).add_papers(rag_papers(shared_data, n), progress=False)
        OutlineStore(settings).ingest_path(shared_data / "weaidb_surveybench" / "HumanSurvey" / "outlines.json")
        _CORPUS_HOMES[key] = home
    return _CORPUS_HOMES[key]


def small_settings(home: Path, **generation):
    """Small, fast, uncached settings for graph tests."""
    from surveygraph.settings import Settings

    # pool_per_query 40: at most 80 candidates (40 per engine), the size these tests were written for
    gen = {"sections": 2, "subsections": 2, "outline_candidates": 80, "pool_per_query": 40, "papers_per_section": 20,
           "papers_per_subsection": 4, "subqueries": 2, "concurrency": 2, **generation}
    # yearly TRE buckets: the corpus slice spans 2025-2026, one default two-year bucket (2024-2025) + one
    return Settings(home=home, llm={"cache": False, "retries": 0}, generation=gen, retrieval={"tre_bucket_years": 1})
