"""Text helpers for drafts: citation markers, repetition clean-up, data quoting, slugs."""

from __future__ import annotations

import re
from typing import Callable

from ..models import normalize_title
from ..sanitize import untrusted

# [3], [2, 5], [1-3], [1; 4], [1][2] (each bracket separately). Only digits, separators, spaces.
CITATION_MARKER = re.compile(r"\[(\s*\d+(?:\s*(?:,|;|-|–)\s*\d+)*\s*)\]")
# Internal marker used between the writer and the final renumbering: [@arxiv:2503.01234]
PAPER_MARKER = re.compile(r"\[@([^\]\s]+)\]")
# Not after "et al." ("Smith et al. [3] propose ...") or common abbreviations (as evaluation/citations.py).
_SENTENCE_SPLIT = re.compile(r"(?<!\bal\.)(?<!e\.g\.)(?<!i\.e\.)(?<!\bFig\.)(?<!\bvs\.)(?<!\bEq\.)(?<!\bcf\.)"
                             r"(?<=[.!?])\s+(?=[A-Z\[(\"'])")
_WORD = re.compile(r"\S+")


def marker_numbers(body: str) -> list[int]:
    """'2, 5-7' -> [2, 5, 6, 7]; ranges longer than 20 are not expanded (not a real citation)."""
    numbers: list[int] = []
    for part in re.split(r"\s*[,;]\s*", body.strip()):
        bounds = re.split(r"\s*[-–]\s*", part)
        if len(bounds) == 2:
            lo, hi = int(bounds[0]), int(bounds[1])
            numbers.extend(range(lo, hi + 1) if 0 <= hi - lo <= 20 else [lo, hi])
        elif part:
            numbers.append(int(part))
    return numbers


def resolve_local_citations(text: str, keys: dict[str, str]) -> tuple[str, int]:
    """Replace local markers ([1]..[K] of one writer prompt) by internal paper markers.

    Numbers that were not given to the writer are dropped (never matched to a similar paper).
    Returns the new text and how many marker numbers were dropped.
    """
    dropped = 0

    def replace(match: re.Match) -> str:
        nonlocal dropped
        ids = []
        for number in marker_numbers(match.group(1)):
            paper_id = keys.get(str(number))
            if paper_id is None:
                dropped += 1
            elif paper_id not in ids:
                ids.append(paper_id)
        return "".join(f"[@{pid}]" for pid in ids)

    return tidy_spaces(CITATION_MARKER.sub(replace, text)), dropped


def strip_citation_markers(text: str) -> tuple[str, int]:
    """Remove numeric markers (for parts written without sources); returns text and count."""
    count = sum(len(marker_numbers(m.group(1))) for m in CITATION_MARKER.finditer(text))
    return tidy_spaces(CITATION_MARKER.sub("", text)), count


def renumber(texts: list[str], numbering: dict[str, int]) -> list[str]:
    """Turn internal paper markers into global numbers assigned by first use.

    ``numbering`` (paper id -> number) is extended in place, so several calls share one order.
    Adjacent markers are merged into one bracket: "[@a][@b]" -> "[1, 2]".
    """
    out = []
    for text in texts:
        for match in PAPER_MARKER.finditer(text):
            numbering.setdefault(match.group(1), len(numbering) + 1)

        def merge(match: re.Match) -> str:
            ids = PAPER_MARKER.findall(match.group(0))
            numbers = sorted({numbering[i] for i in ids})
            return "[" + ", ".join(str(n) for n in numbers) + "]"

        out.append(re.sub(r"(?:\[@[^\]\s]+\])+", merge, text))
    return out


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_SPLIT.split(text.strip()) if s.strip()]


# The section labels of a structured abstract ("BACKGROUND: ...", "Methods: ..."): headings of the
# source, not words of its sentences ("X report that BACKGROUND: Recent studies ...", a v10 reader).
_ABSTRACT_SECTION = re.compile(r"(?:(?<=^)|(?<=[.!?]\s)|(?<=\s\s))(?:BACKGROUND|INTRODUCTION|MOTIVATION|CONTEXT|"
                               r"OBJECTIVES?|PURPOSE|AIMS?|METHODS?|MATERIALS AND METHODS|DESIGN|SETTING|PARTICIPANTS|"
                               r"RESULTS?|FINDINGS|CONCLUSIONS?|INTERPRETATION|SIGNIFICANCE|IMPORTANCE|"
                               r"Background|Objectives?|Purpose|Aims?|Materials and Methods|Methods|Results|Findings|Conclusions?)"
                               r"\s*(?:AND [A-Z]+\s*)?:\s+(?=[A-Z0-9])")


