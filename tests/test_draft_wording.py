"""Wording blind readers quoted against our drafts, fixed where the text is made (v10/v11 panels):
structured-abstract labels, connectives, plural acronyms as data, line leads with tallies, an
architecture's inductive bias filed as a fairness challenge."""

from __future__ import annotations

import re

from surveygraph.agents.facets import paper_facets


def test_structured_abstract_labels_are_no_names_and_no_words_of_a_sentence():
    from surveygraph.agents.candidates import candidate_sentences

    paper = {"title": "LLMs for clinical question answering",
             "abstract": "BACKGROUND: Recent studies apply large language models to clinical questions. METHODS: "
                         "Five models answer questions from the MedQA and PubMedQA datasets. RESULTS: Experiments on "
                         "the MedQA dataset show gains of 5 points. CONCLUSIONS: Models still need oversight."}
    assert not {"BACKGROUND", "METHODS", "RESULTS", "CONCLUSIONS"} & set(paper_facets(paper).data)
    assert {"MedQA", "PubMedQA"} <= set(paper_facets(paper).data)
    assert not any(re.search(r"\b(?:BACKGROUND|METHODS|RESULTS|CONCLUSIONS)\b", c.text) for c in candidate_sentences([paper]))


def test_a_connective_goes_and_overcoming_a_limitation_is_no_limitation():
    from surveygraph.agents.attribution import attribute
    from surveygraph.agents.candidates import fixes_a_limitation

    said = attribute("So, image quality and realism degrade when rendered from far viewpoints.", "Taubner et al.",
                     True, "[54]", "point out")
    assert said == "Taubner et al. [54] point out that image quality and realism degrade when rendered from far viewpoints."
    assert fixes_a_limitation("It extends to dynamic scenes, overcoming the static-scene limitations of prior methods.")


def test_a_plural_acronym_is_a_class_of_models_not_data():
    paper = {"title": "Reasoning safety", "abstract": "Experiments on RLLMs and the AdvBench benchmark show gains of 4 points."}
    assert paper_facets(paper).data == ["AdvBench"]


def test_a_line_s_lead_never_makes_its_phrase_the_subject():
    from surveygraph.agents.lines import WorkLine, lead_sentence

    line = WorkLine("phrase", "jailbreak attacks", [1, 2, 3], titled=False)
    for turn in range(4):
        for first in (True, False):
            lead = lead_sentence(line, turn, first=first)
            assert not re.search(r"jailbreak attacks (?:is|runs|also)\b", lead, re.I), lead


def test_an_inductive_bias_is_no_fairness_challenge():
    from surveygraph.agents.trends import CHALLENGE_PATTERNS

    fairness = CHALLENGE_PATTERNS["safety, privacy and fairness"]
    assert not fairness.search("ViTs lack the inductive biases of CNNs and need large data.")
    assert fairness.search("Recommenders suffer from popularity bias.")


def test_only_one_work_uses_a_design_when_no_other_abstract_names_it():
    from surveygraph.agents.digest import digest
    from surveygraph.agents.lines import trait_sentence

    museg = digest(1, {"title": "MUSEG", "authors": ["Fuwen Luo"]},
                   ["We propose MUSEG, a novel RL-based method that enhances temporal understanding."], [], ["MUSEG"],
                   "method")
    tgpo = digest(2, {"title": "TGPO", "authors": ["A Xu", "B Li"]},
                  ["We propose TGPO.", "TGPO is trained with reinforcement learning on verifiable rewards."],
                  ["TGPO is trained with reinforcement learning on verifiable rewards."], ["TGPO"], "method")
    other = digest(3, {"title": "TAMMs", "authors": ["C Guo", "D Wu"]}, ["We propose TAMMs, a temporal model."], [],
                   ["TAMMs"], "method")
    assert "reinforcement learning" in museg.mentions
    said = trait_sentence([museg, tgpo, other])
    assert "only" not in said, said


