"""Dedupe by arXiv id, DOI, then normalised title; field merging."""

from __future__ import annotations

from surveygraph.models import Paper
from surveygraph.retrieval.dedupe import dedupe_papers, merge_papers, paper_keys


def test_paper_keys_in_priority_order():
    p = Paper(arxiv_id="arXiv:2005.11401v4", doi="https://doi.org/10.1/ABC",
              title="Retrieval-Augmented Generation!")
    assert paper_keys(p) == ["arxiv:2005.11401", "doi:10.1/abc", "title:retrieval augmented generation"]
    assert paper_keys(Paper(title="Intro")) == []  # too short to match on


def test_merge_keeps_first_fields_and_fills_gaps():
    a = Paper(arxiv_id="2005.11401", title="RAG", abstract="short", categories=["cs.CL"],
              citation_count=10, source="arxiv")
    b = Paper(doi="10.1/x", title="RAG (published)", abstract="a much longer abstract",
              venue="NeurIPS", year=2020, categories=["cs.LG", "cs.CL"], citation_count=6000,
              source="bibtex")
    m = merge_papers(a, b)
    assert m.title == "RAG" and m.source == "arxiv" and m.arxiv_id == "2005.11401"
    assert m.doi == "10.1/x" and m.venue == "NeurIPS" and m.year == 2020
    assert m.abstract == "a much longer abstract"
    assert m.citation_count == 6000 and m.categories == ["cs.CL", "cs.LG"]
    assert merge_papers(Paper(title="x"), Paper(title="y")).citation_count is None


def test_dedupe_by_arxiv_doi_and_title():
    papers = [
        Paper(arxiv_id="2005.11401v1", title="Retrieval-Augmented Generation for NLP"),
        Paper(arxiv_id="2005.11401v4", title="RAG v4 title", citation_count=5),  # same arXiv id
        Paper(doi="10.5555/ABC", title="Dense Passage Retrieval for QA"),
        Paper(doi="10.5555/abc", title="DPR (journal)", venue="EMNLP"),  # same DOI, other case
        Paper(title="Attention Is All You Need", source="bibtex"),
        Paper(title="attention is all you need.", arxiv_id="1706.03762"),  # same normalised title
        Paper(title="A Completely Different Paper"),
    ]
    unique, merged = dedupe_papers(papers)
    assert merged == 3 and len(unique) == 4
    rag, dpr, attention, other = unique
    assert rag.title == "Retrieval-Augmented Generation for NLP" and rag.citation_count == 5
    assert dpr.venue == "EMNLP" and dpr.doi == "10.5555/abc"
    assert attention.arxiv_id == "1706.03762" and attention.source == "bibtex"
    assert other.title == "A Completely Different Paper"


def test_same_title_with_conflicting_arxiv_ids_is_not_merged():
    papers = [Paper(arxiv_id="2501.00001", title="A Survey of Large Language Models"),
              Paper(arxiv_id="2502.00002", title="A Survey of Large Language Models")]
    unique, merged = dedupe_papers(papers)
    assert merged == 0 and len(unique) == 2


def test_a_record_can_bridge_two_earlier_ones():
    papers = [Paper(arxiv_id="2005.11401", title="Preprint title here"),
              Paper(doi="10.1/rag", title="Journal title here", venue="NeurIPS"),
              Paper(arxiv_id="2005.11401", doi="10.1/rag", title="Bridge record")]
    unique, merged = dedupe_papers(papers)
    assert merged == 2 and len(unique) == 1
    assert unique[0].arxiv_id == "2005.11401" and unique[0].doi == "10.1/rag"
    assert unique[0].venue == "NeurIPS"
