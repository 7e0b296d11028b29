"""The real bundled local model (Gemma 3 270M via llama.cpp) end to end on ~200 RAG papers."""

from __future__ import annotations

import json
import re

import pytest

from surveygraph.agents.text import degenerate_repetition
from surveygraph.graphs.runner import build_deps, start_run
from surveygraph.models import Survey
from surveygraph.settings import Settings
from tests.generation_helpers import corpus_home
from tests.local_llm import requires_local_llm

pytestmark = pytest.mark.slow


@requires_local_llm
def test_local_model_writes_a_complete_survey(shared_data, tmp_path):
    home = corpus_home(shared_data)
    # local_drafts: this test is about the real model inside the graph, which the default skips
    settings = Settings(home=home, llm={"default": "local", "cache": False, "local_drafts": True},
                        generation={"sections": 2, "subsections": 1, "outline_candidates": 60,
                                    "papers_per_section": 20, "papers_per_subsection": 5, "subqueries": 2,
                                    "concurrency": 1})
    deps = build_deps(settings)
    result = start_run("Retrieval-Augmented Generation for Large Language Models", deps, runs_dir=tmp_path)
    run_dir = result.run_dir
    for name in ("survey.md", "survey.json", "survey.tex", "references.bib", "manifest.json", "evaluation.json"):
        assert (run_dir / name).is_file(), name
    survey = Survey.model_validate_json((run_dir / "survey.json").read_text())
    body = [e for e in survey.outline if e.level == 1 and e.title not in ("Introduction", "Conclusion")]
    assert len(body) >= 2
    corpus_ids = {p.paper_id for p in deps.corpus.get([r.paper_id for r in survey.references])}
    assert all(r.paper_id in corpus_ids for r in survey.references)  # every reference is a corpus paper
    markers = {n for m in re.findall(r"\[([\d,\s]+)\]", survey.text) for n in m.replace(" ", "").split(",")}
    assert markers <= {r.key for r in survey.references}  # every marker resolves
    for section in survey.sections:
        assert degenerate_repetition(section.text) < 0.05, section.heading
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["tokens"]["total"]["output_tokens"] > 0 and manifest["models"]["writer"] == "local"


def test_default_job_does_not_ask_the_bundled_model_for_drafts(shared_data, tmp_path):
    """The bundled 270M base model's drafts never pass the gate: by default no call is made, every
    step says why in the manifest, and the survey is the floor's. Needs no local-LLM extra: this is
    the path `make install` serves (the model is built but never loaded)."""
    home = corpus_home(shared_data)
    settings = Settings(home=home, llm={"default": "local", "cache": False},
                        generation={"sections": 2, "subsections": 1, "outline_candidates": 60,
                                    "papers_per_section": 20, "papers_per_subsection": 5, "self_evaluate": False})
    result = start_run("Retrieval-Augmented Generation for Large Language Models", build_deps(settings),
                       runs_dir=tmp_path)
    manifest = json.loads((result.run_dir / "manifest.json").read_text())
    assert manifest["tokens"]["total"]["calls"] == 0
    assert set(manifest["subsection_status"].values()) == {"skipped-local"}
    assert any("never pass the gate" in str(f.get("reason")) for f in manifest["fallbacks"])
    assert manifest["outcome"]["exit_code"] == 0 and manifest["outcome"]["body_words"] > 200