def test_backbones_in_any_spelling_are_no_evaluation_data():
    paper = {"title": "Crop disease", "abstract": "Experiments on the PlantVillage dataset with MobilenetV2 and Swin "
                                                  "Transformer show gains of 3 points."}
    assert paper_facets(paper).data == ["PlantVillage"]


def test_field_wide_tools_name_no_line_of_work():
    from surveygraph.agents.grouping import phrase_groups

    texts = ["We train deep neural networks with neural networks for sparse attention in vision transformers.",
             "Neural networks with sparse attention prune tokens in vision transformers.",
             "Neural networks and sparse attention for fast vision transformers.",
             "A study of neural networks for medical images."]
    labels = [line.phrase for line in phrase_groups(texts, {"vision", "transformers"}, titles=["", "", "", ""])]
    assert "neural networks" not in labels and "sparse attention" in labels, labels


def test_a_topic_typed_as_a_question_heads_no_section():
    from surveygraph.agents.outline.roles import APPLICATIONS, EVALUATION, role_heading

    assert role_heading(APPLICATIONS, "how to stop LLMs from hallucinating") == "Application Domains"
    assert role_heading(EVALUATION, "making large language model inference faster") == "Benchmarks and Evaluation"
    assert role_heading(EVALUATION, "Safety in Large Language Models") == \
        "Benchmarks and Evaluation of Safety in Large Language Models"
    # a subject headed by the role's own word (c27q: "Benchmarks and Evaluation of Safety Evaluation Benchmarks")
    assert role_heading(EVALUATION, "safety evaluation benchmarks for large language models") == \
        "Safety Benchmarks and Evaluation"
    assert role_heading(EVALUATION, "code generation benchmarks") == "Code Generation Benchmarks and Evaluation"
    # a long topic cut to its tool names no subject (c36g: "Benchmarks and Evaluation of Large Language
    # Models" in a survey of LLMs in recommender systems)
    assert role_heading(EVALUATION, "large language models in recommender systems") == "Benchmarks and Evaluation"
    assert role_heading(APPLICATIONS, "graph neural networks for molecular property prediction") == "Application Domains"
    assert role_heading(APPLICATIONS, "Retrieval-Augmented Generation for Large Language Models") == \
        "Applications of Retrieval-Augmented Generation"
    assert role_heading(APPLICATIONS, "benchmarks for evaluating LLM-based agents") == "Application Domains"


def test_a_topic_typed_as_a_task_to_do_heads_no_section():
    """A blind reader quoted "Benchmarks and Evaluation of Using Large Language Models to Forecast Time
    Series Data"; a gerund before its object is a task, an -ing noun before its head a field."""
    from surveygraph.agents.outline.parts import fallback_method_title
    from surveygraph.agents.outline.roles import APPLICATIONS, EVALUATION, role_heading

    for task in ("using large language models to forecast time series data", "segmenting organs and tumours in CT",
                 "recognising emotions from speech", "detecting deepfake videos and images",
                 # "Benchmarks and Evaluation of Explaining the Predictions" headed a c35f section
                 "explaining the predictions of large language models"):
        assert role_heading(EVALUATION, task) == "Benchmarks and Evaluation", task
        assert role_heading(APPLICATIONS, task) == "Application Domains", task
        assert fallback_method_title(task) == "Proposed Methods and Systems", task
    assert role_heading(EVALUATION, "Reasoning Models") == "Benchmarks and Evaluation of Reasoning Models"
    assert role_heading(APPLICATIONS, "Learning with Noisy Labels") == "Applications of Learning with Noisy Labels"


