"""Any draft's copying is read where the local paper store holds its cited works (evaluation/
copying.py:stored_abstracts), not only our own runs' retrieved papers: a draft that pastes the
abstracts of store papers is scored as the sources' writing, whoever wrote it (issue 30: the
panels' agreement 0.08 -> 0.26, BENCHMARKS.md)."""

from __future__ import annotations

import surveygraph as sg
from tests.generation_helpers import corpus_home, rag_papers


def _draft(papers) -> str:
    def body(start: int) -> str:
        return " ".join(f"{' '.join(p.abstract.split()[:60])} [{i}]." for i, p in enumerate(papers[start:start + 3], start + 1))

    refs = "\n".join(f"[{i}] {p.authors[0] if p.authors else 'Anon'}. {p.title}. {p.year}. arXiv:{p.paper_id.split(':', 1)[1]}"
                     for i, p in enumerate(papers, 1))
    return (f"# A Survey on Retrieval-Augmented Generation\n\n## Retrieval Methods\n\n{body(0)}\n\n"
            f"## Generation Methods\n\n{body(3)}\n\n## References\n\n{refs}\n")


def test_a_draft_pasting_store_abstracts_is_read_against_them(shared_data, tmp_path):
    home = corpus_home(shared_data)
    papers = [p for p in rag_papers(shared_data)[:6] if p.abstract and p.paper_id.startswith("arxiv:")]
    path = tmp_path / "draft.md"
    path.write_text(_draft(papers), encoding="utf-8")
    topic = "Retrieval-Augmented Generation"

    with_store = {m.name: m for m in sg.evaluate(str(path), metrics=["quality"], topic=topic,
                                                 home=str(home)).metrics}
    empty = tmp_path / "empty-home"
    without = {m.name: m for m in sg.evaluate(str(path), metrics=["quality"], topic=topic,
                                              home=str(empty)).metrics}

    content = with_store["quality.content"]
    assert content.details["copied_share"] > 0.8  # the pasted wording is recognised as its sources'
    assert "copied_share" not in without["quality.content"].details
    # a pasted sentence counts by what it adds: the cited substance falls (on the 72 panel drafts of
    # ours the content score fell from 4.49 to 3.11 on average, lower on every one)
    assert content.details["features"]["c_cited_sentences"] < without["quality.content"].details["features"]["c_cited_sentences"]
