"""What a paper is about, not what it mentions (agents/outline/concepts.py, parts.py): a phrase an
abstract names where it states its contribution weighs more than one it names as background or as the
baseline it beats, and a subsection holds the papers that name it, not papers placed by nearness."""

from __future__ import annotations

import re

import numpy as np

from surveygraph.agents.digest import stated_contributions
from surveygraph.agents.outline.concepts import Concept, PhraseIndex, candidate_concepts, concept_score
from surveygraph.agents.outline.names import topic_words
from surveygraph.agents.outline.parts import OTHER_WORK, named_subsections, phrase_section
from surveygraph.retrieval.spelling import WordFamilies

from test_outline_taxonomy import _corpus_rows


def test_the_sentences_stating_a_contribution_are_found_and_the_others_are_not():
    abstract = ("Vision transformers outperform convolutional neural networks on large datasets. To reduce their "
                "cost, we propose StripFormer, a strip self-attention design. This paper also studies token "
                "pruning. Experiments show that StripFormer beats CNN baselines.")
    found = stated_contributions(abstract)
    assert [s.split(",")[0] for s in found] == ["To reduce their cost", "This paper also studies token pruning."]
    assert stated_contributions("Convolutional networks remain strong baselines. Results are mixed.") == []


def test_a_phrase_named_as_background_weighs_less_than_one_named_as_the_contribution(shared_data):
    """Real ViT abstracts: most name convolutional neural networks as what ViTs are compared with;
    a phrase the papers propose (in their titles or contribution sentences) scores above it at equal
    mention counts."""
    rows = _corpus_rows(shared_data, lambda r: re.search(r"vision transformer", r["title"], re.I), 400)
    index = PhraseIndex([r["title"] for r in rows], [r["abstract"] for r in rows],
                        WordFamilies(topic_words("vision transformers")))
    concepts = {c.key: c for c in candidate_concepts(index, min_support=4)}
    cnn = next(c for c in concepts.values() if c.form.lower() == "convolutional neural networks")
    assert cnn.focus < cnn.weak and len(cnn.about()) < 0.25 * len(cnn.support)
    # the same counts, all of them where the abstracts state their contribution, score higher
    stated = Concept(cnn.key, cnn.form, set(cnn.strong), set(cnn.weak), focus=set(cnn.weak))
    assert concept_score(stated) > 1.5 * concept_score(cnn)


def _concept(key: str, strong: set[int], weak: set[int] = frozenset()) -> Concept:
    return Concept(key, key, set(strong), set(weak))


def test_a_subsection_holds_the_papers_naming_it_and_the_rest_are_left_over():
    pruning = _concept("token prune", {0, 1, 2})
    lymphoma = _concept("lymphoma diagnosi", {3, 4})  # two papers: no subsection
    placed = [(pruning, [0, 1, 2, 5, 6]), (lymphoma, [3, 4, 7, 8])]
    subs, left = named_subsections(placed)
    assert [(s["title"], s["rows"]) for s in subs] == [("Token Prune", [0, 1, 2])]
    assert sorted(left) == [3, 4, 5, 6, 7, 8]
    # a stray paper or two stay where nearness put them: no reshuffle for them
    subs, left = named_subsections([(pruning, [0, 1, 2, 5]), (_concept("early exit", {3, 4, 6}), [3, 4, 6])])
    assert left == [] and [s["rows"] for s in subs] == [[0, 1, 2, 5], [3, 4, 6]]


def test_a_phrase_section_keeps_its_own_papers_no_subsection_names_under_other_work():
    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(12, 8))
    section = _concept("multi-agent debat", {0, 1, 2, 3, 4, 5, 6, 7})
    voting = _concept("majority vote", {0, 1, 2})
    judges = _concept("judge agent", {8, 9, 10})
    built = phrase_section(section, list(range(12)), [voting, judges], vectors, n_subsections=3,
                           topic="LLM-based multi-agent systems", taken=set())
    subs = {s["title"]: sorted(s["rows"]) for s in built["subs"]}
    assert subs["Majority Vote"] == [0, 1, 2] and subs["Judge Agent"] == [8, 9, 10]
    other = [s for s in built["subs"] if s["source"] == OTHER_WORK]
    # papers naming the section's phrase and no subsection's: 3-7; paper 11 names nothing and is no one's
    assert len(other) == 1 and sorted(other[0]["rows"]) == [3, 4, 5, 6, 7]
    assert other[0]["title"] == "Other Work on Multi-Agent Debat"


def test_an_evaluation_section_is_parted_by_what_its_benchmarks_evaluate_and_only_by_naming_papers(shared_data):
    """205 benchmark papers of "benchmarking the capabilities of large language models" sat under one
    subsection, "Mathematical Reasoning", 14 of them about it (c27j, "its two section headings don't
    match what sits under them"): tasks were kept out of role sections, and the lone phrase took
    every paper by nearness."""
    from surveygraph.agents.outline.floor import build_outline_floor, tfidf_encoder

    rows = _corpus_rows(shared_data, lambda r: re.search(r"\bbenchmark", r["title"], re.I) is not None
                        and "language model" in r["abstract"].lower(), 200)
    rows += _corpus_rows(shared_data, lambda r: re.search(r"\b(?:benchmark|survey|review|evaluat)", r["title"], re.I) is None
                         and "we propose" in r["abstract"].lower() and "language model" in r["title"].lower(), 60)
    ids, papers = [r["paper_id"] for r in rows], {r["paper_id"]: r for r in rows}
    vectors, encode = tfidf_encoder([f"{r['title']}. {r['abstract']}" for r in rows])
    # (a topic that asks for benchmarks itself has them as its body, not as a role section: see
    # test_a_topic_asking_for_benchmarks_has_no_evaluation_role_section)
    outline = build_outline_floor("capabilities of large language models", ids, papers, vectors,
                                  n_sections=4, n_subsections=3, encode=encode)
    evaluation = [s for s in outline if s["role"] == "evaluation"]
    assert evaluation, [(s["title"], s["role"]) for s in outline]
    phrases = [sub for sub in evaluation[0]["subsections"] if sub["source"] == "concepts"]
    assert phrases, [sub["title"] for sub in evaluation[0]["subsections"]]
    for sub in phrases:
        assert sub["named"] == len(sub["paper_ids"]), (sub["title"], sub["named"], len(sub["paper_ids"]))


def test_a_topic_asking_for_benchmarks_has_no_evaluation_role_section():
    """c36e: in a survey asked as "how to benchmark the reasoning and coding abilities of LLMs",
    "Benchmarks and Evaluation" held 40 of 61 works beside one other section: every work was a
    benchmark. Asked for, benchmarks are the survey's body, parted by what they evaluate."""
    from surveygraph.agents.outline.roles import asks_for_evaluation, paper_role

    title = "SATBench: Benchmarking LLMs' Logical Reasoning via Automated Puzzle Generation from SAT Formulas"
    assert asks_for_evaluation("how to benchmark the reasoning and coding abilities of LLMs")
    assert asks_for_evaluation("Evaluation of Large Language Models")
    # a listed part is one part of the survey, not its body
    assert not asks_for_evaluation("large vision-language models: architectures, training and benchmarks")
    assert not asks_for_evaluation("reasoning and coding abilities of LLMs")
    assert paper_role(title, "reasoning and coding abilities of LLMs") == "evaluation"
    assert paper_role(title, "how to benchmark the reasoning and coding abilities of LLMs") == "methods"
