"""Comparative statements of a subsection (agents/comparison.py) from facets (agents/facets.py):
each states only facts found in the works it cites, on fixtures and on real corpus papers."""

from __future__ import annotations

import re

import pytest

from tests.generation_helpers import rag_papers
from tests.synthesis_fixtures import CLEAN_PAPERS
from surveygraph.agents.comparison import evaluation_sentences, kind_sentence, model_sentence, works
from surveygraph.agents.facets import contribution_kind, paper_facets, result_clause
from surveygraph.agents.synthesis import synthesize
from surveygraph.agents.text import CITATION_MARKER, marker_numbers, sentences
from surveygraph.sanitize import untrusted


def cited(sentence: str) -> set[int]:
    return {n for m in CITATION_MARKER.finditer(sentence) for n in marker_numbers(m.group(1))}


def test_facets_of_the_fixture_papers():
    dense, sparse, graph, abstain = (paper_facets(p) for p in CLEAN_PAPERS)
    assert (dense.kind, sparse.kind, graph.kind, abstain.kind) == ("method", "study", "method", "method")
    assert dense.data == ["Natural Questions", "TriviaQA"] and dense.metrics == ["exact match"]
    assert dense.result == "improves exact match by 3.1 points over concatenation readers"
    assert sparse.data == ["SciFact"] and graph.data == ["HotpotQA"]
    assert "DenseFuse" not in dense.data  # the paper's own system is not its evaluation data


def test_kinds_and_result_clauses():
    assert contribution_kind("A Survey of Multimodal RAG", "") == "survey"
    assert contribution_kind("X: A Benchmark for Y", "We propose a method.") == "benchmark"
    assert contribution_kind("Revisiting Z", "We study how retrievers fail and compare five of them.") == "study"
    assert contribution_kind("Z", "We propose Z, which studies nothing.") == "method"
    # read in the README survey: InForage (a method that builds its training data) was listed as a benchmark
    assert contribution_kind("Scent of Knowledge: Optimizing Search-Enhanced Reasoning with Information Foraging",
                             "We propose InForage, a reinforcement learning framework. To facilitate training, "
                             "we construct a human-guided dataset of search trajectories.") == "method"
    assert contribution_kind("Grounded QA at Scale", "We introduce GQA-10K, a benchmark of grounded questions, "
                             "and propose a baseline.") == "benchmark"
    assert result_clause("Our method improves accuracy by 21.2% over the base model.") == \
        "improves accuracy by 21.2% over the base model"
    assert result_clause("We improve accuracy by 3 points over our baseline.") == ""  # speaks as "we": not quoted
    assert result_clause("It is fast.") == ""


def test_the_kinds_lead_the_subsection_and_evaluation_follows_the_lines():
    text = synthesize("Dense and Sparse Retrieval", CLEAN_PAPERS, topic="Retrieval-Augmented Generation")
    paragraphs = text.split("\n\n")
    first = sentences(paragraphs[0])
    assert first[0].startswith("This subsection reviews four works")
    assert first[1] == "Three of the four propose new methods or systems; Okafor [2] is an empirical study."
    evaluation = next(p for p in paragraphs if p.startswith("The named evaluation data"))
    assert evaluation.startswith("The named evaluation data differ from work to work: Smith et al. [1] use Natural "
                                 "Questions and TriviaQA; Okafor [2] uses SciFact")
    assert paragraphs.index(evaluation) > 1  # after the works' contributions
    assert text.count("3.1 points") <= 1


def _facts_hold(sentence: str, papers: list[dict]) -> list[str]:
    """Every quoted figure and every data name attributed to a work is in that work's abstract."""
    problems = []
    for quote, key in re.findall(r"“([^”]+)” \([^()]*?\[(\d+)\]\)", sentence):
        if quote not in " ".join(untrusted(papers[int(key) - 1]["abstract"]).split()):
            problems.append(f"quote not in [{key}]: {quote}")
    for key, names in re.findall(r"\[(\d+)\] (?:uses?|evaluates? on) ([^;.]+)", sentence):
        abstract = untrusted(papers[int(key) - 1]["abstract"])
        for name in re.split(r", | and ", names):
            if name and name not in abstract:
                problems.append(f"data name not in [{key}]: {name}")
    return problems


