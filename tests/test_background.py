"""The introduction's background (agents/background.py): the works' own definitions of the survey's
terms and the surveys among the topic's papers, read on real corpus papers."""

from __future__ import annotations

import gzip
import json
import re

from surveygraph.agents.background import (BOTH_TITLE, CONCEPTS_TITLE, SURVEYS_TITLE, background_part, definitions,
                                           earlier_surveys, survey_scope)
from surveygraph.agents.frame_floor import Citer


def _corpus(shared_data, keep, limit: int) -> dict[str, dict]:
    found = {}
    with gzip.open(shared_data / "corpus" / "arxiv_2025_2026.jsonl.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            if keep(row):
                found[f"arxiv:{row['arxiv_id']}"] = {"paper_id": f"arxiv:{row['arxiv_id']}", "title": row["title"],
                                                      "abstract": row["abstract"], "authors": row["authors"]}
                if len(found) == limit:
                    break
    return found


def test_a_survey_title_says_its_scope():
    assert survey_scope("A Survey on Vision Transformers for Medical Imaging") == "vision transformers for medical imaging"
    assert survey_scope("The Landscape of Agentic Reinforcement Learning for LLMs: A Survey") == \
        "agentic reinforcement learning for LLMs"
    # the named scope, not the catchphrase before the colon
    assert survey_scope("Beyond Pipelines: A Survey of the Paradigm Shift toward Model-Native Agentic AI") == \
        "paradigm shift toward model-native agentic AI"
    assert survey_scope("Reinforcement Learning-based Agentic Search: Foundations, Roles, Optimizations") == \
        "reinforcement learning-based agentic search"
    assert survey_scope("Toward Personalized LLM-Powered Agents: A Survey") == "personalized LLM-Powered agents"
    assert survey_scope("Survey") == ""


def test_an_apposition_says_what_a_term_is():
    from surveygraph.agents.background import _term_pattern

    pattern = _term_pattern("group relative policy optimization")
    assert pattern.match("Group Relative Policy Optimization (GRPO), an efficient variant of PPO that lowers "
                         "RL's computational cost, has been widely adopted.")
    assert not pattern.match("Group Relative Policy Optimization (GRPO) has shown impressive success.")


def test_a_definition_is_the_term_as_subject_of_what_it_is_never_a_claim_of_success(shared_data):
    """One sentence per term from the works' abstracts: "Speculative decoding (SD) is a ...", "...
    has emerged as a ..."; "X have demonstrated remarkable ..." says how well, not what."""
    opens = re.compile(r"(?:^|\. )(?:Speculative decoding|Knowledge distillation)(?: \(\w+\))? (?:is an? |has emerged as )",
                       re.I)
    claims = re.compile(r"(?:^|\. )Speculative decoding(?: \(\w+\))? (?:has|have) (?:demonstrated|achieved|shown)", re.I)
    papers = _corpus(shared_data, lambda r: bool(opens.search(r["abstract"]) or claims.search(r["abstract"])), 40)
    ids = list(papers)
    found = definitions(["speculative decoding", "knowledge distillation", "mixture of experts"], ids, papers, set())
    terms = [term for term, _, _ in found]
    assert terms == ["speculative decoding", "knowledge distillation"], found
    for term, pid, sentence in found:
        assert sentence.lower().startswith(term) and sentence in papers[pid]["abstract"].replace("\n", " ")
        assert not re.search(r"\b(?:have|has) (?:demonstrated|achieved|shown)\b", sentence.split(",")[0])
    # a sentence already said (the introduction's opening) is not quoted again
    from surveygraph.agents.text import drop_repeated_sentences

    said = set()
    drop_repeated_sentences([found[0][2]], said)
    assert found[0][2] not in [s for _, _, s in definitions(["speculative decoding"], ids, papers, said)]


def test_the_surveys_among_the_topic_s_papers_are_named_with_their_scope(shared_data):
    papers = _corpus(shared_data, lambda r: "retrieval-augmented" in (r["title"] + r["abstract"]).lower(), 400)
    ids = list(papers)
    surveys = earlier_surveys(ids, papers)
    assert surveys, "the corpus holds surveys of retrieval-augmented generation"
    for pid, scope in surveys:
        assert re.search(r"survey|review|overview|tutorial", papers[pid]["title"] + papers[pid]["abstract"], re.I)
        assert scope and scope.lower() in papers[pid]["title"].lower()
    part = background_part(["retrieval-augmented generation"], ids[:5], ids, papers, Citer([]), set(), 2025)
    assert len(surveys) >= 2 and part is not None
    (sub,) = part["subsections"]
    # the pool defines the term too ("Retrieval-augmented generation (RAG) has emerged as a ..."):
    # one background subsection, the definition before the surveys
    found = definitions(["retrieval-augmented generation"], ids, papers, set())
    assert sub["title"] == (BOTH_TITLE if found else SURVEYS_TITLE)
    surveys_paragraph = sub["text"].split("\n\n")[-1]
    assert "seminal works before 2025" in surveys_paragraph and surveys_paragraph.count("[") == len(surveys)
    # one work alone is no background: nothing is written
    assert background_part(["speculative decoding"], [], [], {}, Citer([]), set(), 2025) is None


def test_the_background_stands_under_the_introduction_and_the_introduction_names_it():
    from surveygraph.agents.exporter import build_survey, to_markdown
    from surveygraph.agents.frame_floor import _background_sentences

    state = {"topic": "RAG", "papers": {}, "outline": [{"id": "1", "title": "Retrievers", "subsections": []}],
             "survey": {"references": [], "introduction": "Intro text.",
                        "background": {"id": "background", "subsections": [
                            {"id": "background.1", "title": CONCEPTS_TITLE, "text": "Definitions."},
                            {"id": "background.2", "title": SURVEYS_TITLE, "text": "Surveys."}]},
                        "body": [{"id": "1", "title": "Retrievers", "text": "", "subsections": [
                            {"id": "1.1", "title": "Dense Retrieval", "text": "Dense."},
                            {"id": "1.2", "title": "Sparse Retrieval", "text": "Sparse."}]}]}}
    markdown = to_markdown(build_survey(state))
    assert re.search(rf"## 1 Introduction\n\nIntro text.\n\n### 1.1 {CONCEPTS_TITLE}\n\nDefinitions.\n\n"
                     rf"### 1.2 {SURVEYS_TITLE}\n\nSurveys.\n\n## 2 Retrievers", markdown), markdown
    said = _background_sentences([SURVEYS_TITLE])
    assert said and said[0].startswith(f"Section 1.1, {SURVEYS_TITLE}, ")
