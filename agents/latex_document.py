"""A survey as a LaTeX document (tables, figures, numbered bibliography) and compiling it to PDF.

The bibliography is a ``thebibliography`` with explicit labels (``\\bibitem[3]{ref3}``), so the
PDF prints exactly the numbers the Markdown prints ([3] is [3] in both) and no BibTeX run is
needed; ``references.bib`` is written as well, for readers who cite the papers elsewhere.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import unicodedata
from pathlib import Path

from ..errors import EXIT_DEGRADED, UserError
from ..models import Reference, Survey
from ..retrieval.damage import write_failure
from .latex import GREEK, tex_escape, tex_inline
from .text import CITATION_MARKER, marker_numbers

PREAMBLE = r"""\documentclass[11pt]{article}
\usepackage{iftex}
\ifPDFTeX
  \usepackage[T1]{fontenc}
  \usepackage[utf8]{inputenc}
  \usepackage{lmodern}
\else
  \usepackage{fontspec}
\fi
\usepackage{amsmath,amssymb}
\usepackage{graphicx}
\usepackage{longtable,array}
\usepackage[margin=1in]{geometry}
\usepackage[hidelinks]{hyperref}
\setlength{\emergencystretch}{3em}
"""

_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
_IMAGE = re.compile(r"^\s*!\[(?P<caption>[^\]]*)\]\((?P<path>[^)\s]+)(?:\s+\"[^\"]*\")?\)\s*$")
_SAFE_PATH = re.compile(r"^[A-Za-z0-9_./-]+$")
_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")


class PdfBuildFailed(UserError):
    """``--pdf`` was asked for and no PDF was built (TeX stopped, or no room): the survey files are
    written, the command exits 3 so that a script notices."""

    exit_code = EXIT_DEGRADED


def cite_key(key: str) -> str:
    return "ref" + re.sub(r"[^A-Za-z0-9]", "", key)


def inline(text: str) -> str:
    """One run of survey text: math kept, specials escaped, [1, 3] -> \\cite. Asterisks stay
    asterisks: the text is model output and corpus titles, whose "*...*" is no emphasis of ours
    (survey.md escapes it too), and "**" pairs spanning a math span broke the build."""
    def cite(match: re.Match) -> str:
        return "\\cite{" + ",".join(cite_key(str(n)) for n in marker_numbers(match.group(1))) + "}"

    # The markers hold only digits and separators, so escaping left them intact; inside a kept
    # math span "[1]" is an interval, not a citation (\\cite in math mode does not compile).
    parts = _KEPT_MATH.split(tex_inline(text))
    return "".join(part if i % 2 else CITATION_MARKER.sub(cite, part) for i, part in enumerate(parts))


_KEPT_MATH = re.compile(r"((?<!\\)\$[^$]*\$)")  # tex_inline writes every other "$" as "\\$"


def _cells(line: str) -> list[str]:
    line = line.strip()
    if line.startswith("|"):
        line = line[1:]
    if line.endswith("|") and not line.endswith("\\|"):
        line = line[:-1]
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", line)]


def table_to_latex(lines: list[str]) -> str:
    """A GFM pipe table as a longtable whose column widths follow the text and fit the page."""
    header = _cells(lines[0])
    rows = [_cells(line) for line in lines[2:]]
    n = len(header)
    rows = [(row + [""] * n)[:n] for row in rows]
    lengths = [max([len(header[i])] + [len(row[i]) for row in rows]) for i in range(n)]
    # Share of \linewidth per column: proportional to the longest cell, at least a fair minimum.
    floor = 0.5 / n
    shares = [max(floor, length / max(1, sum(lengths))) for length in lengths]
    shares = [share / sum(shares) for share in shares]
    spec = "".join(f">{{\\raggedright\\arraybackslash}}p{{\\dimexpr {share:.3f}\\linewidth-2\\tabcolsep\\relax}}"
                   for share in shares)
    out = ["\\begingroup\\small", f"\\begin{{longtable}}{{{spec}}}", "\\hline",
           " & ".join(f"\\textbf{{{inline(cell)}}}" for cell in header) + " \\\\", "\\hline", "\\endhead"]
    out += [" & ".join(inline(cell) for cell in row) + " \\\\" for row in rows]
    out += ["\\hline", "\\end{longtable}", "\\endgroup"]
    return "\n".join(out)


def figure_to_latex(caption: str, path: str) -> str:
    """A figure; a missing or oddly named file prints a framed note instead of failing the build.
    The Markdown caption's own "Figure N:" is dropped: LaTeX numbers the figure itself."""
    text = inline(re.sub(r"^\s*Figure\s+\d+\s*[:.]\s*", "", caption or ""))
    if not _SAFE_PATH.match(path) or ".." in path.split("/"):
        graphic = f"\\fbox{{figure not embedded: {tex_escape(path)}}}"
    else:
        graphic = (f"\\IfFileExists{{{path}}}{{\\includegraphics[width=0.9\\linewidth,height=0.4\\textheight,"
                   f"keepaspectratio]{{{path}}}}}{{\\fbox{{missing figure: {tex_escape(path)}}}}}")
    return "\n".join(["\\begin{figure}[htbp]", "\\centering", graphic, f"\\caption{{{text}}}" if text else "",
                      "\\end{figure}"])


