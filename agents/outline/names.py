"""Naming clusters of papers: distinctive keyphrases by class-based TF-IDF.

Phrases are 1-3 words from titles and abstracts that neither start nor end on a stop word, do
not end on a participle ('retrieved', 'graph-based'), are not always continued by the same word
('graph neural' -> 'networks'), and contain a word that is neither boilerplate nor the topic.
A cluster is named by its best one or two non-overlapping phrases in Title Case.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from typing import Callable

import numpy as np
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

from ...models import normalize_title
from .headings import content_words, validate_heading

# Words that say nothing about which part of a field a cluster is (abstract boilerplate), and words of a
# change in a quantity, which name a result, not a concept ("Increased Jailbreak", from "increased
# jailbreak risk" and "... rates", headed a subsection of a c25 draft).
GENERIC_WORDS = set(
    """paper papers propose proposed proposes present presents introduce introduces approach approaches
    method methods framework frameworks novel new result results show shows demonstrate demonstrates
    performance task tasks existing state art sota work works study studies based using use used
    effective effectively significant significantly improve improves improved improvement improvements
    achieve achieves achieving outperform outperforms experiments experimental extensive various including
    key challenge challenges problem problems address addresses issue issues however furthermore
    moreover while also well first one two three different several many recent recently specific
    specifically typically often existing code available github https com www et al e g i ie eg
    leverage leverages leveraging enable enables enabling provide provides across within without
    model models large language llm llms lm lms similar reduce reduces reducing reduced retrieve
    retrieves retrieving generate generates generating answer answers build builds building compare
    compares find finds need needs allow allows require requires make makes help helps given obtain
    apply applies applied explore explores exploring investigate investigates investigating rethinking
    revisiting analyze analyse study
    understand understanding improving evaluate evaluates evaluating design designs designed
    system systems strategy strategies information analysis technique techniques mechanism
    mechanisms capability capabilities quality accuracy dynamic
    increased increasing decreased decreasing higher lower better greater enhanced""".split()
)
STOP = set(ENGLISH_STOP_WORDS) | {"via", "vs", "versus", "toward", "towards"}
SMALL_WORDS = {"a", "an", "and", "as", "at", "by", "for", "from", "in", "into", "of", "on", "or", "the",
               "to", "via", "vs", "with"}
_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-'][A-Za-z0-9]+)*")
MAX_NAME_CHARS = 60  # two keyphrases joined; longer names keep only the first phrase


def _tokens(text: str) -> list[list[str]]:
    """Sentence-bounded token runs (n-grams never cross a sentence or a bracket)."""
    runs = re.split(r"[.;:!?()\[\]{}\"“”]|,\s", text)
    return [_TOKEN.findall(run) for run in runs]


def _participle(word: str) -> bool:
    """'retrieved', 'grounded', 'graph-based': a phrase ending on one was cut before its noun."""
    return word.endswith("ed") and len(word) > 4 and word not in {"speed", "embed", "seed", "feed", "need"}


def informative_word(word: str, banned: set[str]) -> bool:
    """Not a stop, boilerplate or topic word; a hyphenated word counts if any part does
    ('retrieval-augmented' is the topic, 'graph-based' is not)."""
    # a possessive is its noun: "bird's eye view" under "Other Work on Bird's Eye View" named a line
    # of its own subsection (a c29 draft)
    parts = [p.removesuffix("'s").removesuffix("’s") for p in word.split("-") if p]
    return any(p not in STOP and p not in GENERIC_WORDS and p not in banned and not p.isdigit() for p in parts)


_GENERIC_HEADS = {"model", "models", "network", "networks", "system", "systems", "method", "methods"}


def topic_words(topic: str) -> set[str]:
    """Words of the topic and its acronyms ('Retrieval-Augmented Generation for Large Language
    Models' -> retrieval, augmented, ..., rag, llm, llms)."""
    words = {w for w in re.split(r"[^a-z0-9]+", topic.lower()) if len(w) > 2 and w not in STOP}
    for run in re.findall(r"(?:[A-Z][\w]*(?:[- ](?=[A-Z]))?)+", topic):
        parts = [w for w in re.split(r"[- ]", run) if w]
        letters = "".join(w[0] for w in parts).lower()
        if len(letters) >= 2:
            words |= {letters, letters + "s"}
        # the acronym without a generic head noun: "Vision-Language-Action Models" -> "VLA" too
        if len(parts) > 3 and parts[-1].lower() in _GENERIC_HEADS:
            words |= {letters[:-1], letters[:-1] + "s"}
    words |= {w.lower().rstrip("s") for w in re.findall(r"\b[A-Z]{2,}s?\b", topic)}
    return words


def keyphrase_analyzer(banned: set[str], incomplete: set[str] | frozenset = frozenset()) -> Callable[[str], list[str]]:
    """1-3 word phrases without stop words at their ends (inside only 'of', as in 'mixture of
    experts'), not ending on a participle, not always continued by the same word in the corpus
    (``incomplete``: 'graph neural' -> 'networks'), with at least one informative word."""

    def analyze(text: str) -> list[str]:
        grams = []
        for run in _tokens(text):
            low = [t.lower() for t in run]
            for n in (1, 2, 3):
                for i in range(len(low) - n + 1):
                    gram = low[i:i + n]
                    if gram[0] in STOP or gram[-1] in STOP or any(len(w) < 2 for w in gram):
                        continue
                    if any(w in STOP and w != "of" for w in gram[1:-1]) or _participle(gram[-1]) \
                            or (n > 1 and (gram[-1] in GENERIC_WORDS or gram[0] in GENERIC_WORDS)):
                        continue
                    if not any(informative_word(w, banned) for w in gram):
                        continue
                    if n == 1 and (not informative_word(gram[0], banned) or len(gram[0]) < 3):
                        continue
                    phrase = " ".join(gram)
                    if phrase not in incomplete:
                        grams.append(phrase)
        return grams

    return analyze


def incomplete_phrases(texts: list[str]) -> set[str]:
    """Phrases (1-3 words) seen at least twice and always followed by the same word (up to a
    plural 's')."""
    return bound_phrases(texts, before=False)


def phrase_positions(texts: list[str]):
    """Every 1-3 word phrase of the texts' sentence-bounded runs, lower-cased, with where it stands:
    (phrase, the run's lower-cased words, start, length)."""
    for text in texts:
        for run in _tokens(text):
            low = [t.lower() for t in run]
            for n in (1, 2, 3):
                for i in range(len(low) - n + 1):
                    yield " ".join(low[i:i + n]), low, i, n


def initials(phrase: str) -> str:
    """The initials of a phrase of several words, hyphenated parts counted ("supervised fine-tuning"
    -> "sft"); "" for one word."""
    parts = [p for w in phrase.lower().split() for p in w.split("-") if p]
    return "".join(p[0] for p in parts) if len(parts) > 1 else ""


def bound_phrases(texts: list[str], *, before: bool) -> set[str]:
    """Phrases (1-3 words) seen at least twice and always next to the same word: the word after
    them, or with ``before`` the word before them (a stop word there is no neighbour: 'a question
    answering dataset' has no head word)."""
    seen: Counter = Counter()
    neighbours: dict[str, Counter] = defaultdict(Counter)
    for phrase, low, i, n in phrase_positions(texts):
        seen[phrase] += 1
        j = i - 1 if before else i + n
        if 0 <= j < len(low) and not (before and low[j] in STOP):
            neighbours[phrase][stem(low[j])] += 1
    return {p for p, c in seen.items() if c >= 2 and neighbours[p] and neighbours[p].most_common(1)[0][1] == c}


# A capital inside an ordinary word: after its lower-case opening ("sAfety", "aLIgnment") or as the
# last letter of a long lower-case run ("AdversariaL", "attacK"; not "ViT", "DeiT", "GraphRAG").
# Such a spelling ("nuScenes" too) yields only when another spelling of the phrase occurs.
_SPELLED_OUT = re.compile(r"^[a-z]+[A-Z]|[a-z]{3,}[A-Z]$")


def surface_forms(texts: list[str]) -> dict[str, str]:
    """Usual spelling of every phrase: keeps 'GraphRAG', 'LLM', 'multi-hop'; a capital that
    only comes from starting a title is dropped when the lower-case form also occurs."""
    counts: dict[str, Counter] = defaultdict(Counter)
    for text in texts:
        for run in _tokens(text):
            for n in (1, 2, 3):
                for i in range(len(run) - n + 1):
                    words = run[i:i + n]
                    counts[" ".join(w.lower() for w in words)][" ".join(words)] += 1
    forms = {}
    for key, found in counts.items():
        # a spelling that capitalises letters inside ordinary words to spell out an acronym ("AdversariaL
        # attacK sAfety aLIgnment (ALKALI)", a title) yields to any other: a c30 line was named
        # "sAfety aLIgnment"
        best = max(found, key=lambda form: (not any(_SPELLED_OUT.search(w) for w in form.split()), found[form]))
        if key in found and best != key and all(w[1:].islower() or len(w) == 1 for w in best.split()):
            best = key  # 'Video' / 'Image Retrieval' at a title start -> 'video', 'image retrieval'
        forms[key] = best
    return forms


def title_case(phrase: str) -> str:
    """'multi-hop question answering' -> 'Multi-Hop Question Answering'; acronyms kept."""
    out = []
    for i, word in enumerate(phrase.split()):
        if word.lower() in SMALL_WORDS and i > 0:
            out.append(word.lower())
        elif word.islower():
            out.append("-".join(part[:1].upper() + part[1:] for part in word.split("-")))
        else:
            out.append(word)  # GraphRAG, LLM, vLLM
    return " ".join(out)


def class_terms(groups: list[list[str]], banned: set[str], n_terms: int = 8,
                titles: list[list[str]] | None = None) -> list[list[str]]:
    """Top keyphrases per group by class-based TF-IDF (Grootendorst 2022, BERTopic's c-TF-IDF):
    tf of a phrase in the class (length-normalised) x log(1 + mean class size / its total count).

    ``titles`` (per group, same order): a phrase's score is multiplied by 1 + the number of the
    group's titles using it; titles are noun phrases that name what a paper is about.
    """
    from sklearn.feature_extraction.text import CountVectorizer

    texts = [t for group in groups for t in group]
    owner = np.repeat(np.arange(len(groups)), [len(g) for g in groups])
    vectorizer = CountVectorizer(analyzer=keyphrase_analyzer(banned, incomplete_phrases(texts)), lowercase=False)
    per_doc = vectorizer.fit_transform(texts).tocsr()
    vocab = vectorizer.get_feature_names_out()
    membership = np.zeros((len(groups), len(texts)))
    membership[owner, np.arange(len(texts))] = 1.0
    counts = np.asarray((per_doc.T @ membership.T).T)  # groups x phrases
    doc_freq = np.asarray(((per_doc > 0).astype(float).T @ membership.T).T)
    tf = counts / np.maximum(counts.sum(axis=1, keepdims=True), 1.0)
    idf = np.log(1.0 + counts.sum(axis=1).mean() / np.maximum(counts.sum(axis=0), 1.0))
    lengths = np.array([len(v.split()) for v in vocab])
    # x the share of the phrase's uses that fall in this class: a phrase spread over every
    # class ('knowledge') names none of them; multiword phrases name sub-areas better than words.
    concentration = counts / np.maximum(counts.sum(axis=0, keepdims=True), 1.0)
    scores = tf * idf * concentration * np.sqrt(lengths)
    if titles is not None:
        in_titles = (vectorizer.transform([t for group in titles for t in group]) > 0).astype(float)
        title_owner = np.repeat(np.arange(len(titles)), [len(g) for g in titles])
        title_membership = np.zeros((len(titles), in_titles.shape[0]))
        title_membership[title_owner, np.arange(in_titles.shape[0])] = 1.0
        scores = scores * (1.0 + np.asarray((in_titles.T @ title_membership.T).T))
    # A phrase used by one paper only is that paper's wording, not the cluster's theme (unless
    # the cluster has nothing shared at all).
    shared = np.where(doc_freq >= 2, scores, 0.0)
    result = []
    for row_shared, row_all in zip(shared, scores):
        order = np.lexsort((vocab, -row_all, -row_shared))  # shared phrases first, then the rest
        result.append([vocab[i] for i in order[: n_terms * 4] if row_all[i] > 0])
    return result


def stem(word: str) -> str:
    return word[:-1] if word.endswith("s") and len(word) > 3 else word


def _overlaps(a: str, b: str) -> bool:
    """Shared word, or one is the other's acronym ('electronic health records' / 'EHRs')."""
    if {stem(w) for w in normalize_title(a).split()} & {stem(w) for w in normalize_title(b).split()}:
        return True
    initials = {"".join(w[0] for w in re.split(r"[- ]", x) if w) for x in (a, b)}
    return any(stem(x) in initials for x in (a, b) if " " not in x)


def _names_something(phrase: str) -> bool:
    """A second phrase in a name must be a multiword phrase or a proper name ('GraphRAG'):
    a lone common word ('detection', 'spatial') makes a vague name."""
    return " " in phrase or any(ch.isupper() for ch in phrase)


def name_from_terms(terms: list[str], forms: dict[str, str], *, topic: str, taken: set[str],
                    avoid: str = "") -> tuple[str, list[str]]:
    """'First Phrase and Second Phrase' from the best non-overlapping phrases that make a valid,
    unused heading; returns the name and the phrases kept as the cluster's terms."""
    blocked = {stem(w) for w in content_words(avoid)}
    pool = [t for t in terms if not ({stem(w) for w in normalize_title(t).split()} <= blocked)]
    # A single word that is part of a listed longer phrase ("image" / "image retrieval") is
    # named by the phrase: alone it is an adjective or too broad.
    pool = [t for t in pool if " " in t or not any(t in other.split() for other in pool if " " in other)]
    # Lead with a phrase when one is among the best three: a lone word ('context', 'spatial')
    # is usually an adjective or too broad to head a section.
    lead = next((t for t in pool[:3] if " " in t), None)
    if lead is None and pool and " " not in pool[0] and forms.get(pool[0], pool[0]).islower():
        lead = next((t for t in pool if " " in t), None)  # a phrase further down beats a lone word
    if lead is not None:
        pool = [lead, *[t for t in pool if t != lead]]
    for i, first in enumerate(pool):
        head = title_case(forms.get(first, first))
        if validate_heading(head, topic=topic, taken=taken):
            continue
        rest = [t for t in pool[i + 1:] if not _overlaps(t, first)]
        for second in [t for t in rest[:3] if _names_something(forms.get(t, t))]:
            name = f"{head} and {title_case(forms.get(second, second))}"
            if len(name) <= MAX_NAME_CHARS and not validate_heading(name, topic=topic, taken=taken):
                return name, [first, second, *[t for t in rest if t != second][:4]]
        return head, [first, *rest[:5]]
    return "", []
