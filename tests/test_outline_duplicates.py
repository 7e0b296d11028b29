"""One concept, one heading: headings that name the same concept beyond the topic are merged or
rejected, wherever in the outline they stand (read in drafts: "KV Cache" and "KV Caching" both
heading sections; "Low-Resource Languages" and "Low-Resource Speech" in two sections of a speech
survey; "Self-Supervised Learning" beside "Self-Supervised Vision Transformers")."""

from __future__ import annotations

from surveygraph.agents.outline.headings import validate_heading
from surveygraph.agents.outline.parts import merge_duplicate_subsections


def test_an_inflected_heading_is_a_duplicate():
    topic = "speeding up inference of large language models"
    assert "duplicate of another heading" in validate_heading("KV Caching", topic=topic, taken={"kv cache"})
    assert validate_heading("Speculative Decoding", topic=topic, taken={"kv cache"}) == []


def _sub(title: str, rows: list[int]) -> dict:
    return {"title": title, "terms": [], "source": "concepts", "rows": rows}


def test_a_concept_filed_twice_becomes_one_subsection_that_reads_for_both():
    topic = "self-supervised learning for speech recognition"
    sections = [
        {"title": "Automatic Speech Recognition", "rows": list(range(0, 30)),
         "subs": [_sub("Multilingual Speech", list(range(0, 10))), _sub("Low-Resource Languages", list(range(10, 25))),
                  _sub("Arabic Speech", list(range(25, 30)))]},
        {"title": "Speech Representations", "rows": list(range(30, 50)),
         "subs": [_sub("Streaming ASR", list(range(30, 38))), _sub("Low-Resource Speech", list(range(38, 46))),
                  _sub("Emotion Recognition", list(range(46, 50)))]},
    ]
    merged = merge_duplicate_subsections(sections, topic)
    titles = [[s["title"] for s in section["subs"]] for section in merged]
    assert titles == [["Multilingual Speech", "Low-Resource Languages", "Arabic Speech"],
                      ["Streaming ASR", "Emotion Recognition"]]
    kept = merged[0]["subs"][1]
    assert kept["rows"] == [*range(10, 25), *range(38, 46)] and kept["merged"] == 2
    assert set(range(38, 46)) <= set(merged[0]["rows"]) and not set(range(38, 46)) & set(merged[1]["rows"])


def test_distinct_concepts_and_a_section_over_its_own_subsections_stay():
    topic = "efficient inference for large language models"
    sections = [{"title": "KV Cache", "rows": list(range(20)),
                 "subs": [_sub("KV Cache Compression", list(range(10))), _sub("KV Cache Quantization", list(range(10, 20)))]},
                {"title": "Decoding", "rows": list(range(20, 26)), "subs": [_sub("Speculative Decoding", list(range(20, 26)))]}]
    merged = merge_duplicate_subsections(sections, topic)
    assert [[s["title"] for s in section["subs"]] for section in merged] == [
        ["KV Cache Compression", "KV Cache Quantization"], ["Speculative Decoding"]]
    assert all("merged" not in s for section in merged for s in section["subs"])


def test_a_section_is_never_emptied_by_a_merge():
    topic = "vision transformers"
    sections = [{"title": "Token Merging", "rows": list(range(20)),
                 "subs": [_sub("Token Reduction", list(range(12))), _sub("Self-Supervised Vision Transformers", list(range(12, 20)))]},
                {"title": "Pretraining", "rows": list(range(20, 26)), "subs": [_sub("Self-Supervised Learning", list(range(20, 26)))]}]
    merged = merge_duplicate_subsections(sections, topic)
    # the lone subsection of "Pretraining" is the smaller one, but its section would be left empty:
    # the larger one goes to it instead
    assert [[s["title"] for s in section["subs"]] for section in merged] == [
        ["Token Reduction"], ["Self-Supervised Learning"]]
    assert merged[1]["subs"][0]["merged"] == 2 and set(range(12, 20)) <= set(merged[1]["subs"][0]["rows"])


def test_subsections_named_by_kinds_of_work_are_no_concept_to_merge():
    """An 83-paper pool (LLM time-series forecasting, session 22): its method section's papers no
    phrase parts were named "Methods, Benchmarks and Datasets"; merged as one concept with the
    evaluation section's lone "Benchmarks and Datasets", the 65 method papers moved under the
    benchmarks, and the blind reader found "Benchmarks and Evaluation holds 32 method papers"."""
    topic = "using large language models to forecast time series data"
    kinds = {"source": "role:kinds"}
    sections = [{"title": "Methods for Using Large Language Models to Forecast Time Series Data", "rows": list(range(71)),
                 "subs": [_sub("Question Answering", list(range(6))),
                          _sub("Methods, Benchmarks and Datasets", list(range(6, 71))) | kinds]},
                {"title": "Benchmarks and Evaluation", "rows": list(range(71, 83)),
                 "subs": [_sub("Benchmarks and Datasets", list(range(71, 83))) | kinds]}]
    merged = merge_duplicate_subsections(sections, topic)
    assert [len(sub["rows"]) for section in merged for sub in section["subs"]] == [6, 65, 12]


