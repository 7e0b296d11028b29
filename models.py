"""Typed data shared by every part of surveygraph: papers, outlines and surveys."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from datetime import date, timedelta
from typing import Literal

from pydantic import BaseModel, Field, model_validator

_NON_ALNUM = re.compile(r"[^0-9a-z]+")
_ARXIV_VERSION = re.compile(r"v\d+$")


def normalize_title(title: str) -> str:
    """Lower-case ASCII words joined by single spaces: the key for title matching and dedupe."""
    text = unicodedata.normalize("NFKD", title or "").encode("ascii", "ignore").decode()
    return _NON_ALNUM.sub(" ", text.lower()).strip()


def normalize_arxiv_id(value: str | None) -> str | None:
    """'arXiv:2503.11731v2' / 'https://arxiv.org/abs/2503.11731' -> '2503.11731'."""
    if not value:
        return None
    v = value.strip()
    v = re.sub(r"^(https?://)?(www\.)?arxiv\.org/(abs|pdf)/", "", v, flags=re.I)
    v = re.sub(r"^arxiv:", "", v, flags=re.I)
    v = v.removesuffix(".pdf")
    v = _ARXIV_VERSION.sub("", v)
    return v or None


# Identifier formats: a field that does not match is dropped at the boundary (Paper), never
# carried into an export where it would need escaping it was not meant for. DOIs: the character set of
# Crossref's recommended pattern (which matches nearly all registered DOIs), any numeric registrant (old SICI DOIs with '<', '>' are
# dropped; the paper keeps its arXiv id or title key).
ARXIV_ID_FORMAT = re.compile(r"^(\d{4}\.\d{4,5}|[a-z][a-z\-]*(\.[A-Z]{2})?/\d{7})$")
DOI_FORMAT = re.compile(r"^10\.\d{1,9}(\.\d+)*/[-._;()/:a-z0-9]+$")  # Crossref's character set, any registrant
CATEGORY_FORMAT = re.compile(r"^[a-z][a-z\-]*(\.[A-Za-z][A-Za-z\-]*)?$")
# arXiv records also list ACM CCS classes ("I.2.7") and MSC codes ("68T50", "68Txx", "68-XX"),
# several to an entry ("I.2.7; I.2.6"): 2% of the shared corpus's papers. They are split and kept.
CLASS_CODE_FORMAT = re.compile(r"^[A-K](\.(\d{1,2}|m))?(\.(\d{1,2}|m))?$|^\d{2}([A-Z](\d{2}|xx))?$|^\d{2}-(XX|\d{2})$")
S2_ID_FORMAT = re.compile(r"^[0-9a-fA-F]{40}$|^\d{1,12}$|^CorpusId:\d{1,12}$")


def normalize_doi(value: str | None) -> str | None:
    if not value:
        return None
    v = re.sub(r"^(https?://)?(dx\.)?doi\.org/", "", value.strip(), flags=re.I)
    v = re.sub(r"^doi:", "", v, flags=re.I)
    return v.lower() or None


EARLIEST_PAPER_DATE = date(1900, 1, 1)


def plausible_dates() -> tuple[date, date]:
    """The range a paper's date or year may fall in: from 1900 to today (plus a day, for a date
    stamped in a time zone ahead of this machine's). Outside it the date is dropped, not the paper."""
    return EARLIEST_PAPER_DATE, date.today() + timedelta(days=1)


