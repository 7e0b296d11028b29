"""Sanitising planner output and the deterministic fallbacks used when it is unusable.

A 270M base model often returns empty, duplicated or off-task headings. What survives the
sanitiser is kept; missing headings are filled from the demonstration outlines' structure or,
without demonstrations, from frequent terms in the retrieved papers' titles. The caller records
every fill as a fallback in the manifest.
"""

from __future__ import annotations

import re
from collections import Counter

from ..models import normalize_title

FRAME_HEADINGS = {
    "abstract", "introduction", "conclusion", "conclusions", "references", "bibliography",
    "acknowledgements", "acknowledgments", "appendix", "related work", "background and motivation",
    "future work", "future directions", "conclusion and future work", "summary", "outline",
}
STOPWORDS = set(
    """a an and are as at be by for from has have in into is it its of on or that the their this to
    towards toward via with without we our using use based new large study survey review approach
    approaches method methods model models paper novel through under over between more than can
    not all also how what when which do does vs versus beyond across""".split()
)
_NUMBERING = re.compile(r"^\s*(?:[IVX]+\.|\d+(?:\.\d+)*\.?|[A-Z]\.)\s+")


# A small model copies paper titles from its prompt with their "(2025)" year tag, often cut short
# by the output cap ("... Models (2"): the tag is prompt formatting, not part of a heading.
_YEAR_TAG = re.compile(r"\s*\((?:\d{1,4}|n\.?d\.?)?\)?\s*$")


def clean_heading(title: str | None, max_len: int = 100) -> str:
    text = " ".join(str(title or "").split())
    text = _NUMBERING.sub("", text).strip(" -:*#\"'`")
    if len(text) > max_len:
        text = text[:max_len].rsplit(" ", 1)[0]
    return _YEAR_TAG.sub("", text).strip(" -:")


def sanitize_entries(raw: list, n: int, *, topic: str, taken: set[str] | None = None) -> list[dict]:
    """Keep at most ``n`` usable {title, description, query}: non-empty, unique, not frame headings."""
    taken = set() if taken is None else taken
    kept: list[dict] = []
    for item in raw or []:
        data = item if isinstance(item, dict) else getattr(item, "model_dump", lambda: {})()
        title = clean_heading(data.get("title"))
        key = normalize_title(title)
        if len(key) < 3 or key in taken or key in FRAME_HEADINGS or key == normalize_title(topic):
            continue
        if not re.search(r"[a-zA-Z]{3}", title):
            continue
        taken.add(key)
        description = " ".join(str(data.get("description") or "").split())[:300] or title
        query = " ".join(str(data.get("query") or "").split())[:200] or f"{title} {topic}"
        kept.append({"title": title, "description": description, "query": query})
        if len(kept) == n:
            break
    return kept


def demo_headings(demos: list[dict], level: int) -> list[str]:
    """Headings of one level from the demonstration outlines, in order, without frame headings."""
    headings = []
    for demo in demos:
        for entry in demo.get("entries", []):
            if entry.get("level") != level:
                continue
            title = clean_heading(entry.get("title"))
            if normalize_title(title) not in FRAME_HEADINGS and len(title) >= 3:
                headings.append(title)
    return headings


def title_terms(titles: list[str], n: int, *, exclude: str = "") -> list[str]:
    """The ``n`` most frequent distinctive bigrams (then words) in paper titles.

    Words of ``exclude`` (the topic, the section title) are left out so terms name sub-areas.
    """
    banned = STOPWORDS | set(normalize_title(exclude).split())
    bigrams: Counter = Counter()
    unigrams: Counter = Counter()
    for title in titles:
        words = [w for w in normalize_title(title).split() if len(w) > 2 and not w.isdigit()]
        useful = [w for w in words if w not in banned]
        unigrams.update(set(useful))
        pairs = {(a, b) for a, b in zip(words, words[1:]) if a not in banned and b not in banned}
        bigrams.update(pairs)
    terms: list[str] = []
    used_words: set[str] = set()
    for (a, b), count in sorted(bigrams.items(), key=lambda kv: (-kv[1], kv[0])):
        if count < 2 or a in used_words or b in used_words:
            continue
        terms.append(f"{a} {b}")
        used_words.update((a, b))
        if len(terms) == n:
            return [t.title() for t in terms]
    for word, _count in sorted(unigrams.items(), key=lambda kv: (-kv[1], kv[0])):
        if word not in used_words:
            terms.append(word)
            used_words.add(word)
        if len(terms) == n:
            break
    return [t.title() for t in terms]


def fill_entries(
    kept: list[dict], n: int, *, topic: str, demo_titles: list[str], paper_titles: list[str],
    context: str = "", exclude: set[str] | frozenset = frozenset(),
) -> tuple[list[dict], dict | None]:
    """Top ``kept`` up to ``n`` entries; returns them and a fallback record (None if not needed)."""
    missing = n - len(kept)
    if missing <= 0:
        return kept, None
    taken = {normalize_title(e["title"]) for e in kept} | ({normalize_title(context)} if context else set())
    taken |= set(exclude)  # e.g. subsection titles other sections already use
    sources: Counter = Counter()
    for source, candidates in (
        ("demonstration-outline", demo_titles),
        ("paper-title-terms", title_terms(paper_titles, n + len(taken) + 3, exclude=f"{topic} {context}")),
    ):
        for title in candidates:
            if len(kept) == n:
                break
            key = normalize_title(title)
            if key in taken or key in FRAME_HEADINGS:
                continue
            taken.add(key)
            scope = f"{context} " if context else ""
            kept.append({
                "title": title,
                "description": f"{title} in {scope}{topic}".strip(),
                "query": f"{topic} {scope}{title}".strip(),
            })
            sources[source] += 1
    index = 1
    while len(kept) < n:  # nothing left to draw on: number generic parts of the context
        title = f"{context or topic} (part {index})"
        index += 1
        if normalize_title(title) in taken:
            continue
        taken.add(normalize_title(title))
        kept.append({"title": title, "description": title, "query": f"{topic} {context}".strip()})
        sources["numbered-part"] += 1
    return kept, {"filled": missing, "sources": dict(sources)}
