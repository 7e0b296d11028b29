"""SurveyForge's Temporal-aware Reranking Engine (TRE, eq. 3).

Candidates are split into publication-date groups of ``bucket_years`` years; group g keeps
k_g = |n_g| / |L| * K papers, so the kept list mirrors the candidates' spread over time.

Rules this implementation fixes (the paper leaves them open):
- Buckets are aligned to multiples of ``bucket_years`` (2024-2025, 2026-2027, ...).
- Papers without a year form one bucket of their own.
- k_g is rounded by largest remainder (Hamilton): floor every quota, then hand the leftover
  slots to the largest fractional parts (ties: the bucket whose best candidate ranks higher), so
  the total is exactly min(K, |L|).
- Within a bucket the most-cited papers are kept first. **Unknown citation counts** (the offline
  arXiv corpus has none): papers with a known count come first, by count; papers without one
  follow in retrieval-score order. When no candidate has a count this is plain score order.
- The kept papers are returned in the input (retrieval) order, so a caller's ranking survives.
"""

from __future__ import annotations

import math

from ..models import ScoredPaper

NO_YEAR = "unknown"


def _bucket(year: int | None, bucket_years: int) -> int | str:
    return NO_YEAR if year is None else (year // bucket_years) * bucket_years


def _quotas(sizes: dict[int | str, int], total: int, k: int) -> dict[int | str, int]:
    """Largest-remainder apportionment of k slots by bucket size (dict order breaks ties)."""
    exact = {b: n * k / total for b, n in sizes.items()}
    quota = {b: math.floor(x) for b, x in exact.items()}
    leftover = k - sum(quota.values())
    by_remainder = sorted(exact, key=lambda b: -(exact[b] - quota[b]))  # stable: dict order on ties
    for b in by_remainder[:leftover]:
        quota[b] += 1
    return quota


def temporal_rerank(candidates: list[ScoredPaper], k: int, *, bucket_years: int = 2) -> list[ScoredPaper]:
    """Keep ``k`` of ``candidates`` (best first) spread over time as TRE does; see module doc."""
    if k <= 0 or not candidates:
        return []
    if bucket_years < 1:
        raise ValueError("bucket_years must be >= 1")
    k = min(k, len(candidates))
    groups: dict[int | str, list[int]] = {}
    # Buckets are created in order of their best candidate, which is what breaks quota ties.
    for position, hit in enumerate(candidates):
        groups.setdefault(_bucket(hit.paper.year, bucket_years), []).append(position)
    quota = _quotas({b: len(members) for b, members in groups.items()}, len(candidates), k)
    kept: list[int] = []
    for bucket, members in groups.items():
        # Known citation counts first (most cited first); unknown ones keep retrieval order.
        ordered = sorted(members, key=lambda i: (candidates[i].paper.citation_count is None,
                                                 -(candidates[i].paper.citation_count or 0), i))
        kept.extend(ordered[:quota[bucket]])
    return [candidates[i] for i in sorted(kept)]
