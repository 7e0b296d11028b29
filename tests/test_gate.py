"""The gate: model text replaces the floor only when it is valid and not worse on content."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.scripted_llm import ScriptedChatModel
from tests.synthesis_fixtures import CLEAN_PAPERS
from surveygraph.agents.gate import choose, interim_content_score
from surveygraph.agents.synthesis import synthesize

FIXTURES = Path(__file__).parent / "fixtures" / "local_model_outputs"

# What a capable model writes: its own words, comparisons, each claim cited to the right paper.
GOOD = (
    "Retrievers differ mainly in how they trade recall against serving cost. Smith et al. fuse dense passages "
    "late, weighting each by how much the other passages agree with it, which lifts exact match on Natural "
    "Questions and TriviaQA [1]. Okafor instead keeps a cheap inverted index and expands BM25 with learned "
    "terms, closing most of the recall gap to a dense bi-encoder on SciFact [2].\n\n"
    "For questions that need several hops, GraphHop follows citation links to build complete evidence chains "
    "far more often than iterative dense retrieval on HotpotQA [3]. A complementary line teaches the generator "
    "to abstain, and an abstention head reading the reader's attention halves unsupported answers on "
    "medical benchmarks [4]. Both fusion and expansion still break down at the edges, with too few passages "
    "or with queries outside English [1, 2]."
)
# Fluent and valid, but every claim is pinned on the first paper and none of it is in that paper.
UNGROUNDED = (
    "Retrieval-augmented generation is a broad and rapidly growing field with many practical applications [1]. "
    "Modern systems combine neural search with powerful generators to answer complex questions well [1]. "
    "Practitioners care about latency, cost and robustness when they deploy such pipelines in industry [1]. "
    "Benchmarks are evolving quickly, and community leaderboards track progress across many languages [1]. "
    "Future systems will likely integrate structured knowledge and tools in a unified architecture [1]."
)


def local_model_noise() -> list[str]:
    """Real outputs of the bundled 270M model (frame prompts), as collected in the fixtures."""
    calls = json.loads((FIXTURES / "write_frame.json").read_text())["calls"]
    return [c["output"] for c in calls if c.get("output")]


@pytest.fixture(scope="module")
def floor() -> str:
    return synthesize("Dense and Sparse Retrieval", CLEAN_PAPERS, description="How retrievers find evidence.")


def test_capable_model_text_wins_and_the_record_says_why(floor):
    score = interim_content_score(CLEAN_PAPERS)
    text, decision = choose("write_subsection", "1.1", GOOD, floor, score=score)
    assert text == GOOD and decision.winner == "model"
    assert decision.model_score >= decision.floor_score and "not worse than the floor" in decision.reason
    record = decision.record()
    assert record["step"] == "write_subsection" and record["item"] == "1.1" and record["winner"] == "model"


def test_ungrounded_text_loses_on_content(floor):
    score = interim_content_score(CLEAN_PAPERS)
    features = score.features(UNGROUNDED)
    assert features["breadth"] == pytest.approx(0.25) and features["claim_support"] < score.features(floor)["claim_support"]
    text, decision = choose("write_subsection", "1.1", UNGROUNDED, floor, score=score)
    assert text == floor and decision.winner == "floor" and "worse than the floor" in decision.reason
    assert decision.fallback()["reason"].startswith("floor kept: ")


def test_local_model_noise_is_rejected_before_scoring(floor):
    noise = local_model_noise()
    assert noise
    for output in noise:
        text, decision = choose("write_frame", "abstract", output, floor, score=interim_content_score(CLEAN_PAPERS))
        assert text == floor and decision.winner == "floor", output[:200]
        assert decision.reason.startswith("model text invalid") and decision.model_score is None


def test_copied_abstracts_with_shuffled_citations_lose(floor):
    # The abstracts' own sentences, each cited to the wrong paper: valid prose, wrong citations.
    wrong = " ".join(f"{p['abstract'].split('. ')[0]} [{(k % 4) + 1}]." for k, p in enumerate(CLEAN_PAPERS, start=1))
    wrong += " " + " ".join(f"{p['abstract'].split('. ')[1]} [{((k + 1) % 4) + 1}]." for k, p in enumerate(CLEAN_PAPERS, start=1))
    score = interim_content_score(CLEAN_PAPERS)
    assert score.features(wrong)["citation_correctness"] < 0.3
    assert choose("write_subsection", "1.1", wrong, floor, score=score)[1].winner == "floor"


def test_invalid_floor_loses_to_valid_model_text_and_no_text_keeps_floor():
    short_floor = "This subsection reviews one work on abstention, published in 2026: Kim [1]."
    text, decision = choose("write_subsection", "2.1", GOOD, short_floor, score=lambda t: 1.0)
    assert text == GOOD and decision.winner == "model" and "the floor is not" in decision.reason
    text, decision = choose("write_subsection", "2.1", "", short_floor, score=lambda t: 1.0,
                            no_model_reason="model call failed (503)")
    assert text == short_floor and decision.reason == "model call failed (503)"


def _write(tmp_path, reply: str):
    from surveygraph.agents.writer import write_subsection
    from surveygraph.graphs.runner import build_deps
    from surveygraph.settings import Settings

    model = ScriptedChatModel(responder=lambda prompt: reply)
    settings = Settings(home=tmp_path, llm={"cache": False, "retries": 0})
    deps = build_deps(settings, chat_models={"planner": model, "writer": model, "judge": model})
    task = {"topic": "Retrieval-Augmented Generation", "section_title": "Retrieval",
            "subsection": {"id": "1.1", "title": "Dense and Sparse Retrieval", "description": "How retrievers work."},
            "papers": CLEAN_PAPERS, "budget_exhausted": False}
    return write_subsection(task, deps)


def test_writer_uses_good_model_text_and_records_the_gate(tmp_path):
    update = _write(tmp_path, GOOD)
    draft = update["drafts"]["1.1"]
    assert draft["status"] == "written" and draft["text"] == GOOD
    assert update["gate"]["write_subsection:1.1"]["winner"] == "model"
    assert "fallbacks" not in update


def test_writer_falls_back_to_the_synthesis_on_bad_text(tmp_path):
    for bad in [UNGROUNDED, local_model_noise()[0], "I would like to respond."]:
        update = _write(tmp_path, bad)
        draft = update["drafts"]["1.1"]
        assert draft["status"] == "extractive" and draft["text"].startswith("This subsection reviews four works")
        gate = update["gate"]["write_subsection:1.1"]
        assert gate["winner"] == "floor" and update["fallbacks"][0]["node"] == "write_subsection"
        assert update["fallbacks"][0]["reason"] == "floor kept: " + gate["reason"]


def test_graph_with_scripted_models_good_text_wins_bad_text_falls_back(shared_data, tmp_path):
    """End to end over the real corpus slice: a capable scripted writer's drafts pass the gate in
    every subsection; a writer that returns the 270M model's noise leaves every subsection to the
    floor, which is still a cited multi-paper synthesis."""
    import re

    from tests.generation_helpers import corpus_home, scripted_models, small_settings, survey_responder
    from surveygraph.graphs.runner import build_deps, start_run

    home = corpus_home(shared_data)
    noise = local_model_noise()[0]

    def noisy(prompt: str) -> str:
        return noise if "TASK: write one subsection" in prompt else survey_responder(prompt)

    gates = {}
    for name, responder in (("good", survey_responder), ("bad", noisy)):
        _model, chat = scripted_models(responder)
        result = start_run("Retrieval-Augmented Generation for Large Language Models",
                           build_deps(small_settings(home), chat_models=chat), runs_dir=tmp_path / name)
        manifest = json.loads((result.run_dir / "manifest.json").read_text())
        gates[name] = {k: g["winner"] for k, g in manifest["gate"].items() if k.startswith("write_subsection")}
        survey = json.loads((result.run_dir / "survey.json").read_text())
        for section in survey["sections"]:
            # (the good writer's drafts repeat each other, so polish may leave one citation there)
            if section["level"] == 2 and name == "bad":
                cited = {n for group in re.findall(r"\[([\d,\s]+)\]", section["text"]) for n in group.split(",")}
                assert len(cited) >= 2, section["text"][:200]
                assert not re.search(r"\(\d{4}\): ", section["text"])
    assert len(gates["good"]) == 4 and set(gates["good"].values()) == {"model"}
    assert len(gates["bad"]) == 4 and set(gates["bad"].values()) == {"floor"}
