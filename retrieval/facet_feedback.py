"""The topic's words read against what the store says: which words are the user's phrasing,
which one-word facets the field does not use, and how rare each unit of a description is.

Pseudo-relevance feedback on the query's terms, one facet at a time: ``drop_phrasing_words`` and
``drop_rare_facets`` read the papers nearest the topic string by embedding (a reading of meaning),
``weigh_by_rarity`` a random sample of the store. The facets themselves come from
retrieval/topic_facets.py (words only).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import replace

from .bm25_index import tokenize
from .spelling import is_task_verb
from .facet_reading import unit_named
from .topic_facets import (GENERIC_HEADS, LIST_JOINS, MIN_TERM_USES, TRAILING_HEADS, Facet, Unit, lists_phrases,
                           stem_text)

# A unit of a several-word facet that fewer than this share of the papers nearest the topic in
# meaning name is a word of how the user put it, not of the field. On the 21 labelled topics every
# unit of a several-word facet is named by at least 0.32 of them (minilm-head; "scientific" of
# "Scientific Large Language Models"); "teaching" and "act" of "teaching robots to act" by 0.03 and
# 0.15, "transcribing" and "spoken" of "automatically transcribing spoken audio" by 0.03 and 0.12
# (topic_pool.md, session 21). A facet of one unit is not thinned here: a rare facet is what a
# two-facet topic is about ("time series", named by 0.21); only a far rarer one is the user's
# wording (``drop_rare_facets``).
PHRASING_RATE = 0.2
MIN_NEAREST = 20  # fewer nearest papers than this say nothing about the field's words


def drop_phrasing_words(facets: Sequence[Facet], nearest_texts: Sequence[str],
                        candidate_texts: Sequence[str] = (), store_texts: Sequence[str] = ()) -> list[Facet]:
    """The facets without the words of the user's phrasing: in a facet of several units, those that
    fewer than PHRASING_RATE of ``nearest_texts`` (title + abstract of the papers nearest the topic
    string by embedding, a reading of meaning rather than words) name. The facet's most-named unit
    always stays, and a facet MIN_TERM_USES of ``candidate_texts`` say verbatim (its units in a row)
    is a term and stays whole rather than fall to one word ("privacy attacks"); thinned to two
    units or more, it is still a phrase of the field ("producing harmful or dangerous outputs" ->
    "harmful or dangerous outputs": asked to say "producing" too, 39 papers were kept where the
    corpus holds hundreds). Pseudo-relevance feedback on the query's terms, one facet at a time.
    With ``store_texts`` (a random sample of the store) the unit that always stays is the one named
    most for its rarity (rate x IDF): of "predicting protein-ligand binding", which the nearest
    papers seldom name (the corpus holds 14 such papers), "predicting" alone was kept and the pool
    was any prediction with graph neural networks."""
    stems = [stem_text(t) for t in nearest_texts]
    if len(stems) < MIN_NEAREST:
        return list(facets)
    candidate_stems = [stem_text(t) for t in candidate_texts]
    store_stems = [stem_text(t) for t in store_texts]
    thinned: list[Facet] = []
    for facet in facets:
        if len(facet.units) < 2:
            thinned.append(facet)
            continue
        rates = [sum(unit_named(u, s) for s in stems) / len(stems) for u in facet.units]
        rarity = [math.log((len(store_stems) + 1) / (sum(unit_named(u, s) for s in store_stems) + 1))
                  for u in facet.units] if len(store_stems) >= MIN_NEAREST else [1.0] * len(rates)
        # the unit that always stays: the one named most for its rarity, among the units that name
        # no kind of a generic head the topic reads as no word at all ("chat" of "aligning chat
        # models": the literature says "LLMs", and asked for "chat" because it is rare, a pool of
        # the corpus's hundreds of RLHF and DPO papers kept 22). Such a word stays only at the rate.
        choices = [i for i, u in enumerate(facet.units) if not _modifies_generic_head(u, facet.phrase)] or \
            list(range(len(rates)))
        best = max(choices, key=lambda i: rates[i] * rarity[i])
        # a task verb alone carries no topic ("predicting" of "predicting protein-ligand binding",
        # named by half the papers nearest a topic the store holds 14 papers of): the best of the
        # nouns stays with it
        if all(is_task_verb(u.phrase) for u, r in zip(facet.units, rates) if r >= PHRASING_RATE):
            nouns = [i for i in choices if not is_task_verb(facet.units[i].phrase)]
            best = max(nouns, key=lambda i: rates[i] * rarity[i]) if nouns else best
        kept = tuple(u for i, (u, r) in enumerate(zip(facet.units, rates)) if r >= PHRASING_RATE or i == best)
        # ... but a word the topic's papers use no more than the store's papers at large (not above
        # the store's rate at 95% over this many nearest papers) is no word of a term, however often
        # the candidates say the phrase: "combine" of "multimodal LLMs that combine vision and
        # language" (0.14 of the nearest papers, 0.134 of the store) was asked of every paper because
        # seven candidates say "combine vision and language"
        common = bool(store_stems) and any(u not in kept and r <= _not_above(u, store_stems, len(stems))
                                           for u, r in zip(facet.units, rates))
        if len(kept) < 2 and not common and _said_verbatim(facet, candidate_stems) >= MIN_TERM_USES:
            thinned.append(facet)
            continue
        dropped = tuple(u.phrase for u in facet.units if u not in kept)
        thinned.append(_with_key_units(Facet(facet.phrase, kept, facet.phrasing + dropped),
                                       dict(zip((u.phrase for u in facet.units), rates))))
    return thinned


def _not_above(unit: Unit, store_stems: Sequence[str], n: int) -> float:
    """The highest rate among ``n`` papers not significantly above the unit's rate in the store
    (one-sided, 95%)."""
    rate = sum(unit_named(unit, s) for s in store_stems) / len(store_stems)
    return rate + 1.645 * math.sqrt(rate * (1 - rate) / max(n, 1))


# A facet of one unit that fewer than this share of the topic's nearest papers name is a word of the
# user's phrasing too ("photos" of "making 3D scenes from photos with gaussian splats": 0.09; asked
# of every paper, it kept 49). The rarest one-unit facet of the 21 labelled topics and the six
# held-out two-facet topics is named by 0.19 ("chemistry" of "large language models for chemistry",
# "recommender" of "fairness in recommender systems"); half of that is the bar.
RARE_FACET_RATE = 0.1


def drop_rare_facets(facets: Sequence[Facet], nearest_texts: Sequence[str]) -> tuple[list[Facet], list[str]]:
    """The facets without the one-unit facets fewer than RARE_FACET_RATE of ``nearest_texts`` name,
    and the phrases of those dropped. The topic's most-named facet always stays."""
    stems = [stem_text(t) for t in nearest_texts]
    if len(stems) < MIN_NEAREST or len(facets) < 2:
        return list(facets), []
    rates = [sum(all(unit_named(u, s) for u in f.units) for s in stems) / len(stems) for f in facets]
    best = max(range(len(facets)), key=rates.__getitem__)
    # a unit of several words is a term the literature abbreviates ("molecular property prediction
    # (MPP)"), the subject rarely named, no word of the user's: dropped, "graph neural networks for
    # molecular property prediction" became a survey of 81 GNN papers on images, knowledge graphs and
    # traffic (session 35), where the corpus holds about a dozen on the topic
    kept = [f for i, f in enumerate(facets) if i == best or len(f.units) > 1 or rates[i] >= RARE_FACET_RATE
            or any(" " in u.phrase for u in f.units)]
    return kept, [f.phrase for f in facets if f not in kept]