def test_comparisons_over_real_corpus_papers_state_only_what_the_abstracts_say(shared_data):
    papers = [p.model_dump() for p in rag_papers(shared_data, 160)]
    groups = [papers[i:i + 8] for i in range(0, len(papers), 8)]
    said, problems, cited_per_sentence = [], [], []
    for group in groups:
        compared = works(group, [paper_facets(p) for p in group])
        lines = [kind_sentence(compared), *evaluation_sentences(compared, {"retrieval", "augmented", "generation", "rag"})]
        lines = [line for line in lines if line]
        assert lines, "every group of eight gets at least its kinds sentence"
        for line in lines:
            assert cited(line) <= set(range(1, len(group) + 1)), line
            assert line[:1].isupper() and line.endswith("."), line
            problems += _facts_hold(line, group)
            cited_per_sentence.append(len(cited(line)))
        said += lines
    assert not problems, problems[:5]
    assert len(set(said)) == len(said) or all(s.startswith("All ") for s in said if said.count(s) > 1)
    # comparisons relate works: most sentences cite two or more
    assert sum(n >= 2 for n in cited_per_sentence) >= 0.7 * len(cited_per_sentence)


@pytest.mark.parametrize("title", ["HIRAG: Hierarchical-Thought Instruction-Tuning Retrieval-Augmented Generation"])
def test_own_system_names_are_not_evaluation_data(title):
    paper = {"title": title, "abstract": "We propose HIRAG, a method. Experiments show that HIRAG improves results "
                                         "on datasets such as RGB, PopQA, MuSiQue, HotpotQA and PubmedQA."}
    facets = paper_facets(paper)
    assert facets.data == ["RGB", "PopQA", "MuSiQue", "HotpotQA", "PubmedQA"]


def test_one_work_of_each_kind_is_named_not_counted():
    pair = CLEAN_PAPERS[:2]  # a method and an empirical study
    sentence = kind_sentence(works(pair, [paper_facets(p) for p in pair]))
    assert not sentence.startswith("One of the two")  # "One of the two are ..." read in a survey
    assert "Smith et al. [1] propose a new method or system" in sentence and "Okafor [2] is an empirical study" in sentence