def body_to_latex(text: str) -> str:
    """Section text (paragraphs, pipe tables, image lines, sub-headings) as LaTeX blocks."""
    lines = text.splitlines()
    blocks: list[str] = []
    paragraph: list[str] = []

    def flush() -> None:
        if paragraph:
            blocks.append(inline(" ".join(part.strip() for part in paragraph)))
            paragraph.clear()

    i = 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith("|") and i + 1 < len(lines) and _TABLE_RULE.match(lines[i + 1]):
            flush()
            j = i + 2
            while j < len(lines) and lines[j].lstrip().startswith("|"):
                j += 1
            blocks.append(table_to_latex(lines[i:j]))
            i = j
            continue
        image, heading = _IMAGE.match(line), _HEADING.match(line)
        if image:
            flush()
            blocks.append(figure_to_latex(image.group("caption"), image.group("path")))
        elif heading:
            flush()
            blocks.append(f"\\paragraph{{{inline(heading.group(2).strip())}}}")
        elif not line.strip():
            flush()
        else:
            paragraph.append(line)
        i += 1
    flush()
    return "\n\n".join(blocks)


def _url(url: str) -> str | None:
    if re.search(r"[\s{}\\^~<>\"]", url):
        return None
    return url.replace("%", "\\%").replace("#", "\\#")


def bibitem(ref: Reference) -> str:
    text = ref.text or ref.title or ""
    links = []
    if ref.arxiv_id:
        text = text.replace(f"arXiv:{ref.arxiv_id}", "").rstrip(" .")
        url = _url(f"https://arxiv.org/abs/{ref.arxiv_id}")
        label = tex_escape(f"arXiv:{ref.arxiv_id}")
        links.append(f"\\href{{{url}}}{{{label}}}" if url else label)
    elif ref.doi:
        text = text.replace(f"doi:{ref.doi}", "").rstrip(" .")
        url = _url(f"https://doi.org/{ref.doi}")
        label = tex_escape(f"doi:{ref.doi}")
        links.append(f"\\href{{{url}}}{{{label}}}" if url else label)
    entry = ". ".join([tex_inline(text)] + links) if text else ". ".join(links)
    return f"\\bibitem[{tex_escape(ref.key)}]{{{cite_key(ref.key)}}} {entry}."


def to_latex(survey: Survey) -> str:
    out = [PREAMBLE.rstrip(), f"\\title{{{tex_inline(survey.title)}}}", "\\date{}", "\\begin{document}", "\\maketitle"]
    for section in survey.sections:
        if section.section_id == "abstract":
            out += ["\\begin{abstract}", body_to_latex(section.text), "\\end{abstract}"]
            continue
        command = {1: "section", 2: "subsection"}.get(section.level, "subsubsection")
        # \texorpdfstring keeps math and accents out of the PDF bookmarks (hyperref warns, never fails).
        heading = tex_inline(section.heading)
        out.append(f"\\{command}{{\\texorpdfstring{{{heading}}}{{{tex_escape(_plain(section.heading))}}}}}")
        if section.text:
            out.append(body_to_latex(section.text))
    if survey.references:
        widest = max(survey.references, key=lambda r: len(r.key)).key
        out += [f"\\begin{{thebibliography}}{{{tex_escape(widest)}}}"]
        out += [bibitem(ref) for ref in survey.references]
        out += ["\\end{thebibliography}"]
    out.append("\\end{document}")
    return "\n".join(out) + "\n"


def _plain(text: str) -> str:
    """Bookmark text: ASCII letters, digits and light punctuation; Greek letters by name."""
    out = []
    for ch in text:
        if ch in GREEK:
            out.append(GREEK[ch])
        elif ch.isascii():
            out.append(ch if re.match(r"[A-Za-z0-9 .,:;()'/-]", ch) else " ")
        else:
            out.append(unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode("ascii"))
    return re.sub(r"\s+", " ", "".join(out)).strip() or "Section"


