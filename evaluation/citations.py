"""In-text citation markers -> (sentence, cited reference keys), following SGSimEval's mapping rules.

Marker styles: ``[3]``, ``[1, 4]``, ``[2-5]``, ``[25]–[28]``, ``(Author, 2023)``,
``(Author et al., 2023; B and C, 2021)``, ``[Author et al., 2020]``, narrative ``Author et al. (2023)``
and ``Author et al. [2023]``, and Deep Research's bare source numbers (``graphs 1 4.``), the last only
when the text has no bracketed numbers and the reference keys are numeric. A marker that names no
reference entry keeps its raw key, so integrity checks can report it as dangling.
"""

from __future__ import annotations

import re

from ..models import Citation, Reference

_YEAR = r"(?:19[5-9]\d|20[0-4]\d)"
_NUMERIC_GROUP = re.compile(r"\[(\s*\d{1,4}(?:\s*[-–—,;]\s*\d{1,4})*\s*)\](?!\()")
_NUMERIC_RANGE = re.compile(r"\[(\d{1,4})\]\s*[-–—]\s*\[(\d{1,4})\]")
_MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?"
_SURNAME = r"(?!" + _MONTH + r"\s)[A-Z][\w'\-]+(?:\s(?:de|van|von|der|da|del|le)\s[A-Z][\w'\-]+)?"
_NARRATIVE = re.compile(
    r"\b(" + _SURNAME + r")(?:\s+et\s+al\.?|\s+(?:and|&)\s+" + _SURNAME + r")?\s*"
    r"[\(\[](?:" + _MONTH + r"\s+)?(" + _YEAR + r"[a-z]?)(?:[,;]\s*(?:" + _YEAR + r"[a-z]?))*[\)\]]"
)
_AUTHOR_YEAR_GROUP = re.compile(r"[\(\[]([^()\[\]]{2,600}?\b" + _YEAR + r"[a-z]?)[\)\]]")
_AUTHOR_YEAR_PIECE = re.compile(
    r"^(?:e\.g\.,?|i\.e\.,?|see(?: also)?|cf\.|inter alia,?)?\s*(" + _SURNAME + r")"
    r"(?:\s+et\s+al\.?|\s+(?:and|&)\s+" + _SURNAME + r")?,?\s+((?:" + _YEAR + r"[a-z]?(?:,\s*)?)+)$"
)
_BARE_NUMBERS = re.compile(r"(?<=[A-Za-z)\"'’”%])\s+((?:\d{1,3}\s+){0,8}\d{1,3})\s*(?=[.,;:](?:\s|$)|\s*$)", re.M)
_SENTENCE_END = re.compile(r"(?<!\bal\.)(?<!e\.g\.)(?<!i\.e\.)(?<!\bFig\.)(?<!\bvs\.)(?<!\bEq\.)(?<=[.!?])\s+(?=[A-Z\[(\"“])")
_NOT_SENTENCE = re.compile(r"^\s*(?:!\[|<|\||#|\$\$|\\\[|\\\]|\\begin|\\end)")


def split_sentences(text: str) -> list[str]:
    """Sentences of body text; image, HTML, table and heading lines are left out."""
    sentences: list[str] = []
    for paragraph in re.split(r"\n\s*\n", text or ""):
        kept = " ".join(ln.strip() for ln in paragraph.splitlines() if ln.strip() and not _NOT_SENTENCE.match(ln))
        sentences.extend(s.strip() for s in _SENTENCE_END.split(kept) if s.strip())
    return sentences


class _KeyIndex:
    """Marker -> reference key, through keys, aliases and (surname, year) of author-year keys."""

    def __init__(self, references: list[Reference]):
        self.by_marker: dict[str, str] = {}
        self.by_author_year: dict[tuple[str, str], str] = {}
        for ref in references:
            for marker in [ref.key, *ref.aliases]:
                self.by_marker.setdefault(marker.strip().lower(), ref.key)
                m = re.match(r"^(\S+).*?,\s*(" + _YEAR + r")([a-z]?)$", marker.strip())
                if m:
                    surname, year, suffix = m.group(1).lower(), m.group(2), m.group(3)
                    self.by_author_year.setdefault((surname, year + suffix), ref.key)
                    self.by_author_year.setdefault((surname, year), ref.key)
        # mostly numeric keys (Deep Research mixes a short author-year list with its numbered sources)
        self.numeric = bool(references) and 2 * sum(r.key.isdigit() for r in references) >= len(references)

    def numeric_key(self, number: str) -> str:
        return self.by_marker.get(number, number)

    def author_year_key(self, surname: str, year: str) -> str:
        key = self.by_author_year.get((surname.lower(), year)) or self.by_author_year.get(
            (surname.lower(), year.rstrip("abcdefghijklmnopqrstuvwxyz"))
        )
        return key or f"{surname}, {year}"


