"""The models-and-methods-in-use section (agents/models_in_use.py): names shared by three cited works,
each work's role read from the words before the name, never the topic's own name, a generic
abbreviation or a work's own system; descriptions quoted from a cited abstract and cited."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

from surveygraph.agents.frame_floor import Citer
from surveygraph.agents.models_in_use import SECTION_TITLE, family_key, models_section, name_uses


def _paper(pid: str, title: str, abstract: str, authors=("A. Smith", "B. Lee")) -> dict:
    return {"paper_id": pid, "title": title, "abstract": abstract, "authors": list(authors)}


PAPERS = {
    "a": _paper("a", "SegLite: Light Segmentation", "We fine-tune SAM, a promptable segmentation foundation model, "
                "with a Swin-B backbone. SegLite outperforms Mask2Former on ADE20K."),
    "b": _paper("b", "Prompted Masks for Cells", "We build on SAM and adapt it to microscopy. Our method surpasses "
                "Mask2Former and U-Net. CNNs are also compared."),
    "c": _paper("c", "Hierarchical Windows Revisited", "We study SAM, a promptable segmentation foundation model, and "
                "Swin Transformer backbones; results beat Mask2Former by 2 points with an AI accelerator."),
    "d": _paper("d", "SegLite-2 for Satellites", "Built on SegLite, we adapt SAM to satellite images with a "
                "Swin-L backbone and compare it with CNNs."),
    "e": _paper("e", "A Vision Transformer Study", "Vision transformers (ViTs) such as ViT-B/16 are compared with "
                "ResNet-50 on ImageNet."),
}


def test_a_family_never_written_alone_shows_its_spellings_not_a_stem():
    from surveygraph.agents.models_in_use import NameUse
    from collections import Counter

    assert family_key("GPT-4o") == family_key("GPT-4.1") == "gpt"
    assert NameUse(spellings=Counter({"DeepSeek-R1": 3})).name == "DeepSeek-R1"  # never the stem "DeepSeek-R"
    assert NameUse(spellings=Counter({"GPT-4o": 3, "GPT-4": 2, "GPT-4.1": 1})).name == "GPT-4o, GPT-4"
    assert NameUse(spellings=Counter({"U-Net": 3, "UNet": 2})).name == "U-Net"  # hyphened: still its own name


def test_names_are_families_shared_by_three_works_with_their_roles():
    assert family_key("ViT-B/16") == "vit" and family_key("DINOv2") == "dino" and family_key("ResNet-50") == "resnet"
    assert family_key("Swin-B") == "swin" and family_key("MobileNetV2") == "mobilenet" and family_key("ViTs") == "vit"
    assert family_key("LLM-powered") == "llm"  # an adjective of the field's abbreviation, no model (c33g)
    assert family_key("U-Net") == family_key("UNet") == "unet"  # one family, one row (c33r)
    from surveygraph.agents.models_in_use import _excluded

    assert _excluded("XAI", set()) and _excluded("GenAI", set()) and _excluded("AIGC", set())  # kinds of AI (c33o)
    assert not _excluded("SAM", set()) and not _excluded("LLaVA", set())
    uses = name_uses(list(PAPERS), PAPERS, tools={"SegLite"}, topic_words={"segmentation", "vit", "vits"})
    # SAM (a, b, c, d), Swin (a, c, d), Mask2Former (a, b, c) are shared by three works; U-Net, ResNet,
    # ViT by fewer or the topic's own; "CNNs" and "AI" are a field's abbreviations, not models
    assert set(uses) == {"sam", "swin", "mask2former"}, sorted(uses)
    assert uses["sam"].name == "SAM" and uses["swin"].name == "Swin"  # the family as written beside "Swin-B"
    # SegLite is work a's own system: not counted for a; d builds on it, one work is no field's tool
    assert "seglite" not in uses
    # roles: "we fine-tune SAM", "build on SAM", "adapt SAM" build; "outperforms / surpasses / beat Mask2Former" compare
    assert sorted(uses["sam"].builders) == ["a", "b", "d"] and "c" in uses["sam"].works
    assert sorted(uses["mask2former"].comparers) == ["a", "b", "c"] and not uses["mask2former"].builders


def test_the_section_tables_the_shared_names_and_quotes_what_a_cited_work_says_they_are():
    ids = list(PAPERS)
    sections = [{"title": "Prompted", "papers": ["a", "b"]}, {"title": "Backbones", "papers": ["c", "d", "e"]}]
    cite = Citer(ids)
    section = models_section(ids, PAPERS, sections, cite, {"SegLite"}, "segmentation", {"segmentation"}, [],
                             table_number=4)
    assert section and section["title"] == SECTION_TITLE and section["text"].startswith("Table 4 lists")
    rows = {row[0]: row for row in section["table"]["rows"]}
    assert list(rows)[0] == "SAM" and set(rows) == {"SAM", "Swin", "Mask2Former"}
    assert rows["SAM"][1] == "“a promptable segmentation foundation model” [1]"  # two abstracts say it; the first cited
    assert rows["SAM"][2] == "4 [1, 2, 3, 4]" and rows["SAM"][3] == "3" and rows["Mask2Former"][4] == "3"
    assert rows["SAM"][5] == "2, 3"
    assert section["subsections"] == []  # the prose follows the table: one part is no division
    text = section["text"]
    assert "Smith and Lee describe SAM as a promptable segmentation foundation model [1]." in text, text
    assert "results against are Mask2Former (three works [1, 2, 3])" in text, text
    # every citation is one of the cited works
    assert {int(n) for m in re.finditer(r"\[([\d, ]+)\]", text) for n in m.group(1).split(",")} <= {1, 2, 3, 4, 5}
    # what a citing work says of itself or a clause is no description of the name
    from surveygraph.agents.models_in_use import description

    said = {"x": _paper("x", "X", "We extend SAM, a novel approach to prompting, and MAE, a large share of patches is "
                                  "masked, to video.")}
    assert description("SAM", ["x"], said) is None and description("MAE", ["x"], said) is None
    # fewer than three shared names: no section
    assert models_section(["a", "b", "e"], PAPERS, sections, Citer(ids), set(), "", set(), [], table_number=1) is None


def _corpus(corpus: Path, title_pattern: str, limit: int = 120) -> dict:
    pattern, papers = re.compile(title_pattern, re.I), {}
    with gzip.open(corpus, "rt") as lines:
        for line in lines:
            paper = json.loads(line)
            if pattern.search(paper.get("title") or ""):
                papers[paper["arxiv_id"]] = {**paper, "paper_id": paper["arxiv_id"]}
                if len(papers) >= limit:
                    break
    return papers


def test_on_real_vision_transformer_papers_the_names_are_backbones_not_the_topic_or_generic_words(shared_data):
    from surveygraph.agents.name_roles import tool_names

    papers = _corpus(shared_data / "corpus" / "arxiv_2025_2026.jsonl.gz", r"vision transformer")
    ids = list(papers)
    tools = tool_names([(p["title"], p["abstract"]) for p in papers.values()])
    section = models_section(ids, papers, [{"title": "All", "papers": ids}], Citer(ids), tools,
                             "vision transformer backbones", {"vision", "transformer", "backbones"},
                             [p["abstract"] for p in papers.values()], table_number=1)
    assert section is not None
    names = [row[0] for row in section["table"]["rows"]]
    assert {"ViT", "ViTs", "CNN", "CNNs", "AI", "3D", "2D", "SOTA", "GPU"}.isdisjoint(names), names
    assert {"Swin", "DeiT", "ResNet", "CLIP", "DINO"} & set(names), names
    for row in section["table"]["rows"]:
        assert int(row[2].split()[0]) >= 3
