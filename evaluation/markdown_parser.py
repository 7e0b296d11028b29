"""Markdown (any system's, or PDF-converted) -> Survey: title, outline, sections, references, citations.

Heading levels: a numbered heading ("2", "2.3", "2.3.1") takes its level from the numbering depth,
which is what the authors meant even when converters put "# 1 Intro" and "## 1.1 ..." inconsistently;
un-numbered headings take their ``#`` depth relative to the numbered top level. Levels are then
shifted so the top level present is 1. The references block (and the title heading) is neither a
section nor an outline entry.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..models import OutlineEntry, ParseReport, Survey, SurveySection, normalize_title
from .citations import extract_citations, uses_bare_numbers
from .references import split_reference_block

_ATX = re.compile(r"^\s{0,3}(#{1,6})\s+(.+?)\s*#*\s*$")
_NUMBER_PREFIX = re.compile(r"^(\d{1,2}(?:\.\d{1,2})*)\.?\s+(?=\S)")
_REFERENCES_TITLE = re.compile(
    r"^(?:[\dIVX]+\.?\s+)?(?:references?(?:\s+list)?|bibliography|works\s+cited|sources|citations|"
    r"literature\s+cited|reference\s+list)\s*:?$",
    re.I,
)
# heading shapes in PDF text that lost its '#' marks
_PLAIN_NUMBERED = re.compile(r"^(\d{1,2}(?:\.\d{1,2}){0,3})\.?\s+([A-Z](?:[^!?.]|\.(?!\s))*)\.?$")
_PLAIN_ROMAN = re.compile(r"^([IVX]{1,5})\.\s+([A-Z][^.!?]{1,110})$")
_PLAIN_LETTER = re.compile(r"^([A-H])\.\s+([A-Z][^.!?]{1,110})$")
_PLAIN_BOLD = re.compile(r"^\*\*([^*]{2,110})\*\*\s*$")


@dataclass
class _Heading:
    line: int
    raw_level: int  # '#' count, or the implied depth for plain-text headings
    title: str
    depth: int | None  # numbering depth ("2.3" -> 2) when the heading is numbered


def _atx_headings(lines: list[str]) -> list[_Heading]:
    headings: list[_Heading] = []
    in_code = False
    for i, line in enumerate(lines):
        if line.lstrip().startswith("```"):
            in_code = not in_code
            continue
        m = None if in_code else _ATX.match(line)
        if m:
            title = m.group(2).strip().strip("*_").strip()
            if title:
                headings.append(_Heading(i, len(m.group(1)), title, _numbering_depth(title)))
    return headings


def _numbering_depth(title: str) -> int | None:
    m = _NUMBER_PREFIX.match(title)
    if not m or re.match(r"^\d{4}\b", title):  # "2023 in review" is not a section number
        return None
    return m.group(1).count(".") + 1


def _plain_headings(lines: list[str]) -> list[_Heading]:
    """Heading lines of converted text without '#': numbered, roman, lettered, or bold-only lines."""
    headings: list[_Heading] = []
    for i, raw in enumerate(lines):
        line = raw.strip()
        if not line or len(line.split()) > 14:
            continue
        blank_around = (i == 0 or not lines[i - 1].strip()) and (i + 1 >= len(lines) or not lines[i + 1].strip())
        if m := _PLAIN_NUMBERED.match(line):
            depth = m.group(1).count(".") + 1
            headings.append(_Heading(i, depth, line, depth))
        elif m := _PLAIN_ROMAN.match(line):
            headings.append(_Heading(i, 1, m.group(2).strip(), 1))
        elif (m := _PLAIN_LETTER.match(line)) and blank_around:
            headings.append(_Heading(i, 2, m.group(2).strip(), 2))
        elif (m := _PLAIN_BOLD.match(line)) and blank_around:
            headings.append(_Heading(i, 2, m.group(1).strip(), None))
    return headings


def _is_references(title: str) -> bool:
    return bool(_REFERENCES_TITLE.match(re.sub(r"[*_`]", "", title).strip()))


def _pick_title(lines: list[str], headings: list[_Heading]) -> tuple[str, _Heading | None]:
    """The first heading when it opens the document at the top '#' level, else the first text line."""
    if headings:
        first = headings[0]
        top = min(h.raw_level for h in headings)
        preamble = [ln for ln in lines[: first.line] if ln.strip()]
        if first.raw_level == top and first.depth is None and len(preamble) <= 3 and not _is_references(first.title):
            return first.title, first
    for line in lines:
        if line.strip():
            return line.strip().lstrip("#").strip()[:300], None
    return "", None


def _levels(headings: list[_Heading]) -> list[int]:
    """Numbering depth for numbered headings; '#' depth relative to the numbered top level otherwise."""
    numbered_top = [h.raw_level for h in headings if h.depth == 1]
    base = min(numbered_top) if numbered_top else min((h.raw_level for h in headings), default=1)
    levels = [h.depth if h.depth else max(1, h.raw_level - base + 1) for h in headings]
    # a lone "0. Title" section (LLMxMapReduce) sits at the numbered top level too
    shift = min(levels, default=1) - 1
    return [lv - shift for lv in levels]


def _reference_spans(lines: list[str], headings: list[_Heading]) -> list[tuple[int, int]]:
    """Line spans [start, end) of references blocks (start = the References heading line, or the
    first entry when there is none): from a References heading to the next heading."""
    spans = []
    for i, h in enumerate(headings):
        if _is_references(h.title):
            end = headings[i + 1].line if i + 1 < len(headings) else len(lines)
            spans.append((h.line, end))
    if spans:
        return spans
    # no heading: a "References" line, or a trailing run of "[n]" entries (SGSimEval rules 3-4)
    for i in range(len(lines) - 1, len(lines) // 3, -1):
        if _is_references(lines[i].strip().strip("*_:")) or _INLINE_REFERENCES.match(lines[i]):
            return [(i, len(lines))]
    start = next((i for i, ln in enumerate(lines) if re.match(r"^\s*\[1\]\s+\S", ln)), None)
    if start is not None and start > len(lines) // 3:
        return [(start, len(lines))]
    return []


# "References [1] A. Author. Title, 2020. [2] ..." on one line (PDF conversions, SurveyX)
_INLINE_REFERENCES = re.compile(r"^\s*(?:references|bibliography)\s*:?\s+(?=\[1\]\s)", re.I)


def _entries_text(lines: list[str], span: tuple[int, int]) -> str:
    start, end = span
    if _is_references(lines[start].strip().lstrip("#").strip().strip("*_:")):
        start += 1
    elif inline := _INLINE_REFERENCES.match(lines[start]):
        return "\n".join([lines[start][inline.end():], *lines[start + 1:end]])
    return "\n".join(lines[start:end])


# Gemini Deep Research marks sources "[cite: 1, 8]" in the text and keys its reference lines the
# same way; read as the numeric markers "[1, 8]" they are.
_CITE_LABEL = re.compile(r"\[cite:\s*(\d{1,4}(?:\s*[-–—,;]\s*\d{1,4})*)\s*\]", re.I)


def parse_markdown(text: str, *, name: str = "") -> Survey:
    """Parse one survey in Markdown (or plain text converted from PDF); never raises on odd input."""
    report = ParseReport(format="markdown")
    text = (text or "").replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    text = _CITE_LABEL.sub(r"[\1]", text)
    lines = text.split("\n")
    headings = _atx_headings(lines)
    if len(headings) < 2:
        plain = _plain_headings(lines)
        if len(plain) > len(headings):
            headings = plain
            report.format = "markdown-plain-headings"
            report.warnings.append("no '#' headings; headings inferred from numbered / bold lines")
    if not text.strip():
        report.warnings.append(f"{name or 'input'} is empty")
        return Survey(title="", report=report)
    if not headings:
        report.warnings.append("no headings found; the whole text is one section")

    title, title_heading = _pick_title(lines, headings)
    ref_spans = _reference_spans(lines, headings)
    in_refs = set()
    for start, end in ref_spans:
        in_refs.update(range(start, end))

    body_headings = [h for h in headings if h is not title_heading and h.line not in in_refs]
    # converters repeat the title as "# 0. Title": not a section of its own
    body_headings = [
        h for h in body_headings
        if normalize_title(_NUMBER_PREFIX.sub("", h.title)) != normalize_title(title) or h.line > len(lines) // 2
    ]
    levels = _levels(body_headings)

    sections = _sections(lines, body_headings, levels, in_refs, title_heading)
    outline = [OutlineEntry(level=lv, title=h.title) for h, lv in zip(body_headings, levels)]

    references = []
    for start, end in ref_spans:
        references.extend(split_reference_block(_entries_text(lines, (start, end))))
    if ref_spans and not references:
        report.warnings.append("a references section was found but no entries could be read from it")
    if not ref_spans:
        report.warnings.append("no references section found")

    survey = Survey(title=title, outline=outline, sections=sections, references=references, report=report)
    bare = uses_bare_numbers(survey.text, references)
    for section in sections:
        survey.citations.extend(
            c.model_copy(update={"section": section.heading or None})
            for c in extract_citations(section.text, references, bare_numbers=bare)
        )
    if ref_spans and not references:
        report.unparsed_lines = sum(
            1 for span in ref_spans for ln in _entries_text(lines, span).splitlines() if ln.strip())
    return survey


def _sections(lines, headings, levels, in_refs, title_heading) -> list[SurveySection]:
    """Each heading's body up to the next heading; text before the first heading is a '' section."""
    starts = [h.line for h in headings]
    skip = set(in_refs)
    if title_heading is not None:
        skip.add(title_heading.line)
    elif headings:  # plain text whose first line is the title: not body text
        skip.add(next(i for i, ln in enumerate(lines) if ln.strip()))
    sections: list[SurveySection] = []
    first = starts[0] if starts else len(lines)
    preamble = _body(lines, 0, first, skip)
    if preamble:
        sections.append(SurveySection(heading="", level=1, text=preamble))
    for i, (h, level) in enumerate(zip(headings, levels)):
        end = starts[i + 1] if i + 1 < len(starts) else len(lines)
        number = _NUMBER_PREFIX.match(h.title)
        sections.append(SurveySection(heading=h.title, level=level, text=_body(lines, h.line + 1, end, skip),
                                      section_id=number.group(1) if number else None))
    return sections


def _body(lines: list[str], start: int, end: int, skip: set[int]) -> str:
    kept = [lines[i] for i in range(start, end) if i not in skip and not _ATX.match(lines[i])]
    return "\n".join(kept).strip()
