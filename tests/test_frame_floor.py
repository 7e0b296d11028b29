"""Frame floor: abstract, introduction and conclusion from the outline and corpus statistics;
model text only through the gate; every citation resolves."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from surveygraph.agents.framer import frame_citations_resolve, write_frame
from surveygraph.agents.outline.floor import build_outline_floor, tfidf_encoder
from surveygraph.agents.validators import validate_prose
from test_outline_floor import TOPIC, _texts, fixture_corpus

FIXTURES = Path(__file__).parent / "fixtures" / "local_model_outputs"


def _state() -> dict:
    """A polished survey over the fixture corpus: the floor outline, one cited sentence per paper."""
    ids, papers, _ = fixture_corpus()
    vectors, encode = tfidf_encoder(_texts(ids, papers))
    outline = build_outline_floor(TOPIC, ids, papers, vectors, n_sections=4, n_subsections=2, encode=encode)
    references: list[str] = []
    body = []
    for s, section in enumerate(outline, start=1):
        section["id"] = str(s)
        subs = []
        for j, sub in enumerate(section["subsections"], start=1):
            sub["id"] = f"{s}.{j}"
            lines = []
            for pid in sub["paper_ids"][:3]:  # not every paper is cited: the frame may add some
                references.append(pid)
                lines.append(f"{papers[pid]['title']} is discussed here [{len(references)}].")
            subs.append({"id": sub["id"], "title": sub["title"], "text": " ".join(lines)})
        body.append({"id": section["id"], "title": section["title"], "subsections": subs})
    return {"topic": TOPIC, "papers": papers, "memory": ids, "outline": outline,
            "survey": {"topic": TOPIC, "body": body, "references": references,
                       "figures": [{"path": "figures/papers_per_theme.png", "caption": "Papers per theme and year.",
                                    "section_id": "introduction"}]}}


def _deps(tmp_path, responder):
    from tests.generation_helpers import scripted_models

    from surveygraph.agents.deps import GenerationDeps
    from surveygraph.llm import build_role_clients
    from surveygraph.settings import Settings

    settings = Settings(home=tmp_path, llm={"cache": False, "retries": 0})
    _model, chat = scripted_models(responder)
    return GenerationDeps(settings=settings, corpus=None, outlines=None,
                          clients=build_role_clients(settings, chat_models=chat))


def _real_local_frame(prompt: str) -> str:
    calls = json.loads((FIXTURES / "write_frame.json").read_text())["calls"]
    part = re.search(r"TASK: write the (\w+)", prompt).group(1)
    return next(c["output"] for c in calls if c["part"] == part)


def test_floor_replaces_real_model_noise_and_states_the_facts(tmp_path):
    state = _state()
    update = write_frame(state, _deps(tmp_path, _real_local_frame))
    survey = update["survey"]
    assert {f["item"] for f in update["fallbacks"] if f["node"] == "write_frame"} == {"abstract", "introduction", "conclusion"}
    assert all(update["gate"][f"write_frame:{p}"]["winner"] == "floor" for p in ("abstract", "introduction", "conclusion"))
    n_refs = len(state["survey"]["references"])
    assert f"{n_refs} papers" in survey["abstract"] and "between 2024 and 2025" in survey["abstract"]
    for section in state["survey"]["body"]:  # every theme is named in abstract and introduction
        assert section["title"] in survey["abstract"] and section["title"] in survey["introduction"]
    intro_text = survey["introduction"].split("\n\n![")[0]
    for part in (survey["abstract"], intro_text, survey["conclusion"]):
        assert validate_prose(part) == [], part
        assert "http" not in part and "(5 points)" not in part and "research project" not in part.lower()
        assert frame_citations_resolve(part, len(survey["references"]))
    assert survey["introduction"].rstrip().endswith(
        "![Figure 1: Papers per theme and year.](figures/papers_per_theme.png)")


def test_frame_citations_keep_body_numbers_and_append_new_ones(tmp_path):
    state = _state()
    before = list(state["survey"]["references"])
    survey = write_frame(state, _deps(tmp_path, _real_local_frame))["survey"]
    assert survey["references"][:len(before)] == before  # body numbering untouched
    cited = {int(n) for n in re.findall(r"\[(\d+)\]", survey["introduction"] + survey["conclusion"])}
    assert cited and max(cited) <= len(survey["references"])
    assert len(set(survey["references"])) == len(survey["references"])


def test_good_model_text_passes_the_gate(tmp_path):
    state = _state()
    titles = [s["title"] for s in state["survey"]["body"]]

    def good(prompt: str) -> str:
        return (f"Retrieval-augmented generation couples a retriever with a generator so that answers rest on "
                f"evidence rather than on parameters alone. This survey examines four strands of that work: "
                f"{', '.join(titles[:-1])} and {titles[-1]}. Each strand is traced from the problems that motivate "
                "it to the methods proposed and the evidence reported for them, and the closing discussion weighs "
                "what remains unsolved across the strands, from faithfulness to cost.")

    update = write_frame(state, _deps(tmp_path, good))
    assert all(update["gate"][f"write_frame:{p}"]["winner"] == "model" for p in ("abstract", "introduction", "conclusion"))
    assert update["survey"]["abstract"].startswith("Retrieval-augmented generation couples")
    assert not [f for f in update["fallbacks"] if f["node"] == "write_frame"]


@pytest.mark.parametrize("polish", [False])
def test_no_frame_without_polish(tmp_path, polish):
    deps = _deps(tmp_path, _real_local_frame)
    deps.settings.generation.polish = polish
    assert write_frame(_state(), deps) == {}
