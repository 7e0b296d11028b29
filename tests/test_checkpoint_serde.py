"""Checkpoints carry paper ids, not abstracts (graphs/checkpoint_serde.py, issue 18)."""

from __future__ import annotations

from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.types import Send

from surveygraph.graphs.checkpoint_serde import PaperRefSerializer
from surveygraph.models import Paper

ABSTRACT = "A long abstract about retrieval-augmented generation " * 20


class _Store:
    def __init__(self, papers):
        self.papers = {p.paper_id: p for p in papers}
        self.asked = []

    def get(self, ids):
        self.asked.append(list(ids))
        return [self.papers[i] for i in ids if i in self.papers]


def _papers():
    return [Paper(arxiv_id=f"2501.0000{i}", title=f"Paper {i}", abstract=ABSTRACT + str(i), year=2025,
                  authors=["Ada Lovelace"], categories=["cs.CL"]) for i in range(3)]


def test_state_round_trips_with_stored_papers_as_ids():
    papers = _papers()
    store = _Store(papers)
    enriched = papers[2].model_copy(update={"citation_count": 7})  # differs from the store: kept whole
    state = {
        "topic": "RAG",
        "papers": {p.paper_id: p.model_dump(mode="json") for p in papers[:2]} | {
            enriched.paper_id: enriched.model_dump(mode="json")},
        # dumps without None fields, as the graph's state holds them
        "tasks": [Send("write_subsection", {"sub": {"id": "1.1"},
                                            "papers": [papers[0].model_dump(mode="json", exclude_none=True)]})],
        "memory": ["arxiv:2501.00000"],
    }
    serde = PaperRefSerializer(store)
    kind, blob = serde.dumps_typed(state)
    plain_kind, plain_blob = JsonPlusSerializer().dumps_typed(state)
    assert blob.count(ABSTRACT.encode()) == 1  # only the enriched paper's abstract is written
    assert plain_blob.count(ABSTRACT.encode()) == 4 and len(blob) < len(plain_blob) / 2
    back = serde.loads_typed((kind, blob))
    assert back["papers"] == state["papers"] and back["topic"] == "RAG" and back["memory"] == state["memory"]
    assert isinstance(back["tasks"][0], Send) and back["tasks"][0].arg == state["tasks"][0].arg
    # Checkpoints written without it still load.
    assert serde.loads_typed((plain_kind, plain_blob))["papers"] == state["papers"]


def test_a_paper_gone_from_the_store_is_a_clear_error():
    import pytest

    from surveygraph.errors import UserError

    papers = _papers()
    blob = PaperRefSerializer(_Store(papers)).dumps_typed({"papers": {papers[0].paper_id: papers[0].model_dump(mode="json")}})
    with pytest.raises(UserError, match="no longer holds"):
        PaperRefSerializer(_Store([])).loads_typed(blob)
