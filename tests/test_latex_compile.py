"""survey.tex compiles whatever the titles hold, and the PDF's citation numbers are the Markdown's.

Skipped with a reason when no TeX engine is installed (scripts/install.sh installs one via apt
when it runs as root).
"""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from surveygraph.agents.exporter import to_markdown
from surveygraph.agents.latex_document import ENGINES, compile_pdf, to_latex
from surveygraph.models import Reference, Survey, SurveySection

TITLES = [
    "Δ-Attention: μ-Scale Vision Transformers with α-Blending",
    "Sub-$O(n^2)$ Attention via $\\alpha$-entmax and $\\mathcal{O}(N\\log N)$ Routing",
    "Costs & 50% of #1: a_b ~ x^y \\ {z} in Practice",
    "Café, naïve Łódź and Ørsted: ≤ 3× Speed-ups for “Quoted” ViTs",
    "中文 Title with an unmapped script and a $broken math",
]
MARKER = re.compile(r"\[(\d+(?:,\s*\d+)*)\]")


def _png(path: Path) -> None:
    """A tiny valid PNG (grey 8x8), written without an imaging library."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    raw = b"".join(b"\x00" + b"\x80" * 8 for _ in range(8))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 8, 8, 8, 0, 0, 0, 0))
                     + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def unicode_survey() -> Survey:
    refs = [Reference(key=str(n), title=title, arxiv_id=f"2501.{n:05d}", year=2025,
                      text=f"Ann Author, Bo Writer. {title}. 2025. arXiv:2501.{n:05d}")
            for n, title in enumerate(TITLES, start=1)]
    body = ("Patch embeddings with Δ-scaling [3] and μ-parametrisation [1, 2] dominate; "
            "costs drop to $O(n \\log n)$ in [5].\n\n"
            "| Method | Complexity | Notes (%, &, _) |\n|---|:---:|---|\n"
            "| ViT [1] | $O(n^2)$ | 50% & more, a_b |\n| Linformer [4] | O(n) | α ≤ 0.5 |\n\n"
            "![Accuracy against model size (μ-scale)](figures/accuracy.png)\n\n"
            "Hybrid designs [2, 4] remain open.")
    sections = [
        SurveySection(heading="Abstract", level=1, section_id="abstract", text="We review Δ-nets [1]."),
        SurveySection(heading="Introduction", level=1, section_id="introduction", text="Transformers [2] and more [5]."),
        SurveySection(heading="Δ-Models: μ & $O(n^2)$ #1", level=1, section_id="1", text=body),
        SurveySection(heading="Sub_section ~ ^ {x} \\ 100% with α", level=2, section_id="1.1", text="Details [3, 4]."),
    ]
    return Survey(title="A Survey on Δ-Nets & $O(n^2)$ Attention", topic="Δ-Nets", sections=sections, references=refs)


def _engines() -> list[str]:
    return [engine for engine in ENGINES if shutil.which(engine)]


@pytest.mark.parametrize("engine", ENGINES)
def test_unicode_survey_compiles_and_numbers_match_markdown(engine, tmp_path):
    if not _engines():
        pytest.skip("no TeX engine installed (lualatex, xelatex or pdflatex): optional, `make install-tex`")
    if not shutil.which(engine):
        pytest.skip(f"{engine} not installed (optional TeX: `make install-tex`)")
    survey = unicode_survey()
    markdown = to_markdown(survey)
    tex = tmp_path / "survey.tex"
    tex.write_text(to_latex(survey), encoding="utf-8")
    assert tex.read_text().isascii()  # every engine reads it the same way
    _png(tmp_path / "figures" / "accuracy.png")
    pdf = compile_pdf(tex, engine=engine)
    assert pdf.is_file() and pdf.stat().st_size > 1000
    log = (tmp_path / "build" / "survey.log").read_text(errors="replace")  # the sandboxed build's log
    assert "Missing character" not in log and "Undefined control sequence" not in log
    if not shutil.which("pdftotext"):
        pytest.skip("pdftotext (poppler-utils) not installed (`make install-tex`): PDF built, numbers not checked")
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    body_pdf, _, bib_pdf = text.rpartition("References")
    body_md, _, bib_md = markdown.rpartition("## References")

    def markers(part: str) -> list[str]:
        return sorted(re.sub(r"\s", "", m) for m in MARKER.findall(part))

    assert markers(body_pdf) == markers(body_md)  # same citations, same numbers
    for ref in survey.references:  # bibliography label n belongs to the same paper in both
        assert f"[{ref.key}] Ann Author" in bib_md
        assert re.search(rf"\[{ref.key}\]\s+Ann Author", bib_pdf), ref.key
        assert f"arXiv:{ref.arxiv_id}" in bib_pdf
    assert "Δ" in text or "∆" in text  # Greek survived as Greek
    assert "μ" in text or "µ" in text
    assert "figures/accuracy.png" not in text  # the figure was embedded, not replaced by a note


HOSTILE = [  # titles from issue 20: TeX's ^^ notation spelling \input and \immediate\openout
    "Safe Title $^^5cinput{/etc/passwd}$ for Retrieval",
    "Overwrite $^^5cimmediate^^5copenout5=survey.md ^^5cimmediate^^5cwrite5{PWNED}$ Attack",
    "Catcode $^^5ccatcode`^^7c=0 ^^7cinput{/etc/hostname}$ Trick",
]


def hostile_survey() -> Survey:
    refs = [Reference(key=str(n), title=title, arxiv_id=f"2501.{n:05d}", year=2025,
                      text=f"Eve Attacker. {title}. 2025. arXiv:2501.{n:05d}") for n, title in enumerate(HOSTILE, 1)]
    sections = [SurveySection(heading=f"On {HOSTILE[1]}", level=1, section_id="1",
                              text=f"As {HOSTILE[0]} shows [1], and {HOSTILE[2]} [3] too [2].")]
    return Survey(title="A Survey of Attacks", topic="attacks", sections=sections, references=refs)


def test_tex_character_codes_are_escaped_not_kept_as_math():
    tex = to_latex(hostile_survey())
    assert "^^5c" not in tex and "^^7c" not in tex  # every ^ is \textasciicircum{}
    assert "\\textasciicircum{}\\textasciicircum{}5cinput" in tex


@pytest.mark.parametrize("engine", ENGINES)
def test_hostile_titles_read_and_write_nothing_outside_the_build(engine, tmp_path):
    if not shutil.which(engine):
        pytest.skip(f"{engine} not installed (optional TeX: `make install-tex`)")
    (tmp_path / "survey.md").write_text("the real survey\n", encoding="utf-8")
    tex = tmp_path / "survey.tex"
    # written raw, as an escaping bug would: the sandbox must hold even then
    tex.write_text(to_latex(hostile_survey()).replace("\\textasciicircum{}\\textasciicircum{}", "^^"),
                   encoding="utf-8")
    try:
        compile_pdf(tex, engine=engine)
    except Exception:  # noqa: BLE001 - a refused read may stop the build: that is the point
        pass
    assert (tmp_path / "survey.md").read_text(encoding="utf-8") == "the real survey\n"
    pdf = tmp_path / "survey.pdf"
    if pdf.is_file() and shutil.which("pdftotext"):
        text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True).stdout
        assert "root:" not in text
    logs = " ".join(p.read_text(errors="replace") for p in (tmp_path / "build").glob("*.log"))
    assert "root:x:0" not in logs
