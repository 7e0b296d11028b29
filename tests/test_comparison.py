"""Comparative statements of a subsection (agents/comparison.py) from facets (agents/facets.py):
each states only facts found in the works it cites, on fixtures and on real corpus papers."""

from __future__ import annotations

import re

import pytest

from tests.generation_helpers import rag_papers
from tests.synthesis_fixtures import CLEAN_PAPERS
from surveygraph.agents.comparison import evaluation_sentences, kind_sentence, works
from surveygraph.agents.facets import contribution_kind, paper_facets, result_clause
from surveygraph.agents.synthesis import synthesize
from surveygraph.agents.text import CITATION_MARKER, marker_numbers, sentences
from surveygraph.sanitize import untrusted


def cited(sentence: str) -> set[int]:
    return {n for m in CITATION_MARKER.finditer(sentence) for n in marker_numbers(m.group(1))}


def test_facets_of_the_fixture_papers():
    dense, sparse, graph, abstain = (paper_facets(p) for p in CLEAN_PAPERS)
    assert (dense.kind, sparse.kind, graph.kind, abstain.kind) == ("method", "study", "method", "method")
    assert dense.data == ["Natural Questions", "TriviaQA"] and dense.metrics == ["exact match"]
    assert dense.result == "improves exact match by 3.1 points over concatenation readers"
    assert sparse.data == ["SciFact"] and graph.data == ["HotpotQA"]
    assert "DenseFuse" not in dense.data  # the paper's own system is not its evaluation data


def test_kinds_and_result_clauses():
    assert contribution_kind("A Survey of Multimodal RAG", "") == "survey"
    assert contribution_kind("X: A Benchmark for Y", "We propose a method.") == "benchmark"
    assert contribution_kind("Revisiting Z", "We study how retrievers fail and compare five of them.") == "study"
    assert contribution_kind("Z", "We propose Z, which studies nothing.") == "method"
    # read in the README survey: InForage (a method that builds its training data) was listed as a benchmark
    assert contribution_kind("Scent of Knowledge: Optimizing Search-Enhanced Reasoning with Information Foraging",
                             "We propose InForage, a reinforcement learning framework. To facilitate training, "
                             "we construct a human-guided dataset of search trajectories.") == "method"
    assert contribution_kind("Grounded QA at Scale", "We introduce GQA-10K, a benchmark of grounded questions, "
                             "and propose a baseline.") == "benchmark"
    assert result_clause("Our method improves accuracy by 21.2% over the base model.") == \
        "improves accuracy by 21.2% over the base model"
    assert result_clause("We improve accuracy by 3 points over our baseline.") == ""  # speaks as "we": not quoted
    assert result_clause("It is fast.") == ""


def test_the_kinds_lead_the_subsection_and_evaluation_follows_the_lines():
    text = synthesize("Dense and Sparse Retrieval", CLEAN_PAPERS, topic="Retrieval-Augmented Generation")
    paragraphs = text.split("\n\n")
    first = sentences(paragraphs[0])
    assert first[0].startswith("This subsection reviews four works")
    assert first[1] == "Three of the four propose new methods or systems; Okafor [2] is an empirical study."
    evaluation = next(p for p in paragraphs if p.startswith("The named evaluation data"))
    assert evaluation.startswith("The named evaluation data differ from work to work: Smith et al. [1] use Natural "
                                 "Questions and TriviaQA; Okafor [2] uses SciFact")
    assert paragraphs.index(evaluation) > 1  # after the works' contributions
    assert text.count("3.1 points") <= 1


def _facts_hold(sentence: str, papers: list[dict]) -> list[str]:
    """Every quoted figure and every data name attributed to a work is in that work's abstract."""
    problems = []
    for quote, key in re.findall(r"“([^”]+)” \([^()]*?\[(\d+)\]\)", sentence):
        if quote not in " ".join(untrusted(papers[int(key) - 1]["abstract"]).split()):
            problems.append(f"quote not in [{key}]: {quote}")
    for key, names in re.findall(r"\[(\d+)\] uses? ([^;.]+)", sentence):
        abstract = untrusted(papers[int(key) - 1]["abstract"])
        for name in re.split(r", | and ", names.removesuffix(" as named evaluation data")):
            if name and name not in abstract:
                problems.append(f"data name not in [{key}]: {name}")
    return problems


def test_comparisons_over_real_corpus_papers_state_only_what_the_abstracts_say(shared_data):
    papers = [p.model_dump() for p in rag_papers(shared_data, 160)]
    groups = [papers[i:i + 8] for i in range(0, len(papers), 8)]
    said, problems, cited_per_sentence = [], [], []
    for group in groups:
        compared = works(group, [paper_facets(p) for p in group])
        lines = [kind_sentence(compared), *evaluation_sentences(compared, {"retrieval", "augmented", "generation", "rag"})]
        lines = [line for line in lines if line]
        assert lines, "every group of eight gets at least its kinds sentence"
        for line in lines:
            assert cited(line) <= set(range(1, len(group) + 1)), line
            assert line[:1].isupper() and line.endswith("."), line
            problems += _facts_hold(line, group)
            cited_per_sentence.append(len(cited(line)))
        said += lines
    assert not problems, problems[:5]
    assert len(set(said)) == len(said) or all(s.startswith("All ") for s in said if said.count(s) > 1)
    # comparisons relate works: most sentences cite two or more
    assert sum(n >= 2 for n in cited_per_sentence) >= 0.7 * len(cited_per_sentence)


@pytest.mark.parametrize("title", ["HIRAG: Hierarchical-Thought Instruction-Tuning Retrieval-Augmented Generation"])
def test_own_system_names_are_not_evaluation_data(title):
    paper = {"title": title, "abstract": "We propose HIRAG, a method. Experiments show that HIRAG improves results "
                                         "on datasets such as RGB, PopQA, MuSiQue, HotpotQA and PubmedQA."}
    facets = paper_facets(paper)
    assert facets.data == ["RGB", "PopQA", "MuSiQue", "HotpotQA", "PubmedQA"]


def test_one_work_of_each_kind_is_named_not_counted():
    pair = CLEAN_PAPERS[:2]  # a method and an empirical study
    sentence = kind_sentence(works(pair, [paper_facets(p) for p in pair]))
    assert not sentence.startswith("One of the two")  # "One of the two are ..." read in a survey
    assert "Smith et al. [1] propose a new method or system" in sentence and "Okafor [2] is an empirical study" in sentence
