"""Interpretable, length-robust features of one survey for the offline quality score.

Every feature is oriented so that *higher is better by design* (penalties enter as
``1 / (1 + waste)``), is bounded in [0, 1], and is computed on the survey's *substance*: distinct
body sentences that carry a citation marker, distinct headings of sections that have such
sentences. Padding a survey with duplicated sections, boilerplate or uncited filler therefore
adds no substance and only raises the waste terms, so no feature can rise; the model that
combines them has non-negative weights (see ``train.py``), which carries the property over to
the score. No LLM is needed; one feature (``o_section_separation``) embeds the headings with the
bundled MiniLM, the model's fixed instrument whatever encoder the user's settings name.
"""

from __future__ import annotations

import math
import re
import threading
from collections import Counter
from functools import lru_cache
from typing import Callable, Sequence

import numpy as np

from ...models import OutlineEntry, Survey, normalize_title
from ..citations import split_sentences
from ..structure import _count_equations, _count_tables

Encode = Callable[[Sequence[str]], np.ndarray]  # texts -> L2-normalised rows

# Broad in-text citation markers: "[3]", "[1, 4-6]", "[cite: 1, 9]" (Gemini Deep Research),
# footnotes "[^3]", "(Author, 2020)", "(Author et al., 2020; B and C, 2021)", "Author et al. (2020)".
_CITE_MARKER = re.compile(
    r"\[(?:cite:?\s*|\^)?\d{1,4}(?:\s*[-–—,;]\s*\d{1,4})*\]"
    r"|\(\s*[A-Z][\w'\-]+(?:\s+et\s+al\.?|\s+(?:and|&)\s+[A-Z][\w'\-]+)?,?\s+(?:19|20)\d\d[a-z]?(?:\s*[;,][^()]{0,200})?\)"
    r"|\b[A-Z][\w'\-]+\s+et\s+al\.?\s*[\(\[](?:19|20)\d\d[a-z]?[\)\]]"
)
_WORD = re.compile(r"[A-Za-z]+")  # hyphenated compounds split, as normalize_title does
_NUMBERING = re.compile(r"^\s*(?:section\s+\d+:?\s*|\d+(?:\.\d+)*\.?|[IVXLC]+\.|[A-Z]\.(?:\d+\.?)*|\(\w\))\s*",
                        re.I)
# Headings that say nothing about the topic (SurveyLens' outline rubric asks for informative,
# topic-specific structure); matched on the whole normalised heading.
GENERIC_HEADINGS = frozenset(phrase.strip() for phrase in """
abstract, keywords, introduction, background, overview, conclusion, conclusions, discussion, summary,
references, bibliography, acknowledgements, acknowledgments, appendix, preliminaries, related work,
future work, future directions, future research directions, challenges, open challenges, methods,
methodology, results, motivation, scope, contributions, outline, structure of the survey,
challenges and future directions, challenges and open problems, conclusion and future work,
discussion and conclusion, summary and conclusion, research methodology, limitations
""".replace("\n", " ").split(","))
STOPWORDS = frozenset("""a an and are as at be by for from in into is its of on or that the their this
to with within via using toward towards based about between over under new recent review survey
literature systematic comprehensive""".split())

OUTLINE_FEATURES = ("o_sections", "o_depth", "o_subsection_share", "o_balance", "o_heading_specificity",
                    "o_topic_coverage", "o_heading_uniqueness", "o_heading_vocabulary", "o_survey_parts",
                    "o_heading_distinctness", "o_section_separation")
# The parts a survey has besides its taxonomy of approaches, as SurveyLens' outline rubric asks for
# ("covers background, methods, evaluation, applications, challenges"). Written here, apart from
# the generator's own role patterns (agents/outline/roles.py), so the judge does not share the
# generator's notion of a part.
_SURVEY_PARTS = tuple(re.compile(p, re.I) for p in (
    r"\b(?:background|foundations?|fundamentals?|preliminar\w*|basics?|concepts?|definitions?|history|"
    r"historical|evolution|theor\w*|principles?|overview)\b",
    r"\b(?:evaluation|evaluating|benchmarks?|datasets?|metrics?|measurement\w*|assessment\w*|experiments?|"
    r"empirical|evidence|validation)\b",
    r"\b(?:applications?|domains?|use cases?|practices?|practical|implications?|deployments?|industry|"
    r"real[- ]world|case stud\w*)\b",
    r"\b(?:challenges?|limitations?|future|open (?:problems?|questions?|issues?)|directions?|outlook|gaps?|"
    r"opportunit\w*|barriers?)\b",
))
CONTENT_FEATURES = ("c_cited_sentences", "c_citation_density", "c_substance_share", "c_sentence_novelty",
                    "c_readability", "c_synthesis", "c_cited_sections", "c_lexical_diversity", "c_elements")
