"""Enrich papers with Semantic Scholar metadata (citation counts, venue, year, external ids).

Batch lookups go to ``POST /graph/v1/paper/batch`` (ids like ``ARXIV:2503.11731``, ``DOI:...``);
records are parsed with the ``semanticscholar`` package's ``Paper`` model. We send the request
with httpx ourselves (the package's own HTTP layer swallows 502/503 as "not found" and retries
429 for up to ten minutes), adding a token-bucket rate limit, tenacity backoff on 429/5xx/timeouts
and an on-disk cache (``<cache_dir>/semanticscholar/cache.sqlite``) so a re-run makes no requests.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from ..errors import NetworkUnavailable
from ..models import Paper
from ..settings import Settings

logger = logging.getLogger(__name__)

S2_HOST = "api.semanticscholar.org"
BATCH_URL = f"https://{S2_HOST}/graph/v1/paper/batch"
S2_FIELDS = "title,citationCount,venue,year,externalIds,publicationDate"
MAX_BATCH = 500  # the API's limit per batch request
API_KEY_ENV = "SEMANTIC_SCHOLAR_API_KEY"


class EnrichReport(BaseModel):
    requested: int = 0  # papers given
    enriched: int = 0  # papers that got S2 data
    not_found: int = 0  # ids S2 does not know
    no_id: int = 0  # papers without arXiv id / DOI / S2 id (not looked up)
    from_cache: int = 0  # lookups answered by the disk cache
    requests: int = 0  # HTTP requests sent (retries included)
    errors: list[str] = Field(default_factory=list)


class TokenBucket:
    """Allow ``rate`` requests per second on average, bursts up to ``capacity``."""

    def __init__(self, rate: float, capacity: float = 1.0, *,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep):
        if rate <= 0:
            raise ValueError("rate must be positive")
        self.rate, self.capacity = rate, capacity
        self._tokens = capacity
        self._clock, self._sleep = clock, sleep
        self._last = clock()
        self._lock = threading.Lock()

    def acquire(self) -> None:
        with self._lock:
            now = self._clock()
            self._tokens = min(self.capacity, self._tokens + (now - self._last) * self.rate)
            self._last = now
            if self._tokens < 1:
                wait = (1 - self._tokens) / self.rate
                self._sleep(wait)
                self._last = self._clock()
                self._tokens = 1
            self._tokens -= 1


class S2Cache:
    """id -> raw S2 record (or None for "not found"), in one SQLite file."""

    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path))
        self._db.execute("CREATE TABLE IF NOT EXISTS papers (id TEXT PRIMARY KEY, record TEXT)")

    def get_many(self, ids: Iterable[str]) -> dict[str, dict | None]:
        found: dict[str, dict | None] = {}
        ids = list(ids)
        for start in range(0, len(ids), 500):
            chunk = ids[start:start + 500]
            marks = ",".join("?" * len(chunk))
            rows = self._db.execute(f"SELECT id, record FROM papers WHERE id IN ({marks})", chunk)
            for key, record in rows:
                found[key] = json.loads(record)
        return found

    def put_many(self, records: dict[str, dict | None]) -> None:
        with self._db:
            self._db.executemany(
                "INSERT OR REPLACE INTO papers (id, record) VALUES (?, ?)",
                [(k, json.dumps(v)) for k, v in records.items()],
            )

    def close(self) -> None:
        self._db.close()


class _RetryableStatus(Exception):
    def __init__(self, status: int):
        super().__init__(f"HTTP {status}")
        self.status = status


def lookup_id(paper: Paper) -> str | None:
    """The S2 id for a paper: ``ARXIV:<id>``, else ``DOI:<doi>``, else its S2 paper id."""
    if paper.arxiv_id:
        return f"ARXIV:{paper.arxiv_id}"
    if paper.doi:
        return f"DOI:{paper.doi}"
    return paper.s2_id or None


def apply_record(paper: Paper, record: dict) -> Paper:
    """Copy S2 fields onto a paper: citation count always; venue/year/ids only when missing."""
    from semanticscholar.Paper import Paper as S2Paper

    s2 = S2Paper(record)
    external = s2.externalIds or {}
    update: dict[str, Any] = {"s2_id": s2.paperId or paper.s2_id}
    if s2.citationCount is not None:
        update["citation_count"] = s2.citationCount
    if not paper.venue and s2.venue:
        update["venue"] = s2.venue
    if paper.year is None and s2.year:
        update["year"] = s2.year
    if paper.published is None and isinstance(s2.publicationDate, datetime):
        update["published"] = s2.publicationDate.date()
    if not paper.doi and external.get("DOI"):
        update["doi"] = external["DOI"]
    if not paper.arxiv_id and external.get("ArXiv"):
        update["arxiv_id"] = external["ArXiv"]
    # model_validate re-runs the id normalisation that a plain model_copy would skip.
    return Paper.model_validate({**paper.model_dump(), **update})


def default_http_client() -> Any:
    import httpx

    return httpx.Client(timeout=60.0)


class SemanticScholarEnricher:
    """``enrich(papers)`` -> (papers with S2 metadata, EnrichReport).

    ``client``: an ``httpx.Client`` (tests pass one with a mock transport). ``api_key`` falls
    back to $SEMANTIC_SCHOLAR_API_KEY. ``sleep`` is used for rate limiting and backoff.
    """

    def __init__(self, settings: Settings, *, api_key: str | None = None,
                 requests_per_second: float = 1.0, client: Any = None,
                 batch_size: int = MAX_BATCH, max_attempts: int = 5,
                 sleep: Callable[[float], None] = time.sleep):
        self.settings = settings
        self.api_key = api_key or os.environ.get(API_KEY_ENV) or None
        self.batch_size = max(1, min(batch_size, MAX_BATCH))
        self.max_attempts = max(1, max_attempts)
        self._sleep = sleep
        self._bucket = TokenBucket(requests_per_second, sleep=sleep)
        self._client = client or default_http_client()
        self.cache_path = settings.cache_dir / "semanticscholar" / "cache.sqlite"

    def enrich(self, papers: list[Paper], *, progress: bool = False) -> tuple[list[Paper], EnrichReport]:
        report = EnrichReport(requested=len(papers))
        ids = [lookup_id(p) for p in papers]
        report.no_id = sum(1 for i in ids if i is None)
        wanted = list(dict.fromkeys(i for i in ids if i))
        cache = S2Cache(self.cache_path)
        try:
            records = cache.get_many(wanted)
            report.from_cache = len(records)
            missing = [i for i in wanted if i not in records]
            self._fetch_missing(missing, records, cache, report, progress)
        finally:
            cache.close()
        enriched: list[Paper] = []
        for paper, key in zip(papers, ids):
            record = records.get(key) if key else None
            if record:
                enriched.append(apply_record(paper, record))
                report.enriched += 1
            else:
                enriched.append(paper)
                report.not_found += int(key is not None and key in records)
        return enriched, report

    def _fetch_missing(self, missing: list[str], records: dict[str, dict | None], cache: S2Cache,
                       report: EnrichReport, progress: bool) -> None:
        batches = [missing[i:i + self.batch_size] for i in range(0, len(missing), self.batch_size)]
        if not batches:
            return
        from rich.console import Console
        from rich.progress import Progress

        # progress goes to stderr so stdout stays clean for results
        with Progress(console=Console(stderr=True), disable=not progress, transient=True) as bar:
            task = bar.add_task("Semantic Scholar", total=len(missing))
            for batch in batches:
                fetched = self._fetch_batch(batch, report)
                cache.put_many(fetched)  # saved per batch: an interrupted run resumes here
                records.update(fetched)
                bar.advance(task, len(batch))

    def _fetch_batch(self, ids: list[str], report: EnrichReport) -> dict[str, dict | None]:
        import httpx
        from tenacity import (RetryError, Retrying, retry_if_exception_type,
                              stop_after_attempt, wait_exponential)

        retrying = Retrying(
            stop=stop_after_attempt(self.max_attempts),
            wait=wait_exponential(multiplier=1, min=1, max=60),
            retry=retry_if_exception_type((_RetryableStatus, httpx.TimeoutException)),
            sleep=self._sleep,
        )
        try:
            data = retrying(self._post_batch, ids, report)
        except RetryError as exc:
            last = exc.last_attempt.exception()
            hint = " (rate limited: try later or set SEMANTIC_SCHOLAR_API_KEY)" if (
                isinstance(last, _RetryableStatus) and last.status == 429) else ""
            raise NetworkUnavailable(
                f"Semantic Scholar failed after {self.max_attempts} attempts: {last}{hint}; "
                "results so far are cached, re-run to continue"
            ) from exc
        except httpx.TransportError as exc:  # DNS failure, refused connection: retrying won't help
            raise NetworkUnavailable(f"cannot reach {S2_HOST}: {exc or type(exc).__name__}") from exc
        if not isinstance(data, list) or len(data) != len(ids):
            raise NetworkUnavailable(f"unexpected answer from {S2_HOST}: not a list of {len(ids)} records")
        return {key: (item if isinstance(item, dict) else None) for key, item in zip(ids, data)}

    def _post_batch(self, ids: list[str], report: EnrichReport) -> Any:
        self._bucket.acquire()
        report.requests += 1
        headers = {"x-api-key": self.api_key} if self.api_key else {}
        response = self._client.post(BATCH_URL, params={"fields": S2_FIELDS},
                                     json={"ids": ids}, headers=headers)
        status = response.status_code
        if status == 429 or status >= 500:
            logger.info("Semantic Scholar HTTP %s; backing off", status)
            raise _RetryableStatus(status)
        if status == 400:
            # "No valid paper ids given": none of these ids exist in S2's id scheme.
            report.errors.append(f"HTTP 400 for a batch of {len(ids)} ids: {response.text[:200]}")
            return [None] * len(ids)
        if status in (401, 403):
            raise NetworkUnavailable(f"Semantic Scholar refused the request (HTTP {status}): check the API key")
        if status != 200:
            raise NetworkUnavailable(f"Semantic Scholar answered HTTP {status}")
        try:
            return response.json()
        except ValueError as exc:
            raise NetworkUnavailable(f"Semantic Scholar sent invalid JSON: {exc}") from exc