@pytest.mark.parametrize("abstract, data, not_data", [
    ("The rise of Omni-modal Large Language Models (OLLMs) calls for safety tests. We introduce OmniSafe, a "
     "parallel benchmark for OLLM safety evaluation. Experiments on HarmBench show gaps.", ["HarmBench"], ["OLLM", "OLLMs"]),
    ("We train with Group Relative Policy Optimization (GRPO). We compare GRPO and our variant on the GSM8K "
     "benchmark.", ["GSM8K"], ["GRPO"]),
    ("We detect objects in 3D scenes. Experiments on the nuScenes and KITTI benchmarks with 3D boxes reach 71.2% NDS; "
     "code is on GitHub.", ["KITTI"], ["3D", "GitHub", "NDS"]),
    ("We evaluate on the KITTI benchmark with ResNet-50, Faster R-CNN and YOLOv10 backbones. Experiments on "
     "Qwen 3B-32B models on GSM8K.", ["KITTI", "GSM8K"], ["ResNet-50", "Faster R-CNN", "YOLOv10", "3B-32B"]),
    ("Experiments on the MMLU benchmark with Grok-1, GLM-4 and Falcon-40B show gains of 3%.", ["MMLU"],
     ["Grok-1", "GLM-4", "Falcon-40B"]),  # "uses Grok-1 as named evaluation data" (v8 panel)
    ("We pretrain on egocentric video. Experiments on EPIC-KITCHENS-100 (EK-100) and the What If TSF (WIT), a "
     "multimodal forecasting benchmark, show gains.", ["EK-100", "WIT"], []),
    # read in a ViT draft: "Ren et al. use DeiT and ImageNet", "Xiang et al. use VideoMAE-B", "use FLOPs"
    # a v9 reader: "Kachroo et al. [11] use 7B LLMs" listed as evaluation data
    ("We align models. Experiments on 7B LLMs and the AIME benchmark show gains of 3%.", ["AIME"], ["7B LLMs"]),
    ("We distil detectors. Results on the COCO benchmark improve AP by 2 points and AP50 by 3.", ["COCO"], ["AP", "AP50"]),
    ("We replace attention in DeiT and VideoMAE-B backbones. Experiments on the ImageNet benchmark cut FLOPs by "
     "40% at equal accuracy.", ["ImageNet"], ["DeiT", "VideoMAE-B", "FLOPs"]),
    # a c34k draft: "Almalioglu et al. [35] use UperNet" (the baselines it outperforms, read as its data;
    # the sentence of arXiv 2504.13310)
    ("This approach allows us to outperform conventional supervised architecture such as DeepLabv3 or UNet, and "
     "state-of-the-art self-supervised learning-based arhitectures such as DPT, SegFormer or UperNet, as shown by "
     "extensive evaluations on benchmark SAR datasets.", [], ["DeepLabv3", "DPT", "UperNet"]),
    # a c35a draft: "Alkhatib and Jamali [22] use 2D-CNN" (the competitors of arXiv MixerCA's abstract)
    ("Extensive experiments on four hyperspectral benchmark datasets reveal clear advantages over several "
     "competing algorithms, including 2D-CNN, 3D-CNN, Tri-CNN, HybridSN, ViT, and Swin Transformer.", [],
     ["2D-CNN", "3D-CNN", "Tri-CNN"]),
    # a c33r draft: "Huang et al. evaluate on ACDC, HD95 and 93G FLOPs" (a boundary measure, a compute count)
    ("Experiments on the ACDC benchmark, HD95 and 93G FLOPs show gains of 2% in Dice.", ["ACDC"], ["HD95", "93G FLOPs"]),
    # a session-30 draft: "Wandel et al. [73] use DINOv3-S and SPair-71k", "Su [68] uses DINOv1, ImageNet-1K"
    ("Experiments with DINOv1 and DINOv3-S features on the ImageNet-1K benchmark show gains of 2%.", ["ImageNet-1K"],
     ["DINOv1", "DINOv3-S"]),
    # v13 readers: "Kulkarni uses AlexNet", "Pang et al. use SwinUNETR", "Su et al. use Large Vision-Language
    # Models", "Duan et al. use GPT-o1", "Wang et al. use DeepMind", "Lee et al. use Using R-MHSafe"
    ("We compare AlexNet, ResNet and ViT on the EuroSAT dataset, reaching 98% accuracy.", ["EuroSAT"], ["AlexNet"]),
    ("We evaluate the performance of SwinUNETR on brain MRI datasets and show superior quality.", [],
     ["SwinUNETR", "MRI"]),
    ("Experiments on Large Vision-Language Models and the ImageNet benchmark show 2x speedups.", ["ImageNet"],
     ["Large Vision-Language Models"]),
    ("It shows robustness on the jailbreak dataset, nearing GPT-o1 levels and GPT-oss-120b.", [], ["GPT-o1"]),
    ("Experiments on benchmarks from OpenAI and DeepMind show gains of 5% on MATH.", [], ["OpenAI", "DeepMind"]),
    # its own method and the baselines it beats are no evaluation data either
    ("This paper introduces RepBend, a novel approach to safety. Through extensive evaluation, RepBend achieves "
     "state-of-the-art performance, outperforming prior methods such as Circuit Breaker, RMU, and NPO, with up to "
     "95% reduction in attack success rates across the HarmBench and WildJailbreak benchmarks.",
     ["HarmBench", "WildJailbreak"], ["RepBend", "Circuit Breaker", "RMU", "NPO"]),
    # a link's account name and a metric in another case (a closing-check reader: "use XueyangFeng",
    # "use BertScore as named evaluation data")
    ("Experiments on the WebShop benchmark show gains of 7% in BertScore. Code: https://github.com/XueyangFeng/Tool",
     ["WebShop"], ["XueyangFeng", "BertScore"]),
    ("Using R-MHSafe and MHSafeEval, we conduct a large-scale evaluation across LLMs. Results on the MHSafe "
     "benchmark show gaps of 20%.",
     ["R-MHSafe", "MHSafe"], ["Using R-MHSafe"]),
    # a session-21 reader: "'LLaDA' listed as a dataset, an RTX 4090 GPU listed as evaluation data"
    ("We quantize the KV cache. Experiments with LLaDA on the LongBench benchmark and on an RTX 4090 and "
     "A100 GPUs show 2x speedups on GSM8K.", ["LongBench", "GSM8K"], ["LLaDA", "RTX 4090", "A100", "A100 GPUs"]),
    # c23 readers: "'Wen et al. use TTFT'", "'Evaluation data' lists ... 30B-A3B"
    ("We serve MoE models. Experiments with 30B-A3B on the ShareGPT dataset cut TTFT and TPOT by 30% and NFE by 2x.",
     ["ShareGPT"], ["30B-A3B", "TTFT", "TPOT", "NFE"]),
])
def test_concepts_the_abstract_defines_are_not_evaluation_data(abstract, data, not_data):
    """An abbreviation the abstract spells out for a model class or a method ("Large Reasoning
    Models (LRMs)") is what the paper is about, not the data it is evaluated on; a dimension, a
    code host or a metric is not data either. An abbreviation whose expansion is itself a named
    dataset stays data."""
    found = paper_facets({"title": "A study", "abstract": abstract}).data
    for name in data:
        assert name in found, (name, found)
    for name in not_data:
        assert name not in found, (name, found)