REFERENCE_FEATURES = ("r_references", "r_cited_share", "r_valid_markers", "r_unique_refs", "r_year_known",
                      "r_recency", "r_use_per_reference", "r_topic_relevance", "r_review_titles",
                      "r_published_records")
# A reference given as a published record: volume (issue), "pp." or a page range ("12(3)", "pp. 45",
# "101-118"). Human reference lists give most works so; generated lists give titles and links.
_PUBLISHED_RECORD = re.compile(r"\b\d+\s*\(\d+\)|\bpp?\.\s*\d+|\b\d+[-–]\d+\b")
# A title that names a review or a foundational treatment. SurveyLens' reference judge sees the
# titles only, and its rubric asks for "coverage extent and inclusion of seminal works" (A9).
_REVIEW_TITLE = re.compile(r"\b(?:review|survey|overview|advances|progress|perspective|state[- ]of[- ]the[- ]art"
                           r"|introduction|handbook|principles|theory|fundamentals|tutorial)\b", re.I)
ALL_FEATURES = OUTLINE_FEATURES + CONTENT_FEATURES + REFERENCE_FEATURES


def saturate(count: float, half: float) -> float:
    """count / (count + half): 0 at 0, 0.5 at ``half``, never above 1 - more stops paying off."""
    return count / (count + half) if count > 0 else 0.0


def content_words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text) if w.lower() not in STOPWORDS and len(w) > 2]


def clean_heading(title: str) -> str:
    return normalize_title(_NUMBERING.sub("", title or "")) or normalize_title(title or "")


def has_citation(sentence: str) -> bool:
    return bool(_CITE_MARKER.search(sentence))


def _sentence_key(sentence: str) -> str:
    return normalize_title(_CITE_MARKER.sub(" ", sentence))


# --- substance ------------------------------------------------------------------------------
class Substance:
    """The countable substance of a survey and what was wasted around it. With ``copied``
    (sentence key -> share of it copied from the abstracts it cites, ``evaluation/copying.py``) a
    cited sentence counts only by what it does not copy: pasted text is its sources' writing."""

    def __init__(self, survey: Survey, copied: dict[str, tuple[float, str]] | None = None):
        self.sections = [s for s in survey.sections if s.text.strip()]
        seen: set[str] = set()
        self.cited: list[str] = []  # distinct cited sentences, in order
        self.weights: list[float] = []  # each one's own (not copied) share
        self.own_texts: list[str] = []  # each one's own words (all of it when nothing is known copied)
        self.all_sentences = 0
        self.duplicate_sentences = 0
        self.cited_headings: set[str] = set()
        self.words_total = 0
        parsed_cited = {c.sentence.strip() for c in survey.citations}  # styles only the parser knows
        for section in self.sections:
            sentences = split_sentences(section.text)
            self.all_sentences += len(sentences)
            self.words_total += sum(len(s.split()) for s in sentences)
            for sentence in sentences:
                key = _sentence_key(sentence)
                if len(key.split()) < 3:
                    continue
                if key in seen:
                    self.duplicate_sentences += 1
                    continue
                seen.add(key)
                if has_citation(sentence) or sentence.strip() in parsed_cited:
                    share, own = (copied or {}).get(key, (0.0, sentence))
                    self.cited.append(sentence)
                    self.weights.append(1.0 - share)
                    self.own_texts.append(own)
                    self.cited_headings.add(clean_heading(section.heading))
        self.distinct = len(seen)
        self.cited_words = sum(len(s.split()) for s in self.cited)
        self.own_count = sum(self.weights)
        self.own_words = sum(w * len(s.split()) for w, s in zip(self.weights, self.cited))
        self.markers = sum(max(1, len(_CITE_MARKER.findall(s))) for s in self.cited)


