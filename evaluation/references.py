"""Reference lists: split a references block into entries and read title / ids / year from each.

Handles the styles met in real survey Markdown (generated and PDF-converted):
``[n] Title`` (weAIDB systems), IEEE ``[12] A. B, "Title," in Proc...``, ACM / ACL
``Names. 2023. Title. Venue.``, APA ``Author, A. (2023). Title. Venue.``, NeurIPS
``Names. Title. Venue, 2023.``, numbered lists ``1. ...`` / ``1) ...``, bullet lists, and the
Deep Research source list ``1 3 4 Title https://...`` where several markers name one entry.
Many PDF conversions run dozens of ``[n]`` entries together on one line; those are split on
the sequence of markers rather than on lines.
"""

from __future__ import annotations

import re

from ..models import Reference, normalize_arxiv_id, normalize_doi

_YEAR = r"(?:19[5-9]\d|20[0-4]\d)"
_NUMBERED_LINE = re.compile(r"^\s*(\d{1,4})[.)]\s+(?=\S)")
_NUMBER_RUN_LINE = re.compile(r"^\s*(\d{1,4}(?:\s+\d{1,4})*)\s+(?=[^\d\s]|\d+[A-Za-z])")  # "52 3D LiDAR..."
_BULLET = re.compile(r"^\s*[-*•]\s+")
_MD_LINK = re.compile(r"\[([^\]]*)\]\((?:[^()]|\([^)]*\))*\)")
# PDF conversion breaks URLs / DOIs as "s40537- 023- 00876": a space after "-" stays inside
_URL = re.compile(r"(?:https?://|www\.)(?:\S|(?<=-)\s(?=\S))+")
_ARXIV = re.compile(
    r"(?:arxiv(?:\.org)?\s*[:/]?\s*(?:abs/|pdf/)?\s*|abs/\s*|\[)(\d{4}\.\d{4,5})(?:v\d+)?", re.I
)
_DOI = re.compile(r"\b10\.\d{4,9}/(?:\S|(?<=-)\s(?=\S))+", re.I)
_QUOTED_TITLE = re.compile(r"[\"“”]\s*(.{8,400}?)\s*[,.]?\s*[\"“”]")
_APA_TITLE = re.compile(r"\(" + _YEAR + r"[a-z]?(?:, [^)]*)?\)[.:]?\s+(.+?)(?:\.\s|[?!]\s|\.$|$)")
# Springer "Wang, Y., Chu, Z.: Title. Venue" and GB/T 7714 "Li M, Song F, Yu B. Title. Venue"
_COLON_AFTER_INITIALS = re.compile(r"^(?:[^:]{2,600}?(?:\b[A-Z]\.|et al\.)):\s+(.+?)(?:\.\s|[?!]\s|\.$|$)")
_SURNAME_INITIALS = re.compile(
    r"^(?:[A-Z][\w'\-]+(?: [A-Z]{1,3})+, )*(?:[A-Z][\w'\-]+(?: [A-Z]{1,3})+|others|et al)\.\s+(.+?)(?:\.\s|[?!]\s|\.$|$)"
)
_TRAILING_DATE = re.compile(
    r",\s*(?:(?:January|February|March|April|May|June|July|August|September|October|November|December)\s+)?"
    + _YEAR + r"[a-z]?$"
)
_YEAR_THEN_TITLE = re.compile(r"\.\s" + _YEAR + r"[a-z]?\.\s+(.+?)(?:\.\s|[?!]\s|\.$|$)")
# a sentence end that is not the period of an initial such as "J." or "Y.-J."
_SEGMENT_END = re.compile(r"(?<![\s.\-][A-Z])(?<!^[A-Z])(?<!\bvs)\.\s+")
_AUTHORISH = re.compile(r"(,|\band\b|\bet al\b|&)")
_INITIALS = re.compile(r"^\s*(?:[A-Z]\.\s*-?\s*)+$")