@pytest.mark.parametrize("title, kind", [
    ("Learning to Shop Like Humans: A Review-driven Retrieval-Augmented Recommendation Framework with LLMs", "method"),
    ("Sensory-Aware Sequential Recommendation via Review-Distilled Representations", "method"),
    ("ReviewGuard: Enhancing Deficient Peer Review Detection via LLM-Driven Data Augmentation", "method"),
    ("Towards Practical Defect-Focused Automated Code Review", "method"),
    ("A Review of Graph Neural Networks for Recommendation", "survey"),
    ("Large Language Models for Recommendation: A Survey", "survey"),
])
def test_the_reviews_a_method_reads_do_not_make_it_a_review(title, kind):
    """Two method papers sat in an LLM4Rec draft's "Surveys and Overviews" section because their
    titles say "Review-driven" / "Review-Distilled" (v4 panel)."""
    assert contribution_kind(title, "We propose a novel framework and evaluate it on four datasets.") == kind


@pytest.mark.parametrize("title, abstract, names", [
    # read in our drafts' tables: 'TI2V', 'I2V', 'AR', 'LLDMs', 'T2I' given as the system's name
    ("Incorporating Flexible Image Conditioning into Text-to-Video Diffusion Models without Training",
     "We introduce a unified formulation for text-image-to-video (TI2V) generation. Unlike image-to-video (I2V) "
     "methods, ours needs no training.", []),
    ("Real-Time Motion-Controllable Autoregressive Video Diffusion",
     "We propose an autoregressive (AR) video diffusion model with a Self-Rollout mechanism.", []),
    ("Jailbreaking Large Language Diffusion Models", "Large Language Diffusion Models (LLDMs) are new. We show flaws.",
     []),
    ("Hey AI, Generate Me a Hardware Code! Agentic AI-based Hardware Design", "We propose a Visual-Grounded agent.", []),
    # a title's capitals make no name of a description ("LLM-Based" was listed as four systems' name)
    ("From Logs to Language: Learning Optimal Verbalization for LLM-Based Recommendation in Production",
     "We propose a data-centric framework.", []),
    ("An Investigation of Linguistic Biases in LLM-Based Recommendations", "We study dialects.", []),
    ("CLIP-Adapter: Better Vision-Language Models with Feature Adapters", "We propose CLIP-Adapter.", ["CLIP-Adapter"]),
    # a system's own name stays, defined in the abstract or heading the title
    ("Safety Alignment via Constrained Knowledge Unlearning",
     "We propose a novel safety alignment strategy, Constrained Knowledge Unlearning (CKU), which prunes gradients.",
     ["CKU"]),
    ("S2FGL: Spatial Spectral Federated Graph Learning", "We propose S2FGL for subgraph federated learning.", ["S2FGL"]),
    # a session-30 table named systems "IC", "BSDS500" and "Grad-CAM": a domain's term inside the title,
    # data and a tool the abstract defines in passing
    ("Joint Architecture-Token-Bitwidth Multi-Axis Optimization of Vision Transformers for Semiconductor IC Packaging",
     "We optimise three axes. The framework identifies compact backbones via Neural Architecture Search "
     "(AutoFormer) and reduces tokens via token merging (ToMe).", []),
    ("From Edges to Depth: Probing the Spatial Hierarchy in Vision Transformers",
     "Probing a frozen ViT-B/16 for local patch boundaries (BSDS500) and per-patch depth reveals a hierarchy.", []),
    ("Systematic Evaluation of Vision Transformers for Cervical Cancer Classification",
     "Gradient-weighted Class Activation Mapping (Grad-CAM) analysis confirmed that attention follows the lesions.", []),
    ("MaMe & MaRe: Matrix-Based Token Merging and Restoration", "We propose MaMe, a token merging method.",
     ["MaMe", "MaRe"]),
])
def test_a_concept_the_abstract_abbreviates_is_not_the_system_s_name(title, abstract, names):
    from surveygraph.agents.facets import own_names

    assert own_names(title, abstract) == names


