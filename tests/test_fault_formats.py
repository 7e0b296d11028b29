"""Fault injection on the export formats (issue 31): values from a model or a corpus record can
neither open a field of references.bib (checked with the real ``bibtex``), nor define a Markdown
link reference or live emphasis in survey.md (checked with a CommonMark renderer), nor break a
line of survey.md, nor stop the PDF build with their math; a PDF that fails to build says TeX's
own error and exits non-zero."""

from __future__ import annotations

import errno
import json
import random
import re
import shutil
import subprocess
from pathlib import Path

import bibtexparser
import pytest
import typer
from markdown_it import MarkdownIt

from surveygraph.agents.exporter import export_survey, to_bibtex
from surveygraph.agents.latex import tex_inline
from surveygraph.agents.latex_document import compile_pdf, to_latex
from surveygraph.errors import EXIT_DEGRADED, UserError
from surveygraph.models import Paper, Reference, Survey, SurveySection
from surveygraph.sanitize import markdown_safe, untrusted
from tests.generation_helpers import scripted_models, small_settings

pytestmark = pytest.mark.fault

FIELD_BREAKERS = [  # the probes, then the same idea with other brace and quote shapes
    'x}}, note = "PWNED", zzz = 1',
    'Evil}, note = "PWNED", zzz = 1',
    "x}, note = {PWNED}, zzz = {1",
    "open { never closed",
    "\\} escaped \\{ braces \\",
    '"}, title = "Other',
    "}}}}",
    "{{{{",
]


def _bibtex(folder: Path, bib: str) -> tuple[str, str]:
    """Run the real bibtex (unsrt) over every entry of ``bib``; returns the .bbl and the .blg."""
    if shutil.which("bibtex") is None:
        pytest.skip("bibtex is not installed (apt-get install texlive-latex-recommended)")
    (folder / "references.bib").write_text(bib, encoding="utf-8")
    (folder / "probe.aux").write_text("\\citation{*}\n\\bibstyle{unsrt}\n\\bibdata{references}\n")
    subprocess.run(["bibtex", "probe"], cwd=folder, capture_output=True, text=True, timeout=60)
    return (folder / "probe.bbl").read_text(errors="replace"), (folder / "probe.blg").read_text(errors="replace")


def _bib_survey(titles_authors: list[tuple[str, list[str]]]) -> tuple[Survey, dict]:
    refs, papers = [], {}
    for n, (title, authors) in enumerate(titles_authors, start=1):
        pid = f"arxiv:2501.{n:05d}"
        refs.append(Reference(key=str(n), title=untrusted(title), arxiv_id=f"2501.{n:05d}", year=2025, paper_id=pid))
        papers[pid] = Paper(arxiv_id=f"2501.{n:05d}", title=title, authors=authors, year=2025).model_dump(mode="json")
    return Survey(references=refs), papers


def test_no_title_or_author_opens_a_bibtex_field(tmp_path):
    survey, papers = _bib_survey([(text, [text, "Bo Writer"]) for text in FIELD_BREAKERS])
    bib = to_bibtex(survey, papers)
    library = bibtexparser.parse_string(bib)
    assert not library.failed_blocks
    for entry in library.entries:  # exactly our fields, whatever the title and author held
        assert [f.key for f in entry.fields] == ["title", "author", "year", "eprint", "archivePrefix", "url", "note"]
    bbl, blg = _bibtex(tmp_path, bib)
    assert "Warning" not in blg and "error message" not in blg, blg
    items = bbl.split("\\bibitem")[1:]
    assert len(items) == len(FIELD_BREAKERS)
    for n, item in enumerate(items, start=1):  # real bibtex kept each entry's author, year and eprint
        assert "Bo~Writer" in item and "2025" in item and f"arXiv:2501.{n:05d}" in item, item


def test_random_braces_and_backslashes_never_unbalance_a_field(tmp_path):
    rng = random.Random(31)
    alphabet = "{}\\\"'%@,=$^_ abcAZ"
    strings = ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 40))) for _ in range(200)]
    survey, papers = _bib_survey([(f"T {s}", [f"A {s}"]) for s in strings])
    bbl, blg = _bibtex(tmp_path, to_bibtex(survey, papers))
    assert "Warning" not in blg and "error message" not in blg, blg
    assert bbl.count("\\bibitem") == len(strings) and bbl.count("2025") == len(strings)


# --- survey.md -----------------------------------------------------------------------------------

