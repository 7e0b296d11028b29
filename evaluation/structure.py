"""Structural counts of a survey (SurveyLens Table 8/19 columns) and generated/human ratios.

Counted on the body text (``Survey.text``: every section, never the references list):
figures = max(Markdown/HTML images, distinct "Figure n" captions); tables = max(Markdown/HTML
tables, distinct "Table n" captions); equations = ``$$`` blocks + ``\\begin{equation|align|...}``
+ ``\\[...\\]``; paragraphs = blank-line separated prose blocks (tables, images, equations and
captions alone are not paragraphs); words / sentences / characters of the body; citations = cited
reference keys summed over citing sentences; references = reference-list entries; sections =
outline entries.
"""

from __future__ import annotations

import re

from ..models import Survey
from .citations import split_sentences

COUNT_KEYS = ("figures", "tables", "equations", "paragraphs", "words", "sentences", "characters",
              "citations", "references", "sections")

_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)|<img\b", re.I)
_FIGURE_CAPTION = re.compile(r"^\s*(?:\*\*)?(?:Fig\.?|Figure)\s*(\d+)", re.I | re.M)
_TABLE_CAPTION = re.compile(r"^\s*(?:\*\*)?Table\s*([IVXLC]+|\d+)\b", re.M | re.I)  # IEEE: "TABLE II"
_TABLE_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$", re.M)
_HTML_TABLE = re.compile(r"<table\b", re.I)
_DISPLAY_DOLLARS = re.compile(r"\$\$.+?\$\$", re.S)
_ENVIRONMENT = re.compile(r"\\begin\{(?:equation|align|eqnarray|gather|multline)\*?\}")
_BRACKET_MATH = re.compile(r"\\\[.+?\\\]", re.S)
_NOT_PROSE = re.compile(r"^\s*(?:!\[|<|\||\$\$|\\\[|\\begin|#|(?:Fig\.?|Figure|Table)\s*[\dIVX]+)", re.I)


def _count_tables(text: str) -> int:
    markdown_tables = len(_TABLE_SEPARATOR.findall(text))
    blocks = markdown_tables + len(_HTML_TABLE.findall(text))
    return max(blocks, len({n.upper() for n in _TABLE_CAPTION.findall(text)}))


def _count_equations(text: str) -> int:
    without_dollars = _DISPLAY_DOLLARS.sub(" ", text)
    return (len(_DISPLAY_DOLLARS.findall(text)) + len(_ENVIRONMENT.findall(without_dollars))
            + len(_BRACKET_MATH.findall(without_dollars)))


def _count_paragraphs(text: str) -> int:
    blocks = [b.strip() for b in re.split(r"\n\s*\n", text) if b.strip()]
    return sum(1 for b in blocks if not _NOT_PROSE.match(b) and len(b.split()) >= 3)


def structural_counts(survey: Survey) -> dict[str, int]:
    text = survey.text
    return {
        "figures": max(len(_IMAGE.findall(text)), len(set(_FIGURE_CAPTION.findall(text)))),
        "tables": _count_tables(text),
        "equations": _count_equations(text),
        "paragraphs": _count_paragraphs(text),
        "words": len(text.split()),
        "sentences": len(split_sentences(text)),
        "characters": len(text),
        "citations": sum(len(c.ref_keys) for c in survey.citations),
        "references": len(survey.references),
        "sections": len(survey.outline),
    }


def structural_ratios(generated: Survey, human: Survey) -> dict[str, float | None]:
    """generated count / human count per key (1.0 = parity); None where the human count is 0."""
    gen, ref = structural_counts(generated), structural_counts(human)
    return {k: (gen[k] / ref[k] if ref[k] else None) for k in COUNT_KEYS}