def _expand_numbers(group: str) -> list[str] | None:
    numbers: list[str] = []
    for part in re.split(r"[,;]", group):
        bounds = [b.strip() for b in re.split(r"[-–—]", part) if b.strip()]
        if len(bounds) == 2 and int(bounds[0]) < int(bounds[1]) <= int(bounds[0]) + 50:
            numbers.extend(str(n) for n in range(int(bounds[0]), int(bounds[1]) + 1))
        elif len(bounds) == 1:
            numbers.append(str(int(bounds[0])))
        else:
            return None
    return numbers


def _markers_in(sentence: str, index: _KeyIndex, bare_numbers: bool) -> list[str]:
    """Cited keys in one sentence, in order; overlapping matches go to the more specific style."""
    found: list[tuple[int, int, list[str]]] = []
    taken: list[tuple[int, int]] = []

    def add(start: int, end: int, keys: list[str]) -> None:
        if keys and not any(start < e and s < end for s, e in taken):
            taken.append((start, end))
            found.append((start, end, keys))

    for m in _NARRATIVE.finditer(sentence):
        add(m.start(), m.end(), [index.author_year_key(m.group(1), m.group(2))])
    for m in _AUTHOR_YEAR_GROUP.finditer(sentence):
        keys = []
        for piece in re.split(r";", m.group(1)):
            pm = _AUTHOR_YEAR_PIECE.match(piece.strip())
            if pm:
                keys.extend(index.author_year_key(pm.group(1), y.strip()) for y in pm.group(2).split(",") if y.strip())
        add(m.start(), m.end(), keys)
    for m in _NUMERIC_RANGE.finditer(sentence):
        lo, hi = int(m.group(1)), int(m.group(2))
        if 0 < lo < hi <= lo + 50:
            add(m.start(), m.end(), [index.numeric_key(str(n)) for n in range(lo, hi + 1)])
    for m in _NUMERIC_GROUP.finditer(sentence):
        numbers = _expand_numbers(m.group(1))
        # "[0, 1]" is an interval, not a citation
        if numbers and "0" not in numbers:
            add(m.start(), m.end(), [index.numeric_key(n) for n in numbers])
    if bare_numbers:
        for m in _bare_number_matches(sentence):
            numbers = m.group(1).split()
            if all(n in index.by_marker for n in numbers):
                add(m.start(1), m.end(1), [index.numeric_key(n) for n in numbers])
    keys: list[str] = []
    for _, _, group in sorted(found):
        keys.extend(k for k in group if k not in keys)
    return keys


_COUNTED_NOUN = re.compile(
    r"(?:fig|figure|table|tab|section|sec|eq|equation|chapter|step|stage|phase|level|version|layer|top|"
    r"than|of|to|over|under|about|around|only|first|last|and|or|by|in|at|with|from|for|is|are|was|were)\.?$",
    re.I,
)


def _bare_number_matches(sentence: str):
    """Bare numbers closing a clause ("... graphs 1 4."), not counts ("Figure 1:", "top 5.")."""
    for m in _BARE_NUMBERS.finditer(sentence):
        before = sentence[: m.start()].split()
        if before and not _COUNTED_NOUN.search(before[-1]):
            yield m


def uses_bare_numbers(text: str, references: list[Reference]) -> bool:
    """Deep Research style: numeric keys and bare source numbers far outnumber bracketed ones."""
    if not _KeyIndex(references).numeric:
        return False
    bracketed = len(_NUMERIC_GROUP.findall(text or ""))
    bare = sum(1 for s in split_sentences(text) for _ in _bare_number_matches(s))
    return bare > 3 * bracketed


def extract_citations(
    text: str, references: list[Reference], *, bare_numbers: bool | None = None
) -> list[Citation]:
    """One Citation per citing sentence, with the reference keys it cites (raw key when unresolved)."""
    index = _KeyIndex(references)
    if bare_numbers is None:
        bare_numbers = uses_bare_numbers(text, references)
    citations = []
    for sentence in split_sentences(text):
        keys = _markers_in(sentence, index, bare_numbers)
        if keys:
            citations.append(Citation(sentence=sentence, ref_keys=keys))
    return citations