def test_the_kinds_are_counted_against_every_work_of_the_subsection():
    """'This subsection reviews 50 works ... 43 of the 49 propose ...' read in an untuned draft: the
    kinds are counted out of the works the subsection reviews, and the ones whose abstracts do not
    say are counted as such."""
    from surveygraph.agents.comparison import Work
    from surveygraph.agents.facets import Facets

    group = [Work(k, f"Author{k}", False, Facets(kind=kind)) for k, kind in
             enumerate(["method", "method", "method", "survey", ""], start=1)]
    assert kind_sentence(group) == ("Three of the five propose new methods or systems; Author4 [4] is a survey or "
                                    "review (the abstract of one does not say).")


def test_the_fallback_method_section_is_named_in_title_case():
    """'## 2 Methods for graph neural networks for recommendation' (an untuned draft): the topic as
    typed, lower case, inside a heading."""
    from surveygraph.agents.outline.parts import fallback_method_title

    assert fallback_method_title("graph neural networks for recommendation") == \
        "Methods for Graph Neural Networks for Recommendation"
    assert fallback_method_title("large language models for time series forecasting in energy") == \
        "Methods for Large Language Models"
    assert fallback_method_title("RAG in Finance") == "Methods for RAG in Finance"


@pytest.mark.parametrize("spellings", [
    # a v8 draft: "Evaluation data recur across works: ImageNet-1K ([34], [35]). Only Lee et al. [36] use
    # ImageNet-1k as named evaluation data."
    ["ImageNet-1K", "ImageNet-1K", "ImageNet-1k"],
    # c29o: "Evaluation data recur across works: OSWorld ([5], [3]). Luo et al. [7] evaluate on OS-World."
    ["OSWorld", "OSWorld", "OS-World"],
])
def test_data_written_in_different_case_or_hyphenation_is_one_shared_name(spellings):
    from surveygraph.agents.comparison import data_sentences

    papers = [{"paper_id": f"p{i}", "title": f"Token Merging Variant {i}", "year": 2025, "authors": [f"Author{i} A"],
               "abstract": f"We propose a token merging method. Experiments on the {name} benchmark show "
                           "higher accuracy than ToMe."}
              for i, name in enumerate(spellings)]
    group = works(papers, [paper_facets(p) for p in papers])
    assert [w.facets.data for w in group] == [[name] for name in spellings]
    said = data_sentences(group)
    assert len(said) == 1 and said[0].startswith(f"Evaluation data recur across works: {spellings[0]} (")
    assert cited(said[0]) == {1, 2, 3} and spellings[2] not in said[0]