def test_limitations_a_study_sorts_are_its_subject_not_what_it_leaves_open():
    from surveygraph.agents.candidates import states_a_limitation

    assert not states_a_limitation("We analyze the sources of non-robustness, categorizing intrinsic model limitations, "
                                   "data-driven vulnerabilities, and external adversarial factors.")
    assert not states_a_limitation("Using 600 notes, we annotated reasoning traces to define a taxonomy mapping "
                                   "computational failures to cognitive bias frameworks.")
    assert not states_a_limitation("Existing approaches each come with distinct advantages and limitations.")
    # c31 readers: "labels a definition as a limitation"
    assert not states_a_limitation('We distinguish ethical refusals, which explicitly cite safety or normative concerns '
                                   '(e.g., "I can\'t help with that because it may be harmful"), and technical refusals, '
                                   'which reflect system limitations (e.g., "I can\'t answer because I lack real-time data").')
    assert not states_a_limitation("For each stage, we provide a detailed examination from the viewpoint of LLMs and "
                                   "multimodal LLMs (MLLMs), highlighting their mechanisms and limitations.")
    assert states_a_limitation("However, image quality degrades when rendered from viewpoints far from the reference.")
    # c23 readers: claims of success filed as limitations
    assert not states_a_limitation("Compared with eviction baselines, their method exhibits less performance "
                                   "degradation at a 10% cache budget.")
    assert not states_a_limitation("The learned gate does not hurt success rates on LIBERO.")
    assert states_a_limitation("Yet the method does not generalize to unseen embodiments.")
    # c35f: the failures a work's own test finds in other models (arXiv 2510.00047's sentence)
    assert not states_a_limitation("Across 120 curated OK-VQA examples and multiple VLMs, EDCT uncovers substantial "
                                   "faithfulness gaps and provides regulator-aligned audit artifacts indicating when "
                                   "cited concepts fail causal tests.")
    assert states_a_limitation("Existing methods that detect hallucinations fail on long outputs.")
    # c36j: the limitations an attack exposes in others' defenses
    assert not states_a_limitation("CognitiveAttack achieves a substantially higher attack success rate compared to "
                                   "the SOTA black-box method PAP (60.1% vs. 31.6%), exposing critical limitations "
                                   "in current defense mechanisms.")
    assert states_a_limitation("Our defense still shows limitations against adaptive attacks.")


def test_what_a_method_needs_not_or_recovers_from_and_failures_it_avoids_are_no_limitations():
    """Sentences c28 readers found filed under 'One limitation is stated' (c28e, c28g, c28i, c28j)."""
    from surveygraph.agents.candidates import states_a_limitation

    assert not states_a_limitation("PAPO does not rely on additional data curation, external reward models, or "
                                   "proprietary models.")
    assert not states_a_limitation("A chain-of-thought-driven multi-call reasoning scaffold further enhances robustness "
                                   "through self-verification and adaptive recovery from tool failures.")
    assert not states_a_limitation("GeneShift increases the jailbreak success rate from 0% to 60% when direct "
                                   "prompting alone would fail.")
    assert not states_a_limitation("By explicitly exploiting the validation-generation gap, FLIP enables reliable "
                                   "reward modeling in downscaled regimes where judgment methods fail.")
    assert not states_a_limitation("PEARL adopts a two-stage approach: an offline phase where the agent explores "
                                   "tools to learn valid usage patterns and failure conditions, and an online phase.")
    assert not states_a_limitation("We summarize representative methods, evaluation protocols, and applications, and "
                                   "discuss open challenges and future directions toward reliable agentic search.")
    # a purpose clause names what the method counters (c33m)
    assert not states_a_limitation("To mitigate potential performance degradation due to shared weights, ScaleNet "
                                   "introduces a small set of adjustment parameters for each layer.")
    # what fails stays a limitation, a work's own or earlier methods'
    assert states_a_limitation("Since RLVR relies on verifiers that presuppose standard answers, it cannot be directly "
                               "applied to open-ended tasks.")
    assert states_a_limitation("Performance degrades as the context length increases.")
    assert states_a_limitation("Supervised low-light enhancement models, though effective for 2D tasks, struggle to "
                               "generalize to new scenes.")


def test_an_abstract_over_one_section_says_within_it():
    from surveygraph.agents.frame_floor import Overview, floor_abstract

    facts = {"cited": 12, "topic": "prompt injection", "years": {2025: 12},
             "sections": [{"title": "Methods for Prompt Injection", "papers": [], "subsections": [], "recent_share": 0}]}
    text = floor_abstract(facts, Overview([[]], [], None, [], []))
    assert "within it, groups" in text and "within each" not in text


