"""`surveygraph corpus fetch` / `corpus enrich` offline (canned arXiv feed and S2 batch answers)."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from surveygraph.cli import app
from surveygraph.retrieval import arxiv_source, semantic_scholar
from surveygraph.retrieval.loaders import load_path

from tests.test_sources_clients import arxiv_client

FIXTURES = Path(__file__).parent / "fixtures" / "sources"


@pytest.fixture
def canned_network(monkeypatch):
    feed = (FIXTURES / "arxiv_feed.xml").read_bytes()
    s2_body = json.loads((FIXTURES / "s2_batch.json").read_text())
    s2_requests: list[list[str]] = []

    def s2_handler(request):
        ids = json.loads(request.content)["ids"]
        s2_requests.append(ids)
        by_arxiv = {f"ARXIV:{r['externalIds']['ArXiv']}": r for r in s2_body if r}
        return httpx.Response(200, json=[by_arxiv.get(i) for i in ids])

    monkeypatch.setattr(arxiv_source, "default_client",
                        lambda max_results: arxiv_client(lambda r: (200, feed))[0])
    monkeypatch.setattr(semantic_scholar, "default_http_client",
                        lambda: httpx.Client(transport=httpx.MockTransport(s2_handler)))
    monkeypatch.setattr(semantic_scholar.TokenBucket, "acquire", lambda self: None)
    return s2_requests


def test_fetch_dedupes_enriches_and_writes_jsonl(tmp_home, canned_network):
    out = tmp_home / "rag.jsonl"
    runner = CliRunner()
    result = runner.invoke(app, ["corpus", "fetch", "arxiv", "retrieval augmented generation",
                                 "--max", "3", "--enrich", "--no-ingest", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "1 duplicates merged" in result.output and "1/2 enriched" in result.output
    assert canned_network == [["ARXIV:2312.10997", "ARXIV:2005.11401"]]
    papers = load_path(out).papers
    assert [p.arxiv_id for p in papers] == ["2312.10997", "2005.11401"]
    assert papers[0].categories == ["cs.CL", "cs.AI", "cs.IR"]  # merged from the duplicate entry
    assert papers[1].citation_count == 6135 and papers[0].citation_count is None

    again = runner.invoke(app, ["corpus", "fetch", "arxiv", "rag", "--no-ingest", "--out", str(out)])
    assert again.exit_code == 2 and "already exists" in again.output


def test_fetch_option_errors(tmp_home):
    runner = CliRunner()
    bad_source = runner.invoke(app, ["corpus", "fetch", "pubmed", "rag"])
    assert bad_source.exit_code == 2 and "unknown source" in bad_source.output
    nowhere = runner.invoke(app, ["corpus", "fetch", "arxiv", "rag", "--no-ingest"])
    assert nowhere.exit_code == 2 and "--no-ingest needs --out" in nowhere.output


def test_enrich_file(tmp_home, canned_network):
    out = tmp_home / "enriched.jsonl"
    runner = CliRunner()
    result = runner.invoke(app, ["corpus", "enrich", str(FIXTURES / "papers.jsonl"), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "skipped 4 unreadable records" in result.output
    papers = load_path(out).papers
    assert len(papers) == 3
    assert papers[1].arxiv_id == "2005.11401" and papers[1].s2_id.startswith("46f9f7b8")
    # the second run is served from the cache: no new request
    runner.invoke(app, ["corpus", "enrich", str(FIXTURES / "papers.jsonl"), "--out", str(out), "--force"])
    assert len(canned_network) == 1
    missing = runner.invoke(app, ["corpus", "enrich", str(tmp_home / "none.jsonl"), "--out", str(out)])
    assert missing.exit_code == 2 and "no such file" in missing.output


def test_fetch_adds_papers_to_the_corpus(tmp_home, canned_network):
    from surveygraph.retrieval.corpus import Corpus
    from surveygraph.settings import load_settings

    runner = CliRunner()
    result = runner.invoke(app, ["corpus", "fetch", "arxiv", "retrieval augmented generation", "--max", "3"])
    assert result.exit_code == 0, result.output
    assert "added 2 new papers" in result.stdout
    corpus = Corpus(load_settings())
    assert corpus.count() == 2
    stored = corpus.get(["arxiv:2005.11401"])[0]
    assert stored.source == "arxiv" and stored.venue.startswith("Advances in Neural")
    again = runner.invoke(app, ["corpus", "fetch", "arxiv", "retrieval augmented generation", "--max", "3"])
    assert "added 0 new papers" in again.stdout and corpus.count() == 2