def test_the_broader_of_two_overlapping_method_sections_takes_the_other():
    from surveygraph.agents.outline.parts import merge_duplicate_sections

    topic = "alignment of large language models"
    sections = [
        {"title": "Direct Preference Optimization", "role": "methods", "rows": list(range(0, 30)),
         "subs": [_sub("Human Preferences", list(range(0, 10))), _sub("Human Values", list(range(10, 20))),
                  _sub("Preference Pairs", list(range(20, 30)))]},
        {"title": "Safety Alignment", "role": "methods", "rows": list(range(30, 45)),
         "subs": [_sub("Jailbreak Attacks", list(range(30, 38))), _sub("Preserving Safety", list(range(38, 45)))]},
        {"title": "Preference Optimization", "role": "methods", "rows": list(range(45, 57)),
         "subs": [_sub("Human Feedback", list(range(45, 57)))]},
        {"title": "Benchmarks and Evaluation of Preference Optimization", "role": "evaluation", "rows": [60, 61],
         "subs": [_sub("Benchmarks and Datasets", [60, 61])]},
    ]
    merged = merge_duplicate_sections(sections, topic)
    assert [s["title"] for s in merged] == ["Safety Alignment", "Preference Optimization",
                                            "Benchmarks and Evaluation of Preference Optimization"]
    broad = merged[1]
    assert [s["title"] for s in broad["subs"]] == ["Human Feedback", "Human Preferences", "Human Values", "Preference Pairs"]
    assert set(broad["rows"]) == set(range(0, 30)) | set(range(45, 57))


def test_a_prefix_joined_by_a_hyphen_is_one_word():
    # two ViT subsections: "Pre-Trained Vision Transformers" and "Pretrained Vision Transformers"
    taken = {"pre trained vision transformers"}
    assert "duplicate of another heading" in validate_heading("Pretrained Vision Transformers",
                                                              topic="Vision Transformers", taken=taken)
    assert validate_heading("Self-Supervised Vision Transformers", topic="Vision Transformers", taken=taken) == []


def test_a_word_english_puts_before_an_object_is_a_verb_not_a_heading_end():
    # "Transformers Exhibit", a ViT heading a blind reader called malformed
    from surveygraph.agents.outline.grams import verb_like

    runs = [[["vision", "transformers", "exhibit", "strong", "robustness"]],
            [["hybrid", "models", "exhibit", "remarkable", "accuracy"]],
            [["such", "transformers", "exhibit", "the", "best", "scaling"]],
            [["token", "merging", "reduces", "cost"]]]
    verbs = verb_like(runs)
    assert "exhibit" in verbs and "merging" not in verbs and "transformers" not in verbs


def test_the_topic_s_initialism_and_an_acronym_s_plural_name_no_concept_of_their_own():
    from surveygraph.agents.outline.headings import own_stems, topic_initialisms

    topic = "Multimodal Large Language Models"
    assert own_stems("MLLM Reasoning", topic) == own_stems("Reasoning in MLLMs", topic) == {"reason"}
    assert "rag" in topic_initialisms("Retrieval-Augmented Generation for Large Language Models")
    assert own_stems("Ill-Posed Problems", "Safety in Large Language Models") >= {"ill"}  # no initialism
    sections = [
        {"title": "Multimodal Reasoning", "rows": list(range(0, 30)),
         "subs": [_sub("MLLM Reasoning", list(range(0, 20))), _sub("Spatial Intelligence", list(range(20, 30)))]},
        {"title": "Question Answering", "rows": list(range(30, 60)),
         "subs": [_sub("Visual Grounding", list(range(30, 45))), _sub("Reasoning in MLLMs", list(range(45, 60)))]},
    ]
    merged = merge_duplicate_subsections(sections, topic)
    titles = [sub["title"] for section in merged for sub in section["subs"]]
    assert titles.count("MLLM Reasoning") + titles.count("Reasoning in MLLMs") == 1, titles