# --- outline --------------------------------------------------------------------------------
def _outline(survey: Survey) -> list[OutlineEntry]:
    if survey.outline:
        return list(survey.outline)
    return [OutlineEntry(level=s.level, title=s.heading) for s in survey.sections if s.heading.strip()]


def outline_features(survey: Survey, substance: Substance | None = None,
                     encode: Encode | None = None) -> dict[str, float]:
    """Outline shape on the distinct headings that carry substance (every heading when the survey
    is an outline alone, or cites nothing at all). ``encode``: the heading encoder (default: the
    bundled MiniLM, ``heading_encoder``)."""
    entries = [(e.level, clean_heading(e.title)) for e in _outline(survey)]
    entries = [(lv, h) for lv, h in entries if h]
    body_cites = substance is not None and substance.cited
    kept, seen, duplicates = [], set(), 0
    for level, heading in entries:
        if heading in seen:
            duplicates += 1
            continue
        seen.add(heading)
        if not body_cites or heading in substance.cited_headings or _has_cited_child(heading, entries, substance):
            kept.append((level, heading))
    n = len(kept)
    if not n:
        return dict.fromkeys(OUTLINE_FEATURES, 0.0) | {"o_heading_uniqueness": 1.0 / (1.0 + duplicates)}
    top = min(lv for lv, _ in kept)
    depth = max(lv for lv, _ in kept) - top + 1
    children: list[int] = []
    for level, _ in kept:
        if level == top:
            children.append(0)
        elif children:
            children[-1] += 1
    specific = [h for h in (h for _, h in kept) if h not in GENERIC_HEADINGS]
    # The survey's sections: its first-level headings, below a title heading when there is one
    # ("# Title" above "## 1 Introduction", "## 2 ...").
    section_level = top
    if sum(1 for lv, _ in kept if lv == top) <= 2 and any(lv == top + 1 for lv, _ in kept):
        section_level = top + 1
    sections = [h for lv, h in kept if lv == section_level]
    topic_words = set(content_words(survey.topic or survey.title))
    heading_words = {w for _, h in kept for w in content_words(h)}
    # Words of the headings beyond the topic's: the share used in one heading only. An outline
    # that says something new in each heading scores high; one that repeats the same few words
    # ("Integration with ...", "Challenges in ...") across many headings scores low.
    said = Counter(w for _, h in kept for w in content_words(h) if w not in topic_words)
    said_total = sum(said.values())
    # Headings that restate an earlier one ("Immune System Modulation by X" / "Host Immune System
    # Modulation"): half or more of their words beyond the topic's are shared with it.
    stems = [{_stem(w) for w in content_words(h)} - {_stem(w) for w in topic_words} for h in specific]
    restated = sum(1 for i, a in enumerate(stems) if a and any(b and len(a & b) / len(a | b) >= 0.5
                                                                   for b in stems[:i]))
    return {
        "o_sections": saturate(n, 20.0),
        "o_depth": min(depth, 4) / 4.0,
        "o_subsection_share": sum(1 for lv, _ in kept if lv > top) / n,
        "o_balance": _normalised_entropy(children),
        "o_heading_specificity": (len(specific) / n) * min(
            1.0, _mean([len(content_words(h)) for h in specific]) / 4.0),
        "o_topic_coverage": len(topic_words & heading_words) / len(topic_words) if topic_words else 0.0,
        "o_heading_uniqueness": 1.0 / (1.0 + duplicates / n),
        "o_heading_vocabulary": sum(c for c in said.values() if c == 1) / said_total if said_total else 0.0,
        "o_survey_parts": sum(any(p.search(h) for h in sections) for p in _SURVEY_PARTS) / len(_SURVEY_PARTS),
        "o_heading_distinctness": 1.0 - restated / len(specific) if specific else 0.0,
        "o_section_separation": _section_separation(kept, section_level, encode or heading_encoder()),
    }