# A unit every store paper names still counts for a little: a description of common words only
# ("data for models") is read by them rather than by nothing.
MIN_WEIGHT = 0.1


def weigh_by_rarity(facets: Sequence[Facet], store_texts: Sequence[str]) -> list[Facet]:
    """The facets, each unit of a description (``Facet.required`` < 1) weighted by its inverse
    document frequency in ``store_texts`` (a random sample of the store): half of "large language
    models to forecast time series data" is not "LLM" + "data", which a third of all papers name
    (session 21: that reading kept LLM-data-curation and satellite papers, and the survey was read
    last of five), but "time series" + "forecast", or "LLM" + "time series". Terms (every unit
    asked) are left unweighted."""
    stems = [stem_text(t) for t in store_texts]
    if len(stems) < MIN_NEAREST:
        return list(facets)
    weighed: list[Facet] = []
    for facet in facets:
        if facet.required >= 1.0:
            weighed.append(facet)
            continue
        units = tuple(replace(u, weight=round(max(MIN_WEIGHT, math.log((len(stems) + 1) /
                                                                       (sum(unit_named(u, s) for s in stems) + 1))), 3))
                      for u in facet.units)
        weighed.append(Facet(facet.phrase, units, facet.phrasing))
    return weighed


# A unit of a description that at least this share of the topic's nearest papers name is what the
# description is about: asked of every paper (Unit.key).
KEY_UNIT_RATE = 0.5