HOSTILE_PARAGRAPHS = (
    'Retrieval grounds answers [1].\n\n[1]: //evil.example/phish "Trusted source"\n\n'
    "[2]: javascript:alert(1)\n\n   [^1]: footnote hijack\n\n"
    "Dense retrievers help [2]. **Bold claim** and *slanted* or _under_ words, `code` and ~~gone~~.")
HOSTILE_TITLE = "Hidden\u2028# Injected heading with *b^2$ c* and [1]: //evil.example"


def _export(tmp_path: Path) -> Path:
    from surveygraph.graphs.runner import build_deps

    papers = {p.paper_id: p.model_dump(mode="json") for p in (
        Paper(arxiv_id="2501.00001", title=HOSTILE_TITLE, year=2025, authors=["*Eve*", "Bo_"]),
        Paper(arxiv_id="2501.00002", title="Plain **title**", year=2025))}
    state = {
        "topic": "RAG", "run_dir": str(tmp_path), "papers": papers, "readings": {},
        "outline": [{"id": "1", "title": "S", "description": "d", "query": "q",
                     "subsections": [{"id": "1.1", "title": "T *x*", "description": "d", "query": "q"}]}],
        "survey": {"abstract": "An *abstract*.", "introduction": HOSTILE_PARAGRAPHS, "conclusion": "Done [1].",
                   "references": list(papers),
                   "body": [{"id": "1", "title": "Section **one**", "text": "",
                             "subsections": [{"id": "1.1", "title": "Sub _two_", "text": HOSTILE_PARAGRAPHS}]}]},
    }
    deps = build_deps(small_settings(tmp_path / "home", outline_demos="none"), chat_models=scripted_models()[1],
                      corpus=object())
    export_survey(state, deps)
    return tmp_path / "survey.md"


def test_model_and_record_text_cannot_define_links_or_emphasis_in_survey_md(tmp_path):
    markdown = _export(tmp_path).read_text(encoding="utf-8")
    html = MarkdownIt("commonmark").render(markdown)
    assert "<a " not in html  # no [n] became a link
    assert re.findall(r"<(em|strong|code|del)>", html) == ["strong"]  # only our own "**Abstract.**"
    assert "<strong>Abstract.</strong>" in html
    assert "Bold claim" in html and "slanted" in html  # the words stay, as plain text
    assert "Retrieval grounds answers [1]." in markdown and "Dense retrievers help [2]." in markdown


def test_a_line_separator_in_a_title_does_not_split_a_line_of_survey_md(tmp_path):
    markdown = _export(tmp_path).read_text(encoding="utf-8")
    assert "\u2028" not in markdown and "\u2029" not in markdown
    for line in markdown.splitlines():  # str.splitlines splits on U+2028 as an editor would
        assert not line.startswith("# Injected"), line
    record = json.loads((tmp_path / "survey.json").read_text(encoding="utf-8"))
    assert not any("\u2028" in r["text"] for r in record["references"])


def test_markdown_safe_drops_the_colon_of_every_reference_definition():
    text = markdown_safe('[1]: //evil.example "T"\n\n  [^2]:  javascript:alert(1)\n\n[a b] : x')
    assert not re.search(r"^\s*\[[^\]]+\]\s*:", text, re.M), text


# --- LaTeX ---------------------------------------------------------------------------------------

# The probes: two corpus titles (2601.20600, 2604.24119) and four hand-made spans.
BAD_MATH_TITLES = [
    "Quantum Codes with Parameters $[23, 4, 14]$ from Twisted Constructions",
    "Learning on $\\text{subset_A}$ of the Data",
    "Iterated Powers $x^1^2$ Revisited",
    "Open Delimiters $\\left( x$ in Titles",
    "Fractions $\\frac$ Without Arguments",
    "Primes $x^2'$ after a Power",
    "Closing $\\right) x$ Alone",
    "Scripted $x^\\frac12$ Commands",
]


WELL_FORMED_MATH = ["Sub-$O(n^2)$ Attention", "$\\mathcal{O}(N\\log N)$ Routing", "$\\sum_{i=1}^{n} x_i'$",
                    "$\\left( \\frac{a}{b} \\right)$ and $\\sqrt[3]{x}$", "$\\operatorname*{argmax}_x f$",
                    "$x^\\alpha_\\beta$"]


@pytest.mark.parametrize("title", BAD_MATH_TITLES)
def test_malformed_math_is_written_as_text_and_well_formed_math_stays_math(title):
    tex = tex_inline(untrusted(title))
    assert "$" not in tex.replace("\\$", ""), (title, tex)  # every "$" escaped: the span is text
    for good in WELL_FORMED_MATH:  # the control: real formulas still typeset as math
        assert "$" in tex_inline(good).replace("\\$", ""), good


