"""The words a field uses for a facet's word, read from the papers nearest the topic in meaning.

"Explainability for Large Language Models" is mostly written about as *interpretability*: of the
labelled on-topic papers most say "mechanistic interpretability", "sparse autoencoders" or
"circuits" and never "explain" (tests/data/relevance_corpus_labels.jsonl), and Snowball's stems do
not join "explainability" with "explanation" ("explan") either. Read by its literal stem, the
facet kept papers whose LLMs *give* explanations (explainable recommendation, explainable
AI-text detection) and few that explain an LLM: leave-one-topic-out precision 0.38, recall 0.15
(benchmarks/results/topic_pool.md), and a blind reader put that survey last (c30f).

The papers nearest the topic string by embedding already use the field's word (28 of the 100
nearest "Explainability for LLMs" say "interpretability"). A word of those papers becomes a form of
a one-word unit when
- it is the field's word: at least VARIANT_RATE of the nearest papers use it, VARIANT_LIFT times
  as often as the store at large does;
- the encoder reads it as the unit's near-synonym: the cosine of their embeddings (over the few
  surface forms each takes in those papers) reaches SYNONYM_COSINE.
Co-occurrence alone does not tell a synonym from a sibling (the corpus coordinates "explainable and
interpretable" as often as "efficient and effective", "privacy and security"); the encoder's
near-synonym bar does, with the field's own usage as the pool of candidates. Several-word units
are left alone: their variants are acronyms (topic_facets.mine_acronyms), and a single word
near "vision transformer" is "transformer", a wider field.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from .topic_facets import _REQUEST_WORDS, _STOP, _WORD, Facet, _stem

# MiniLM's cosine between single words reads near-synonyms at 0.7 and above (interpretability /
# explainability 0.75, unsafe / safety 0.82, detector / detection 0.81, misalignment / alignment
# 0.74), siblings below it (security / safety 0.62, effective / efficient 0.59, bias / fairness
# 0.54, segmentation / detection 0.54): measured on 12 topics' nearest papers, session 31.
SYNONYM_COSINE = 0.7
VARIANT_RATE = 0.05  # the share of the nearest papers using the word
VARIANT_LIFT = 3.0  # how many times the store's rate
USE_RATIO = 0.5  # ... and by at least half as many of them as say the unit
SURFACE_FORMS = 3  # the most used surface forms of a stem that stand for it
MIN_PAPERS = 20  # fewer nearest or store papers than this say nothing about the field's words


def _acronym_like(word: str) -> bool:
    """No vowel: "gnns", "dnn", "rlvr". The encoder reads such strings by their letters ("gnn" and
    "dnn" at 0.7), and an acronym's variants are its expansions (topic_facets.mine_acronyms)."""
    return not any(c in "aeiouy" for c in word)


def _stems_and_surfaces(text: str) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for word in _WORD.findall(text.lower()):
        if word in _STOP or word in _REQUEST_WORDS or len(word) < 4 or _acronym_like(word):
            continue
        found.setdefault(_stem(word), set()).add(word)
    return found


def add_meaning_variants(facets: Sequence[Facet], nearest_texts: Sequence[str], store_texts: Sequence[str],
                         encode: Callable[[Sequence[str]], np.ndarray]) -> list[Facet]:
    """The facets with each one-word unit's field variants added to its forms (see the module)."""
    if len(nearest_texts) < MIN_PAPERS or len(store_texts) < MIN_PAPERS:
        return list(facets)
    near_df: Counter[str] = Counter()
    surfaces: dict[str, Counter[str]] = {}
    for text in nearest_texts:
        for stem, words in _stems_and_surfaces(text).items():
            near_df[stem] += 1
            surfaces.setdefault(stem, Counter()).update(words)
    store_df: Counter[str] = Counter(stem for text in store_texts for stem in _stems_and_surfaces(text))
    # no facet's own word is another's variant ("llm" is no form of "explainability")
    own = {part for facet in facets for unit in facet.units for form in unit.forms for part in form.split()}
    candidates = [stem for stem, n in near_df.items()
                  if stem not in own and n >= VARIANT_RATE * len(nearest_texts)
                  and n / len(nearest_texts) >= VARIANT_LIFT * (store_df[stem] + 1) / len(store_texts)]
    if not candidates:
        return list(facets)

    def forms_of(stem: str) -> list[str]:
        return [w for w, _ in surfaces.get(stem, Counter()).most_common(SURFACE_FORMS)]

    one_word = [u for f in facets for u in f.units
                if " " not in u.phrase and all(" " not in x for x in u.forms) and not _acronym_like(u.phrase.lower())]
    if not one_word:
        return list(facets)
    # every word read once, in one batch
    unit_words = [w for u in one_word for w in [u.phrase.lower(), *(v for x in u.forms for v in forms_of(x))]]
    words = list(dict.fromkeys([*(w for stem in candidates for w in forms_of(stem)), *unit_words]))
    matrix = np.asarray(encode(words), dtype=float)
    matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
    cache = dict(zip(words, matrix))

    def vectors(group: Sequence[str]) -> np.ndarray:
        return np.stack([cache[w] for w in group])

    result: list[Facet] = []
    for facet in facets:
        units = []
        for unit in facet.units:
            if unit not in one_word:
                units.append(unit)
                continue
            mine = list(dict.fromkeys([unit.phrase.lower(), *(w for form in unit.forms for w in forms_of(form))]))
            own_vectors = vectors(mine)
            # the field's word for it is said about as often as the topic's (a sibling the encoder
            # reads as near, "robotic" beside "autonomous", is said by few of the nearest papers)
            uses = max((near_df[form] for form in unit.forms), default=0)
            added = [stem for stem in candidates if near_df[stem] >= USE_RATIO * uses
                     and float((vectors(forms_of(stem)) @ own_vectors.T).max()) >= SYNONYM_COSINE]
            units.append(replace(unit, forms=tuple(dict.fromkeys([*unit.forms, *sorted(added)])))
                         if added and not unit.kind else unit)
        result.append(Facet(facet.phrase, tuple(units), facet.phrasing))
    return result