def test_the_fallback_method_section_never_repeats_a_question():
    from surveygraph.agents.outline.parts import fallback_method_title

    assert fallback_method_title("can large language models forecast time series") == "Proposed Methods and Systems"
    assert fallback_method_title("Graph Neural Networks for Recommendation") == \
        "Methods for Graph Neural Networks for Recommendation"


def test_a_lone_subsection_under_its_section_heading_says_what_its_works_are_about():
    """A c23 reader: "'5 Multi-Document Summarization' says 'This section reviews seven works on
    semantic similarity'"."""
    from surveygraph.agents.exporter import folded_opening

    assert folded_opening("This subsection reviews seven works on semantic similarity, all of which propose new "
                          "methods. Two lines.", "Multi-Document Summarization", "Semantic Similarity") == (
        "This section reviews seven works on semantic similarity, within multi-document summarization, all of which "
        "propose new methods. Two lines.")
    same = "This subsection reviews three works on token pruning: A [1], B [2]."
    assert folded_opening(same, "Token Pruning", "Token Pruning") == same.replace("subsection", "section")
    # the heading says the theme already: no ", within further methods, benchmarks and datasets" (c29o)
    further = "This subsection reviews 32 works on methods, benchmarks and datasets. Five lines."
    assert folded_opening(further, "Further Methods, Benchmarks and Datasets", "Methods, Benchmarks and Datasets") == \
        further.replace("subsection", "section")


def test_a_shared_phrase_leads_one_pair_of_a_paragraph_only(shared_data):
    """A c23 reader quoted "'Both address KV cache compression: ... Both address KV cache compression: ...'"."""
    from surveygraph.agents.digest import digest
    from surveygraph.agents.lines import contrast_sentences
    from tests.corpus_papers import corpus_papers

    papers = corpus_papers(shared_data, "2503.23956", "2504.09261", "2504.09936", "2505.24133", "2506.04642")
    from surveygraph.agents.candidates import candidate_sentences

    said = {k: [c for c in candidate_sentences(papers) if c.key == k] for k in range(1, len(papers) + 1)}
    works = [digest(k, p, [c.text for c in said[k]], [c.text for c in said[k] if c.role == "method"], [], "method")
             for k, p in enumerate(papers, start=1)]
    works = [w for w in works if w.contribution]
    assert len(works) >= 4
    said = contrast_sentences(works, shared=lambda a, b: ("KV cache compression", True))
    assert sum(s.startswith("Both address KV cache compression") for s in said) == 1, said


def test_other_work_subsections_open_as_further_works_on_their_section():
    """c27q: "This subsection reviews eight works on other work on harmful content"."""
    from surveygraph.agents.outline.parts import other_work_title
    from surveygraph.agents.synthesis import opening_sentence

    papers = [{"title": f"Paper {i}", "authors": ["A. Author"]} for i in range(8)]
    assert opening_sentence(other_work_title("Harmful Content"), papers, list_works=False) == \
        "This subsection reviews eight further works on harmful content."
    assert opening_sentence("Token Pruning", papers[:3], list_works=False) == \
        "This subsection reviews three works on token pruning."


def test_a_line_of_one_kind_of_work_is_a_whole_sentence_when_no_contrast_follows(shared_data):
    """c27q: "Among the empirical studies [59, 60]. Marx and Dunaiski [59] note that ..." - the
    lead-in of a kind-of-work line stood alone as a sentence when no contrast of the two followed."""
    from surveygraph.agents.lines import WorkLine, kind_line_sentence
    from surveygraph.agents.synthesis import synthesize

    from test_outline_taxonomy import _corpus_rows

    assert kind_line_sentence(WorkLine("kind", "empirical studies", [2, 1], lead_kind="study")) == \
        "Two works [1, 2] are empirical studies."
    want = ["2605.18239", "2509.00544", "2605.29068", "2603.02588", "2506.15734", "2606.15396", "2605.17173"]
    rows = {r["paper_id"]: r for r in _corpus_rows(shared_data, lambda r: r["arxiv_id"] in want, len(want))}
    papers = [rows[f"arxiv:{i}"] for i in want if f"arxiv:{i}" in rows]
    assert len(papers) == len(want)
    text = synthesize("Other Work on Safety Guardrails", papers,
                      topic="safety evaluation benchmarks for large language models")
    assert not re.search(r"\bAmong the [\w ]+ \[[\d, ]+\]\.", text), text


