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
from surveygraph.agents.facets import KnownNames
from surveygraph.agents.topic_pool import known_names, misread_names


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
    data = paper_facets(paper, KnownNames(tools=frozenset({"CogVideoX"}))).data
    assert "CogVideoX" not in data and "FrameDiT-H" not in data
    assert {"UCF-101", "Kinetics-600", "VBench"} <= set(data)


def test_an_acronym_defined_across_a_small_word_is_the_work_s_own_concept():
    abstract = "We present Human Video Generation in 4D (HVG), a latent video diffusion model."
    assert "HVG" in _definitions(abstract)


def test_the_run_records_only_the_names_its_papers_would_misread():
    texts = [("X", "We fine-tune CogVideoX."), ("Y", "Built on CogVideoX, we evaluate on VBench and on GSM8K."),
             ("Z", "Results on VBench and on GSM8K.")]
    papers = [{"title": "Motion priors", "abstract": "Experiments on VBench and CogVideoX show gains."},
              {"title": "Safe distillation", "abstract": "We distil refusals and find that reductions in reasoning "
                                                        "performance (GSM8K) persist."}]
    known = misread_names(texts, papers)
    assert (known.tools, known.data, known.common) == (frozenset({"CogVideoX"}), frozenset({"GSM8K"}), frozenset())
    assert known.role_counts() == {"VBench": (0, 1)}  # read "on VBench" once in the kept papers
    assert "GSM8K" in paper_facets(papers[1]).own_names and not paper_facets(papers[1], known).own_names
    assert known_names({"known_names": known.to_record()}) == known and known_names(None) == KnownNames()
    bench = {"title": "GSM8K: Grade School Math Problems", "abstract": "We introduce GSM8K, a benchmark of math problems."}
    assert paper_facets(bench, known).own_names == ["GSM8K"]  # the benchmark's own paper keeps its name


def test_the_learned_check_drops_measures_and_models_the_patterns_read_as_data():
    """The patterns read "PDMS score of 93.7" and "diffusion models (SD1.5, SDXL)" as evaluation data
    (c23/c24 readers: "'FLUX' is the evaluation data", "use SR", "use TTFT"); with the run's role
    counts recorded, the learned check (agents/data_names.py) keeps the benchmarks only."""
    driving = {"title": "Latent reasoning for driving", "abstract": "We propose a planner for end-to-end driving. "
               "Experiments on NAVSIM show a state-of-the-art PDMS score of 93.7 and an EPDMS of 88.8."}
    sampling = {"title": "Fast sampling", "abstract": "Qualitative and quantitative experiments on diffusion models "
                "(SD1.5, SDXL) and on the COCO dataset show that our sampler improves FID."}
    assert paper_facets(driving).data == ["NAVSIM", "PDMS", "EPDMS"] and "SDXL" in paper_facets(sampling).data
    known = misread_names([], [driving, sampling])
    assert paper_facets(driving, known).data == ["NAVSIM"]
    assert paper_facets(sampling, known).data == ["COCO"]
    # a record written before the check keeps the patterns' reading
    assert paper_facets(driving, KnownNames()).data == ["NAVSIM", "PDMS", "EPDMS"]


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


def test_a_name_many_deepfake_papers_use_is_no_work_s_own_system(shared_data):
    """A deepfake survey's table named four works' systems "DeepFakes", "AIGC", "SAE" and "LBP": a
    title's capitals or an abstract's brackets, for terms the field's papers all use."""
    texts, by_title = [], {}
    with gzip.open(shared_data / "corpus" / "arxiv_2025_2026.jsonl.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            if "ake" not in line and "orger" not in line:
                continue
            record = json.loads(line)
            if re.search(r"deepfake|forger", record.get("title", ""), re.I):
                texts.append((record["title"], record.get("abstract") or ""))
                by_title[record["title"]] = {"title": record["title"], "abstract": record.get("abstract") or ""}
    assert len(texts) > 200
    realistic = by_title["Are DeepFakes Realistic Enough? Exploring Semantic Mismatch as a Novel Challenge"]
    opens = next(p for t, p in by_title.items() if t.startswith("DiffusionFF:"))
    # a title name before the word it modifies ("DeepFakes Realistic") is no system even unread (session 30)
    assert "DeepFakes" not in paper_facets(realistic).own_names
    known = misread_names(texts, [realistic, opens])
    from surveygraph.agents.name_roles import common_names

    assert "DeepFakes" in common_names(texts) and "DiffusionFF" not in known.common
    assert "DeepFakes" not in paper_facets(realistic, known).own_names
    assert paper_facets(opens, known).own_names[:1] == ["DiffusionFF"]
    assert known_names({"known_names": known.to_record()}) == known
