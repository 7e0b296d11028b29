"""A work's contribution clause and design traits (agents/digest.py), read from real abstracts, and
lines of work (agents/grouping.py): the clause is the abstract's own words, cut only where a
clause ends, and a line is named by a phrase its works' own text uses."""

from __future__ import annotations

import pytest

from tests.corpus_papers import corpus_papers
from surveygraph.agents.candidates import candidate_sentences
from surveygraph.agents.digest import contribution, digest, shorten, survey_focus
from surveygraph.agents.facets import paper_facets
from surveygraph.agents.grouping import headless_phrases, phrase_groups
from surveygraph.models import normalize_title
from surveygraph.sanitize import untrusted


def work(paper: dict, key: int = 1):
    facets = paper_facets(paper)
    said = candidate_sentences([paper])
    return digest(key, paper, [c.text for c in said], [c.text for c in said if c.role == "method"],
                  facets.own_names, facets.kind)


def in_abstract(clause: str, paper: dict) -> bool:
    """The clause's words, in order, are a stretch of the abstract (first person turned third)."""
    text = normalize_title(untrusted(paper["abstract"])).replace(" our ", " their ").replace(" we ", " they ")
    return normalize_title(clause) in text


def test_contribution_clauses_of_real_abstracts(shared_data):
    sentgraph, dymu, air, beacon = corpus_papers(shared_data, "2601.03014", "2504.17040", "2603.24058", "2606.07528")
    assert work(sentgraph).contribution_text() == (
        "Liang et al. [1] propose SentGraph, a sentence-level graph-based RAG framework that explicitly models "
        "fine-grained logical relationships between sentences for multi-hop question answering")
    # cut where the clause ends (" while maintaining ..."), not inside the phrase "an efficient, training-free framework"
    assert work(dymu).contribution_text().endswith(
        "present DyMU, an efficient, training-free framework that dynamically reduces the computational burden of "
        "vision-language models (VLMs)")
    assert work(dymu).traits == ["training-free"]
    # "To mitigate object hallucination, we further propose AIR ...": the purpose clause is not the contribution
    assert "propose Attention Imbalance Rectification (AIR)" in work(air).contribution_text()
    # the work's own system as the subject keeps it: "BEACON (Bera et al. [1]) extracts ..."
    assert work(beacon).contribution_text().startswith("BEACON (Bera et al. [1]) extracts a 31-dimensional")
    for paper in (sentgraph, dymu, air, beacon):
        predicate = work(paper).contribution.predicate
        assert in_abstract(predicate.split(" ", 1)[1], paper), predicate


def test_what_a_work_creates_comes_before_what_it_evaluates():
    said = ["We evaluate our approach on public benchmarks and in real embodied scenarios.",
            "To ground answers, we introduce a verifier that checks each claim against retrieved passages."]
    found = contribution(said, [])
    assert found.predicate == "introduce a verifier that checks each claim against retrieved passages"
    assert contribution(said[:1], []) is None  # "evaluate their approach" says where, not what


def test_shorten_cuts_only_at_clause_boundaries():
    assert shorten("X, a reader that fuses passages, which lifts exact match by three points") == \
        "X, a reader that fuses passages"
    # a list is not cut inside; a clause too long to cut cleanly is not used at all
    assert shorten("a pipeline of (1) retrieval, (2) reranking and (3) reading") == ""
    assert shorten(" ".join(["word"] * 40)) == ""
    # a cut right after a reporting verb leaves its finding out: "... and find." (c33f)
    cut = shorten("evaluate prompt based and activation steering based mitigation strategies and find that while they "
                  "can partially restore suppressed traits, they often degrade the primary intended style of the agents")
    assert not cut.endswith("find"), cut