def test_the_topic_s_mined_acronym_is_neither_a_line_nor_a_model_the_works_name():
    # read in a v8 draft of "Vision Transformers": "Four works involve ViT [34, 35, 36, 37]" and
    # "The models their abstracts name are ViT ... and ViTs ..."
    specs = [("RAPID: Layer-Wise Redundancy-Aware Pruning for Efficient ViT",
              "Vision Transformers (ViTs) achieve strong performance but suffer from high computational costs. "
              "We propose RAPID, a token merging framework for ViT inference. On ImageNet-1K, RAPID achieves 4.3% "
              "higher accuracy than ToMe."),
             ("DORA: Dynamic Online Reinforcement Agent for Token Merging in ViT",
              "We propose DORA, a reinforcement learning agent for dynamic token merging in ViTs. On ImageNet-1K "
              "DORA saves 76% computation."),
             ("AdaMerge: Salience-Aware Adaptive Token Merging for ViT",
              "We propose AdaMerge, which merges tokens by salience in ViT models. On ImageNet-1k AdaMerge "
              "outperforms ToMe."),
             ("SPOT: Sparsification with Attention Dynamics in ViT",
              "We propose SPOT, lightweight predictors for token prioritization in ViT architectures, with 40% "
              "efficiency gains."),
             ("Frequency-Aware Token Reduction for Efficient Vision Transformer",
              "We propose a frequency-aware token reduction strategy that improves computational efficiency of "
              "vision transformers.")]
    papers = [{"paper_id": f"p{i}", "title": t, "abstract": a, "year": 2025, "authors": [f"Author{i} B"]}
              for i, (t, a) in enumerate(specs)]
    plain = synthesize("Token Reduction", papers, topic="Vision Transformers")
    assert re.search(r"address ViT|involve ViT|name are ViT", plain)  # what the mined variant removes
    text = synthesize("Token Reduction", papers, topic="Vision Transformers", topic_terms={"vit"})
    assert not re.search(r"address ViT|involve ViT|ViT \(|ViTs \(|ViT \[", text)
    assert "token merging [1, 2, 3]" in text  # the line the works do share stays


@pytest.mark.parametrize("title, abstract, not_names", [
    # read in a speech draft's tables: "Name: ML-SUPERB 2.0", "SER", "MFCCs", "WER", "HuBERT"
    ("Improving Multilingual Speech Models on ML-SUPERB 2.0: Fine-tuning with Data Augmentation",
     "We adapt speech foundation models to many languages on ML-SUPERB 2.0.", ["ML-SUPERB 2.0"]),
    ("Learning More with Less: Self-Supervised Approaches for Low-Resource Speech Emotion Recognition",
     "Speech Emotion Recognition (SER) lacks labels in many languages. We study BYOL pretraining.", ["SER"]),
    ("Evaluating the Representation of Vowels in Wav2Vec: A Layer-Wise Analysis Using MFCCs",
     "We probe layers of a speech encoder.", ["MFCCs"]),
    ("A Comparative Study of Pretrained Models for Quranic ASR",
     "Existing ASR models often exhibit high Word Error Rates (WER) on recitation.", ["WER"]),
    ("Scaling HuBERT for African Languages: From Base to Large",
     "We train HuBERT models on African speech.", ["HuBERT"]),
])
def test_data_classes_measures_and_backbones_are_not_the_system_s_name(title, abstract, not_names):
    from surveygraph.agents.facets import own_names

    names = own_names(title, abstract)
    assert not set(names) & set(not_names), names


def test_a_benchmark_the_title_evaluates_on_is_data_and_a_speech_backbone_a_model():
    facets = paper_facets({"title": "Improving Multilingual Speech Models on ML-SUPERB 2.0",
                           "abstract": "We fine-tune HuBERT and XLS-R encoders. Experiments on the ML-SUPERB 2.0 "
                                       "benchmark reduce CER by 30%."})
    assert "ML-SUPERB 2.0" in facets.data and {"HuBERT", "XLS-R"} <= set(facets.models)
    assert "ML-SUPERB 2.0" not in facets.own_names


