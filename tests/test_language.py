"""Language rules of the offline text assembly (issue 17, item 4): inflection, sentence adverbs,
surname order. The cases are the glitches read in real offline surveys."""

from __future__ import annotations

import pytest

from surveygraph.agents.attribution import attribute, paper_handle, surname, third_person


def test_past_tense_is_never_inflected_again():
    # read in a survey: "Smith [3] integrateds ...", "Considereds"
    assert third_person("integrated") == "integrated" and third_person("considered") == "considered"
    assert attribute("We integrated retrieval into decoding.", "Smith", False, "[3]", "report") == \
        "Smith [3] integrated retrieval into decoding."
    # ... while present-tense verbs that end in -ed/-eed still agree
    assert [third_person(v) for v in ("embed", "exceed", "propose", "study", "address")] == \
        ["embeds", "exceeds", "proposes", "studies", "addresses"]


def test_sentence_adverb_leads_instead_of_following_report_that():
    # read in a survey: "X et al. [n] report that Theoretically, they show ..."
    assert attribute("Theoretically, we show that the bound is tight.", "Smith et al.", True, "[3]", "report") == \
        "Theoretically, Smith et al. [3] show that the bound is tight."
    assert attribute("Empirically, the retriever doubles recall.", "Smith et al.", True, "[3]", "report") == \
        "Empirically, Smith et al. [3] report that the retriever doubles recall."
    assert attribute("Empirically, our method improves recall.", "Smith", False, "[3]", None) == \
        "Empirically, in Smith [3], their method improves recall."


def test_surname_first_names_give_the_surname():
    # read in a survey: "Xiaolong et al." for the arXiv author "Yin Xiaolong"
    assert surname("Yin Xiaolong") == "Yin" and surname("Xiaolong Yin") == "Yin"
    assert surname("Jane Q. Smith") == "Smith" and surname("Smith, Jane") == "Smith"
    assert surname("Wei Li") == "Li"  # both parts are surnames: the usual given-name-first order
    assert paper_handle({"authors": ["Yin Xiaolong", "Zhang Wei", "Ann Lee"]}) == ("Yin et al.", True)


def test_a_one_syllable_given_name_keeps_the_usual_order():
    # three c29 readers: "Zheng et al. [8]" for Zheng Hui's MATCHA paper, "Lei et al." for Lei Hsiung
    assert surname("Zheng Hui") == "Hui" and surname("Lei Hsiung") == "Hsiung" and surname("Zhong Guan") == "Guan"
    assert paper_handle({"authors": ["Zheng Hui", "Xiaokai Wei", "Yexi Jiang"]}) == ("Hui et al.", True)
    # a two-syllable pinyin given name after a surname is the surname-first order ...
    assert surname("Peng Shurui") == "Peng" and surname("Zhou Bingtao") == "Zhou"
    # ... a three-syllable one is no Chinese given name
    assert surname("Jin Tanaka") == "Tanaka" and surname("Yu Kumagai") == "Kumagai"


@pytest.mark.parametrize("sentence, after_that", [
    # read in the README survey: "Zhao et al. [34] point out that Existing MMRAG methods fail ..."
    ("Existing MMRAG methods fail to explain retrieval.", "existing MMRAG methods fail to explain retrieval."),
    ("While Large Language Models excel, they drift.", "while Large Language Models excel, they drift."),
    ("Using CFVBench, models miss fine detail.", "using CFVBench, models miss fine detail."),
    # a c25 draft: "Li et al. [24] point out that Despite Sparse Autoencoders (SAEs) have emerged ..."
    ("Despite Sparse Autoencoders (SAEs) have emerged, features stay opaque.",
     "despite Sparse Autoencoders (SAEs) have emerged, features stay opaque."),
    # a capitalised term keeps its capitals, an acronym its own
    ("Electronic Health Records (EHRs) hold notes.", "Electronic Health Records (EHRs) hold notes."),
    ("Multimodal Retrieval-Augmented Generation (MRAG) adds images.",
     "Multimodal Retrieval-Augmented Generation (MRAG) adds images."),
    ("RAG grounds answers in documents.", "RAG grounds answers in documents."),
    # read in a v4 panel draft: "Zhu et al. [9] point out that Existing Reinforcement Learning ..."
    ("Existing Reinforcement Learning from Human Feedback methods need labels.",
     "existing Reinforcement Learning from Human Feedback methods need labels."),
    # "... report that Further, they observed ...": a connective points at a sentence the quote lacks
    ("Further, safety drops after fine-tuning.", "safety drops after fine-tuning."),
    ("Moreover, the guard misses 75% of unsafe prompts.", "the guard misses 75% of unsafe prompts."),
    ("Yet, since RLVR rewards are sparse, training is unstable.", "since RLVR rewards are sparse, training is unstable."),
])
def test_a_sentence_capital_is_lowered_after_that_unless_it_starts_a_term(sentence, after_that):
    assert attribute(sentence, "Kim", False, "[2]", "report") == f"Kim [2] reports that {after_that}"


@pytest.mark.parametrize("sentence, quoted", [
    # read in a session-30 draft: "Jiao [21] points out that on the contrary, the self-attention ...",
    # "Dehghan et al. [22] report that more specifically, their results ...", "note that more recently, ..."
    ("On the contrary, the self-attention mechanism of ViT can draw the global relation on image patches.",
     "Jiao [21] points out that the self-attention mechanism of ViT can draw the global relation on image patches."),
    ("More specifically, our results indicate improvements in balanced accuracy.",
     "Jiao [21] points out that their results indicate improvements in balanced accuracy."),
    ("More recently, vision transformers (ViTs) have gained popularity.",
     "Jiao [21] points out that vision transformers (ViTs) have gained popularity."),
    # c30j: "Huang et al. [28] report that to be striking, their experiments reveal ..."
    ("To be striking, our experiments reveal unprecedented jailbreak capabilities.",
     "Jiao [21] points out that their experiments reveal unprecedented jailbreak capabilities."),
])
def test_a_connective_tying_a_sentence_to_the_one_before_goes(sentence, quoted):
    from surveygraph.agents.attribution import standalone

    assert attribute(standalone(sentence), "Jiao", False, "[21]", "point out") == quoted