def test_no_line_is_named_by_a_modifier_cut_before_its_noun_or_by_a_verb_and_its_object(shared_data):
    """c29 readers quoted lines named "fine-grained visual [3, 4]", "identify open [3, 4, 5]" and
    "enhance spatial reasoning [81, 82]", and a conclusion's "convolutional neural (26 works)": the
    phrase is nine times in ten continued by a noun ('fine-grained visual understanding'), or it
    follows "to" ('to enhance spatial reasoning')."""
    from surveygraph.agents.grouping import phrase_groups
    from tests.corpus_papers import corpus_papers

    subsections = {
        "fine-grained visual": ("2506.02537", "2505.20426", "2509.00664", "2604.12508", "2510.12184", "2510.01954",
                                "2606.19534", "2506.07218"),
        "identify open": ("2504.00125", "2604.16042", "2506.03408", "2508.07959", "2503.15850", "2510.01048",
                          "2507.06203", "2506.05451"),
        "enhance spatial reasoning": ("2604.09712", "2505.12363", "2506.02537", "2505.20426")}
    for phrase, ids in subsections.items():
        papers = corpus_papers(shared_data, *ids)
        texts = [f"{p['title']}. {p['abstract']}" for p in papers]
        lines = phrase_groups(texts, {"multimodal", "large", "language", "models", "llms", "interpretability"},
                              titles=[p["title"] for p in papers])
        assert lines and phrase not in [line.phrase.lower() for line in lines], (phrase, lines)


def test_a_pair_opening_a_paragraph_is_two_works_not_both(shared_data):
    """c29r: "Both involve direct preference optimization:" opened a paragraph of seven works, and the
    reader took it to introduce all seven. Without a line named before it, the pair is "Two works"."""
    from surveygraph.agents.synthesis import synthesize
    from tests.corpus_papers import corpus_papers

    papers = corpus_papers(shared_data, "2606.20508", "2603.22829", "2602.21346", "2605.20994", "2506.08885",
                           "2505.11926", "2504.02725")
    text = synthesize("Preference Optimization", papers, topic="safety alignment and refusal behaviour of LLMs")
    paragraphs = [p for p in text.split("\n\n") if p.strip()]
    assert len(paragraphs) >= 2
    assert not [p for p in paragraphs if p.startswith("Both ") or ", both " in p[:60]], paragraphs
    assert any(p.startswith("Two works ") or ", two works " in p[:60] for p in paragraphs), paragraphs


def test_a_title_that_spells_an_acronym_in_capitals_names_no_line_in_that_spelling(shared_data):
    """"One line of work runs through them, sAfety aLIgnment [33, 34]" (c30j, a subsection on adversarial
    attacks in a survey of "LLM safety: risks, attacks and defenses"): a title "AdversariaL attacK sAfety
    aLIgnment(ALKALI)" capitalises letters inside ordinary words; another spelling names the line."""
    from surveygraph.agents.grouping import phrase_groups
    from surveygraph.retrieval.spelling import WordFamilies
    from tests.corpus_papers import corpus_papers

    papers = corpus_papers(shared_data, "2505.21967", "2506.08885", "2507.06489", "2509.00391", "2512.21815",
                           "2504.00218", "2509.19870", "2606.01441")
    assert "sAfety aLIgnment" in papers[1]["title"]
    lines = phrase_groups([f"{p['title']}. {p['abstract']}" for p in papers],
                          WordFamilies({"llm", "llms", "safety", "risks", "attacks", "defenses", "adversarial"}),
                          titles=[p["title"] for p in papers])
    assert "safety alignment" in [line.phrase for line in lines], lines