def test_a_name_that_starts_like_a_backbone_is_still_the_system_s_name():
    # read in an untuned "code generation" draft: SwingArena's name was taken for the Swin backbone,
    # so its table row had no name and its own benchmark was listed among "the models it names"
    from surveygraph.agents.facets import own_names

    title = "SwingArena: Competitive Programming Arena for Long-context GitHub Issue Solving"
    assert own_names(title, "We present SwingArena, an evaluation framework.") == ["SwingArena"]
    facets = paper_facets({"title": "Tiny Detectors", "abstract": "We distil Swin-T and SwinV2-B backbones. Results on "
                                                                   "the COCO benchmark improve accuracy by 2 points."})
    assert {"Swin-T", "SwinV2-B"} <= set(facets.models) and facets.data == ["COCO"]


def test_one_work_s_own_data_is_said_as_what_it_evaluates_on():
    # "Only Xu et al. [4] use BFCLv3 and MCP-Atlas as named evaluation data" read as counting (c28n)
    from surveygraph.agents.comparison import data_sentences

    papers = [{"paper_id": "p0", "title": "EnvFactory: Executable Environments for Tool Agents", "year": 2026,
               "authors": ["Anna Xu", "Bo Li", "Chen Wu"],
               "abstract": "We synthesize tool environments. Experiments on the BFCLv3 and MCP-Atlas benchmarks show "
                           "gains of 4%."},
              {"paper_id": "p1", "title": "A Position on Step-Level Agentic RL", "year": 2026, "authors": ["Dan Wang"],
               "abstract": "We argue that agentic RL should optimise steps."}]
    group = works(papers, [paper_facets(p) for p in papers])
    said = data_sentences(group)
    assert said == ["Xu et al. [1] evaluate on BFCLv3 and MCP-Atlas."]
    assert _facts_hold(said[0], papers) == []


def test_a_measure_s_abbreviation_defined_as_something_else_is_no_measure():
    """'MAE' is masked autoencoders in a self-supervised ViT survey ("'MAE' is treated as an evaluation
    measure", a c34k reader); it stays mean absolute error where a text means that."""
    from surveygraph.agents.facets import paper_facets

    def measures(abstract: str) -> list[str]:
        return paper_facets({"title": "A method", "abstract": abstract}).metrics

    assert "MAE" not in measures("We pretrain masked autoencoders (MAE) on ImageNet and report top-1 accuracy.")
    assert "MAE" in measures("We report mean absolute error (MAE) and RMSE on the ETTh1 benchmark.")
    assert "MAE" in measures("Our forecaster lowers MAE by 10% on the ETTh1 benchmark.")


def test_a_plural_acronym_model_is_the_same_model_as_its_singular():
    """c36a: "The models their abstracts name are ViTs (four works [1, 2, 3, 4]) and ViT (...)"."""
    papers = [{"title": f"Hybrid backbone {i}", "abstract": text} for i, text in enumerate((
        "We compare ViTs and CNNs on medical images.", "Our model improves a ViT with local attention.",
        "ViTs lack inductive biases, so we add convolutions."))]
    found = [paper_facets(p).models for p in papers]
    assert found == [["ViT"], ["ViT"], ["ViT"]]
    assert "ViTs" not in model_sentence(works(papers, [paper_facets(p) for p in papers]))


def test_the_name_a_title_brackets_is_the_system_s_name():
    """c36a: a table named Alkhatib's HybridCVNet "PolSAR", the data its title opens with."""
    paper = {"title": "PolSAR Image Classification using a Hybrid Complex-Valued Network (HybridCVNet)",
             "abstract": "In this paper, HybridCVNet, a novel hybrid network, blends CV-CNN and CV-ViT techniques."}
    assert paper_facets(paper).own_names[0] == "HybridCVNet"
