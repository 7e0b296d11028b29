"""Language rules of the offline text assembly (issue 17, item 4): inflection, sentence adverbs,
surname order. The cases are the glitches read in real offline surveys."""

from __future__ import annotations

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


def test_a_sentence_capital_before_an_acronym_is_lowered_after_that():
    # read in the README survey: "Zhao et al. [34] point out that Existing MMRAG methods fail ..."
    assert attribute("Existing MMRAG methods fail to explain retrieval.", "Zhao et al.", True, "[3]", "report") == \
        "Zhao et al. [3] report that existing MMRAG methods fail to explain retrieval."
    # a capitalised term keeps its capitals, an acronym keeps its own
    assert attribute("Electronic Health Records (EHRs) hold notes.", "Kim", False, "[2]", "report") == \
        "Kim [2] reports that Electronic Health Records (EHRs) hold notes."
    assert attribute("RAG grounds answers in documents.", "Kim", False, "[2]", "report") == \
        "Kim [2] reports that RAG grounds answers in documents."
    assert attribute("Multimodal Retrieval-Augmented Generation (MRAG) adds images.", "Kim", False, "[2]", "report") == \
        "Kim [2] reports that Multimodal Retrieval-Augmented Generation (MRAG) adds images."
    assert attribute("While Large Language Models excel, they drift.", "Kim", False, "[2]", "report") == \
        "Kim [2] reports that while Large Language Models excel, they drift."
    assert attribute("Using CFVBench, models miss fine detail.", "Kim", False, "[2]", "report") == \
        "Kim [2] reports that using CFVBench, models miss fine detail."