def _with_key_units(facet: Facet, rates: dict[str, float]) -> Facet:
    """A description (``Facet.required`` < 1) with the units most nearest papers name marked as
    key: "how do self-driving cars detect other vehicles and pedestrians" was half-named by LiDAR
    segmentation and occupancy papers of driving scenes ('self', 'driving'), while 'detect' is named
    by 0.73 of the papers nearest the question by meaning (a c25 reader: "much of it is off topic").
    A description that lists phrases ("speculative decoding and KV cache compression") asks for
    either: made key, "speculative decoding" kept 15 papers and no KV-cache paper (c25m)."""
    if facet.required >= 1.0 or lists_phrases(facet.phrase):
        return facet
    units = tuple(replace(u, key=rates.get(u.phrase, 0.0) >= KEY_UNIT_RATE) for u in facet.units)
    return Facet(facet.phrase, units, facet.phrasing)


def _modifies_generic_head(unit: Unit, phrase: str) -> bool:
    """Whether the unit is a one-word modifier right before a generic head in the facet's phrase
    ("chat" of "chat models", "vision" of "vision systems"): it names a kind of the head, which the
    units leave out (topic_facets.GENERIC_HEADS)."""
    words = [t for w in re.findall(r"[a-z0-9]+", phrase.lower()) for t in tokenize(w)]
    return " " not in unit.phrase and any(w == unit.phrase and i + 1 < len(words) and words[i + 1] in GENERIC_HEADS
                                          for i, w in enumerate(words))


def _said_verbatim(facet: Facet, stems: Sequence[str]) -> int:
    """How many of ``stems`` name the facet's units in a row, each by any of its forms."""
    pattern = re.compile(r"(?<!\S)" + r"\s+".join("(?:" + "|".join(map(re.escape, u.forms)) + ")" for u in facet.units)
                         + r"(?!\S)")
    return sum(bool(pattern.search(s)) for s in stems)


def read_listed_phrases(facets: Sequence[Facet], nearest_texts: Sequence[str]) -> list[Facet]:
    """A description that lists phrases of several words ("node classification and link
    prediction") read as either phrase when the field names it so: at least PHRASING_RATE of the
    papers nearest the topic by meaning say one of them. Read as half of its words, "classification"
    and "prediction" were named by vision-GNN image classifiers, and a blind reader of "graph neural
    networks for node classification and link prediction" found "many of its papers off topic"
    (c26i); "image classification" and "dense prediction" likewise kept any classifier (c26f).
    "preference tuning and value alignment" (a tenth of its nearest papers say either) stays a
    description: read verbatim, it kept 54 papers where the corpus holds hundreds (session 22).
    Measured on six such phrasings (topic_pool.md, session 26)."""
    stems = [stem_text(t) for t in nearest_texts]
    if len(stems) < MIN_NEAREST:
        return list(facets)
    read: list[Facet] = []
    for facet in facets:
        if not lists_phrases(facet.phrase):
            read.append(facet)
            continue
        phrases = [p for p in (_without_generic_tail(p) for p in LIST_JOINS.split(facet.phrase)) if p]
        forms = tuple(dict.fromkeys(stem_text(p) for p in phrases if len(stem_text(p).split()) > 1))
        unit = Unit(" or ".join(phrases), forms)
        rate = sum(unit_named(unit, s) for s in stems) / len(stems)
        read.append(Facet(facet.phrase, (unit,), facet.phrasing) if len(forms) == len(phrases) and
                    rate >= PHRASING_RATE else facet)
    return read


def _without_generic_tail(phrase: str) -> str:
    """"computer vision tasks" -> "computer vision": the kind of thing it is, not what names it."""
    words = phrase.split()
    while len(words) > 2 and stem_text(words[-1]) in {stem_text(w) for w in GENERIC_HEADS | TRAILING_HEADS}:
        words = words[:-1]
    return " ".join(words)
