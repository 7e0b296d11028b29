"""Loaders: JSONL(.gz), JSON lists, BibTeX, PDFs (generated here), bad inputs, the shared corpus."""

from __future__ import annotations

import gzip
import json
import time
from datetime import date
from pathlib import Path

import pytest

from surveygraph.errors import UserError
from surveygraph.retrieval.loaders import load_path, write_jsonl

FIXTURES = Path(__file__).parent / "fixtures" / "sources"


# --- a minimal valid PDF writer (no reportlab here): one page, Helvetica text lines ------------

def _pdf_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def make_pdf(path: Path, lines: list[tuple[float, str]], *, extra_pages: list[str] = ()) -> Path:
    """Write a PDF whose first page shows ``lines`` as (font size, text), top to bottom."""
    def page_stream(page_lines):
        y, ops = 760.0, []
        for size, text in page_lines:
            ops.append(f"BT /F1 {size} Tf 72 {y:.0f} Td ({_pdf_escape(text)}) Tj ET")
            y -= size * 1.6
        return "\n".join(ops).encode("latin-1")

    pages = [page_stream(lines)] + [page_stream([(10, t)]) for t in extra_pages]
    n = len(pages)
    # objects: 1 catalog, 2 pages, 3 font, then (page, content) pairs
    kids = " ".join(f"{4 + 2 * i} 0 R" for i in range(n))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{kids}] /Count {n} >>".encode(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    for i, stream in enumerate(pages):
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            f"/Resources << /Font << /F1 3 0 R >> >> /Contents {5 + 2 * i} 0 R >>".encode()
        )
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    path.write_bytes(bytes(out))
    return path


PAPER_LINES = [
    (9, "arXiv:2503.11731v2 [cs.CV] 14 Mar 2025"),
    (17, "Sparse Mixtures of Retrieval Experts"),
    (17, "for Long-Context Question Answering"),
    (11, "Ada Lovelace  Alan Turing"),
    (10, "Abstract"),
    (10, "We study how sparse retrieval experts help long-context QA."),
    (10, "Our method doubles recall at equal cost."),
    (10, "1 Introduction"),
    (10, "Long documents are hard for language models."),
]


# --- JSONL ----------------------------------------------------------------------------------------

def test_jsonl_fixture_reads_good_records_and_reports_bad_lines():
    result = load_path(FIXTURES / "papers.jsonl")
    report = result.report
    assert report.format == "jsonl"
    assert report.read == 3 and report.skipped == 4
    assert report.skipped_lines == [3, 5, 6, 8]
    assert "invalid JSON" in report.reasons[0]
    assert "missing title" in report.reasons[1]
    assert "expected a JSON object" in report.reasons[2]
    assert "date" in report.reasons[3]
    first, rag, bert = result.papers
    assert first.arxiv_id == "2503.11731" and first.published == date(2025, 3, 18)
    assert first.categories == ["cs.CV", "cs.RO"] and first.year == 2025
    # alternates: "id" with arXiv prefix+version, string authors/categories, "summary", ISO datetime
    assert rag.arxiv_id == "2005.11401"
    assert rag.title == "Retrieval-Augmented Generation for Knowledge-Intensive NLP Tasks"
    assert rag.authors == ["Patrick Lewis", "Ethan Perez"] and rag.categories == ["cs.CL", "cs.LG"]
    assert rag.abstract == "RAG models." and rag.citation_count == 6135 and rag.venue == "NeurIPS"
    assert bert.doi == "10.18653/v1/n19-1423" and bert.year == 2019
    assert bert.authors == ["Jacob Devlin", "Ming-Wei Chang"] and bert.citation_count == 90000


def test_gzipped_jsonl_and_round_trip_through_write_jsonl(tmp_path):
    papers = load_path(FIXTURES / "papers.jsonl").papers
    out = tmp_path / "out.jsonl.gz"
    write_jsonl(papers, out)
    again = load_path(out)
    assert again.report.skipped == 0
    assert [p.model_dump(exclude={"source"}) for p in again.papers] == [
        p.model_dump(exclude={"source"}) for p in papers
    ]
    with pytest.raises(UserError, match="already exists"):
        write_jsonl(papers, out)