def strip_markup(text: str) -> str:
    """Markdown links -> their label, URLs removed, whitespace collapsed."""
    text = _MD_LINK.sub(lambda m: m.group(1), text)
    text = _URL.sub(" ", text)
    return re.sub(r"\s+", " ", text).strip()


def _find_year(text: str) -> int | None:
    cleaned = _ARXIV.sub(" ", text)
    for pattern in (r"\.\s(" + _YEAR + r")[a-z]?\.", r"\((" + _YEAR + r")[a-z]?[),]"):
        found = re.search(pattern, cleaned)
        if found:
            return int(found.group(1))
    years = re.findall(r"(?<![\d.\-/])(" + _YEAR + r")(?![\d\-])", cleaned)
    return int(years[-1]) if years else None


def _clean_title(title: str) -> str:
    return _TRAILING_DATE.sub("", re.sub(r"\s+", " ", title).strip(" ,.;:\"“”'"))


def _looks_like_authors(segment: str) -> bool:
    if re.fullmatch(r"\s*(?:[A-Z]\.\s?-?\s?)+[A-Z][\w'\-]+\s*", segment):  # one author: "J. R. Smith"
        return True
    words = segment.split()
    if not words or len(segment) > 800:
        return False
    capitalised = sum(1 for w in words if w[:1].isupper() or w in {"and", "et", "al", "al.", "&"})
    return bool(_AUTHORISH.search(segment)) and capitalised / len(words) >= 0.6


def extract_title(body: str) -> str | None:
    """The paper title inside one entry (markers already removed)."""
    text = strip_markup(body)
    if not text:
        return None
    for pattern in (_QUOTED_TITLE, _APA_TITLE, _YEAR_THEN_TITLE, _COLON_AFTER_INITIALS, _SURNAME_INITIALS):
        found = pattern.search(text)
        if found and len(found.group(1).split()) >= 2:
            return _clean_title(found.group(1))
    segments = [s for s in _SEGMENT_END.split(text) if s.strip()]
    if len(segments) >= 2 and _looks_like_authors(segments[0]):
        return _clean_title(segments[1]) or None
    # "[3] Title of paper" and web-source lists: the whole entry (minus a trailing venue/year) is the title
    title = re.sub(r"[.,]\s*" + _YEAR + r"\.?\s*$", "", text)
    return _clean_title(title) or None


def author_year_key(body: str, year: int | None) -> str | None:
    """ACL-style key from the author list: 'Smith, 2020', 'Smith and Lee, 2020', 'Smith et al., 2020'."""
    if year is None:
        return None
    text = strip_markup(body)
    head = re.split(r"\.\s" + _YEAR + r"|\(" + _YEAR + r"|[\"“]", text, maxsplit=1)[0]
    et_al = bool(re.search(r"\bet\s+al\b", head))
    head = re.sub(r",?\s*\bet\s+al\.?,?", "", head)
    if not et_al and not _looks_like_authors(head) and not re.match(r"^[A-Z][\w'\-]+,", head):
        head = _SEGMENT_END.split(text, maxsplit=1)[0]
    parts = [p.strip() for p in re.split(r",|\band\b|&", head) if p.strip()]
    # APA "Smith, J., Lee, K." -> surnames are the parts followed by initials
    if len(parts) >= 2 and _INITIALS.match(parts[1]):
        surnames = [p for i, p in enumerate(parts) if not _INITIALS.match(p)]
    else:
        surnames = [p.split()[-1] for p in parts if p.split()]
    surnames = [re.sub(r"[^\w'\-]", "", s) for s in surnames if s.lower() not in {"et", "al", "al."}]
    surnames = [s for s in surnames if s and not s.isdigit()]
    if not surnames:
        return None
    if et_al or len(surnames) >= 3:
        return f"{surnames[0]} et al., {year}"
    if len(surnames) == 2:
        return f"{surnames[0]} and {surnames[1]}, {year}"
    return f"{surnames[0]}, {year}"


