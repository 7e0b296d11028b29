"""arXiv and Semantic Scholar clients offline: canned responses injected at the HTTP layer
(requests adapter for ``arxiv``, httpx MockTransport for S2) so the real parsing code runs."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import arxiv
import httpx
import pytest
import requests
from requests.adapters import BaseAdapter

from surveygraph.errors import NetworkUnavailable
from surveygraph.models import Paper
from surveygraph.retrieval.arxiv_source import ArxivSource
from surveygraph.retrieval.semantic_scholar import SemanticScholarEnricher, TokenBucket
from surveygraph.settings import load_settings

FIXTURES = Path(__file__).parent / "fixtures" / "sources"


class CannedAdapter(BaseAdapter):
    """A requests transport answering every request with ``respond(request) -> (status, bytes)``."""

    def __init__(self, respond):
        super().__init__()
        self.respond = respond
        self.urls: list[str] = []

    def send(self, request, **kwargs):
        self.urls.append(request.url)
        status, body = self.respond(request)
        response = requests.Response()
        response.status_code, response._content = status, body
        response.url, response.request = request.url, request
        return response

    def close(self):
        pass


def arxiv_client(respond) -> tuple[arxiv.Client, CannedAdapter]:
    client = arxiv.Client(page_size=100, delay_seconds=0, num_retries=1)
    adapter = CannedAdapter(respond)
    client._session.mount("https://", adapter)
    return client, adapter


@pytest.fixture
def settings(tmp_home):
    return load_settings()


# --- arXiv ----------------------------------------------------------------------------------------

def test_arxiv_search_maps_atom_entries(settings):
    feed = (FIXTURES / "arxiv_feed.xml").read_bytes()
    client, adapter = arxiv_client(lambda request: (200, feed))
    papers = ArxivSource(settings, client=client).search("retrieval augmented generation", 3)
    assert "export.arxiv.org/api/query" in adapter.urls[0]
    assert "retrieval+augmented+generation" in adapter.urls[0]
    assert len(papers) == 3
    survey, rag = papers[0], papers[1]
    assert survey.arxiv_id == "2312.10997" and survey.source == "arxiv"
    assert survey.title == "Retrieval-Augmented Generation for Large Language Models: A Survey"
    assert survey.abstract.startswith("Large Language Models (LLMs) showcase")
    assert "\n" not in survey.abstract
    assert survey.authors == ["Yunfan Gao", "Yun Xiong", "Haofen Wang"]
    assert survey.published == date(2023, 12, 18) and survey.year == 2023
    assert survey.categories == ["cs.CL", "cs.AI"] and survey.doi is None and survey.venue is None
    assert rag.doi == "10.48550/arxiv.2005.11401"
    assert rag.venue == "Advances in Neural Information Processing Systems 33 (2020)"


def test_arxiv_keeps_earlier_pages_when_a_later_page_is_empty(settings):
    feed = (FIXTURES / "arxiv_feed.xml").read_bytes()
    first_page = feed.replace(b">3</opensearch:totalResults>", b">50</opensearch:totalResults>")
    empty_page = feed.split(b"<entry>")[0] + b"</feed>"

    def respond(request):
        return 200, (first_page if "start=0" in request.url else empty_page)

    client, adapter = arxiv_client(respond)
    client.page_size = 3
    papers = ArxivSource(settings, client=client).search("rag", 6)
    assert len(papers) == 3 and len(adapter.urls) == 3  # page 1, then page 2 tried twice
    assert "start=3" in adapter.urls[1]


def test_arxiv_http_error_and_no_network_are_one_line_errors(settings):
    client, _ = arxiv_client(lambda request: (503, b"busy"))
    with pytest.raises(NetworkUnavailable, match="HTTP 503"):
        ArxivSource(settings, client=client).search("rag", 5)

    def refuse(request):
        raise requests.exceptions.ConnectionError("Failed to resolve 'export.arxiv.org'")

    client, _ = arxiv_client(refuse)
    with pytest.raises(NetworkUnavailable, match="cannot reach export.arxiv.org") as info:
        ArxivSource(settings, client=client).search("rag", 5)
    assert "\n" not in str(info.value)


# --- Semantic Scholar ---------------------------------------------------------------------------

def s2_papers() -> list[Paper]:
    return [
        Paper(arxiv_id="2005.11401", title="RAG", venue="NeurIPS (ours)"),
        Paper(doi="10.9999/unknown", title="Unknown to S2"),
        Paper(arxiv_id="1706.03762", title="Attention"),
        Paper(title="No identifier at all"),
    ]


def s2_enricher(settings, handler, **kwargs) -> SemanticScholarEnricher:
    client = httpx.Client(transport=httpx.MockTransport(handler))
    return SemanticScholarEnricher(settings, client=client, requests_per_second=1000,
                                   sleep=lambda s: None, **kwargs)


def test_s2_batch_enrichment_and_disk_cache(settings):
    body = (FIXTURES / "s2_batch.json").read_bytes()
    seen: list[dict] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append({"url": str(request.url), "body": json.loads(request.content),
                     "key": request.headers.get("x-api-key")})
        return httpx.Response(200, content=body)

    enricher = s2_enricher(settings, handler, api_key="secret")
    papers, report = enricher.enrich(s2_papers())
    assert len(seen) == 1
    assert seen[0]["url"].startswith("https://api.semanticscholar.org/graph/v1/paper/batch?fields=")
    assert "citationCount" in seen[0]["url"] and seen[0]["key"] == "secret"
    assert seen[0]["body"] == {"ids": ["ARXIV:2005.11401", "DOI:10.9999/unknown", "ARXIV:1706.03762"]}
    rag, unknown, attention, no_id = papers
    assert rag.citation_count == 6135 and rag.venue == "NeurIPS (ours)"  # own venue kept
    assert rag.year == 2020 and rag.published == date(2020, 5, 22)
    assert rag.s2_id == "46f9f7b8f88f72e12cbdb21e3311f995eb6e65c5"
    assert unknown.citation_count is None and unknown.s2_id is None
    assert attention.citation_count == 150000 and attention.venue == "Neural Information Processing Systems"
    assert attention.doi == "10.65215/2q58a426"
    assert no_id == s2_papers()[3]
    assert (report.requested, report.enriched, report.not_found, report.no_id) == (4, 2, 1, 1)
    assert report.requests == 1 and report.from_cache == 0

    # a re-run is answered from <cache_dir>/semanticscholar without any request
    def fail_handler(request):
        raise AssertionError("no request expected")

    again, report2 = s2_enricher(settings, fail_handler).enrich(s2_papers())
    assert again == papers
    assert report2.requests == 0 and report2.from_cache == 3
    assert (settings.cache_dir / "semanticscholar" / "cache.sqlite").is_file()


def test_s2_retries_429_and_5xx_with_backoff(settings):
    statuses = iter([429, 500, 200])
    waits: list[float] = []

    def handler(request):
        status = next(statuses)
        if status != 200:
            return httpx.Response(status, json={"message": "slow down"})
        ids = json.loads(request.content)["ids"]
        return httpx.Response(200, json=[{"paperId": "p1", "citationCount": 7}] + [None] * (len(ids) - 1))

    client = httpx.Client(transport=httpx.MockTransport(handler))
    enricher = SemanticScholarEnricher(settings, client=client, requests_per_second=1000,
                                       sleep=waits.append)
    papers, report = enricher.enrich(s2_papers()[:1])
    assert papers[0].citation_count == 7 and report.requests == 3
    # exponential backoff between tries; the other (tiny) waits come from the 1000/s token bucket
    assert [w for w in waits if w >= 0.5] == [1.0, 2.0]
    assert all(w < 0.01 for w in waits if w < 0.5)


def test_s2_gives_up_with_a_clear_message(settings):
    enricher = s2_enricher(settings, lambda r: httpx.Response(429, json={}), max_attempts=3)
    with pytest.raises(NetworkUnavailable, match="after 3 attempts.*rate limited"):
        enricher.enrich(s2_papers())

    def offline(request):
        raise httpx.ConnectError("[Errno -3] Temporary failure in name resolution")

    with pytest.raises(NetworkUnavailable, match="cannot reach api.semanticscholar.org"):
        s2_enricher(settings, offline).enrich(s2_papers())


def test_s2_batches_respect_the_batch_size(settings):
    sizes: list[int] = []

    def handler(request):
        ids = json.loads(request.content)["ids"]
        sizes.append(len(ids))
        return httpx.Response(200, json=[None] * len(ids))

    papers = [Paper(arxiv_id=f"2501.{i:05d}", title=f"Paper {i}") for i in range(5)]
    _, report = s2_enricher(settings, handler, batch_size=2).enrich(papers)
    assert sizes == [2, 2, 1] and report.not_found == 5


def test_token_bucket_spaces_requests():
    now = [0.0]
    slept: list[float] = []

    def sleep(seconds):
        slept.append(seconds)
        now[0] += seconds

    bucket = TokenBucket(2.0, clock=lambda: now[0], sleep=sleep)
    for _ in range(3):
        bucket.acquire()
    assert slept == [pytest.approx(0.5), pytest.approx(0.5)]
    now[0] += 10  # idle time refills only up to the capacity of one request
    bucket.acquire()
    bucket.acquire()
    assert slept[-1] == pytest.approx(0.5)
