"""``surveygraph validate`` end to end on a tiny synthetic multi-discipline folder made here:
3 systems × 2 disciplines × 2 topics, a hand-made reference CSV, labels, scripted judges."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from surveygraph.cli import app, main
from surveygraph.evaluation.validity import PACKAGE_VALIDITY

TOPICS = {
    "biology": {
        "Gut Microbiome": ["Microbial Diversity in the Gut", "Diet and Microbiome Composition",
                           "Microbiome and Immune Response", "Sequencing Methods for Microbiota",
                           "Probiotics and Interventions", "Open Problems in Microbiome Research"],
        "Coral Reef Ecology": ["Coral Bleaching under Heat Stress", "Reef Fish Communities",
                               "Symbiotic Algae of Corals", "Ocean Acidification Effects",
                               "Reef Restoration Techniques", "Monitoring Reefs with Drones"],
    },
    "physics": {
        "Quantum Error Correction": ["Stabilizer Codes", "Surface Codes and Thresholds", "Decoding Algorithms",
                                     "Logical Qubits in Hardware", "Fault-Tolerant Gates", "Resource Estimates"],
        "Dark Matter Searches": ["Direct Detection Experiments", "Axion Haloscopes", "Collider Searches",
                                 "Indirect Detection with Gamma Rays", "Galaxy Rotation Curves",
                                 "Primordial Black Holes"],
    },
}
SYSTEM_SECTIONS = {"Alpha": 6, "Beta": 4, "Gamma": 2}  # Alpha follows the human outline most closely


def _survey(topic: str, headings: list[str], refs: int) -> str:
    lines = [f"# {topic}: a survey", ""]
    for i, h in enumerate(headings, 1):
        lines += [f"## {i} {h}", "", f"This section reviews {h.lower()} in the study of {topic.lower()} [{i}].", ""]
    lines += ["## References", ""] + [f"[{i}] {headings[(i - 1) % len(headings)]}: a study of {topic}"
                                      for i in range(1, refs + 1)]
    return "\n".join(lines) + "\n"


def make_folder(root: Path) -> Path:
    for disc, topics in TOPICS.items():
        for topic, headings in topics.items():
            name = f"{disc}__{topic}.md"
            (root / "HumanSurvey").mkdir(parents=True, exist_ok=True)
            (root / "HumanSurvey" / name).write_text(_survey(topic, headings, 8), encoding="utf-8")
            for system, n in SYSTEM_SECTIONS.items():
                (root / system).mkdir(exist_ok=True)
                generic = ["Introduction", "Background", "Discussion", "Conclusion"]
                chosen = headings[:n] if system != "Gamma" else generic[:n]
                (root / system / name).write_text(_survey(topic, chosen, n), encoding="utf-8")
    return root


def write_reference(path: Path, systems=("Alpha", "Beta", "Gamma")) -> Path:
    rows = ["table,system,discipline,value"]
    for table in ("t2_overall", "t16_outline", "t17_content", "t18_reference"):
        for disc in ("Bio", "Phys"):  # SurveyLens-style column names are normalised
            rows += [f"{table},{s},{disc},{v}" for s, v in zip(systems, (3.0, 2.0, 1.0))]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def write_labels(path: Path) -> Path:
    rows = []
    for disc, topics in TOPICS.items():
        for topic in topics:
            rows.append({"discipline": disc.title(), "topic": topic, "system_a": "Alpha", "system_b": "Gamma",
                         "choice": "a", "outline_a": "1\n2\n3", "outline_b": "1"})
            rows.append({"discipline": disc.title(), "topic": topic, "system_a": "Beta", "system_b": "Alpha",
                         "choice": "b", "outline_a": "1\n2", "outline_b": "1"})
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def fast_embeddings(monkeypatch):
    monkeypatch.setenv("SURVEYGRAPH_EMBEDDING__MAX_SEQ_LENGTH", "16")


def _run_main(monkeypatch, capsys, *args):
    monkeypatch.setattr(sys, "argv", ["surveygraph", *args])
    with pytest.raises(SystemExit) as exc:
        main()
    return exc.value.code, capsys.readouterr().err


def test_validate_end_to_end(tmp_home, tmp_path, fast_embeddings):
    root = make_folder(tmp_path / "bench")
    ref = write_reference(tmp_path / "ref.csv")
    labels = write_labels(tmp_path / "labels.jsonl")
    before = PACKAGE_VALIDITY.stat().st_mtime if PACKAGE_VALIDITY.exists() else None
    out = tmp_path / "out"
    res = CliRunner().invoke(app, ["validate", str(root), "--human-dir", str(root / "HumanSurvey"),
                                   "--reference-scores", str(ref), "--labels", str(labels), "--out", str(out),
                                   "--bootstrap", "50"])
    assert res.exit_code == 0, res.output
    for name in ("validity.md", "validity.csv", "validity.json"):
        assert (out / name).is_file()
    data = json.loads((out / "validity.json").read_text())
    assert data["meta"]["disciplines"] == {"biology": 2, "physics": 2}
    sections = data["metrics"]["structure.sections"]
    assert sections["kind"] == "baseline" and sections["component"] == "outline"
    # 6 > 4 > 2 sections in both disciplines, reference 3 > 2 > 1: a perfect ranking
    pooled = sections["by_component"]["outline"]["pooled"]
    assert pooled["rho"] == pytest.approx(1.0) and pooled["concordance"] == pytest.approx(1.0)
    assert pooled["n_disciplines"] == 2
    # labels: Alpha beats Gamma and Alpha beats Beta on every topic: more sections agree every time
    assert sections["labels"]["pooled"]["accuracy"] == pytest.approx(1.0)
    assert sections["labels"]["pooled"]["n_labels"] == 8
    # the labels' own outlines: a has more lines in both rows, but row 2 chose b -> 4 of 8
    assert data["metrics"]["baseline.label_outline_lines"]["labels"]["pooled"]["accuracy"] == pytest.approx(0.5)
    # every alignment component separates the systems (calibrated τ), none is constant
    for comp in ("outline", "content", "reference"):
        for disc in ("biology", "physics"):
            row = data["metrics"][f"ra_align_f1.{comp}"]["by_component"][comp]["disciplines"][disc]
            assert row["rho"] is not None, (comp, disc)
    csv_text = (out / "validity.csv").read_text()
    assert csv_text.startswith("metric,kind,metric_component,reference_component,discipline,rho")
    assert "\nstructure.sections,baseline,outline,outline,pooled,1.0," in csv_text
    # a user run leaves the shipped summary alone
    assert (PACKAGE_VALIDITY.stat().st_mtime if PACKAGE_VALIDITY.exists() else None) == before


def test_validate_user_errors(tmp_home, tmp_path, monkeypatch, capsys):
    root = make_folder(tmp_path / "bench")
    human = str(root / "HumanSurvey")
    code, err = _run_main(monkeypatch, capsys, "validate", str(root), "--human-dir", human,
                          "--reference-scores", str(tmp_path / "nope.csv"), "--out", str(tmp_path / "o1"))
    assert code == 2 and "reference scores file not found" in err
    other = write_reference(tmp_path / "other.csv", systems=("X", "Y", "Z"))
    code, err = _run_main(monkeypatch, capsys, "validate", str(root), "--human-dir", human,
                          "--reference-scores", str(other), "--out", str(tmp_path / "o2"))
    assert code == 2 and "name 0 of the systems" in err and "X, Y, Z" in err
    bad = tmp_path / "bad.csv"
    bad.write_text("system,score\nAlpha,1\n")
    code, err = _run_main(monkeypatch, capsys, "validate", str(root), "--human-dir", human,
                          "--reference-scores", str(bad), "--out", str(tmp_path / "o3"))
    assert code == 2 and "missing column" in err
    full = tmp_path / "full"
    full.mkdir()
    (full / "mine.txt").write_text("keep")
    code, err = _run_main(monkeypatch, capsys, "validate", str(root), "--human-dir", human, "--out", str(full))
    assert code == 2 and "--force" in err and (full / "mine.txt").read_text() == "keep"
    code, err = _run_main(monkeypatch, capsys, "validate", str(root), "--human-dir", human,
                          "--disciplines", "chemistry", "--out", str(tmp_path / "o4"))
    assert code == 2 and "chemistry" in err


def test_validate_without_reference_still_reports_labels(tmp_home, tmp_path):
    # topics without a discipline prefix (the weAIDB layout): the default SurveyLens CSV has no
    # reference for them, so only the label accuracy is measured, and the run says so.
    root = tmp_path / "flat"
    for system, n in SYSTEM_SECTIONS.items():
        (root / system).mkdir(parents=True)
        for topic, headings in TOPICS["physics"].items():
            (root / "HumanSurvey").mkdir(exist_ok=True)
            (root / "HumanSurvey" / f"{topic}.md").write_text(_survey(topic, headings, 5))
            (root / system / f"{topic}.md").write_text(_survey(topic, headings[:n], n))
    labels = tmp_path / "l.jsonl"
    labels.write_text(json.dumps({"topic": "Dark Matter Searches", "system_a": "Gamma", "system_b": "Alpha",
                                  "choice": "b"}) + "\n")
    res = CliRunner().invoke(app, ["validate", str(root), "--human-dir", str(root / "HumanSurvey"),
                                   "--metrics", "structure", "--labels", str(labels), "--out",
                                   str(tmp_path / "o"), "--bootstrap", "20"])
    assert res.exit_code == 0, res.output
    assert "no reference" in res.output
    data = json.loads((tmp_path / "o" / "validity.json").read_text())
    sections = data["metrics"]["structure.sections"]
    assert sections["by_component"] == {}
    assert sections["labels"]["pooled"]["accuracy"] == 1.0
    # no reference and no labels: the run still completes and says that nothing was measured
    res = CliRunner().invoke(app, ["validate", str(root), "--human-dir", str(root / "HumanSurvey"),
                                   "--metrics", "structure", "--out", str(tmp_path / "o2"), "--bootstrap", "20"])
    assert res.exit_code == 0, res.output
    assert "Nothing was measured" in (tmp_path / "o2" / "validity.md").read_text()


def _outline_score_responder(prompt: str) -> str:
    """A scripted judge whose SAM-O score grows with the outline it is shown; SAM-C constant."""
    from tests.test_judges_run import responder

    if "Outline quality only" in prompt or "outline quality only" in prompt:
        n = len(re.findall(r"\[\d+, \"", prompt))
        return json.dumps({"notes": "scripted", "score": min(100, 10 * n)})
    return responder(prompt)


def test_validate_runs_selected_judges(tmp_home, tmp_path, monkeypatch):
    from tests.test_judges_run import patch_judge

    model = patch_judge(monkeypatch, _outline_score_responder)
    root = make_folder(tmp_path / "bench")
    ref = write_reference(tmp_path / "ref.csv")
    res = CliRunner().invoke(app, ["validate", str(root), "--human-dir", str(root / "HumanSurvey"),
                                   "--reference-scores", str(ref), "--metrics", "structure",
                                   "--judges", "sam", "--out", str(tmp_path / "o"), "--bootstrap", "20"])
    assert res.exit_code == 0, res.output
    assert model.calls, "the judge was never called"
    data = json.loads((tmp_path / "o" / "validity.json").read_text())
    sam_o = data["metrics"]["sam_o"]
    assert sam_o["kind"] == "judge" and sam_o["component"] == "outline"
    # more outline entries -> higher scripted SAM-O -> the reference order in both disciplines
    assert sam_o["by_component"]["outline"]["pooled"]["rho"] == pytest.approx(1.0)
    assert "sam_c.avg" in data["metrics"]