class Paper(BaseModel):
    """One research paper in the Research Paper DB (D_R)."""

    arxiv_id: str | None = None
    doi: str | None = None
    s2_id: str | None = None
    title: str
    abstract: str = ""
    authors: list[str] = Field(default_factory=list)
    published: date | None = None
    year: int | None = None
    venue: str | None = None
    categories: list[str] = Field(default_factory=list)
    citation_count: int | None = None  # None = unknown (e.g. the offline arXiv corpus)
    source: str = "unknown"  # jsonl | bibtex | pdf | arxiv | semanticscholar | ...
    full_text_path: str | None = None  # PDFs: extracted text kept for later deep reading
    # Identifier fields dropped because they did not match their format (not stored, not exported).
    dropped_fields: list[str] = Field(default_factory=list, exclude=True, repr=False)

    @model_validator(mode="after")
    def _normalise(self) -> "Paper":
        from .sanitize import plain_text  # text fields: stored as text, minus control/bidi characters

        self.title = plain_text(self.title)
        self.abstract = plain_text(self.abstract)
        self.authors = [a for a in (plain_text(x).strip() for x in self.authors) if a]
        self.venue = plain_text(self.venue) if self.venue else self.venue
        dropped = []
        self.arxiv_id = normalize_arxiv_id(self.arxiv_id)
        if self.arxiv_id and not ARXIV_ID_FORMAT.match(self.arxiv_id):
            dropped.append("arxiv_id")
            self.arxiv_id = None
        self.doi = normalize_doi(self.doi)
        if self.doi and not DOI_FORMAT.match(self.doi):
            dropped.append("doi")
            self.doi = None
        if self.s2_id and not S2_ID_FORMAT.match(self.s2_id):
            dropped.append("s2_id")
            self.s2_id = None
        given = [part.strip() for c in self.categories
                 for part in re.split(r"[;,]|\((?:Primary|Secondary)\)", c, flags=re.I) if part.strip()]
        valid = list(dict.fromkeys(c for c in given if CATEGORY_FORMAT.match(c) or CLASS_CODE_FORMAT.match(c)))
        if len(valid) != len(set(given)):
            dropped.append("categories")
        self.categories = valid
        earliest, latest = plausible_dates()
        if self.year is not None and not earliest.year <= self.year <= latest.year:
            dropped.append("year")
            self.year = None
        if self.published is not None and not earliest <= self.published <= latest:
            dropped.append("date")  # "2999-01-01" would make a survey say "published up to 2999"
            self.published = None
        if self.year is None and self.published is not None:
            self.year = self.published.year
        self.dropped_fields = dropped
        return self

    @property
    def paper_id(self) -> str:
        """Stable id: arXiv id, else DOI, else Semantic Scholar id, else a title hash."""
        if self.arxiv_id:
            return f"arxiv:{self.arxiv_id}"
        if self.doi:
            return f"doi:{self.doi}"
        if self.s2_id:
            return f"s2:{self.s2_id}"
        digest = hashlib.sha1(normalize_title(self.title).encode()).hexdigest()[:16]
        return f"title:{digest}"

    def embedding_text(self) -> str:
        return f"{self.title}. {self.abstract}".strip()


class OutlineEntry(BaseModel):
    """One heading of an outline. ``query`` and ``description`` are filled by the planner."""

    level: int = Field(ge=1)
    title: str
    description: str = ""
    query: str = ""


class HumanOutline(BaseModel):
    """A human-written survey outline in the Survey Outline DB (D_S)."""

    topic: str
    title: str = ""
    source: str = ""
    entries: list[OutlineEntry]

    def as_text(self, max_level: int = 3) -> str:
        return "\n".join(
            "    " * (e.level - 1) + e.title for e in self.entries if e.level <= max_level
        )


class SurveySection(BaseModel):
    heading: str
    level: int = 1
    text: str = ""
    section_id: str | None = None


class Reference(BaseModel):
    key: str  # the marker used in the text, e.g. "3" for [3] or "Smith, 2020"
    text: str = ""  # the raw entry as it appeared
    title: str | None = None
    arxiv_id: str | None = None
    doi: str | None = None
    year: int | None = None
    paper_id: str | None = None  # set when the reference is a known corpus paper
    aliases: list[str] = Field(default_factory=list)  # other markers naming this entry ("1 3 4 Title")


class Citation(BaseModel):
    sentence: str
    ref_keys: list[str]
    section: str | None = None


class ParseReport(BaseModel):
    format: str = ""
    warnings: list[str] = Field(default_factory=list)
    unparsed_lines: int = 0


class Survey(BaseModel):
    """Any survey (ours or another system's) as (outline, content, references)."""

    title: str = ""
    topic: str = ""
    system: str = ""
    outline: list[OutlineEntry] = Field(default_factory=list)
    sections: list[SurveySection] = Field(default_factory=list)
    references: list[Reference] = Field(default_factory=list)
    citations: list[Citation] = Field(default_factory=list)
    report: ParseReport = Field(default_factory=ParseReport)

    @property
    def text(self) -> str:
        return "\n\n".join(s.text for s in self.sections if s.text)


SourceKind = Literal["jsonl", "bibtex", "pdf", "arxiv", "semanticscholar", "unknown"]


class ScoredPaper(BaseModel):
    """A retrieval hit: the paper, its fused score and its rank in each retriever (1-based)."""

    paper: Paper
    score: float
    ranks: dict[str, int] = Field(default_factory=dict)


class MetricResult(BaseModel):
    """One score in an evaluation report. ``value`` is None only when the metric could not be
    computed (the reason is in ``rationale``); judges put their rationale there too."""

    name: str  # e.g. "sam_r", "ra_align_f1.outline", "sgsim.content.coverage"
    family: str  # structure | coverage | alignment | similarity | integrity | rubric | checklist | arena
    value: float | None
    details: dict = Field(default_factory=dict)
    rationale: str | None = None


class EvaluationReport(BaseModel):
    survey: str = ""  # path or title of the evaluated survey
    system: str = ""
    topic: str = ""
    metrics: list[MetricResult] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)

    def flat(self) -> dict[str, float | None]:
        return {m.name: m.value for m in self.metrics}

    def get(self, name: str) -> MetricResult | None:
        return next((m for m in self.metrics if m.name == name), None)