def parse_reference_entry(text: str, key: str) -> Reference:
    """Title, arXiv id, DOI and year from one entry string; ``key`` is the marker citing it."""
    body = re.sub(r"^\s*(?:\[[^\]]{1,60}\]|\d{1,4}[.)]?)\s+", "", text.strip())
    body = _BULLET.sub("", body)
    arxiv = _ARXIV.search(body)
    doi = _DOI.search(body)
    doi_value = re.sub(r"\s+", "", doi.group(0)).rstrip(".,;)") if doi else None
    return Reference(
        key=key,
        text=text.strip(),
        title=extract_title(body),
        arxiv_id=normalize_arxiv_id(arxiv.group(1)) if arxiv else None,
        doi=normalize_doi(doi_value),
        year=_find_year(body),
    )


def _split_sequential(block: str, marker: str) -> list[tuple[list[str], str]]:
    """Entries keyed 1, 2, 3... found in order wherever they sit: PDF conversions often run many
    entries together on one line ("...2023. 1[2] OpenAI, ..." or "...In: CVPR3. Ali W., ...").
    Only the next few expected numbers are looked for (the nearest wins), so numbers inside an
    entry rarely cause a false split."""
    starts: list[tuple[int, int, str]] = []
    first = re.search(marker.format(n=r"(\d{1,4})"), block)
    if not first:
        return []
    last, pos = int(first.group(1)) - 1, first.start()
    while True:
        found = [(m, last + step) for step in range(1, 6) if (m := _find_marker(block, marker, last + step, pos))]
        if not found:
            break
        m, number = min(found, key=lambda item: item[0][0])
        starts.append((m[0], m[1], str(number)))
        last, pos = number, m[1]
    entries = []
    for i, (_, body_start, number) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else len(block)
        entries.append(([number], block[body_start:end].strip()))
    return entries


def _find_marker(block: str, marker: str, number: int, pos: int) -> tuple[int, int] | None:
    m = re.compile(marker.format(n=str(number))).search(block, pos)
    best = (m.start(), m.end()) if m else None
    if marker is _NUMBERED_MARKER:
        # "...2014, 51: 78- 8927. John O P" = pages 78-89, then entry 27
        glued = re.compile(r"(\d{1,5})-\s?(\d{1,5}?)" + str(number) + r"[.)]\s+(?=[A-Z])")
        for g in glued.finditer(block, pos, best[0] if best else len(block)):
            if g.group(2) and len(g.group(2)) >= len(g.group(1)) and int(g.group(2)) >= int(g.group(1)):
                return (g.end(2), g.end())
    return best


_BRACKET_MARKER = r"\[{n}\]\s*"
# "n. " / "n) " after a non-digit, or glued to a year ("...arXiv:2308.00352, 202324. Dong Y")
# A number at the start of a line always starts an entry, even after a line ending in a digit
# ("URL: https://nature.com/articles/nphys2759" then "2. Title": Qwen Deep Research).
_NUMBERED_MARKER = (r"(?:^|(?<=\n)|(?:(?<=[^\d.\-/:])|(?<=[^\d](?:19|20)\d\d))(?<!\d\s))"
                    r"{n}[.)]\s+(?=[^\d\s])")


def _cut_after_urls(line: str) -> list[str]:
    """Deep Research lists sometimes run entries together: "...graphormer/ 36 [PDF] Title https://..."."""
    cuts = [0]
    for url in _URL.finditer(line):
        if re.match(r"\s+\d{1,3}(?:\s+\d{1,3})*\s+(?:[^\d\s]|\d+[A-Za-z])", line[url.end():]):
            cuts.append(url.end())
    return [line[a:b].strip() for a, b in zip(cuts, cuts[1:] + [len(line)]) if line[a:b].strip()]


