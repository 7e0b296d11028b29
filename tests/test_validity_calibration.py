"""Encoder-calibrated τ: the derivation rule, τ resolution, and a real-encoder fixture."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from surveygraph.cli import app
from surveygraph.evaluation.calibration import (best_match_similarities, derive_tau, load_calibration,
                                                resolve_tau, unrelated_partner)
from surveygraph.evaluation.validity import discipline_of
from surveygraph.settings import load_settings


def test_derive_tau_lies_between_the_distributions_and_is_reproducible():
    rng = np.random.default_rng(0)
    same, other = rng.normal(0.8, 0.05, 500), rng.normal(0.3, 0.05, 2000)
    a, b = derive_tau(same, other), derive_tau(same.copy(), other.copy())
    assert a == b
    assert a["tau"] == pytest.approx(np.quantile(other, 0.99), abs=1e-4)
    assert np.median(other) < a["tau"] < np.median(same)
    assert a["hit_rate_unrelated"] == pytest.approx(0.01, abs=0.002)
    assert a["hit_rate_same_topic"] > 0.99
    assert a["hit_rate_same_topic_at_paper_tau"] < 0.01  # 3 sd above the mean: 0.95 is out of reach


def test_identical_texts_are_left_out_of_best_matches():
    vecs = np.eye(3)
    gen = np.array([[1.0, 0.0, 0.0], [0.6, 0.8, 0.0]])
    best = best_match_similarities(gen, vecs, ["Introduction", "Dense retrieval"],
                                   ["introduction", "Sparse retrieval", "Other"])
    # "Introduction" only matches itself (excluded); its next best is 0 -> kept as 0.0
    assert best.tolist() == pytest.approx([0.0, 0.8])


def test_unrelated_partner_crosses_disciplines():
    topics = ["bio__a", "bio__b", "phys__c", "phys__d", "phys__e"]
    partner = unrelated_partner(topics, discipline_of)
    assert all(discipline_of(t) != discipline_of(p) for t, p in partner.items())
    assert partner["bio__a"] == "phys__c" and partner["phys__e"] == "bio__a"
    flat = unrelated_partner(["a", "b", "c", "d"], discipline_of)
    assert flat == {"a": "c", "b": "d", "c": "a", "d": "b"}


def test_resolve_tau_modes(tmp_home):
    cfg = load_settings().evaluation
    assert cfg.embedding_model == "minilm-static"  # the encoder the shipped validity table was measured with
    data = load_calibration("minilm-static")
    assert data is not None
    assert resolve_tau(cfg, "content") == (data["tau"]["content"], "calibrated for minilm-static")
    minilm = cfg.model_copy(update={"embedding_model": "minilm"})
    assert resolve_tau(minilm, "content") == (load_calibration("minilm")["tau"]["content"], "calibrated for minilm")
    l2 = cfg.model_copy(update={"sim_mode": "chroma_l2"})
    assert resolve_tau(l2, "content")[0] == pytest.approx(2 * data["tau"]["content"] - 1)
    paper = cfg.model_copy(update={"tau_mode": "paper"})
    assert resolve_tau(paper, "outline")[0] == 0.95
    unknown = cfg.model_copy(update={"embedding_model": "some/other-model"})
    tau, source = resolve_tau(unknown, "outline")
    assert tau == 0.95 and "no calibration" in source


PARAPHRASES = {
    "biology__Gut Microbiome": (["Microbial diversity in the human gut", "How diet shapes the microbiome",
                                 "The microbiome and the immune system"],
                                ["Diversity of gut microbes", "Dietary effects on microbiome composition",
                                 "Immune responses to gut bacteria"]),
    "biology__Coral Reefs": (["Coral bleaching under heat stress", "Reef fish communities",
                              "Ocean acidification and reefs"],
                             ["Heat-driven bleaching of corals", "Fish assemblages on coral reefs",
                              "Effects of acidifying oceans on reefs"]),
    "physics__Quantum Error Correction": (["Stabilizer codes", "Surface code thresholds", "Decoding algorithms"],
                                          ["Codes built from stabilizers", "Thresholds of the surface code",
                                           "Algorithms for decoding syndromes"]),
    "physics__Dark Matter": (["Direct detection experiments", "Axion haloscopes", "Galaxy rotation curves"],
                             ["Experiments for detecting dark matter directly", "Haloscope searches for axions",
                              "Rotation curves of galaxies"]),
}


def _md(title: str, headings: list[str]) -> str:
    body = "\n\n".join(f"## {h}\n\nThis part discusses {h.lower()} for {title.lower()} [1]." for h in headings)
    return f"# {title}\n\n{body}\n\n## References\n\n[1] {headings[0]}: a study\n[2] {headings[-1]} revisited\n"


def test_calibrate_tau_command_on_a_paraphrase_fixture(tmp_home, tmp_path, monkeypatch):
    monkeypatch.setenv("SURVEYGRAPH_EMBEDDING__MAX_SEQ_LENGTH", "32")
    root = tmp_path / "bench"
    for stem, (human, system) in PARAPHRASES.items():
        title = stem.split("__")[1]
        for folder, headings in (("HumanSurvey", human), ("SysA", system), ("SysB", system[::-1])):
            (root / folder).mkdir(parents=True, exist_ok=True)
            (root / folder / f"{stem}.md").write_text(_md(title, headings), encoding="utf-8")
    out = tmp_path / "cal.json"
    args = ["calibrate-tau", str(root), "--human-dir", str(root / "HumanSurvey"), "--encoder", "minilm",
            "--out", str(out)]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    data = json.loads(out.read_text())
    outline = data["components"]["outline"]
    # τ sits above the unrelated-topic distribution's bulk and below the paraphrases' bulk
    assert outline["unrelated_quantiles"]["0.5"] < data["tau"]["outline"] < outline["same_topic_quantiles"]["0.5"]
    assert outline["hit_rate_same_topic"] > outline["hit_rate_unrelated"]
    again = tmp_path / "cal2.json"
    assert CliRunner().invoke(app, args[:-1] + [str(again)]).exit_code == 0
    assert json.loads(again.read_text())["tau"] == data["tau"]  # reproducible
    res = CliRunner().invoke(app, args)  # never overwrites without --force
    assert res.exit_code != 0 and "--force" in str(res.exception)