def test_a_survey_is_described_by_what_its_title_surveys(shared_data):
    (sharma,) = corpus_papers(shared_data, "2506.00054")
    assert work(sharma).contribution_text() == "Sharma [1] surveys retrieval-augmented generation"
    assert survey_focus("A Survey of Multimodal Hallucination Evaluation and Detection") == \
        "multimodal hallucination evaluation and detection"
    assert survey_focus("SentGraph: Hierarchical Sentence Graph for Multi-hop QA") == ""
    # a name before the colon, what it surveys after it ("Wu [2] surveys sailing AI by the stars", c29g)
    assert survey_focus("Sailing AI by the Stars: A Survey of Learning from Rewards in Post-Training and Test-Time "
                        "Scaling of Large Language Models") == \
        "learning from rewards in post-training and test-time scaling of large language models"
    assert survey_focus("Vision Transformers in Precision Agriculture: A Comprehensive Survey") == \
        "vision transformers in precision agriculture"
    assert survey_focus("Beyond Pipelines: A Survey of the Paradigm Shift toward Model-Native Agentic AI") == \
        "the paradigm shift toward model-native agentic AI"


@pytest.mark.parametrize("texts, fragment", [
    (["A question answering dataset for law.", "A question answering dataset for finance."], "answering dataset"),
])
def test_a_phrase_always_led_by_the_same_word_is_a_fragment(texts, fragment):
    assert fragment in headless_phrases(texts)
    assert "question answering dataset" not in headless_phrases(texts)


def test_lines_of_work_are_named_by_phrases_their_titles_use(shared_data):
    papers = corpus_papers(shared_data, "2505.20862", "2504.12137", "2510.02827", "2506.19967", "2508.19972",
                           "2601.03014")
    titles = [untrusted(p["title"]) for p in papers]
    texts = [f"{t}. {untrusted(p['abstract'])}" for t, p in zip(titles, papers)]
    lines = phrase_groups(texts, {"hallucination", "hallucinations"}, titles=titles)
    named = {line.phrase: [titles[i][:30] for i in line.members] for line in lines}
    assert any(set(line.members) == {0, 1} and "contrastive decoding" in line.phrase.lower() for line in lines), named
    graph = next(line for line in lines if {2, 3} <= set(line.members))  # the two GraphRAG QA papers
    assert all(graph.phrase.lower() in titles[i].lower() for i in (2, 3)), named
    for line in lines:  # every member's own text uses the line's phrase
        assert all(line.phrase.lower() in texts[i].lower() for i in line.members), line
        assert " " in line.phrase or any(c.isupper() for c in line.phrase[1:])  # no lone adjective


def test_a_survey_is_not_credited_with_the_design_choices_it_reviews():
    """'Of these, only Zhang et al. [1] use reinforcement learning' was said of a survey whose
    abstract reviews reinforcement-learning defences (read in a v4 panel draft)."""
    paper = {"title": "Guardians and Offenders: A Survey on Harmful Content Generation", "authors": ["C. Zhang", "J. Xu"]}
    method = ["We review defences that use reinforcement learning from human feedback and fine-tune guard models."]
    assert digest(1, paper, method, method, [], "survey").traits == []
    assert "reinforcement learning" in digest(2, paper, method, method, [], "method").traits


def test_sentences_an_abstract_joined_without_a_space_are_two_sentences(shared_data):
    """1.2% of the corpus's abstracts run one sentence into the next ("... long CoT.In this work,
    we propose ..."), and a draft quoted one verbatim; a name with a dot in it ("GBA.Polygon") stays
    one word."""
    reasoning, atlas = corpus_papers(shared_data, "2505.20101", "2506.04106")
    said = [c.text for c in candidate_sentences([reasoning])]
    assert not any("CoT.In" in s for s in said) and any(s.startswith("In this work") for s in said)
    assert any("GBA.Polygon" in c.text for c in candidate_sentences([atlas]))