def _section_separation(kept: list[tuple[int, str]], section_level: int, encode: Encode) -> float:
    """1 - the mean, over the specific headings, of the cosine similarity to the closest heading
    filed under another section: 1 when every section covers ground no other does, low when the
    same matter is filed twice ("Diagnostic Imaging" in one section, "Imaging Techniques for
    Disease Diagnosis" in the next). Word overlap misses such restatements; a sentence encoder
    sees them. Headings above the sections (a title) belong to none."""
    owners, headings, section = [], [], -1
    for level, heading in kept:
        if level < section_level:
            continue
        if level == section_level:
            section += 1
        if heading not in GENERIC_HEADINGS and section >= 0:
            owners.append(section)
            headings.append(heading)
    if len(set(owners)) < 2:  # one section: nothing to be filed twice across sections
        return 0.0
    vectors = np.asarray(encode(headings), dtype=float)
    similarity = vectors @ vectors.T
    owner = np.array(owners)
    closest = np.where(owner[:, None] != owner[None, :], similarity, -1.0).max(axis=1)
    return float(1.0 - np.clip(closest, 0.0, 1.0).mean())


@lru_cache(maxsize=1)
def heading_encoder() -> Encode:
    """The bundled MiniLM (loaded once per process): the instrument ``o_section_separation`` was
    fitted with, so the user's choice of encoder cannot move the score. Calls are serialised: the
    leaderboard scores drafts from several threads, and a fast tokenizer shared between threads
    can fail ("Already borrowed")."""
    from ...retrieval.embeddings import MINILM, get_model
    from ...settings import Settings

    encode, lock = get_model(Settings().with_embedding_model(MINILM)).encode, threading.Lock()

    def serialised(texts: Sequence[str]) -> np.ndarray:
        with lock:
            return encode(list(texts))

    return serialised


def _stem(word: str) -> str:
    return word[:-1] if word.endswith("s") and len(word) > 3 else word


def _has_cited_child(heading: str, entries: list[tuple[int, str]], substance: Substance) -> bool:
    """A parent heading counts when one of its sub-headings has cited text."""
    for i, (level, h) in enumerate(entries):
        if h != heading:
            continue
        for child_level, child in entries[i + 1:]:
            if child_level <= level:
                break
            if child in substance.cited_headings:
                return True
        return False
    return False


def _normalised_entropy(counts: list[int]) -> float:
    """How evenly sub-sections spread over top-level sections: 1 = even, 0 = none or all in one."""
    total = sum(counts)
    if total == 0 or len(counts) < 2:
        return 0.0
    probs = [c / total for c in counts if c]
    return max(0.0, -sum(p * math.log(p) for p in probs) / math.log(len(counts)))


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


# --- content --------------------------------------------------------------------------------
def content_features(survey: Survey, substance: Substance) -> dict[str, float]:
    cited, waste_sentences = substance.cited, max(0, substance.all_sentences - len(substance.cited))
    own_text = "\n\n".join(substance.own_texts)  # the cited text minus what it copies
    lengths = [len(s.split()) for s in cited]
    markers_per_sentence = [len(_CITE_MARKER.findall(s)) for s in cited]
    sections_with_body = {clean_heading(s.heading) for s in substance.sections}
    distinct_paragraphs = _distinct_paragraphs(survey)
    elements = _count_tables(distinct_paragraphs) + _count_equations(distinct_paragraphs) + len(
        set(re.findall(r"(?im)^\s*(?:\*\*)?(?:fig\.?|figure)\s*(\d+)", distinct_paragraphs)))
    n = len(cited)
    return {
        # counted by their own (not copied) share: equal to the plain counts when nothing is copied
        "c_cited_sentences": saturate(substance.own_count, 150.0),
        # waste enters the denominator only: padding of any kind lowers these shares
        "c_citation_density": substance.own_count / (n + waste_sentences) if n else 0.0,
        "c_substance_share": substance.own_words / substance.words_total if substance.words_total else 0.0,
        "c_sentence_novelty": 1.0 / (1.0 + substance.duplicate_sentences / n) if n else 0.0,
        # mean sentence length near 20 words (plain-language guidance), falling off on a log scale
        "c_readability": 1.0 / (1.0 + abs(math.log(_mean(lengths) / 20.0))) if lengths else 0.0,
        "c_synthesis": sum(1 for s, k in zip(cited, markers_per_sentence) if k >= 2 or _multi_key(s)) / n
        if n else 0.0,
        "c_cited_sections": len(substance.cited_headings) / max(len(sections_with_body), 1),
        "c_lexical_diversity": _mattr(content_words(own_text)),
        "c_elements": saturate(elements, 5.0) * (1.0 if n else 0.0),
    }


