"""BibTeX -> Paper with bibtexparser 2.x (LaTeX accents decoded, braces stripped)."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pydantic import ValidationError

from ..errors import UserError
from ..models import Paper
from .loaders import LoadReport, LoadResult

_YEAR = re.compile(r"\b(1[89]\d\d|2\d\d\d)\b")
_ARXIV_URL = re.compile(r"arxiv\.org/(?:abs|pdf)/([^\s}/?#]+(?:/\d{7})?)", re.I)
_SKIP_TYPES = {"string", "preamble", "comment"}


def _clean(value: object) -> str:
    """Drop leftover braces and collapse whitespace ("{BERT}: pre-training" -> "BERT: pre-training")."""
    text = str(value or "").replace("{", "").replace("}", "")
    text = text.replace("\\&", "&").replace("~", " ")
    return " ".join(text.split())


def _person(name: str) -> str:
    """'Vaswani, Ashish' -> 'Ashish Vaswani'; 'Ashish Vaswani' unchanged."""
    name = _clean(name)
    if name.count(",") == 1:
        last, first = (part.strip() for part in name.split(","))
        return f"{first} {last}".strip()
    return name


def _authors(value: object) -> list[str]:
    names = value if isinstance(value, list) else re.split(r"\s+and\s+", str(value or ""))
    return [p for p in (_person(n) for n in names) if p and p.lower() != "others"]


def _arxiv_id(fields: dict[str, object]) -> str | None:
    eprint = fields.get("eprint") or fields.get("arxiv") or fields.get("arxivid")
    prefix = str(fields.get("archiveprefix") or fields.get("eprinttype") or "arxiv").lower()
    if eprint and "arxiv" in prefix:
        return _clean(eprint)
    for key in ("url", "journal", "note", "howpublished"):
        match = _ARXIV_URL.search(str(fields.get(key) or ""))
        if match:
            return match.group(1)
    journal = _clean(fields.get("journal"))
    match = re.match(r"arxiv(?: preprint)?\s*:?\s*(?:arxiv:)?(\S+)", journal, re.I)
    return match.group(1) if match else None


def _entry_to_paper(fields: dict[str, object]) -> Paper:
    title = _clean(fields.get("title"))
    if not title:
        raise ValueError("missing title")
    year_match = _YEAR.search(str(fields.get("year") or fields.get("date") or ""))
    venue = _clean(fields.get("journal") or fields.get("booktitle") or fields.get("publisher")) or None
    if venue and venue.lower().startswith("arxiv"):
        venue = None  # "arXiv preprint arXiv:..." is not a venue
    return Paper(
        title=title,
        abstract=_clean(fields.get("abstract")),
        authors=_authors(fields.get("author")),
        year=int(year_match.group()) if year_match else None,
        venue=venue,
        doi=_clean(fields.get("doi")) or None,
        arxiv_id=_arxiv_id(fields),
        source="bibtex",
    )


class _ListHandler(logging.Handler):
    def __init__(self, sink: list[str]):
        super().__init__(level=logging.INFO)
        self.sink = sink

    def emit(self, record: logging.LogRecord) -> None:
        self.sink.append(record.getMessage())


@contextmanager
def _captured_parser_errors() -> Iterator[list[str]]:
    """Collect bibtexparser's own log messages (they explain failed blocks) instead of printing
    them: the LoadReport carries them."""
    messages: list[str] = []
    lib_logger = logging.getLogger("bibtexparser")
    handler = _ListHandler(messages)
    old_propagate, old_level = lib_logger.propagate, lib_logger.level
    lib_logger.addHandler(handler)
    lib_logger.propagate = False
    lib_logger.setLevel(logging.INFO)
    try:
        yield messages
    finally:
        lib_logger.removeHandler(handler)
        lib_logger.propagate = old_propagate
        lib_logger.setLevel(old_level)


def load_bibtex(path: Path) -> LoadResult:
    """Parse a .bib file; broken or title-less entries are skipped and reported with their line."""
    import bibtexparser
    from bibtexparser.middlewares import LatexDecodingMiddleware, SeparateCoAuthors

    report = LoadReport(path=str(path), format="bibtex")
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise UserError(f"cannot read {path}: {exc}") from exc
    with _captured_parser_errors() as messages:
        library = bibtexparser.parse_string(
            text, append_middleware=[LatexDecodingMiddleware(), SeparateCoAuthors()]
        )
    # Blocks carry 0-based start lines; reports use 1-based numbers like editors do.
    for block in library.failed_blocks:
        line = block.start_line + 1
        detail = next((m for m in messages if f"(line {block.start_line})" in m), "")
        detail = detail.split("error in bibtex:")[-1].strip() or type(block).__name__
        report.skip(line, f"unparseable BibTeX entry: {' '.join(detail.split())}")
    papers: list[Paper] = []
    for entry in library.entries:
        if entry.entry_type.lower() in _SKIP_TYPES:
            continue
        fields = {k.lower(): v for k, v in entry.fields_dict.items()}
        fields = {k: f.value for k, f in fields.items()}
        try:
            papers.append(_entry_to_paper(fields))
            report.read += 1
        except (ValueError, ValidationError) as exc:
            report.skip(entry.start_line + 1, f"entry {entry.key!r}: {exc}")
    pairs = sorted(zip(report.skipped_lines, report.reasons))  # failed blocks came first
    report.skipped_lines = [line for line, _ in pairs]
    report.reasons = [reason for _, reason in pairs]
    return LoadResult(papers=papers, report=report)
