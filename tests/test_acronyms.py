"""An acronym the user types read as what the papers define it as (retrieval/acronyms.py), on the
definitions real corpus papers give."""

from __future__ import annotations

import gzip
import json
import re

import pytest

from surveygraph.retrieval.acronyms import long_forms, short_form
from surveygraph.retrieval.facet_reading import facet_shares
from surveygraph.retrieval.topic_facets import Facet, Unit, stem_text, topic_facets


@pytest.fixture(scope="module")
def corpus_texts(shared_data) -> list[str]:
    with gzip.open(shared_data / "corpus" / "arxiv_2025_2026.jsonl.gz", "rt", encoding="utf-8") as handle:
        return [f"{r['title']}. {r.get('abstract') or ''}" for r in map(json.loads, handle)]


def _defining(texts: list[str], letters: str, limit: int = 300) -> list[str]:
    """Stand-in for a topic's first candidates: papers that write the acronym."""
    pattern = re.compile(rf"\b{letters}s?\b")
    return [t for t in texts if pattern.search(t)][:limit]


def test_only_words_typed_with_two_capitals_are_acronyms():
    assert short_form("GNNs") == "GNN" and short_form("ViT") == "ViT" and short_form("FL") == "FL"
    assert short_form("3DGS") == "3DGS"
    assert short_form("Transformers") is None and short_form("graphs") is None and short_form("A") is None


def test_the_letters_are_matched_to_the_words_before_the_parenthesis():
    texts = ["We study federated learning (FL) under drift.", "Clients in federated learning (FL) share updates.",
             "In the unrelated setting of focal loss (FL) ..."]
    assert long_forms("FL", texts) == ["federated learning"]  # one definition is no long form
    # a parenthesis that does not define the letters is no definition ("(see FL)", a citation)
    assert long_forms("FL", ["as shown in prior work (FL) and (FL)", "results (FL)"]) == []
    # a word start after a space before one after a hyphen: "self-supervised learning", not
    # "supervised learning" ("SSL is glossed as 'supervised learning'", a c34k reader)
    ssl = ["We study self-supervised learning (SSL) for ViTs.", "Self-supervised learning (SSL) scales."]
    assert [f.lower() for f in long_forms("SSL", ssl)] == ["self-supervised learning"]
    assert long_forms("VLA", ["vision-language-action (VLA) models act.", "Vision-language-action (VLA) policies."]) \
        == ["vision-language-action"]


def test_user_acronyms_take_the_long_forms_the_corpus_defines(corpus_texts):
    for typed, letters, expected in (("GNNs", "GNN", "graph neural network"), ("FL", "FL", "feder learn"),
                                     ("MLLMs", "MLLM", "multimod larg languag model"),
                                     ("RLVR", "RLVR", "reinforc learn verifi reward")):
        (facet,) = topic_facets(typed, _defining(corpus_texts, letters))
        assert expected in facet.units[0].forms, (typed, facet)


def test_a_title_that_spells_the_acronym_out_now_names_the_facet(corpus_texts):
    texts = _defining(corpus_texts, "GNN")
    (facet,) = topic_facets("GNNs", texts)
    spelled_out = [t for t in corpus_texts
                   if re.search(r"graph neural networks?\b", t.split(". ")[0], re.I) and "GNN" not in t][:20]
    assert len(spelled_out) == 20
    letters_only = Facet(facet.phrase, (Unit(facet.units[0].phrase, facet.units[0].forms[:1]),))
    assert not any(facet_shares([letters_only], stem_text(t))[0] for t in spelled_out)  # as it was read before
    assert all(facet_shares([facet], stem_text(t))[0] == 1.0 for t in spelled_out)


def test_the_dominant_sense_of_ambiguous_letters_wins(corpus_texts):
    """"ASR" is automatic speech recognition and, in attack papers, attack success rate: among papers
    about speech the first wins, and the rival sense is not asked of them."""
    speech = [t for t in _defining(corpus_texts, "ASR", limit=5000) if "speech" in t.lower()][:300]
    forms = [f.lower() for f in long_forms("ASR", speech)]
    assert forms[:1] == ["automatic speech recognition"]
    assert "attack success rate" not in forms