def _multi_key(sentence: str) -> bool:
    """One bracket naming two or more works: "[1, 4]", "[2-5]", "(A, 2020; B, 2021)"."""
    return any(re.search(r"\d\s*[-–—,;]\s*\d|;\s*[A-Z]", m.group(0)) for m in _CITE_MARKER.finditer(sentence))


def _distinct_paragraphs(survey: Survey) -> str:
    seen, kept = set(), []
    for section in survey.sections:
        for paragraph in re.split(r"\n\s*\n", section.text):
            key = normalize_title(paragraph)
            if key and key not in seen:
                seen.add(key)
                kept.append(paragraph)
    return "\n\n".join(kept)


def _mattr(words: list[str], window: int = 200) -> float:
    """Moving-average type-token ratio: vocabulary richness that does not fall with length."""
    if not words:
        return 0.0
    if len(words) <= window:
        return len(set(words)) / len(words)
    counts, ratios = Counter(words[:window]), []
    ratios.append(len(counts) / window)
    step = max(1, (len(words) - window) // 200)  # ≤ ~200 windows: fast on 20k-word surveys
    for start in range(step, len(words) - window + 1, step):
        ratios.append(len(set(words[start:start + window])) / window)
    return _mean(ratios)


# --- references -----------------------------------------------------------------------------
def reference_features(survey: Survey, substance: Substance) -> dict[str, float]:
    from ..integrity import citation_integrity

    refs = survey.references
    integrity = {m.name.split(".", 1)[1]: m.value for m in citation_integrity(survey)}
    titles = [normalize_title(r.title or r.text)[:120] for r in refs]
    distinct = len({t for t in titles if t}) or len(refs)
    distinct_titles = {key: r.title or r.text for key, r in zip(titles, refs) if key}
    years = [r.year for r in refs if r.year]
    newest = max(years) if years else None
    topic_words = set(content_words(survey.topic or survey.title))
    return {
        "r_references": saturate(distinct, 50.0),
        "r_cited_share": 1.0 - integrity["uncited_rate"] if integrity.get("uncited_rate") is not None else 0.0,
        "r_valid_markers": 1.0 - integrity["dangling_rate"] if integrity.get("dangling_rate") is not None else 0.0,
        "r_unique_refs": 1.0 - integrity["duplicate_rate"] if integrity.get("duplicate_rate") is not None else 0.0,
        "r_year_known": len(years) / len(refs) if refs else 0.0,
        "r_recency": sum(1 for y in years if newest - y <= 5) / len(years) if years else 0.0,
        "r_use_per_reference": saturate(substance.markers / distinct, 3.0) if refs else 0.0,
        # share of reference entries naming a word of the topic: on-topic sources
        "r_topic_relevance": sum(1 for r in refs if topic_words & set(content_words(r.title or r.text)))
        / len(refs) if refs and topic_words else 0.0,
        # share of the distinct titles that name a review or foundational work (seminal sources)
        "r_review_titles": sum(1 for t in distinct_titles.values() if _REVIEW_TITLE.search(t))
        / len(distinct_titles) if distinct_titles else 0.0,
        # on-topic works given as published records: a well-kept list of other subjects' works earns nothing
        "r_published_records": sum(1 for r in refs if _PUBLISHED_RECORD.search(r.text or "")
                                   and topic_words & set(content_words(r.title or r.text))) / len(refs)
        if refs and topic_words else 0.0,
    }


def survey_features(survey: Survey, copied: dict[str, tuple[float, str]] | None = None,
                    encode: Encode | None = None) -> dict[str, float]:
    """All features of one survey, in ``ALL_FEATURES`` order (``copied``: see ``Substance``;
    ``encode``: see ``outline_features``)."""
    substance = Substance(survey, copied)
    values = {**outline_features(survey, substance, encode), **content_features(survey, substance),
              **reference_features(survey, substance)}
    return {name: float(values[name]) for name in ALL_FEATURES}