def _split_numbered_lines(lines: list[str]) -> list[tuple[list[str], str]]:
    """``1. X`` / ``1) X`` / ``1 3 4 X`` lines; unnumbered lines continue the previous entry."""
    entries: list[tuple[list[str], str]] = []
    pending: list[str] = []  # a line holding only numbers: the keys run on into the next line
    for line in [piece for ln in lines for piece in _cut_after_urls(ln)]:
        if re.fullmatch(r"\s*\d{1,4}(?:\s+\d{1,4})*\s*", line):
            pending.extend(line.split())
            continue
        line = " ".join(pending + [line]) if pending else line
        pending = []
        m = _NUMBERED_LINE.match(line) or _NUMBER_RUN_LINE.match(line)
        if m:
            keys = m.group(1).split()
            entries.append((keys, line[m.end():].strip()))
        elif _BULLET.match(line):
            entries.append(([], _BULLET.sub("", line).strip()))
        elif entries:
            keys, body = entries[-1]
            entries[-1] = (keys, f"{body} {line.strip()}")
        else:
            entries.append(([], line.strip()))
    return entries


# a new author-year entry inside a run-together paragraph: "...arXiv:2307.03692. Yuvanesh Anand, Zach"
_NAME = r"[A-Z][\w'\-]*(?:-\s?[A-Z][\w'\-]+)?"
_AUTHOR_YEAR_BOUNDARY = re.compile(
    r"(?<=[.)\]])\s*(?=(?:" + _NAME + r"(?:\s+[A-Z][\w'.\-]*){0,3}|[A-Z][\w'\-]+,\s(?:[A-Z]\.\s?)+),"
    r"[^.]{0,400}?\.\s(?:" + _YEAR + r"[a-z]?\.|[^.]))"
)


def _split_author_year(lines: list[str]) -> list[tuple[list[str], str]]:
    """One entry per line, further split where a run-together line starts a new author list."""
    entries: list[tuple[list[str], str]] = []
    for line in lines:
        pieces = [p.strip() for p in _split_author_year_line(line) if p.strip()]
        entries.extend(([], p) for p in pieces)
    return entries


def _split_author_year_line(line: str) -> list[str]:
    if len(line) < 150:
        return [line]
    cuts = [0]
    for m in _AUTHOR_YEAR_BOUNDARY.finditer(line):
        # only cut where the text since the last cut already holds a year (a finished entry)
        if re.search(_YEAR, line[cuts[-1]:m.start()]) and m.start() - cuts[-1] > 60:
            cuts.append(m.start())
    return [line[a:b] for a, b in zip(cuts, cuts[1:] + [len(line)])]


# "[6] ..." and the bulleted, bold "*   **[6]** ..." (Gemini Deep Research)
_BRACKET_LINE = re.compile(r"^\s*(?:[-*•]\s+)?(?:\*\*)?\[(\d{1,4})\](?:\*\*)?\s*")
_TRAILING_MARKERS = re.compile(r"(?:\s*\[\d{1,4}(?:\s*[-–—,;]\s*\d{1,4})*\])+\s*$")


def _keys_out_of_order(lines: list[str]) -> bool:
    """A list keyed "[3] ... [4] ... [1] ...": sources listed in the writer's own order, one per
    line (Gemini Deep Research), not the 1, 2, 3 ... sequence that PDF conversions run together."""
    keys = [int(m.group(1)) for ln in lines if (m := _BRACKET_LINE.match(ln))]
    return any(b <= a for a, b in zip(keys, keys[1:]))


def _split_bracket_lines(lines: list[str]) -> list[tuple[list[str], str]]:
    """One entry per "[n] ..." line (continuation lines appended), its own trailing markers removed."""
    entries: list[tuple[list[str], str]] = []
    for line in lines:
        m = _BRACKET_LINE.match(line)
        if m:
            entries.append(([m.group(1)], line[m.end():].strip()))
        elif entries:
            entries[-1] = (entries[-1][0], f"{entries[-1][1]} {line.strip()}")
    return [(keys, _TRAILING_MARKERS.sub("", body)) for keys, body in entries]


