"""Search arXiv with the ``arxiv`` package (Atom API at export.arxiv.org) and map results to Papers."""

from __future__ import annotations

import logging
from typing import Any

from ..errors import NetworkUnavailable, UserError
from ..models import Paper, normalize_arxiv_id
from ..settings import Settings

logger = logging.getLogger(__name__)

ARXIV_HOST = "export.arxiv.org"
REQUEST_TIMEOUT_S = 30.0  # the arxiv package sets no timeout; a dead link would hang forever
MAX_PAGE_SIZE = 100


def _timeout_adapter(timeout: float):
    from requests.adapters import HTTPAdapter

    class TimeoutAdapter(HTTPAdapter):
        def send(self, request, **kwargs):
            if kwargs.get("timeout") is None:
                kwargs["timeout"] = timeout
            return super().send(request, **kwargs)

    return TimeoutAdapter()


def default_client(max_results: int) -> Any:
    """An ``arxiv.Client`` that honours arXiv's 3 s politeness delay and times requests out."""
    import arxiv

    client = arxiv.Client(page_size=min(MAX_PAGE_SIZE, max(1, max_results)), delay_seconds=3.0,
                          num_retries=2)
    client._session.mount("https://", _timeout_adapter(REQUEST_TIMEOUT_S))
    client._session.mount("http://", _timeout_adapter(REQUEST_TIMEOUT_S))
    return client


def result_to_paper(result: Any) -> Paper:
    """Map an ``arxiv.Result`` to a Paper (entry_id -> arxiv_id, journal_ref -> venue)."""
    published = result.published.date() if getattr(result, "published", None) else None
    if published is not None and published.year < 1990:  # arxiv's "missing" sentinel is datetime.min
        published = None
    return Paper(
        arxiv_id=normalize_arxiv_id(result.entry_id),
        doi=result.doi or None,
        title=" ".join((result.title or "").split()),
        abstract=" ".join((result.summary or "").split()),
        authors=[a.name for a in result.authors],
        published=published,
        venue=(result.journal_ref or None),
        categories=list(result.categories or []),
        source="arxiv",
    )


class ArxivSource:
    """``search(query, max_results)`` over the arXiv API; network trouble is NetworkUnavailable."""

    def __init__(self, settings: Settings, client: Any = None):
        self.settings = settings
        self._client = client

    def search(self, query: str, max_results: int) -> list[Paper]:
        import arxiv
        import requests

        if not query.strip():
            raise UserError("the arXiv query is empty")
        if max_results < 1:
            raise UserError("--max must be at least 1")
        client = self._client or default_client(max_results)
        search = arxiv.Search(query=query, max_results=max_results,
                              sort_by=arxiv.SortCriterion.Relevance)
        papers: list[Paper] = []
        try:
            for result in client.results(search):
                if result.title and result.title.strip():
                    papers.append(result_to_paper(result))
        except arxiv.UnexpectedEmptyPageError as exc:
            # arXiv sometimes returns an empty later page; keep what the earlier pages gave.
            logger.warning("arXiv returned an empty page after %d results: %s", len(papers), exc)
        except arxiv.HTTPError as exc:
            raise NetworkUnavailable(f"arXiv API at {ARXIV_HOST} answered HTTP {exc.status}") from exc
        except requests.exceptions.RequestException as exc:
            raise NetworkUnavailable(f"cannot reach {ARXIV_HOST}: {_one_line(exc)}") from exc
        return papers


def _one_line(exc: Exception) -> str:
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if "NameResolutionError" in text or "Failed to resolve" in text:
        return "name resolution failed (no network?)"
    return text[:200]
