"""Heading checks (issue 29): is a heading a concept phrase, and are the works it cites about it?

Kept apart from structure.py on purpose: structure.py is one of the sources whose bytes fingerprint
the quality model's features (evaluation/quality/dataset.py FEATURE_VERSION), and these checks are
no feature of that model.
"""

from __future__ import annotations

import re

_HEADING_SPLIT = re.compile(r"\s+(?:and|&|vs\.?|versus)\s+|[,;:/]\s*", re.I)
_HEADING_STOP = {"a", "an", "and", "as", "at", "by", "for", "from", "in", "into", "of", "on", "or", "the", "to",
                 "via", "with", "its", "their", "towards", "toward", "beyond", "based",
                 # framing: "Other Work on Multi-Agent Debate" is about multi-agent debate
                 "other", "work"}
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


# Head nouns that say what kind of thing a heading names, not which part of the field it is.
_KIND_WORDS = {"method", "approach", "model", "technique", "framework", "system", "paradigm", "strategy"}


def restates_topic(title: str, topic: str) -> bool:
    """Every content word of the heading is a form of a word of the topic, or a kind word
    ('Deepfake Detectors' and 'Image Detection' of "detecting deepfake videos and images", 'Tumor
    Segmentation Methods' of "segmenting tumours"): a heading that names no part of the topic."""
    from ..retrieval.spelling import WordFamilies

    topic_stems = WordFamilies(w for w in _WORD.findall(str(topic or "").lower())
                               if w not in _HEADING_STOP and len(w) > 2)
    words = [w for w in _WORD.findall(str(title or "").lower()) if w not in _HEADING_STOP and len(w) > 1]
    content = [w for w in words if stem_word(w) not in _KIND_WORDS]
    return bool(content) and all(w in topic_stems for w in content)


def foreign_headings(headings: list[str], other_outlines: list[str]) -> list[str]:
    """Headings that are, word for word (normalised), a heading of another topic's human outline."""
    from ..models import normalize_title

    others = {normalize_title(h) for h in other_outlines} - {""}
    return [h for h in headings if normalize_title(h) in others]