# Two sentences the source joined without a space ("... short and long CoT.In this work, they
# propose ..."): 1.2% of the corpus's abstracts; a v26 draft quoted one verbatim. Not after a title
# or an initial ("Dr.Jit" is a name, "U.S.A." initials).
_JOINED_SENTENCES = re.compile(r"(?<=[A-Za-z0-9)%])\.(?=[A-Z][a-z])")
_SENTENCE_OPENERS = set("""a additionally although an as based by code comprehensive despite existing experimental
experiments extensive finally first for further furthermore however in it its moreover on our overall project
results several specifically such the then therefore these they this thus to unlike we while with""".split())
_TITLES_BEFORE_DOT = {"dr", "mr", "mrs", "ms", "st", "vs", "fig", "eq", "no", "jr", "prof"}


def separate_joined_sentences(text: str) -> str:
    """A space after a full stop that ends one sentence and runs into the next ("CoT.In this")."""
    def space(match: re.Match) -> str:
        word = re.search(r"(\w+)$", text[:match.start()])
        # an initial ("U.S.A.The") or a title ("Dr.Jit") is no sentence's end
        if word and (len(word.group(1)) < 2 or word.group(1).lower() in _TITLES_BEFORE_DOT):
            return "."
        # after a capital, a name's part as often ("GBA.Polygon", "DR.Experts"): only before a word
        # that opens sentences
        following = re.match(r"[A-Za-z]+", text[match.end():])
        if text[match.start() - 1].isupper() and (not following or following.group(0).lower() not in _SENTENCE_OPENERS):
            return "."
        return ". "

    return _JOINED_SENTENCES.sub(space, text)


def strip_section_labels(abstract: str) -> str:
    """An abstract without its structured-abstract labels ("BACKGROUND:", "Results:")."""
    return _ABSTRACT_SECTION.sub("", abstract)


NUMBER_WORDS = "zero one two three four five six seven eight nine ten eleven twelve".split()


def count_words(n: int) -> str:
    """3 -> 'three'; numbers past twelve stay digits."""
    return NUMBER_WORDS[n] if n < len(NUMBER_WORDS) else str(n)


def in_sentence(phrase: str) -> str:
    """A title's capitals dropped inside a sentence ('Question Answering' -> 'question answering',
    'Retrieval-Augmented' -> 'retrieval-augmented'); acronyms and names with inner capitals kept."""
    def title_cased(word: str) -> bool:  # 'Question', 'Retrieval-Augmented', 'Graph-based'; not 'RAG', 'GraphRAG'
        parts = [p for p in word.split("-") if p]
        # a name with a digit ("Qwen2", "Wan2.1") keeps its capital
        return bool(parts) and parts[0][:1].isupper() and all(p[1:].islower() or len(p) == 1 for p in parts) \
            and all(p[:1].isupper() or p.islower() for p in parts) and not any(c.isdigit() for c in word)

    return " ".join(w.lower() if title_cased(w) else w for w in phrase.split())


# A topic typed as a question ("how do transformers handle very long documents?", "what's new in MoE
# LLMs?") reads as no noun after "papers on" or "A Survey on"; "how to ..." does (a request).
_QUESTION_OPENERS = {"how", "what", "what's", "whats", "which", "why", "when", "where", "who", "can", "could",
                     "do", "does", "did", "is", "are", "should", "will", "would"}


# "how vision transformers work and where they are used" is a noun clause (an indirect question), no
# question: it reads after "papers on" as typed, as "how to ..." does. A direct question puts an
# auxiliary after its wh-word ("how do transformers ...", "why is ..."); "what"/"which"/"who" may open
# a direct question without one ("which methods reduce hallucination"), so they stay questions.
_CLAUSE_OPENERS = {"how", "why", "where", "when"}
_AUXILIARIES = {"do", "does", "did", "is", "are", "was", "were", "can", "could", "should", "will", "would", "has",
                "have", "had", "may", "might", "must", "shall", "to"}