def test_no_line_of_work_is_a_model_the_works_use_or_a_verdict(shared_data):
    """The six works of a 'Reinforcement Fine-Tuning' subsection (c26b): three share "Qwen2" (the
    model they train), which named "one group of works deals with qwen2"; the models are reported
    by the model sentence, and a line is what works do. "strong reasoning" is a verdict."""
    papers = corpus_papers(shared_data, "2506.16141", "2507.02851", "2510.09001", "2503.19470", "2506.07464",
                           "2505.19000")
    titles = [untrusted(p["title"]) for p in papers]
    texts = [untrusted(p["abstract"]) for p in papers]  # as agents/lines.py reads them: abstracts, titles beside
    assert sum("qwen2" in t.lower() for t in texts) >= 3
    lines = phrase_groups(texts, {"reinforcement", "learning", "llm", "llms"}, titles=titles)
    assert not any(line.phrase.lower().startswith(("qwen", "strong ", "complex ")) for line in lines), lines
    for line in lines:
        assert all(line.phrase.lower() in texts[i].lower() for i in line.members), line


def test_a_clause_cut_at_a_colon_does_not_end_on_the_word_that_opened_the_rest():
    """'we propose a discriminator-free video DPO framework that: (1) Uses original real videos ...'
    was written 'propose a discriminator-free video DPO framework that; by contrast, ...'."""
    from surveygraph.agents.digest import shorten

    assert shorten("a discriminator-free video DPO framework that: (1) Uses original real videos as win cases") == \
        "a discriminator-free video DPO framework"
    assert shorten("a benchmark of long-horizon web tasks for: (i) planning and (ii) recovery") == \
        "a benchmark of long-horizon web tasks"


def test_a_system_s_sentence_keeps_no_adverb_pointing_at_the_sentence_before():
    """"ProRL Agent (Zhang et al. [16]) also provides standardized ... sandbox environments" (c29o)."""
    from surveygraph.agents.digest import own_subject

    assert own_subject("ProRL Agent also provides standardized and extensible sandbox environments for agentic tasks.",
                       ["ProRL Agent"]) == ("ProRL Agent", "provides standardized and extensible sandbox environments "
                                                           "for agentic tasks.")
    assert own_subject("SentGraph builds a sentence-level graph over the retrieved passages.", ["SentGraph"])[1] == \
        "builds a sentence-level graph over the retrieved passages."


def test_a_system_name_before_a_plural_noun_is_no_subject_of_a_verb():
    """"XGRAG (Li et al. [30]) explanations exhibit a strong correlation ..." (a c29 draft)."""
    from surveygraph.agents.digest import own_subject

    assert own_subject("XGRAG explanations exhibit a strong correlation with graph centrality measures.", ["XGRAG"]) is None
    assert own_subject("XGRAG attributes answers to graph components.", ["XGRAG"])[1] == \
        "attributes answers to graph components."


def test_each_first_person_pronoun_of_a_contribution_becomes_its_own_third_person(shared_data):
    """"Montello et al. [75] propose ClustViT, where their expand upon the Vision Transformer (ViT)
    backbone" (a session-30 draft): "we" is "they", "our" is "their"."""
    paper = corpus_papers(shared_data, "2510.01948")[0]
    said = candidate_sentences([paper])
    work = digest(1, paper, [c.text for c in said], [c.text for c in said if c.role == "method"], [], "method")
    assert "where they expand upon the Vision Transformer" in work.contribution_text(), work.contribution_text()


def test_a_name_line_holds_the_works_writing_the_name_not_a_word_spelled_alike(shared_data):
    """"Two works centre on ABLE [14, 15]" (c35f): ABLE is a method of one work; the other (LEXMA)
    says its explanations "should be able to serve multiple audiences"."""
    able, lexma = corpus_papers(shared_data, "2606.07524", "2601.04208")
    more = [{"title": "Feature attribution for LLM predictions",
             "abstract": "We study attribution methods that are able to explain outputs."},
            {"title": "Saliency maps for LLMs", "abstract": "We compare gradient saliency and attention."}]
    papers = [able, lexma, *more]
    texts = [f"{p['title']}. {p['abstract']}" for p in papers]
    lines = phrase_groups(texts, set(), titles=[p["title"] for p in papers])
    assert not [line for line in lines if line.phrase.lower() == "able"], lines