def test_a_subsection_named_as_another_section_joins_that_section():
    """Read in a draft: "KV Cache Eviction (KV cache eviction)" under "Long-Context LLM Inference",
    beside a section "KV Cache Eviction"."""
    from surveygraph.agents.outline.parts import move_subsections_named_as_sections

    topic = "quantization and KV cache tricks for cheaper LLM serving"
    sections = [{"title": "Long-Context LLM Inference", "rows": list(range(13)),
                 "subs": [_sub("KV Cache Eviction", [0, 1]), _sub("Mixed-Precision Quantization", [2, 3]),
                          _sub("KV Cache Management", list(range(4, 13)))]},
                {"title": "KV Cache Eviction", "rows": list(range(13, 24)), "subs": [_sub("Cache Budget", list(range(13, 24)))]},
                {"title": "Sparse Attention", "rows": [24, 25], "subs": [_sub("Token Selection", [24, 25])]}]
    moved = move_subsections_named_as_sections(sections, topic)
    assert [[s["title"] for s in section["subs"]] for section in moved] == [
        ["Mixed-Precision Quantization", "KV Cache Management"], ["Cache Budget"], ["Token Selection"]]
    assert moved[1]["rows"][-2:] == [0, 1] and not {0, 1} & set(moved[0]["rows"])
    # a section's last subsection stays where it is
    lone = [{"title": "Sparse Attention", "rows": [0, 1], "subs": [_sub("Token Selection", [0, 1])]},
            {"title": "Token Selection", "rows": [2, 3], "subs": [_sub("Top-K Tokens", [2, 3])]}]
    assert [len(s["subs"]) for s in move_subsections_named_as_sections(lone, topic)] == [1, 1]


def test_a_heading_naming_only_a_kind_beyond_the_topic_is_no_concept_to_merge():
    """'Preference Learning' in a survey of preference optimization names only 'learning' beyond the
    topic: merged with 'Reinforcement Learning' as one concept, its 25 papers were headed "Other Work
    on Preference Learning" (read in a default draft, session 28)."""
    from surveygraph.agents.outline.parts import merge_duplicate_sections

    topic = "preference optimization methods like DPO for aligning LLMs"
    sections = [
        {"title": "Reinforcement Learning", "role": "methods", "rows": list(range(0, 31)),
         "subs": [_sub("User Feedback", list(range(0, 3))), _sub("Jailbreak Attacks", list(range(3, 6)))]},
        {"title": "Preference Learning", "role": "methods", "rows": list(range(31, 41)),
         "subs": [_sub("Preference Learning", list(range(31, 36)))]},
        {"title": "Direct Preference Optimization", "role": "methods", "rows": list(range(41, 50)),
         "subs": [_sub("Likelihood Displacement", list(range(41, 45)))]},
        {"title": "Multi-Objective Preference Optimization", "role": "methods", "rows": list(range(50, 60)),
         "subs": [_sub("Pareto Fronts", list(range(50, 55)))]},
    ]
    merged = merge_duplicate_sections(sections, topic)
    assert [s["title"] for s in merged] == ["Reinforcement Learning", "Preference Learning",
                                            "Direct Preference Optimization", "Multi-Objective Preference Optimization"]


def test_a_heading_and_its_acronym_beside_the_words_it_stands_for_are_one_section():
    """"Explainable AI" and "Explainable Artificial Intelligence" both headed sections of a survey of
    explaining LLM predictions (c35f): one concept, one section, the subsections of both kept."""
    from surveygraph.agents.outline.parts import merge_duplicate_sections

    topic = "explaining the predictions of large language models"
    sections = [
        {"title": "Explainable AI", "role": "methods", "rows": list(range(0, 12)),
         "subs": [_sub("Integrated Gradients", list(range(0, 4))), _sub("User Trust", list(range(4, 8)))]},
        {"title": "Counterfactual Explanations", "role": "methods", "rows": list(range(12, 20)), "subs": []},
        {"title": "Explainable Artificial Intelligence", "role": "methods", "rows": list(range(20, 30)),
         "subs": [_sub("Saliency Maps", list(range(20, 25)))]},
    ]
    merged = merge_duplicate_sections(sections, topic)
    assert [s["title"] for s in merged] == ["Explainable AI", "Counterfactual Explanations"]
    assert [sub["title"] for sub in merged[0]["subs"]] == ["Integrated Gradients", "User Trust", "Saliency Maps"]
    assert merged[0]["rows"] == list(range(0, 12)) + list(range(20, 30))
    # an acronym the other heading does not spell out stays its own concept
    other = [{"title": "RAG Systems", "role": "methods", "rows": [0, 1], "subs": []},
             {"title": "Graph Neural Networks", "role": "methods", "rows": [2, 3], "subs": []}]
    assert len(merge_duplicate_sections(other, topic)) == 2