def typed_as_question(topic: str) -> bool:
    words = topic.split()
    if not words:
        return False
    # an opener in capitals is an acronym ("CAN bus intrusion detection"), not a question word
    opener = words[0].lower() in _QUESTION_OPENERS and not (len(words[0]) > 1 and words[0].isupper())
    clause = len(words) > 1 and words[0].lower() in _CLAUSE_OPENERS and words[1].lower() not in _AUXILIARIES
    return topic.rstrip().endswith("?") or (opener and not clause and [w.lower() for w in words[1:2]] != ["to"])


def question_words(topic: str) -> str:
    """A question's words without its question mark ("what's new in MoE LLMs?" -> "what's new in MoE LLMs")."""
    return topic.strip().rstrip("?").strip()


def topic_in_prose(topic: str) -> str:
    """The topic as a sentence names it: as typed, or a question quoted as one ('papers on the
    question "How do transformers handle very long documents?"')."""
    if not typed_as_question(topic):
        return topic
    question = question_words(topic)
    return f'the question "{question[:1].upper()}{question[1:]}?"'


def and_list(items: list[str]) -> str:
    """"A", "A and B", "A, B and C" (empty for no items)."""
    return ", ".join(items[:-1]) + (f" and {items[-1]}" if len(items) > 1 else "".join(items))


def citation_units(text: str) -> list[str]:
    """What a citation marker is attached to: sentences of prose, and each row of a pipe table on
    its own (a row describes one paper; lumping a table into one "sentence" would attach every
    row's claim to every paper)."""
    units: list[str] = []
    for paragraph in re.split(r"\n\s*\n", text.strip()):
        lines = paragraph.splitlines()
        if lines and all(line.lstrip().startswith("|") for line in lines):
            units.extend(line.strip() for line in lines if not re.fullmatch(r"\|(?:\s*:?-+:?\s*\|)+", line.strip()))
        else:
            units.extend(sentences(" ".join(lines)))
    return units


def sentence_key(sentence: str) -> str:
    """Compare sentences without their citation markers, case or punctuation."""
    return normalize_title(PAPER_MARKER.sub("", CITATION_MARKER.sub("", sentence)))


def collapse_loops(text: str, max_period: int = 30, min_repeats: int = 3) -> tuple[str, int]:
    """``_collapse_words`` applied paragraph by paragraph (paragraph breaks are kept)."""
    parts = [_collapse_words(p, max_period, min_repeats) for p in re.split(r"\n\s*\n", text)]
    return "\n\n".join(p for p, _ in parts if p.strip()), sum(n for _, n in parts)


def _collapse_words(text: str, max_period: int, min_repeats: int) -> tuple[str, int]:
    """Collapse word-sequence loops ("a b c a b c a b c" -> "a b c"), the small model's failure.

    A span of 1..max_period words repeated ``min_repeats`` or more times in a row keeps one copy.
    Returns the text and the number of words removed.
    """
    words = _WORD.findall(text)
    if len(words) < min_repeats:
        return text, 0
    keys = [w.lower().strip(".,;:!?\"'()") for w in words]
    kept: list[str] = []
    i, removed = 0, 0
    while i < len(words):
        collapsed = False
        for period in range(1, max_period + 1):
            end = i + period * min_repeats
            if end > len(words):
                break
            unit = keys[i : i + period]
            if not any(unit) or any(keys[i + r * period : i + (r + 1) * period] != unit for r in range(1, min_repeats)):
                continue
            repeats = min_repeats
            while keys[i + repeats * period : i + (repeats + 1) * period] == unit:
                repeats += 1
            kept.extend(words[i : i + period])
            removed += period * (repeats - 1)
            i += period * repeats
            collapsed = True
            break
        if not collapsed:
            kept.append(words[i])
            i += 1
    if not removed:
        return text, 0
    return " ".join(kept), removed


TAIL_WORDS = 12


def said_before(sentence: str, said: set[str]) -> bool:
    """Whether ``sentence`` (or the same claim behind another lead-in: its last TAIL_WORDS words)
    is in ``said``, a set filled by ``drop_repeated_sentences``."""
    key = sentence_key(sentence)
    words = key.split()
    return key in said or (len(words) >= TAIL_WORDS and "tail:" + " ".join(words[-TAIL_WORDS:]) in said)


def _cited(sentence: str) -> str:
    """The works a sentence cites, as one key part ('' for none)."""
    ids = set(PAPER_MARKER.findall(sentence))
    ids |= {str(n) for m in CITATION_MARKER.finditer(sentence) for n in marker_numbers(m.group(1))}
    return ",".join(sorted(ids))


