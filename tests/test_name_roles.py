"""Names the topic's literature uses as tools are never a work's evaluation data (agents/name_roles.py).

Blind readers of our drafts quoted "use CogVideoX", "use SUPO", "use SearchPlanner" as evaluation
data; the literature around a topic says, many times over, which names are models and which are
benchmarks.
"""

from __future__ import annotations

import gzip
import json
import re

from surveygraph.agents.facets import _definitions, paper_facets
from surveygraph.agents.name_roles import name_mentions, tool_names
from surveygraph.agents.topic_pool import misread_tools, not_data


def test_a_name_used_as_a_model_is_a_tool_and_a_benchmark_stays_data():
    texts = [
        ("Motion priors for video generation", "We fine-tune CogVideoX on our data. Results on VBench improve by 2 points."),
        ("Long video generation", "Built on CogVideoX, our method reaches 84.1 on VBench and beats prior work on UCF-101."),
        ("Camera control", "Our adapter plugs into the CogVideoX-5B backbone; experiments on the RealEstate10K dataset."),
        ("LongLive: Real-time Interactive Long Video Generation", "We present LongLive, a frame-level autoregressive model."),
        ("Sparse attention", "Speedups over LongLive reach 2x on VBench."),
        ("VBench-2.0: A Benchmark Suite", "We introduce a benchmark for intrinsic faithfulness of video generators."),
    ]
    tools = tool_names(texts)
    assert {"CogVideoX", "LongLive"} <= tools
    assert not {"VBench", "UCF-101", "RealEstate10K"} & tools
    assert name_mentions(texts)["VBench"]["data"] >= 3


def test_one_mention_is_not_evidence_of_a_tool():
    assert tool_names([("A", "We fine-tune HotpotQA-style readers."), ("B", "Results on GAIA.")]) == set()


def test_a_tool_is_left_out_of_a_work_s_evaluation_data_and_variants_of_its_own_system_too():
    paper = {"title": "FrameDiT: Diffusion Transformer with Frame-Level Matrix Attention",
             "abstract": "We propose FrameDiT. Experiments show that FrameDiT-H achieves state-of-the-art results on "
                         "UCF-101 and Kinetics-600, and outperforms baselines on VBench using CogVideoX."}
    assert "CogVideoX" in paper_facets(paper).data  # its own abstract alone cannot tell
    data = paper_facets(paper, {"CogVideoX"}).data
    assert "CogVideoX" not in data and "FrameDiT-H" not in data
    assert {"UCF-101", "Kinetics-600", "VBench"} <= set(data)


def test_an_acronym_defined_across_a_small_word_is_the_work_s_own_concept():
    abstract = "We present Human Video Generation in 4D (HVG), a latent video diffusion model."
    assert "HVG" in _definitions(abstract)


def test_the_run_records_only_the_tools_its_papers_would_misread():
    texts = [("X", "We fine-tune CogVideoX."), ("Y", "Built on CogVideoX, we evaluate on VBench."),
             ("Z", "Results on VBench.")]
    papers = [{"title": "Motion priors", "abstract": "Experiments on VBench and CogVideoX show gains."}]
    assert misread_tools(texts, papers) == ["CogVideoX"]
    assert not_data({"not_data": ["CogVideoX"]}) == {"CogVideoX"} and not_data(None) == set()


def test_real_video_generation_papers_tell_models_from_benchmarks(shared_data):
    texts = []
    with gzip.open(shared_data / "corpus" / "arxiv_2025_2026.jsonl.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            if "ideo" not in line:
                continue  # cheap pre-filter before parsing JSON
            record = json.loads(line)
            if re.search(r"\bvideo (?:generation|diffusion|synthesis)", record.get("title", ""), re.I):
                texts.append((record["title"], record.get("abstract") or ""))
    assert len(texts) > 300, "the corpus holds hundreds of video generation papers"
    tools = tool_names(texts)
    assert {"CogVideoX", "VAE"} <= tools
    assert not {"VBench", "UCF-101", "RealEstate10K"} & tools


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
