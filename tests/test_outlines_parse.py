"""Outline text parsing: indentation / numbering -> levels, non-topical headings, real outlines."""

from __future__ import annotations

import json

from surveygraph.retrieval.outlines import (
    drop_non_topical,
    outline_from_markdown,
    outlines_from_json,
    parse_outline_text,
    split_numbering,
)


def levels(entries):
    return [(e.level, e.title) for e in entries]


def test_indented_numbered_lines():
    text = "1 Introduction\n2 Methods\n    2.1 Retrieval\n        2.1.1 Dense\n    2.2 Generation\n3 Conclusion\n"
    assert levels(parse_outline_text(text)) == [
        (1, "Introduction"), (1, "Methods"), (2, "Retrieval"), (3, "Dense"),
        (2, "Generation"), (1, "Conclusion"),
    ]


def test_unindented_outline_uses_numbering_depth_and_tabs_count_as_indent():
    assert levels(parse_outline_text("1. Intro\n2.1 Sub\n2.1.1 Subsub\n3 End")) == [
        (1, "Intro"), (2, "Sub"), (3, "Subsub"), (1, "End")]
    assert levels(parse_outline_text("Intro\n\tPart A\n\t\tDetail")) == [
        (1, "Intro"), (2, "Part A"), (3, "Detail")]


def test_roman_numbering_and_level_jumps_are_clamped():
    assert split_numbering("II-A (Multi-Head) Attention") == (2, "(Multi-Head) Attention")
    assert split_numbering("III-H1 Algorithm Evaluation") == (3, "Algorithm Evaluation")
    assert split_numbering("IV. Detection") == (1, "Detection")
    assert split_numbering("LLM-based Agents") == (None, "LLM-based Agents")
    # a child two levels below its parent is pulled up to parent + 1
    assert levels(parse_outline_text("1 A\n        1.1.1 Deep")) == [(1, "A"), (2, "Deep")]


def test_non_topical_headings_and_appendices_are_dropped():
    text = ("1 Introduction\n2 Methods\n    2.1 Details\nAcknowledgements\n    Funding details\n"
            "3 Conclusion\nReferences\nAppendix A Proofs\n    A.1 Lemma\n")
    assert levels(drop_non_topical(parse_outline_text(text))) == [
        (1, "Introduction"), (1, "Methods"), (2, "Details"), (1, "Conclusion")]


def test_real_outlines_json_levels(shared_data):
    path = shared_data / "weaidb_surveybench" / "HumanSurvey" / "outlines.json"
    outlines = outlines_from_json(path)
    raw = json.loads(path.read_text())
    assert len(outlines) == 20 == len(raw)
    for item in raw:
        lines = [ln for ln in item["outline"].splitlines() if ln.strip()]
        entries = parse_outline_text(item["outline"])
        assert len(entries) == len(lines), item["topic"]
        for entry, line in zip(entries, lines):
            indent = len(line) - len(line.lstrip())
            assert entry.level == indent // 4 + 1
            assert entry.title == line.split(maxsplit=1)[1]  # numbering token removed
    # outlines_from_json also drops appendices (only the diffusion survey has them)
    diffusion = next(o for o in outlines if o.topic == "Generative Diffusion Models")
    assert diffusion.entries[-1].title == "Integration with Machine Learning Fields"
    assert not any("Appendix" in e.title for o in outlines for e in o.entries)
    kept = sum(len(o.entries) for o in outlines)
    assert kept == sum(len(parse_outline_text(i["outline"])) for i in raw) - 18
    mllm = next(o for o in outlines if o.topic == "Multimodal Large Language Models")
    assert levels(mllm.entries[:4]) == [(1, "Introduction"), (1, "Architecture"),
                                        (2, "Modality encoder"), (2, "Pre-trained LLM")]
    assert (3, "Training Detail") in levels(mllm.entries)
    vit = next(o for o in outlines if o.topic == "Vision Transformers")
    assert levels(vit.entries[:3]) == [(1, "Introduction"), (1, "Original Transformers"),
                                       (2, "(Multi-Head) Attention Mechanism")]
    assert (3, "Algorithm Evaluation and Comparative Analysis") in levels(vit.entries)


def test_markdown_survey_outline(shared_data):
    md = shared_data / "weaidb_surveybench" / "HumanSurvey" / "Retrieval-Augmented Generation for Large Language Models.md"
    outline = outline_from_markdown(md.read_text(), name=md.name)
    assert outline.topic == "Retrieval-Augmented Generation for Large Language Models"
    assert outline.title.startswith("Retrieval-Augmented Generation for Large Language Models")
    top = [e.title for e in outline.entries if e.level == 1]
    assert top[0] == "INTRODUCTION" and top[-1] == "CONCLUSION"
    assert "OVERVIEW OF RAG" in top and not any("REFERENCE" in t for t in top)
    assert (2, "Naive RAG") in levels(outline.entries)
