"""Pydantic verdicts the judges ask for. Short by design: the local judge writes ~33 tokens/s,
so every verdict is scores plus one sentence of notes (the notes come first so the model states
its reason before the number)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

NOTE = Field("", max_length=200)


class Score100(BaseModel):
    notes: str = NOTE
    score: int = Field(ge=0, le=100)


class Likert(BaseModel):
    notes: str = NOTE
    score: int = Field(ge=1, le=5)


class ContentScores(BaseModel):
    notes: str = NOTE
    coverage: int = Field(ge=1, le=5)
    structure: int = Field(ge=1, le=5)
    relevance: int = Field(ge=1, le=5)
    language: int = Field(ge=1, le=5)
    criticalness: int = Field(ge=1, le=5)


class HierarchyVerdict(BaseModel):
    included: list[Literal["Yes", "No"]] = Field(default_factory=list, max_length=64)


class SupportCount(BaseModel):
    total: int = Field(ge=0, le=1000)
    supported: int = Field(ge=0, le=1000)


class AspectScore(BaseModel):
    aspect_name: str
    notes: str = NOTE
    score: int = Field(ge=1, le=5)


class AspectVerdict(BaseModel):
    aspects: list[AspectScore] = Field(max_length=8)


ChecklistLabel = Literal["mentioned_correct", "not_mentioned", "mentioned_incorrect"]


class ChecklistVerdict(BaseModel):
    labels: list[ChecklistLabel] = Field(max_length=200)


ArenaLabel = Literal["A", "B", "Tie", "BothBad"]


class ArenaVerdict(BaseModel):
    notes: str = NOTE
    D5: ArenaLabel
    D1: ArenaLabel
    D2: ArenaLabel
    D3: ArenaLabel
    D4: ArenaLabel
