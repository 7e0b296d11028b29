"""Polish never empties a subsection: its best sentences stay, with a warning and a manifest entry."""

from __future__ import annotations

import logging

from tests.scripted_llm import ScriptedChatModel
from surveygraph.agents.deps import GenerationDeps
from surveygraph.agents.polisher import keep_best_sentences, polish_sections
from surveygraph.settings import Settings

A = "Dense retrievers embed queries and passages in one vector space for nearest neighbour search [1]."
B = "Sparse retrievers match expanded terms in an inverted index that is cheap to serve at scale [2]."
C = "Hybrid systems fuse both rankings and report higher recall than either retriever alone [1][2]."
D = "A short closing remark without any citation at all in it."
KEYS = {"1": "arxiv:2501.00001", "2": "arxiv:2501.00002"}


def make_state() -> dict:
    outline = [{"id": "1", "title": "Retrieval", "subsections": [
        {"id": "1.1", "title": "Retrievers"}, {"id": "1.2", "title": "Fusion"}, {"id": "1.3", "title": "Other"}]}]
    drafts = {
        "1.1": {"text": f"{A} {B}\n\n{C} {D}", "keys": KEYS},
        "1.2": {"text": f"{C} {A}\n\n{D} {B}", "keys": KEYS},  # every sentence already said in 1.1
        "1.3": {"text": "", "keys": {}},  # empty before polish: stays empty, no warning
    }
    return {"topic": "RAG", "outline": outline, "drafts": drafts}


def deps(tmp_path, **generation) -> GenerationDeps:
    return GenerationDeps(settings=Settings(home=tmp_path, generation=generation), corpus=None, outlines=None,
                          clients=None)


def texts(update: dict) -> dict[str, str]:
    return {sub["id"]: sub["text"] for s in update["survey"]["body"] for sub in s["subsections"]}


def test_a_subsection_of_repeats_keeps_its_best_sentences(tmp_path, caplog):
    with caplog.at_level(logging.WARNING, logger="surveygraph.agents.polisher"):
        update = polish_sections(make_state(), deps(tmp_path))
    out = texts(update)
    assert out["1.2"], "polish emptied a subsection"
    kept = out["1.2"]
    # the three cited sentences (C cites two papers, so it ranks first), in their original order
    assert kept.index("Hybrid systems fuse") < kept.index("Dense retrievers embed") < kept.index("Sparse retrievers")
    assert "closing remark" not in kept
    assert "[1, 2]" in kept and "[1]" in kept  # markers renumbered like every other text
    (entry,) = [f for f in update["fallbacks"] if f["item"] == "1.2"]
    assert entry["node"] == "polish_sections" and "would have emptied the subsection" in entry["reason"]
    assert update["integrity"]["emptied_subsections_kept"] == 1
    assert any("1.2" in r.getMessage() and "emptied" in r.getMessage() for r in caplog.records)
    assert out["1.3"] == "" and not [f for f in update["fallbacks"] if f["item"] == "1.3"]


def test_partial_repetition_is_still_removed(tmp_path):
    state = make_state()
    state["drafts"]["1.2"]["text"] = f"{A} A new sentence about rerankers that nobody said before [2]."
    out = texts(polish_sections(state, deps(tmp_path)))
    assert out["1.2"].startswith("A new sentence about rerankers") and "Dense retrievers" not in out["1.2"]


def test_keep_best_sentences_limit_and_order():
    internal = {"[1][2]": "[@a][@b]", "[1]": "[@a]", "[2]": "[@b]"}
    text = f"{D} {A}\n\n{C} {B}"
    for local, marker in internal.items():
        text = text.replace(local, marker)
    kept = keep_best_sentences(text, limit=2)
    # two papers beat one; among one-paper sentences the longer wins; original order is kept
    assert kept == f"{C} {B}".replace("[1][2]", "[@a][@b]").replace("[2]", "[@b]")


def test_smoothing_goes_through_the_gate(tmp_path):
    from surveygraph.graphs.runner import build_deps

    noise = "Section 1 - Search Queries: - What do you think about the search queries? (5 points)"
    model = ScriptedChatModel(responder=lambda prompt: noise)
    settings = Settings(home=tmp_path, llm={"cache": False, "retries": 0},
                        generation={"llm_smoothing": True})
    gen_deps = build_deps(settings, chat_models={"planner": model, "writer": model, "judge": model})
    state = make_state()
    state["papers"] = {KEYS["1"]: {"arxiv_id": "2501.00001", "title": "Dense", "abstract": A},
                       KEYS["2"]: {"arxiv_id": "2501.00002", "title": "Sparse", "abstract": B}}
    update = polish_sections(state, gen_deps)
    assert "Search Queries" not in texts(update)["1.1"] and texts(update)["1.1"].startswith("Dense retrievers")
    assert update["gate"]["polish_sections:1.1"]["winner"] == "floor"
    assert any(f["item"] == "1.1" and f["reason"].startswith("kept the draft") for f in update["fallbacks"])


def test_a_sentence_relating_other_works_is_not_a_repeat():
    """The floor's sentences that relate works ("Two works centre on X [..]") recur in wording but
    not in content when they cite other works; the same claim about the same works still goes."""
    from surveygraph.agents.text import drop_repeated_sentences

    first = "Two works centre on knowledge graphs [@arxiv:2510.02827][@arxiv:2506.19967]."
    other = "Two works centre on knowledge graphs [@arxiv:2505.20862][@arxiv:2504.12137]."
    out, removed = drop_repeated_sentences([first, f"{other} {first}"])
    assert removed == 1 and out[1] == other


def test_a_subsection_left_with_its_uncited_opening_keeps_its_cited_sentences(tmp_path):
    """Repetition removal that leaves only the uncited opening ("This subsection reviews four works
    on recent advances of generation and fusion.") has emptied the subsection for a reader: its best
    cited sentences come back after the opening (a 7-paper RAG store, minilm-head index)."""
    state = make_state()
    opening = "This subsection reviews two works on fusion of retrievers in hybrid search systems."
    state["drafts"]["1.2"]["text"] = f"{opening} {C} {A}\n\n{B}"
    out = texts(polish_sections(state, deps(tmp_path)))
    assert out["1.2"].startswith(opening) and "Hybrid systems fuse" in out["1.2"] and "[1" in out["1.2"]

