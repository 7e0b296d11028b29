"""SAM-R / input coverage matching and benchmark-reference loading."""

from __future__ import annotations

import json

import pytest

from surveygraph.errors import UserError
from surveygraph.evaluation.coverage import input_coverage, load_bench_refs, reference_coverage
from surveygraph.models import Paper, Reference

BENCH = [
    Reference(key="1706.03762", title="Attention is All you Need", arxiv_id="1706.03762"),
    Reference(key="1810.04805", title="BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding"),
    Reference(key="1512.03385", title="Deep Residual Learning for Image Recognition"),
]


def test_reference_coverage_by_id_title_and_fuzzy():
    generated = [
        Reference(key="1", text="[1] Vaswani et al. Something else entirely", arxiv_id="arXiv:1706.03762v5"),
        Reference(key="2", text="[2] bert pre-training of deep bidirectional transformers for language understanding."),
        Reference(key="3", title="Deep Residual Learning for Image Recognitio"),  # typo: fuzzy
        Reference(key="4", title="A totally unrelated paper about cooking"),
    ]
    out = reference_coverage(generated, BENCH)
    assert out["coverage"] == pytest.approx(3 / 4)
    assert out["recall"] == pytest.approx(1.0)
    assert out["pairs"] == [("1", "1706.03762", "arxiv_id"), ("2", "1810.04805", "title"),
                            ("3", "1512.03385", "fuzzy")]
    strict = reference_coverage(generated, BENCH, fuzzy=100)
    assert strict["coverage"] == pytest.approx(2 / 4)


def test_reference_coverage_counts_duplicates_on_the_generated_side_only():
    dupes = [Reference(key=str(i), title="Attention is all you need") for i in range(2)]
    out = reference_coverage(dupes, BENCH)
    assert out["coverage"] == 1.0 and out["recall"] == pytest.approx(1 / 3)


def test_reference_coverage_empty_inputs():
    assert reference_coverage([], BENCH)["coverage"] == 0.0
    assert reference_coverage([Reference(key="1", title="x")], [])["coverage"] == 0.0


def test_input_coverage_on_papers():
    papers = [Paper(title="Attention Is All You Need", arxiv_id="1706.03762"), Paper(title="Unrelated")]
    assert input_coverage(papers, BENCH)["coverage"] == pytest.approx(0.5)


def test_load_bench_refs_formats(tmp_path):
    sf = tmp_path / "t_bench.json"
    sf.write_text(json.dumps({"1706.03762": {"arxivId": "1706.03762", "title": "Attention is All you Need"},
                              "2101.01169": {"arxivId": "2101.01169"}}))
    refs = load_bench_refs(sf)
    assert [r.arxiv_id for r in refs] == ["1706.03762", "2101.01169"]
    assert refs[0].title == "Attention is All you Need"

    jl = tmp_path / "refs.jsonl"
    jl.write_text('{"arxiv_id": "1810.04805", "title": "BERT"}\n\n{"title": "ResNet"}\n')
    assert [r.title for r in load_bench_refs(jl)] == ["BERT", "ResNet"]

    bib = tmp_path / "refs.bib"
    bib.write_text("@article{vaswani, title={Attention is {All} you Need}, eprint={1706.03762}, "
                   "archivePrefix={arXiv}}\n@inproceedings{he, title={Deep Residual Learning}}\n")
    refs = load_bench_refs(bib)
    assert [(r.key, r.title, r.arxiv_id) for r in refs] == [
        ("vaswani", "Attention is All you Need", "1706.03762"), ("he", "Deep Residual Learning", None)]

    md = tmp_path / "refs.md"
    md.write_text("## References\n\n[1] Attention is All you Need\n2. BERT, arXiv:1810.04805\n- ResNet\n")
    refs = load_bench_refs(md)
    assert [r.title for r in refs] == ["Attention is All you Need", "BERT, arXiv:1810.04805", "ResNet"]
    assert refs[1].arxiv_id == "1810.04805"


def test_load_bench_refs_user_errors(tmp_path):
    with pytest.raises(UserError, match="not found"):
        load_bench_refs(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(UserError, match="not valid JSON"):
        load_bench_refs(bad)
    odd = tmp_path / "refs.xlsx"
    odd.write_text("x")
    with pytest.raises(UserError, match="unsupported"):
        load_bench_refs(odd)


def test_sam_r_on_real_surveyforge_sets(shared_data):
    root = shared_data / "surveyforge_surveybench"
    bench = load_bench_refs(root / "ref_bench" / "Vision Transformers_bench.json")
    human = load_bench_refs(root / "human_written_ref" / "A survey of visual transformers.json")
    out = reference_coverage(human, bench)
    assert len(bench) > 300 and len(human) > 100
    assert 0.3 < out["coverage"] <= 1.0  # the paper reports 0.63 for human surveys on average
