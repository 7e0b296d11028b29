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


# --- Heading checks (issue 29): is a heading a concept phrase, and are its works about it? ------

_HEADING_SPLIT = re.compile(r"\s+(?:and|&|vs\.?|versus)\s+|[,;:/]\s*", re.I)
_HEADING_STOP = {"a", "an", "and", "as", "at", "by", "for", "from", "in", "into", "of", "on", "or", "the", "to",
                 "via", "with", "its", "their", "towards", "toward", "beyond", "based"}
_WORD = re.compile(r"[a-z0-9]+")


def stem_word(word: str) -> str:
    """A light stem, enough to match 'Benchmarks' to 'benchmark' and 'Policies' to 'policy'."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def text_stems(text: str) -> set[str]:
    return {stem_word(w) for w in _WORD.findall(str(text or "").lower())}


def heading_phrases(title: str) -> list[set[str]]:
    """The concept phrases a heading joins ('KV-Cache Compression and Speculative Decoding' -> two),
    each as its set of content stems."""
    phrases = []
    for part in _HEADING_SPLIT.split(str(title or "")):
        stems = {stem_word(w) for w in _WORD.findall(part.lower()) if w not in _HEADING_STOP and len(w) > 1}
        if stems:
            phrases.append(stems)
    return phrases


def is_one_word(title: str) -> bool:
    return len(str(title or "").split()) == 1


def is_bare_generic(title: str) -> bool:
    """A one-word heading that is a common word ('Reasoning', 'Data', 'Vision'), not a name
    ('GraphRAG', 'LoRA', 'VQA', 'GPT-4'): a keyword, not a concept."""
    words = str(title or "").split()
    if len(words) != 1:
        return False
    word = words[0].strip("()[]\"'.,")
    named = any(ch.isdigit() for ch in word) or (len(word) > 1 and any(ch.isupper() for ch in word[1:]))
    return not named


def about_heading(title: str, text: str) -> bool:
    """The lexical proxy of 'this work is about this heading': every content word of one of the
    heading's phrases occurs (up to a plural) in the work's title or abstract."""
    stems = text_stems(text)
    return any(phrase <= stems for phrase in heading_phrases(title))


def lexical_agreement(subsections: list[tuple[str, list[str]]]) -> float:
    """Mean over subsections (heading, texts of its cited works) of the share of works about the
    heading; subsections without works are left out."""
    shares = [sum(about_heading(title, t) for t in texts) / len(texts) for title, texts in subsections if texts]
    return sum(shares) / len(shares) if shares else 0.0


def nearest_heading_agreement(subsections: list[tuple[str, list[str]]], encode) -> float:
    """Mean over subsections of the share of cited works whose embedding is closer to their own
    subsection's heading than to every other subsection heading of the outline (``encode``: texts
    -> vectors). Independent of wording: a heading that names its works beats its neighbours."""
    import numpy as np

    titled = [(i, title, texts) for i, (title, texts) in enumerate(subsections) if texts]
    if len(titled) < 2:
        return 0.0

    def unit(matrix):
        matrix = np.asarray(matrix, dtype=float)
        return matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)

    heads = unit(encode([title for _, title, _ in titled]))
    shares = []
    for row, (_, _, texts) in enumerate(titled):
        sims = unit(encode(texts)) @ heads.T
        shares.append(float(np.mean(sims.argmax(axis=1) == row)))
    return sum(shares) / len(shares)


def foreign_headings(headings: list[str], other_outlines: list[str]) -> list[str]:
    """Headings that are, word for word (normalised), a heading of another topic's human outline."""
    from ..models import normalize_title

    others = {normalize_title(h) for h in other_outlines} - {""}
    return [h for h in headings if normalize_title(h) in others]