def test_truncated_gzip_keeps_what_was_read(tmp_path):
    lines = "".join(json.dumps({"title": f"Paper number {i}", "arxiv_id": f"2501.{i:05d}"}) + "\n"
                    for i in range(2000))
    data = gzip.compress(lines.encode())
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(data[: len(data) // 2])
    result = load_path(path)
    assert 0 < result.report.read < 2000
    assert result.report.skipped == 0
    assert result.report.truncated.startswith(f"truncated gzip archive: {path}")
    assert f"{result.report.read} records read" in result.report.truncated


def test_json_list(tmp_path):
    path = tmp_path / "papers.json"
    path.write_text(json.dumps({"papers": [{"title": "A paper about graphs"}, {"abstract": "x"}]}))
    result = load_path(path)
    assert [p.title for p in result.papers] == ["A paper about graphs"]
    assert result.report.skipped_lines == [2]


def test_missing_and_unsupported_paths_are_user_errors(tmp_path):
    with pytest.raises(UserError, match="no such file"):
        load_path(tmp_path / "nope.jsonl")
    odd = tmp_path / "papers.csv"
    odd.write_text("title\nx\n")
    with pytest.raises(UserError, match="unsupported input"):
        load_path(odd)
    with pytest.raises(UserError, match="no PDF files"):
        load_path(tmp_path)


# --- BibTeX -----------------------------------------------------------------------------------------

def test_bibtex_fields_accents_and_broken_entries():
    result = load_path(FIXTURES / "refs.bib")
    report = result.report
    assert report.read == 3 and report.skipped == 2
    assert report.skipped_lines == [20, 31]
    assert "unparseable BibTeX" in report.reasons[0] and "notitle2021" in report.reasons[1]
    attention, bert, rag = result.papers
    assert attention.arxiv_id == "1706.03762" and attention.year == 2017
    assert attention.authors == ["Ashish Vaswani", "Noam Shazeer", "Niki Parmar"]  # "others" dropped
    assert attention.venue == "Advances in Neural Information Processing Systems"
    assert bert.title.startswith("BERT: Pre-training")  # braces stripped
    assert bert.doi == "10.18653/v1/n19-1423" and bert.venue == "Proceedings of NAACL"
    assert bert.abstract == "We introduce a new language representation model called BERT."
    assert rag.arxiv_id == "2312.10997" and rag.venue is None  # "arXiv preprint" is not a venue
    assert rag.authors == ["Yunfan Gao", "Jérôme Müller"]  # LaTeX accents decoded


# --- PDF ------------------------------------------------------------------------------------------

def test_pdf_title_abstract_ids_and_full_text(tmp_path):
    pdf = make_pdf(tmp_path / "paper.pdf", PAPER_LINES, extra_pages=["Second page body text."])
    fulltext = tmp_path / "fulltext"
    result = load_path(pdf, fulltext_dir=fulltext)
    assert result.report.read == 1 and result.report.format == "pdf"
    paper = result.papers[0]
    assert paper.title == "Sparse Mixtures of Retrieval Experts for Long-Context Question Answering"
    assert paper.abstract == ("We study how sparse retrieval experts help long-context QA. "
                              "Our method doubles recall at equal cost.")
    assert paper.arxiv_id == "2503.11731" and paper.source == "pdf"
    text_file = Path(paper.full_text_path)
    assert text_file.parent == fulltext and text_file.name == "arxiv_2503.11731.txt"
    assert "Second page body text." in text_file.read_text()


def test_pdf_folder_skips_damaged_files(tmp_path):
    folder = tmp_path / "pdfs"
    folder.mkdir()
    make_pdf(folder / "a.pdf", [(10, "A Plain Paper Title Without Sizes"), (10, "Abstract"),
                                (10, "Short abstract."), (10, "1 Introduction")])
    (folder / "b.pdf").write_bytes(b"%PDF-1.4\nthis is not really a pdf")
    result = load_path(folder)
    assert result.report.read == 1 and result.report.skipped == 1
    assert result.report.skipped_lines == [2] and "b.pdf" in result.report.reasons[0]
    paper = result.papers[0]
    assert paper.title == "A Plain Paper Title Without Sizes"  # first-line fallback
    assert paper.abstract == "Short abstract." and paper.full_text_path is None


# --- the real 75k-paper corpus ----------------------------------------------------------------------

def test_shared_corpus_streams_in_seconds(shared_data):
    start = time.perf_counter()
    result = load_path(shared_data / "corpus" / "arxiv_2025_2026.jsonl.gz")
    elapsed = time.perf_counter() - start
    assert result.report.read == 74_728 and result.report.skipped == 0
    assert all(p.arxiv_id and p.title and p.published for p in result.papers[:1000])
    assert elapsed < 60  # ~5 s on 2 shared cores; generous for a loaded CI box


def test_pdf_abstract_markers():
    from surveygraph.retrieval.pdf_loader import _abstract

    ieee = "Title\nAbstract—Large models hallucinate.\nIndex Terms—RAG, LLM\nI. INTRODUCTION\nBody"
    assert _abstract(ieee) == "Large models hallucinate."
    acl = "Title\nAbstract\nWe pro-\npose a method.\n1 Introduction\nBody"
    assert _abstract(acl) == "We propose a method."
    # "Abstract Syntax Notation" is not an abstract marker when a real one follows
    manual = "Abstract Syntax Notation One\nABSTRACT: A real abstract.\nKeywords: x"
    assert _abstract(manual) == "A real abstract."
    assert _abstract("no marker at all") == ""
