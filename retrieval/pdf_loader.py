"""PDF -> Paper with pypdf: title and abstract from the first page by heuristics, full text kept.

Title: the run of largest-font text at the top of page 1 (before "Abstract"), else the PDF
metadata title, else the first substantial line. Abstract: text after "Abstract" up to
"Introduction" / "Keywords" / "Index Terms". An arXiv id or DOI printed on page 1 is kept.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

from ..models import Paper, normalize_arxiv_id
from .loaders import LoadReport, LoadResult

# "Abstract" alone on its line or followed by punctuation ("Abstract—", "ABSTRACT:") is the
# reliable marker; "Abstract We ..." at a line start is the fallback.
_ABSTRACT_START = re.compile(r"^\s*abstract\s*(?:$|[.:\-\u2014\u2013])[\s.:\-\u2014\u2013]*", re.I | re.M)
_ABSTRACT_START_LOOSE = re.compile(r"^\s*abstract\s+", re.I | re.M)
_ABSTRACT_END = re.compile(
    r"(\n\s*(?:1|I)?\.?\s*introduction\b|\bkeywords\b|\bindex terms\b|\n\s*1\s+[A-Z])", re.I
)
_ARXIV_STAMP = re.compile(r"arXiv:\s*(\d{4}\.\d{4,5}(?:v\d+)?)", re.I)
_DOI = re.compile(r"\b(10\.\d{4,9}/[^\s\"<>]+[^\s\"<>.,;])")
_BAD_META_TITLES = re.compile(r"^(untitled|microsoft word|.*\.(dvi|pdf|docx?|tex))", re.I)
_MAX_ABSTRACT_CHARS = 4000

logger = logging.getLogger(__name__)


def _first_page_runs(page) -> list[tuple[float, str]]:
    """(effective font size, text) for each text run on the page, in content order."""
    runs: list[tuple[float, str]] = []

    def visit(text, cm, tm, font_dict, font_size):
        if text and text.strip():
            # Real PDFs often set "1 Tf" and scale with the text/CTM matrices.
            scale = abs(tm[3] or tm[0] or 1.0) * abs(cm[3] or cm[0] or 1.0)
            runs.append((round(float(font_size or 0) * scale, 1), text.strip()))

    page.extract_text(visitor_text=visit)
    return runs


def _title_from_runs(runs: list[tuple[float, str]]) -> str:
    before_abstract: list[tuple[float, str]] = []
    for size, text in runs:
        if _ABSTRACT_START.match(text):
            break
        before_abstract.append((size, text))
    candidates = [(s, t) for s, t in before_abstract if len(t) > 1 and not _ARXIV_STAMP.search(t)]
    if not candidates:
        return ""
    sizes = {s for s, _ in candidates}
    if len(sizes) == 1:  # no font-size signal: let the caller fall back
        return ""
    biggest = max(sizes)
    parts: list[str] = []
    for size, text in candidates:
        if size >= biggest - 0.5:
            parts.append(text)
        elif parts:
            break
    return " ".join(" ".join(parts).split())


def _first_line_title(text: str) -> str:
    for line in text.splitlines():
        line = line.strip()
        if len(line) >= 8 and not _ARXIV_STAMP.search(line) and not _ABSTRACT_START.match(line):
            return line
    return ""


def _abstract(text: str) -> str:
    start = _ABSTRACT_START.search(text) or _ABSTRACT_START_LOOSE.search(text)
    if not start:
        return ""
    rest = text[start.end():]
    end = _ABSTRACT_END.search(rest)
    body = rest[: end.start()] if end else rest[:_MAX_ABSTRACT_CHARS]
    body = re.sub(r"-\n(?=[a-z])", "", body)  # re-join words hyphenated across lines
    return " ".join(body.split())[:_MAX_ABSTRACT_CHARS]


def _safe_name(paper: Paper, pdf: Path, used: set[str]) -> str:
    base = f"arxiv_{paper.arxiv_id}" if paper.arxiv_id else pdf.stem
    base = re.sub(r"[^A-Za-z0-9._-]+", "_", base).strip("._") or "paper"
    name, n = base, 1
    while name in used:
        n += 1
        name = f"{base}_{n}"
    used.add(name)
    return name


def paper_from_pdf(pdf: Path) -> tuple[Paper, str]:
    """(Paper, full text) for one PDF; raises ValueError when no title can be found."""
    from pypdf import PdfReader

    reader = PdfReader(str(pdf))
    if not reader.pages:
        raise ValueError("PDF has no pages")
    first = reader.pages[0]
    first_text = first.extract_text() or ""
    pages_text = [first_text] + [(p.extract_text() or "") for p in reader.pages[1:]]
    meta_title = ((reader.metadata or {}).get("/Title") or "").strip()
    title = _title_from_runs(_first_page_runs(first))
    if not title and meta_title and not _BAD_META_TITLES.match(meta_title):
        title = meta_title
    title = title or _first_line_title(first_text)
    if not title:
        raise ValueError("no text found on the first page (scanned PDF?)")
    stamp = _ARXIV_STAMP.search(first_text)
    doi = _DOI.search(first_text)
    paper = Paper(
        title=title,
        abstract=_abstract(first_text),
        arxiv_id=normalize_arxiv_id(stamp.group(1)) if stamp else None,
        doi=doi.group(1) if doi else None,
        source="pdf",
    )
    return paper, "\n\n".join(pages_text)


def load_pdf_files(
    pdfs: list[Path], *, report_path: Path, fulltext_dir: Path | None = None, progress: bool = False
) -> LoadResult:
    """Load PDFs; an unreadable file is skipped (its 1-based position and reason are reported)."""
    from rich.console import Console
    from rich.progress import Progress

    report = LoadReport(path=str(report_path), format="pdf")
    papers: list[Paper] = []
    used: set[str] = set()
    if fulltext_dir is not None:
        fulltext_dir.mkdir(parents=True, exist_ok=True)
    with Progress(console=Console(stderr=True), disable=not progress, transient=True) as bar:
        task = bar.add_task("reading PDFs", total=len(pdfs))
        for index, pdf in enumerate(pdfs, start=1):
            paper = _load_one(pdf, index, report, fulltext_dir, used)
            if paper is not None:
                papers.append(paper)
            bar.advance(task)
    return LoadResult(papers=papers, report=report)


def _load_one(pdf: Path, index: int, report: LoadReport, fulltext_dir: Path | None,
              used: set[str]) -> Paper | None:
    try:
        paper, full_text = paper_from_pdf(pdf)
    except Exception as exc:  # pypdf raises many error types on damaged files
        logger.debug("skipping %s", pdf, exc_info=True)
        report.skip(index, f"{pdf.name}: {type(exc).__name__}: {exc}")
        return None
    if fulltext_dir is not None:
        target = fulltext_dir / f"{_safe_name(paper, pdf, used)}.txt"
        target.write_text(full_text, encoding="utf-8")
        paper.full_text_path = str(target)
    report.read += 1
    return paper
