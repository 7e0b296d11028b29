"""LaTeX escaping and mapping, Markdown blocks to LaTeX, and the BibTeX arXiv fields (no TeX needed)."""

from __future__ import annotations

import bibtexparser
import pytest

from surveygraph.agents.exporter import to_bibtex
from surveygraph.agents.latex import tex_escape, tex_inline
from surveygraph.agents.latex_document import bibitem, body_to_latex, table_to_latex, to_latex
from surveygraph.models import Reference, Survey, SurveySection


@pytest.mark.parametrize("text, expected", [
    ("Δ-Net", r"\ensuremath{\Delta}-Net"),
    ("μ and α", r"\ensuremath{\mu} and \ensuremath{\alpha}"),
    ("≤ 3×", r"\ensuremath{\leq} 3\ensuremath{\times}"),
    ("Café naïve", r"Caf\'{e} na\"{\i}ve"),
    ("Łódź", r"\L{}\'{o}d\'{z}"),
    ("“q” — x", "``q'' --- x"),
    ("& % # _ ~ ^ \\ { }", r"\& \% \# \_ \textasciitilde{} \textasciicircum{} \textbackslash{} \{ \}"),
    ("中", "?"),
])
def test_tex_escape_maps_every_character_to_ascii(text, expected):
    out = tex_escape(text)
    assert out == expected and out.isascii()


@pytest.mark.parametrize("text, expected", [
    ("Sub-$O(n^2)$ attention", "Sub-$O(n^2)$ attention"),
    ("$\\mathcal{O}(N\\log N)$", "$\\mathcal{O}(N\\log N)$"),
    ("$α$-entmax", "$\\alpha$-entmax"),
    ("$k$-NN", "$k$-NN"),
    ("costs $5 and $10", "costs \\$5 and \\$10"),  # prose, not math
    ("$\\textbf{x}$", "\\$\\textbackslash{}textbf\\{x\\}\\$"),  # unknown command: escaped, cannot break
    ("a $broken math", "a \\$broken math"),
    ("$x}{$", "\\$x\\}\\{\\$"),  # unbalanced braces
])
def test_math_spans_are_kept_only_when_safe(text, expected):
    assert tex_inline(text) == expected


def test_table_columns_fit_the_line_and_cells_are_escaped():
    lines = ["| Method | Complexity | A much longer notes column with details |", "|---|:---:|---|",
             "| ViT [1] | $O(n^2)$ | 50% & more |"]
    out = table_to_latex(lines)
    shares = [float(x) for x in __import__("re").findall(r"([\d.]+)\\linewidth", out)]
    assert len(shares) == 3 and abs(sum(shares) - 1) < 0.01 and shares[2] == max(shares)
    assert r"ViT \cite{ref1} & $O(n^2)$ & 50\% \& more \\" in out
    assert r"\begin{longtable}" in out and out.rstrip().endswith(r"\end{longtable}" + "\n" + r"\endgroup")


def test_body_blocks_table_figure_paragraphs():
    text = ("First [1].\ncontinued.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
            "![Cap μ](figures/x.png)\n\n![bad](../../etc/passwd)\n\nLast [2, 3].")
    out = body_to_latex(text)
    assert r"First \cite{ref1}. continued." in out
    assert r"\begin{longtable}" in out
    assert r"\IfFileExists{figures/x.png}{\includegraphics" in out and r"\caption{Cap \ensuremath{\mu}}" in out
    assert "passwd" in out and r"\includegraphics[width=0.9\linewidth,height=0.4\textheight,keepaspectratio]{../" not in out
    assert out.endswith(r"Last \cite{ref2,ref3}.")


def test_bibliography_labels_are_the_markdown_numbers():
    refs = [Reference(key="7", text="A. B. Δ-Title. 2025. arXiv:2501.00007", title="Δ-Title", arxiv_id="2501.00007"),
            Reference(key="12", text="C. D. Other. 2024. doi:10.1/x_y%z", title="Other", doi="10.1/x_y%z")]
    survey = Survey(title="T", sections=[SurveySection(heading="S", text="See [12] and [7].")], references=refs)
    tex = to_latex(survey)
    assert r"\bibitem[7]{ref7} A. B. \ensuremath{\Delta}-Title. 2025. \href{https://arxiv.org/abs/2501.00007}" in tex
    assert r"\bibitem[12]{ref12}" in tex and r"https://doi.org/10.1/x_y\%z" in tex
    assert "bibliographystyle" not in tex  # explicit labels: no BibTeX renumbering
    assert bibitem(refs[0]).endswith("{arXiv:2501.00007}.")


def test_bibtex_has_arxiv_eprint_fields_in_citation_order():
    refs = [Reference(key=str(n), title=t, arxiv_id=a, year=2025, paper_id=f"p{n}")
            for n, (t, a) in enumerate([("Sub-$O(n^2)$ μ-Attention", "2501.00001"), ("Plain & Simple", None)], 1)]
    papers = {"p1": {"paper_id": "p1", "title": refs[0].title, "authors": ["Ann Ö. Author", "Bo Writer"],
                     "arxiv_id": "2501.00001", "categories": ["cs.CV", "cs.LG"]},
              "p2": {"paper_id": "p2", "title": "Plain & Simple", "authors": ["C. D."]}}
    library = bibtexparser.parse_string(to_bibtex(Survey(references=refs), papers))
    first, second = library.entries
    assert [e.key for e in library.entries] == ["ref1", "ref2"]
    fields = {f.key: f.value for f in first.fields}
    assert first.entry_type == "misc"
    assert fields["eprint"] == "2501.00001" and fields["archivePrefix"] == "arXiv"
    assert fields["primaryClass"] == "cs.CV" and fields["url"] == "https://arxiv.org/abs/2501.00001"
    assert fields["note"] == "arXiv:2501.00001"
    assert fields["title"] == r"{Sub-$O(n^2)$ \ensuremath{\mu}-Attention}"
    assert fields["author"] == r"Ann \"{O}. Author and Bo Writer"
    assert {f.key: f.value for f in second.fields}["title"] == r"{Plain \& Simple}"


def test_compiling_without_tex_says_so(tmp_path, monkeypatch):
    from surveygraph.agents import latex_document
    from surveygraph.errors import UserError

    monkeypatch.setattr(latex_document.shutil, "which", lambda name: None)
    tex = tmp_path / "survey.tex"
    tex.write_text(to_latex(Survey(title="T")), encoding="utf-8")
    with pytest.raises(UserError, match="no TeX engine found.*compiles by hand"):
        latex_document.compile_pdf(tex)


def test_figure_caption_is_numbered_once_by_latex():
    from surveygraph.agents.latex_document import figure_to_latex

    block = figure_to_latex("Figure 1: Works per year.", "figures/x.png")
    assert "\\caption{Works per year.}" in block and "Figure 1" not in block
