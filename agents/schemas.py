"""Structured-output schemas for the planner, with caps that also bound grammar decoding.

``maxLength`` / ``maxItems`` end up in the JSON schema, so a local model decoding under a grammar
must close its strings and lists (a 270M base model otherwise rambles until max_tokens and leaves
the JSON unfinished). Longer values from API models are cut, not rejected. List schemas are made
per requested count so the grammar allows no more items than asked for.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, Field, create_model


def _cut(limit: int):
    def cut(value: Any) -> Any:
        return value[:limit] if isinstance(value, (str, list)) else value

    return BeforeValidator(cut)


Title = Annotated[str, _cut(80), Field(max_length=80)]
Description = Annotated[str, _cut(160), Field(max_length=160)]
Query = Annotated[str, _cut(100), Field(max_length=100)]
TOKENS_PER_HEADING = 110  # title + description + query at the caps, plus JSON punctuation


class HeadingDraft(BaseModel):
    title: Title = ""
    description: Description = ""
    query: Query = ""


@lru_cache(maxsize=None)
def list_schema(name: str, field: str, n: int, item: Any) -> type[BaseModel]:
    """A model ``{field: [item, ...]}`` accepting at most ``n`` items (extra items are cut)."""
    annotated = Annotated[list[item], _cut(n), Field(max_length=n)]
    return create_model(name, **{field: (annotated, Field(default_factory=list))})


SPARE_ITEMS = 2  # room for items the sanitiser will drop (empty, duplicate, "Introduction")


def sections_schema(n: int) -> type[BaseModel]:
    return list_schema("SectionsDraft", "sections", n + SPARE_ITEMS, HeadingDraft)


def subsections_schema(n: int) -> type[BaseModel]:
    return list_schema("SubsectionsDraft", "subsections", n + SPARE_ITEMS, HeadingDraft)


def subqueries_schema(n: int) -> type[BaseModel]:
    return list_schema("SubQueries", "queries", n + SPARE_ITEMS, Query)


def plan_max_tokens(n_items: int) -> int:
    return min(2048, 48 + TOKENS_PER_HEADING * (n_items + SPARE_ITEMS))


def subquery_max_tokens(n_queries: int) -> int:
    return min(1024, 24 + 32 * (n_queries + SPARE_ITEMS))