# ---------------------------------------------------------------------------- compiling
ENGINES = ("lualatex", "xelatex", "pdflatex")


def tex_engine() -> str | None:
    """The first installed engine (Unicode-native first), None when there is no TeX."""
    return next((engine for engine in ENGINES if shutil.which(engine)), None)


def compile_pdf(tex_path: Path, timeout: float = 300, engine: str | None = None) -> Path:
    """Compile ``tex_path`` next to itself (latexmk when present); returns the PDF path.

    ``engine`` picks lualatex / xelatex / pdflatex (default: the first installed)."""
    tex_path = Path(tex_path)
    engine = engine or tex_engine()
    if engine is not None and not shutil.which(engine):
        raise UserError(f"TeX engine '{engine}' is not installed")
    if engine is None:
        raise UserError("no TeX engine found (lualatex, xelatex or pdflatex): install TeX Live, e.g. "
                        "apt-get install latexmk texlive-luatex texlive-latex-recommended lmodern; "
                        f"{tex_path.name} is written and compiles by hand")
    # Sandboxed build: a fresh folder holding only the .tex and its figures, shell escape off and
    # kpathsea's paranoid modes, so even text that slipped past escaping can read no file outside
    # the build (no /etc/passwd) and write none outside it (no survey.md overwritten).
    build = tex_path.parent / "build"
    try:
        return _build(tex_path, build, engine, timeout)
    except OSError as exc:
        why = write_failure(exc)
        if why is None:
            raise
        shutil.rmtree(build, ignore_errors=True)  # give the space back; survey.tex and the rest stay
        raise PdfBuildFailed(f"no room to build the PDF of {tex_path} ({why}): the survey files are kept; free some "
                             f"space and build it again (`latexmk -{engine} {tex_path.name}` in {tex_path.parent})") from exc


def _build(tex_path: Path, build: Path, engine: str, timeout: float) -> Path:
    flags = ["-interaction=nonstopmode", "-halt-on-error", "-file-line-error", "-no-shell-escape"]
    shutil.rmtree(build, ignore_errors=True)
    build.mkdir()
    shutil.copy2(tex_path, build / tex_path.name)
    if (tex_path.parent / "figures").is_dir():
        shutil.copytree(tex_path.parent / "figures", build / "figures")
    env = {**os.environ, "openin_any": "p", "openout_any": "p", "shell_escape": "f"}
    if shutil.which("latexmk"):
        commands = [["latexmk", f"-{engine}" if engine != "pdflatex" else "-pdf", *flags, tex_path.name]]
    else:
        commands = [[engine, *flags, tex_path.name]] * 2  # second pass resolves \cite numbers
    built = build / tex_path.name
    for command in commands:
        try:
            done = subprocess.run(command, cwd=build, capture_output=True, text=True, timeout=timeout,
                                  errors="replace", env=env)
        except subprocess.TimeoutExpired as exc:
            raise PdfBuildFailed(f"{command[0]} did not finish within {timeout:.0f}s on {tex_path}") from exc
        if done.returncode != 0:
            raise PdfBuildFailed(f"{command[0]} failed on {tex_path}: {latex_error(built, done.stdout)}")
    if not built.with_suffix(".pdf").is_file():
        raise PdfBuildFailed(f"{engine} wrote no PDF for {tex_path}")
    pdf = tex_path.with_suffix(".pdf")
    shutil.copy2(built.with_suffix(".pdf"), pdf)
    return pdf


_TEX_ERROR = re.compile(r"^(?:\S+\.tex:\d+: |! )(?!\s*==> Fatal error)")


def latex_error(tex_path: Path, stdout: str) -> str:
    """TeX's own error line ("./survey.tex:23: Missing $ inserted.") from the build's log, with
    the source line TeX was reading ("l.23 ..."); latexmk's banner is no error."""
    log = tex_path.with_suffix(".log")
    text = log.read_text(errors="replace") if log.is_file() else stdout
    lines = text.splitlines()
    at = next((i for i, line in enumerate(lines) if _TEX_ERROR.match(line)), None)
    if at is None:
        shown = next((line for line in reversed(lines) if line.strip()), "no log")
    else:
        context = next((line.strip() for line in lines[at + 1:at + 12] if re.match(r"^l\.\d+ ", line)), "")
        shown = lines[at].strip() + (f" ({context[:120]})" if context else "")
    return shown[:300] + f" (see {log.parent.name}/{log.name})"