def _list_runs(lines: list[str]) -> list[list[str]]:
    """The lists of a block keyed in different styles one after the other: Gemini Deep Research
    prints its "[cite: n]"-keyed references, then a "1. [domain](url)" list of sources."""
    runs: list[list[str]] = [[]]
    styles: list[str | None] = [None]
    for line in lines:
        style = "bracket" if _BRACKET_LINE.match(line) else "numbered" if _NUMBERED_LINE.match(line) else None
        if style and styles[-1] and style != styles[-1]:
            runs.append([])
            styles.append(style)
        elif style:
            styles[-1] = style
        runs[-1].append(line)
    keyed = [sum(1 for ln in run if _BRACKET_LINE.match(ln) or _NUMBERED_LINE.match(ln)) for run in runs]
    # a stray "[3] ..." continuation inside a numbered list is not a second list
    return runs if len(runs) > 1 and min(keyed) >= 3 else [lines]


def split_reference_block(block: str) -> list[Reference]:
    """All entries of a references block, each with a key the in-text markers can resolve to."""
    lines = [ln for ln in block.splitlines() if ln.strip() and not re.match(r"^\s*(#|---|\*\*\*)", ln)]
    if not lines:
        return []
    runs = _list_runs(lines)
    if len(runs) > 1:
        # the first list owns its keys: the in-text markers were written against it
        merged: list[Reference] = []
        taken: set[str] = set()
        for run in runs:
            for ref in split_reference_block("\n".join(run)):
                if ref.key not in taken:
                    taken.add(ref.key)
                    merged.append(ref)
        return merged
    bracket_starts = sum(1 for ln in lines if _BRACKET_LINE.match(ln))
    numbered_starts = sum(1 for ln in lines if _NUMBERED_LINE.match(ln) or _NUMBER_RUN_LINE.match(ln))
    dotted_starts = sum(1 for ln in lines if _NUMBERED_LINE.match(ln))
    if bracket_starts and bracket_starts >= numbered_starts and not _keys_out_of_order(lines):
        raw = _split_sequential("\n".join(lines), _BRACKET_MARKER)
    elif bracket_starts and bracket_starts >= numbered_starts:
        raw = _split_bracket_lines(lines)
    elif dotted_starts >= numbered_starts - dotted_starts and (
        re.match(r"^\s*1[.)]\s", lines[0]) or dotted_starts >= max(2, len(lines) // 4)
    ):
        raw = _split_sequential("\n".join(lines), _NUMBERED_MARKER)
    elif numbered_starts >= max(1, len(lines) // 5):
        raw = _split_numbered_lines(lines)
    else:
        raw = _split_author_year(lines)
    return _assign_keys(raw)


def _assign_keys(raw: list[tuple[list[str], str]]) -> list[Reference]:
    references: list[Reference] = []
    seen: dict[str, int] = {}
    for position, (keys, body) in enumerate(raw, start=1):
        if not body:
            continue
        ref = parse_reference_entry(body, keys[0] if keys else "")
        if keys:
            ref.aliases = keys[1:]
        else:
            ref.key = author_year_key(body, ref.year) or f"ref{position}"
        ref.text = body
        references.append(ref)
        seen[ref.key] = seen.get(ref.key, 0) + 1
    _disambiguate_years(references, seen)
    return references


def _disambiguate_years(references: list[Reference], counts: dict[str, int]) -> None:
    """Two 'Wei et al., 2022' entries become 2022a / 2022b, as author-year styles print them."""
    suffix_index: dict[str, int] = {}
    for ref in references:
        if counts.get(ref.key, 0) > 1 and re.search(r", " + _YEAR + "$", ref.key):
            i = suffix_index.get(ref.key, 0)
            suffix_index[ref.key] = i + 1
            ref.aliases.append(ref.key)
            ref.key = f"{ref.key}{chr(ord('a') + min(i, 25))}"