def test_asterisks_in_survey_text_are_no_emphasis_in_the_pdf():
    """"*b^2$ c*" after a math span was turned into \\emph{b^2$ c}, which ends the math inside the
    group: "Missing $ inserted"."""
    from surveygraph.agents.latex_document import inline

    out = inline("Let $a *b^2$ c* hold, **bold** and *slanted* [1].")
    assert "\\emph" not in out and "\\textbf" not in out and "$a *b^2$" in out and "\\cite{ref1}" in out


def _survey_citing(titles: list[str], more: str = "") -> Survey:
    refs = [Reference(key=str(n), title=untrusted(t), arxiv_id=f"2501.{n:05d}", year=2025,
                      text=f"Ann Author. {untrusted(t)}. 2025. arXiv:2501.{n:05d}") for n, t in enumerate(titles, 1)]
    body = " ".join(f"Work {n} [{n}]." for n in range(1, len(titles) + 1)) + more
    return Survey(title="A Survey", sections=[SurveySection(heading="Works", level=1, section_id="1", text=body)],
                  references=refs)


@pytest.mark.slow
@pytest.mark.data
def test_known_bad_and_random_corpus_titles_compile(shared_data, tmp_path):
    """Every known-bad title plus 50 random corpus titles (the benchmark builds 2,000:
    benchmarks/latex_titles.py) in one PDF."""
    import gzip

    if shutil.which("lualatex") is None:
        pytest.skip("lualatex is not installed")
    wanted = {"2601.20600", "2604.24119"}
    titles, corpus_bad = [], []
    with gzip.open(shared_data / "corpus" / "arxiv_2025_2026.jsonl.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            record = json.loads(line)
            (corpus_bad if record["arxiv_id"] in wanted else titles).append(record["title"])
    assert len(corpus_bad) == 2
    sample = BAD_MATH_TITLES + corpus_bad + random.Random(31).sample(titles, 50)
    tex = tmp_path / "survey.tex"
    tex.write_text(to_latex(_survey_citing(sample, " Let $a *b^2$ c* hold [1].")), encoding="utf-8")
    assert compile_pdf(tex, engine="lualatex").is_file()


def test_a_failed_pdf_build_names_the_tex_error_and_exits_non_zero(tmp_path, capsys):
    if shutil.which("lualatex") is None:
        pytest.skip("lualatex is not installed")
    from types import SimpleNamespace

    from surveygraph.cli.generate import _maybe_pdf

    (tmp_path / "survey.tex").write_text("\\documentclass{article}\n\\begin{document}\nA\n\\undefinedthing\n"
                                         "\\end{document}\n", encoding="utf-8")
    with pytest.raises((typer.Exit, SystemExit)) as stopped:
        _maybe_pdf(SimpleNamespace(run_dir=tmp_path), True)
    code = getattr(stopped.value, "exit_code", getattr(stopped.value, "code", None))
    assert code == EXIT_DEGRADED
    said = " ".join(capsys.readouterr().err.split())
    assert "error: pdf:" in said and "file:line:error style" not in said, said  # not latexmk's banner
    assert "survey.tex:4: Undefined control sequence. (l.4 \\undefinedthing)" in said, said
    assert "Traceback" not in said


def test_a_full_disk_at_the_pdf_step_is_one_error_and_keeps_the_survey(tmp_path, monkeypatch):
    if shutil.which("lualatex") is None:
        pytest.skip("lualatex is not installed")
    from surveygraph.agents import latex_document

    tex = tmp_path / "survey.tex"
    tex.write_text(to_latex(_survey_citing(["A Title"])), encoding="utf-8")
    real_copy = shutil.copy2

    def copy_without_room(src, dst, *args, **kwargs):
        if str(dst).endswith(".pdf"):  # the built PDF copied out of build/: the disk is full now
            raise OSError(errno.ENOSPC, "No space left on device", str(dst))
        return real_copy(src, dst, *args, **kwargs)

    monkeypatch.setattr(latex_document.shutil, "copy2", copy_without_room)
    with pytest.raises(UserError, match="no room to build the PDF.*no space left on device.*survey files are kept"):
        compile_pdf(tex, engine="lualatex")
    assert tex.is_file() and not (tmp_path / "build").exists()  # the build's space is given back
