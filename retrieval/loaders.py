"""Read papers from files: JSONL(.gz) / JSON lists, BibTeX, and PDFs (one file or a folder).

Every loader is tolerant: a malformed record is skipped and reported (count, line numbers and
reasons in ``LoadReport``), never fatal. Only a missing or unsupported path is an error.
"""

from __future__ import annotations

import gzip
import json
import math
import re
import zlib
from datetime import date, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from ..errors import UserError
from ..models import Paper, normalize_arxiv_id

# Reports keep at most this many line numbers/reasons so a badly broken 75k-line file cannot
# produce a huge report; ``skipped`` still counts every skipped record.
MAX_REPORTED = 200

_ARXIV_ID = re.compile(r"^(\d{4}\.\d{4,5}|[a-z\-]+(\.[A-Z]{2})?/\d{7})(v\d+)?$", re.I)


class LoadReport(BaseModel):
    path: str
    format: str
    read: int = 0
    skipped: int = 0
    skipped_lines: list[int] = Field(default_factory=list)  # 1-based line (or file) numbers
    reasons: list[str] = Field(default_factory=list)
    # Set when the file ended early (a truncated or corrupt .gz): what was read before it is kept,
    # and the CLI names the problem and exits non-zero instead of counting it as one skipped line.
    truncated: str | None = None

    invalid_fields: int = 0  # papers kept with an identifier dropped (not matching its format)

    def note(self, line: int, message: str) -> None:
        """A kept record with a problem worth saying (an invalid identifier dropped)."""
        self.invalid_fields += 1
        if len(self.reasons) < MAX_REPORTED:
            self.reasons.append(f"line {line}: {message}")

    def skip(self, line: int, reason: str) -> None:
        self.skipped += 1
        if len(self.skipped_lines) < MAX_REPORTED:
            self.skipped_lines.append(line)
            self.reasons.append(f"line {line}: {reason}" if self.format != "pdf" else reason)


class LoadResult(BaseModel):
    papers: list[Paper]
    report: LoadReport


def detect_format(path: Path) -> str:
    """'jsonl' | 'json' | 'bibtex' | 'pdf' | 'pdf-folder'; UserError for anything else."""
    if not path.exists():
        raise UserError(f"no such file or directory: {path}")
    if path.is_dir():
        return "pdf-folder"
    name = path.name.lower()
    if name.endswith((".jsonl", ".jsonl.gz", ".ndjson", ".ndjson.gz")):
        return "jsonl"
    if name.endswith((".json", ".json.gz")):
        return "json"
    if name.endswith(".bib"):
        return "bibtex"
    if name.endswith(".pdf"):
        return "pdf"
    raise UserError(
        f"unsupported input {path}: expected .jsonl, .jsonl.gz, .json, .bib, .pdf or a folder of PDFs"
    )


def load_path(path: Path, *, fulltext_dir: Path | None = None, progress: bool = False) -> LoadResult:
    """Load papers from ``path``, dispatching on its type.

    ``fulltext_dir``: for PDFs, where the extracted full text is written (``<safe id>.txt``,
    recorded in ``Paper.full_text_path``); None keeps no full text. ``progress`` shows a bar on
    stderr while PDFs are read (about a second each).
    """
    path = Path(path).expanduser()
    kind = detect_format(path)
    if kind == "jsonl":
        return load_jsonl(path)
    if kind == "json":
        return load_json_list(path)
    if kind == "bibtex":
        from .bibtex_loader import load_bibtex

        return load_bibtex(path)
    from .pdf_loader import load_pdf_files

    if kind == "pdf":
        return load_pdf_files([path], report_path=path, fulltext_dir=fulltext_dir, progress=progress)
    pdfs = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() == ".pdf")
    if not pdfs:
        raise UserError(f"no PDF files found in folder {path}")
    return load_pdf_files(pdfs, report_path=path, fulltext_dir=fulltext_dir, progress=progress)


# --- JSON records -----------------------------------------------------------------------------


def _open_text(path: Path):
    if path.name.lower().endswith(".gz"):
        return gzip.open(path, "rt", encoding="utf-8", errors="replace")
    return path.open("r", encoding="utf-8", errors="replace")


def load_jsonl(path: Path) -> LoadResult:
    """One JSON object per line; blank lines are ignored, bad lines skipped and reported."""
    report = LoadReport(path=str(path), format="jsonl")
    papers = [p for batch in iter_jsonl(path, report) for p in batch]
    return LoadResult(papers=papers, report=report)