def drop_repeated_sentences(texts: list[str], seen: set[str] | None = None) -> tuple[list[str], int]:
    """Remove sentences already said earlier (in the same or an earlier text). Keeps paragraphs.

    A sentence that relates two or more works repeats an earlier one only if it cites the same
    works: "Two of the eight works [3, 5] state limitations" about other works is a new statement,
    not a repeat (a one-work claim said twice with two citations still is one).
    ``seen`` receives every sentence's key with and without its citations (``said_before`` reads
    the latter)."""
    seen = set() if seen is None else seen
    out, removed = [], 0
    for text in texts:
        paragraphs = []
        for paragraph in re.split(r"\n\s*\n", text):
            kept = []
            for sentence in sentences(paragraph):
                key = sentence_key(sentence)
                words = key.split()
                # the same extracted claim behind another lead-in ("In addition, X et al. [6] presents
                # ..." / "X et al. [6] presents ...") shares its last TAIL_WORDS words; an uncited
                # sentence is no extracted claim: two template sentences ("This subsection reviews
                # eight works on X, published between 2025 and 2026, all of which ...") share tails
                cited = _cited(sentence)
                tail = "tail:" + " ".join(words[-TAIL_WORDS:]) if len(words) >= TAIL_WORDS and cited else ""
                cited = cited if "," in cited else ""
                keys = [f"{k}|{cited}" for k in (key, tail) if k] if cited else [k for k in (key, tail) if k]
                if (len(key) > 20 and keys[0] in seen) or (tail and keys[-1] in seen):
                    removed += 1
                    continue
                seen.update(keys)
                seen.update(k for k in (key, tail) if k)
                kept.append(sentence)
            if kept:
                paragraphs.append(" ".join(kept))
        out.append("\n\n".join(paragraphs))
    return out, removed


def degenerate_repetition(text: str, n: int = 6) -> float:
    """Share of word n-grams that occur more than twice: ~0 for prose, high for loops."""
    words = [w.lower().strip(".,;:!?\"'()") for w in _WORD.findall(PAPER_MARKER.sub("", text))]
    grams = [tuple(words[i : i + n]) for i in range(len(words) - n + 1)]
    if not grams:
        return 0.0
    counts: dict[tuple, int] = {}
    for gram in grams:
        counts[gram] = counts.get(gram, 0) + 1
    repeated = sum(c for c in counts.values() if c > 2)
    return repeated / len(grams)


MAX_REPETITION = 0.05  # degenerate_repetition above this: the text loops and is not used


def looks_like_prose(text: str, min_words: int) -> bool:
    """Enough words, no n-gram loops, and not a list of questions (a base model's habit)."""
    return (len(text.split()) >= min_words and degenerate_repetition(text) <= MAX_REPETITION
            and text.count("?") <= 2)


def clean_generated(text: str) -> str:
    """Strip what small models add around prose: headings, echoed tags, code fences."""
    lines = []
    for line in text.replace("\r", "").split("\n"):
        stripped = line.strip()
        if stripped.startswith(("#", "```", "TASK:")) or re.fullmatch(r"</?\w+[^>]*>", stripped):
            continue
        lines.append(line.rstrip())
    text = re.sub(r"</?(?:paper|draft|outline)\b[^>]*>", "", "\n".join(lines))  # echoed prompt tags
    text = re.sub(r"<<\s*(?:DATA|END)-[0-9a-f]*\s*>>", "", text)  # echoed data delimiters (prompts/__init__.py)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def tidy_spaces(text: str) -> str:
    text = re.sub(r"\b(and|or|in|by|see)\s*([.,;])", r"\2", text)  # "... and ." left by a dropped marker
    text = re.sub(r"[ \t]+([.,;:])", r"\1", text)
    return re.sub(r"[ \t]{2,}", " ", text).strip()


def as_data(text: str | None, limit: int | None = None) -> str:
    """Retrieved text for a prompt: ``sanitize.untrusted`` (no tag, delimiter or citation marker
    can come from inside it); render_prompt sanitizes again, this call only applies the limit."""
    return untrusted(text, limit)


def slugify(text: str, max_len: int = 48) -> str:
    slug = normalize_title(text).replace(" ", "-")[:max_len].strip("-")
    return slug or "survey"


def apply_per_text(texts: list[str], fn: Callable[[str], tuple[str, int]]) -> tuple[list[str], int]:
    total, out = 0, []
    for text in texts:
        new, count = fn(text)
        out.append(new)
        total += count
    return out, total
