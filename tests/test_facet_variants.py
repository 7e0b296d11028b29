"""A facet's word read as its field writes it: the near-synonyms the papers nearest the topic use
(retrieval/facet_variants.py), on real corpus papers and the bundled MiniLM."""

from __future__ import annotations

import gzip
import json
import random
import re

import numpy as np
import pytest

from surveygraph.retrieval.facet_variants import add_meaning_variants
from surveygraph.retrieval.topic_facets import Facet, Unit, topic_facets

LLM = re.compile(r"\bllms?\b|language models?", re.IGNORECASE)


@pytest.fixture(scope="module")
def corpus_texts(shared_data) -> list[tuple[str, str]]:
    with gzip.open(shared_data / "corpus" / "arxiv_2025_2026.jsonl.gz", "rt", encoding="utf-8") as handle:
        return [(r["title"], f"{r['title']} {r.get('abstract') or ''}") for r in map(json.loads, handle)]


@pytest.fixture(scope="module")
def encode():
    from sentence_transformers import SentenceTransformer

    from surveygraph.retrieval.embeddings import bundled_minilm_path

    model = SentenceTransformer(str(bundled_minilm_path()), device="cpu")
    return lambda texts: model.encode(list(texts), normalize_embeddings=True)


def _nearest(corpus_texts, pattern: str) -> list[str]:
    """Stand-in for the papers nearest the topic by meaning: LLM papers whose title says ``pattern``."""
    return [t for title, t in corpus_texts if LLM.search(title) and re.search(pattern, title, re.IGNORECASE)][:100]


def _forms(facets: list[Facet], phrase: str) -> tuple[str, ...]:
    return next(u.forms for f in facets for u in f.units if u.phrase == phrase)


def test_explainability_is_read_as_the_field_writes_it(corpus_texts, encode):
    """The field says "interpretability" and "explanations" (stem "explan", not "explain")."""
    nearest = _nearest(corpus_texts, r"explainab|interpretab|explanation")
    store = [t for _, t in random.Random(0).sample(corpus_texts, 2000)]
    facets = topic_facets("Explainability for Large Language Models", nearest)
    read = add_meaning_variants(facets, nearest, store, encode)
    assert {"interpret", "explan"} <= set(_forms(read, "explainability")) - set(_forms(facets, "explainability"))
    # the other facet is left as it was: several words, its variants are acronyms
    assert _forms(read, "large language model") == _forms(facets, "large language model")


def test_a_sibling_concept_is_no_variant(corpus_texts, encode):
    """Safety papers say "security" and efficiency papers "effective" often, and they are other
    things: the encoder reads both below the near-synonym bar."""
    store = [t for _, t in random.Random(0).sample(corpus_texts, 2000)]
    nearest = _nearest(corpus_texts, r"\bsafety\b")
    read = add_meaning_variants(topic_facets("Safety in Large Language Models", nearest), nearest, store, encode)
    assert not any(f.startswith("secur") for f in _forms(read, "safety"))
    nearest = _nearest(corpus_texts, r"efficien.*inference|inference.*efficien")
    read = add_meaning_variants(topic_facets("Efficient Inference for Large Language Models", nearest), nearest,
                                store, encode)
    assert not any(f.startswith("effect") for f in _forms(read, "efficient"))


def test_an_acronym_takes_no_look_alike_and_too_few_papers_say_nothing():
    """"gnn" and "dnn" are near for an encoder reading letters; twenty papers at least are read."""
    vectors = {"gnn": [1.0, 0.0], "dnn": [1.0, 0.05], "gnns": [1.0, 0.0], "dnns": [1.0, 0.05]}
    encode = lambda words: np.array([vectors.get(w, [0.0, 1.0]) for w in words])  # noqa: E731
    facets = [Facet("GNNs", (Unit("gnn", ("gnn",)),))]
    nearest = ["DNNs and GNNs on graphs"] * 40
    store = ["an unrelated paper on weather"] * 400
    assert add_meaning_variants(facets, nearest, store, encode) == facets
    unit = Facet("graphs", (Unit("graphs", ("graph",)),))
    vectors |= {"graphs": [1.0, 0.0], "networks": [1.0, 0.0]}
    assert _forms(add_meaning_variants([unit], ["graphs networks"] * 40, store, encode), "graphs") == ("graph", "network")
    assert add_meaning_variants([unit], ["graphs networks"] * 10, store, encode) == [unit]