def iter_jsonl(path: Path, report: LoadReport, batch: int = 5000):
    """``load_jsonl`` as a stream of lists of at most ``batch`` papers; ``report`` fills as it reads
    (memory bounded by the batch, whatever the file's size)."""
    papers: list[Paper] = []
    line_no = 0
    try:
        with _open_text(path) as handle:
            for line_no, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                _add_record_line(line, line_no, papers, report)
                if len(papers) >= batch:
                    yield papers
                    papers = []
    except EOFError:  # gzip: "Compressed file ended before the end-of-stream marker was reached"
        report.truncated = (f"truncated gzip archive: {path} ends before its end-of-stream marker "
                            f"(after line {line_no}; {report.read} records read before the cut)")
    except (OSError, zlib.error) as exc:  # corrupt gzip data, unreadable file
        report.truncated = (f"corrupt or unreadable file: {path} could not be read after line {line_no} "
                            f"({report.read} records read before it): {exc}")
    if papers:
        yield papers


def stream_path(path: Path, *, fulltext_dir: Path | None = None, progress: bool = False, batch: int = 5000):
    """(an iterator of paper batches, the LoadReport it fills): JSONL streams ``batch`` papers at
    a time, other formats (small by nature: one BibTeX file, PDFs) are loaded whole, as one batch."""
    path = Path(path).expanduser()
    if detect_format(path) == "jsonl":
        report = LoadReport(path=str(path), format="jsonl")
        return iter_jsonl(path, report, batch), report
    loaded = load_path(path, fulltext_dir=fulltext_dir, progress=progress)
    return iter([loaded.papers]), loaded.report


def count_lines(path: Path) -> int | None:
    """Lines of a JSONL file (for an honest progress total); None when it cannot be read."""
    try:
        with (gzip.open(path, "rb") if path.name.lower().endswith(".gz") else path.open("rb")) as fh:
            return sum(chunk.count(b"\n") for chunk in iter(lambda: fh.read(1 << 20), b""))
    except (OSError, EOFError, zlib.error):
        return None


def _add_record_line(line: str, line_no: int, papers: list[Paper], report: LoadReport) -> None:
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        report.skip(line_no, f"invalid JSON ({exc.msg})")
        return
    except RecursionError:  # "[[[[..." 100,000 deep: Python's parser recurses per level
        report.skip(line_no, "invalid JSON (nested too deeply)")
        return
    except ValueError as exc:  # e.g. an integer of more than 4,300 digits
        report.skip(line_no, f"invalid JSON ({str(exc)[:120]})")
        return
    _add_record(record, line_no, papers, report)


def _add_record(record: Any, line_no: int, papers: list[Paper], report: LoadReport) -> None:
    if not isinstance(record, dict):
        report.skip(line_no, f"expected a JSON object, got {type(record).__name__}")
        return
    try:
        paper = paper_from_record(record)
    except (ValueError, ValidationError) as exc:
        report.skip(line_no, _short_reason(exc))
        return
    except (TypeError, AttributeError, OverflowError, RecursionError) as exc:
        # A field of a type no branch above expected: the record is skipped with the reason, the
        # rest of the file is read (one bad line never stops an ingest).
        report.skip(line_no, f"unreadable record ({type(exc).__name__}: {str(exc)[:120]})")
        return
    if paper.dropped_fields:
        report.note(line_no, f"dropped invalid {', '.join(paper.dropped_fields)} (kept the paper)")
    papers.append(paper)
    report.read += 1


def load_json_list(path: Path) -> LoadResult:
    """A JSON file holding a list of paper objects (or {"papers": [...]})."""
    report = LoadReport(path=str(path), format="json")
    try:
        with _open_text(path) as handle:
            data = json.load(handle)
    except (ValueError, OSError, EOFError) as exc:  # JSONDecodeError is a ValueError
        raise UserError(f"{path} is not valid JSON: {exc}") from exc
    except RecursionError as exc:
        raise UserError(f"{path} is not valid JSON: nested too deeply") from exc
    if isinstance(data, dict) and isinstance(data.get("papers"), list):
        data = data["papers"]
    if not isinstance(data, list):
        raise UserError(f"{path}: expected a JSON list of papers")
    papers: list[Paper] = []
    for index, record in enumerate(data, start=1):
        _add_record(record, index, papers, report)
    return LoadResult(papers=papers, report=report)


