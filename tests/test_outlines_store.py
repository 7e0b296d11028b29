"""The Survey Outline DB with the real MiniLM encoder and Chroma, plus its CLI."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from surveygraph.cli import app
from surveygraph.errors import UserError
from surveygraph.models import HumanOutline, OutlineEntry
from surveygraph.retrieval.outlines import OutlineStore
from surveygraph.settings import load_settings

RAG = "Retrieval-Augmented Generation for Large Language Models"


@pytest.fixture
def human_survey_dir(shared_data):
    return shared_data / "weaidb_surveybench" / "HumanSurvey"


def test_ingest_search_random_on_real_outlines(tmp_home, human_survey_dir):
    store = OutlineStore(load_settings())
    assert store.count() == 0 and store.search("anything") == [] and store.random(2) == []
    report = store.ingest_path(human_survey_dir)
    # outlines.json covers every Markdown survey's topic, so its clean outlines are used
    assert report.added == 20 and store.count() == 20
    hits = store.search("retrieval augmented generation", k=3)
    assert len(hits) == 3 and hits[0].topic == RAG
    assert hits[0].entries[0].title == "Introduction"
    assert store.search("denoising diffusion probabilistic models", k=1)[0].topic == "Generative Diffusion Models"
    assert store.search("message passing on graphs", k=1)[0].topic == "Graph Neural Networks"
    picks = store.random(5, seed=3)
    assert len({o.topic for o in picks}) == 5
    assert [o.topic for o in store.random(5, seed=3)] == [o.topic for o in picks]
    assert [o.topic for o in store.random(5, seed=4)] != [o.topic for o in picks]
    # re-ingesting replaces rows instead of duplicating them
    store.ingest_path(human_survey_dir / "outlines.json")
    assert store.count() == 20


def test_add_markdown_file_and_errors(tmp_home, human_survey_dir):
    store = OutlineStore(load_settings())
    report = store.ingest_path(human_survey_dir / f"{RAG}.md")
    assert report.added == 1 and store.count() == 1
    assert store.add([HumanOutline(topic="empty", entries=[])]) == 0
    assert store.add([HumanOutline(topic="Toy topic", entries=[OutlineEntry(level=1, title="A")])]) == 1
    assert store.count() == 2
    with pytest.raises(UserError, match="no such file"):
        store.ingest_path(tmp_home / "missing")
    (tmp_home / "x.csv").write_text("a")
    with pytest.raises(UserError, match="unsupported outline input"):
        store.ingest_path(tmp_home / "x.csv")


def test_outlines_cli(tmp_home, human_survey_dir):
    runner = CliRunner()
    empty = runner.invoke(app, ["outlines", "search", "rag"])
    assert empty.exit_code == 2 and "outline DB is empty" in empty.output
    ingested = runner.invoke(app, ["outlines", "ingest", str(human_survey_dir / "outlines.json")])
    assert ingested.exit_code == 0, ingested.output
    assert "added 20 outlines" in ingested.stdout
    shown = runner.invoke(app, ["outlines", "search", "retrieval augmented generation", "-k", "2"])
    assert shown.exit_code == 0 and shown.stdout.splitlines()[0] == f"1. {RAG}"
    assert "     Overview of RAG" in shown.stdout
    as_json = runner.invoke(app, ["outlines", "search", "retrieval augmented generation", "--json"])
    data = json.loads(as_json.stdout)
    assert len(data) == 3 and data[0]["topic"] == RAG and data[0]["entries"][0]["level"] == 1
    missing = runner.invoke(app, ["outlines", "ingest", str(tmp_home / "nope.md")])
    assert missing.exit_code == 2 and "no such file" in missing.output
