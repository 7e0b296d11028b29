"""Pydantic verdicts the judges ask for. Short by design: the local judge writes ~33 tokens/s,
so every verdict is scores plus one sentence of notes (the notes come first so the model states
its reason before the number)."""

from __future__ import annotations

from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, Field, create_model

# Required (no default): the local model's grammar puts required fields first in declared order
# and may skip optional ones, so a required note makes it state a reason before the score.
NOTE = Field(min_length=1, max_length=200)
# Scores as enums, not ge/le ranges: llama.cpp's JSON-schema grammar enforces enum values but
# not numeric bounds, and the local model otherwise writes 7s and 42s into 1-5 fields.
Score5 = Literal[1, 2, 3, 4, 5]
Score0to100 = Literal[tuple(range(101))]  # type: ignore[valid-type]


class Score100(BaseModel):
    notes: str = NOTE
    score: Score0to100


class Likert(BaseModel):
    notes: str = NOTE
    score: Score5


class ContentScores(BaseModel):
    notes: str = NOTE
    coverage: Score5
    structure: Score5
    relevance: Score5
    language: Score5
    criticalness: Score5


class HierarchyVerdict(BaseModel):
    included: list[Literal["Yes", "No"]] = Field(default_factory=list, max_length=64)


class SupportCount(BaseModel):
    total: int = Field(ge=0, le=1000)
    supported: int = Field(ge=0, le=1000)


class AspectScore(BaseModel):
    aspect_name: str = Field(max_length=80)
    notes: str = NOTE
    score: Score5


class AspectVerdict(BaseModel):
    aspects: list[AspectScore] = Field(max_length=8)


ChecklistLabel = Literal["mentioned_correct", "not_mentioned", "mentioned_incorrect"]


class ChecklistVerdict(BaseModel):
    labels: list[ChecklistLabel] = Field(max_length=200)


@lru_cache(maxsize=64)
def checklist_verdict(n: int) -> type[ChecklistVerdict]:
    """The verdict for a subgroup of ``n`` requirements: exactly ``n`` labels. The length is in the
    JSON schema, so a local model's decoding grammar cannot stop early or run on (the 270M model
    wrote 8 labels for 4 items, or ran on to the output limit, and every retry cost minutes)."""
    return create_model(f"ChecklistVerdict{n}", __base__=ChecklistVerdict,
                        labels=(list[ChecklistLabel], Field(min_length=n, max_length=n)))


ArenaLabel = Literal["A", "B", "Tie", "BothBad"]


class ArenaVerdict(BaseModel):
    notes: str = NOTE
    D5: ArenaLabel
    D1: ArenaLabel
    D2: ArenaLabel
    D3: ArenaLabel
    D4: ArenaLabel