def _short_reason(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"]) or "record"
        return f"invalid {loc}: {first['msg']}"
    return str(exc)


def _first(record: dict, *keys: str) -> Any:
    for key in keys:
        value = record.get(key)
        if value not in (None, "", []):
            return value
    return None


def _as_str_list(value: Any, *, split: str | None = None) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        parts = value.split(split) if split else [value]
        return [p.strip() for p in parts if p.strip()]
    if isinstance(value, list):
        out = []
        for item in value:
            if isinstance(item, dict):  # e.g. S2 style {"name": ...}
                item = item.get("name")
            if item is not None and str(item).strip():
                out.append(str(item).strip())
        return out
    raise ValueError(f"expected a list or string, got {type(value).__name__}")


def _categories(value: Any) -> list[str]:
    # arXiv metadata dumps use one space-separated string ("cs.CL cs.AI"); others use lists.
    return value.split() if isinstance(value, str) else _as_str_list(value)


def _venue(value: Any) -> str | None:
    if isinstance(value, dict):  # S2-style {"name": ...}
        value = value.get("name")
    return str(value).strip() or None if value else None


def _split_authors(value: Any) -> list[str]:
    if isinstance(value, str):
        sep = " and " if " and " in value else ","
        return _as_str_list(value, split=sep)
    return _as_str_list(value)


def parse_date(value: Any) -> date | None:
    """'2025-03-18', '2025-03-18T12:00:00Z', '2025-03' or '2025' -> date; None when absent."""
    if value in (None, ""):
        return None
    if isinstance(value, (int, float)):
        return None
    text = str(value).strip()
    try:  # fast path: the shared corpus has 75k plain ISO dates
        return date.fromisoformat(text[:10])
    except ValueError:
        pass
    for fmt, size in (("%Y-%m-%d", 10), ("%Y-%m", 7), ("%Y", 4)):
        try:
            return datetime.strptime(text[:size], fmt).date()
        except ValueError:
            continue
    raise ValueError(f"unrecognised date {text!r}")


def _as_int(value: Any, name: str) -> int | None:
    if value in (None, ""):
        return None
    if isinstance(value, float) and not math.isfinite(value):  # JSON's 1e999 reads as inf
        raise ValueError(f"invalid {name} {value!r}")
    try:
        return int(value)
    except (TypeError, ValueError):
        match = re.search(r"\d{4}", str(value)) if name == "year" else None
        if match:
            return int(match.group())
        raise ValueError(f"invalid {name} {value!r}") from None


def _ids_from_record(record: dict) -> dict[str, str | None]:
    external = record.get("externalIds") or record.get("external_ids") or {}
    if not isinstance(external, dict):
        raise ValueError(f"invalid externalIds: expected an object, got {type(external).__name__}")
    arxiv = _id_text(_first(record, "arxiv_id", "arxivId", "arxiv") or external.get("ArXiv"), "arxiv_id")
    doi = _id_text(_first(record, "doi", "DOI") or external.get("DOI"), "doi")
    s2_id = _id_text(_first(record, "s2_id", "paperId"), "s2_id")
    raw_id = record.get("id")
    if raw_id and not arxiv and isinstance(raw_id, str):
        candidate = normalize_arxiv_id(raw_id) or ""
        if _ARXIV_ID.match(candidate):
            arxiv = candidate
        elif raw_id.startswith("10.") and not doi:
            doi = raw_id
    return {"arxiv_id": arxiv, "doi": doi, "s2_id": s2_id}


def _id_text(value: Any, name: str) -> str | None:
    """An identifier as text: a number is accepted as written (S2 corpus ids are integers), any
    other type is not an identifier."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise ValueError(f"invalid {name}: expected a string, got {type(value).__name__}")


def _squash(text: str) -> str:
    """Collapse runs of whitespace; skips the split/join when the text is already clean."""
    if "\n" in text or "  " in text or "\t" in text or "\r" in text:
        return " ".join(text.split())
    return text.strip()


def paper_from_record(record: dict, *, source: str = "jsonl") -> Paper:
    """Map one JSON object (shared corpus format or a common alternate) to a Paper."""
    title = _first(record, "title")
    if not isinstance(title, str) or not title.strip():
        raise ValueError("missing title")
    published = parse_date(_first(record, "announced", "published", "publicationDate", "date"))
    return Paper(
        **_ids_from_record(record),
        title=_squash(title),
        abstract=_squash(str(_first(record, "abstract", "summary") or "")),
        authors=_split_authors(_first(record, "authors", "author")),
        categories=_categories(record.get("categories")),
        published=published,
        year=_as_int(_first(record, "year"), "year"),
        venue=_venue(_first(record, "venue", "journal", "journal_ref")),
        citation_count=_as_int(
            _first(record, "citation_count", "citationCount", "n_citation"), "citation_count"
        ),
        source=source,
        full_text_path=record.get("full_text_path"),
    )


def write_jsonl(papers: list[Paper], path: Path, *, force: bool = False) -> None:
    """Write papers as JSONL that ``load_path`` reads back; refuses to overwrite without ``force``."""
    path = Path(path).expanduser()
    if path.exists() and not force:
        raise UserError(f"{path} already exists (use --force to overwrite)")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".partial")
    opener = gzip.open if path.name.lower().endswith(".gz") else open
    with opener(tmp, "wt", encoding="utf-8") as handle:
        for paper in papers:
            handle.write(paper.model_dump_json(exclude_none=True) + "\n")
    tmp.replace(path)  # a crash mid-write never leaves a half-written output under the real name
