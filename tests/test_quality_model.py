"""The shipped quality model: loading, deterministic scoring, the anti-padding property, training."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from surveygraph.errors import UserError
from surveygraph.evaluation.markdown_parser import parse_markdown
from surveygraph.evaluation.parsers import parse_survey
from surveygraph.evaluation.quality import (ALL_FEATURES, content_quality, load_model, score_survey, survey_features,
                                           verdict)
from surveygraph.evaluation.quality.agreement import system_identity_rho
from surveygraph.evaluation.quality.dataset import Draft
from surveygraph.evaluation.quality.model import MODEL_PATH, COMPONENTS
from surveygraph.evaluation.quality.train import fit_component, predict

FIXTURE = Path(__file__).parent / "fixtures" / "quality" / "small_survey.md"
TOPIC = "Retrieval-Augmented Generation for Large Language Models"
BOILERPLATE = ("It is important to note that this area is very important. Many researchers have studied it. "
               "In this section we discuss the topic in general terms.")
FILLER = ("Overall, the approaches above have many advantages and some disadvantages. Further work will be "
          "needed to understand them better. The field continues to evolve quickly.")


def test_shipped_model_is_complete_and_versioned():
    model = json.loads(MODEL_PATH.read_text())
    assert MODEL_PATH.stem == f"model_v{model['version']}" and model["command"].startswith("python -m surveygraph.evaluation.quality.train")
    assert set(model["features"]) == set(ALL_FEATURES)
    assert all(stats["scale"] > 0 for stats in model["features"].values())
    assert model["components"]["overall"]["combination"] == "mean"
    assert model["components"]["overall"]["of"] == ["outline", "content", "reference"]
    for component in COMPONENTS:
        spec = model["components"][component]
        assert len(spec["reference_systems"]) == len(model["training_data"]["systems"])
        if component == "overall":
            continue
        assert all(w >= 0 for w in spec["weights"].values())  # monotone: the anti-padding argument
        assert any(w > 0 for w in spec["weights"].values()), component
        assert spec["calibration"]["slope"] > 0
        cv = model["cv"][component]
        assert len(cv["rho_per_discipline"]) == len(model["training_data"]["disciplines"]) == 6
        assert -1 <= cv["rho_mean"] <= 1
    assert 0 < model["cv"]["outline"]["human_pairwise_accuracy"] <= 1
    assert 0 < model["baselines"]["more_lines_wins_accuracy"] <= 1


def test_shipped_model_was_fitted_on_the_current_features():
    from surveygraph.evaluation.quality.dataset import FEATURE_VERSION

    # features.py changed since the model was fitted: retrain (python -m surveygraph.evaluation.quality.train)
    assert json.loads(MODEL_PATH.read_text())["feature_version"] == FEATURE_VERSION


def test_scoring_a_fixture_is_deterministic_and_on_the_rubric_scale():
    first = score_survey(parse_survey(FIXTURE, topic=TOPIC))
    second = score_survey(parse_survey(FIXTURE, topic=TOPIC))
    assert first == second and set(first) == set(COMPONENTS)
    assert all(1.0 <= v <= 5.0 for v in first.values())
    line = verdict(first)
    assert line.startswith("quality.overall") and "reference systems" in line


def test_overall_is_the_mean_of_the_components_as_surveylens_defines_it():
    scores = score_survey(parse_survey(FIXTURE, topic=TOPIC))
    assert scores["overall"] == pytest.approx((scores["outline"] + scores["content"] + scores["reference"]) / 3)
    from surveygraph.evaluation.quality.model import contributions

    features = survey_features(parse_survey(FIXTURE, topic=TOPIC))
    model = load_model()
    parts = contributions(features, "overall", model)
    assert parts and set(parts) <= set(ALL_FEATURES)
    # each feature's overall share is its components' shares on the 1-5 scale, averaged
    name = next(iter(parts))
    expected = sum(model["components"][c]["calibration"]["slope"] * contributions(features, c, model).get(name, 0.0)
                   for c in ("outline", "content", "reference")) / 3
    assert parts[name] == pytest.approx(expected, abs=1e-3)


def test_missing_model_file_is_a_user_error(tmp_path):
    with pytest.raises(UserError, match="quality model not found"):
        load_model(str(tmp_path / "nope.json"))


def _pad(text: str) -> str:
    """Duplicated sections, boilerplate sections and uncited filler in every section."""
    body, refs = text.split("## References")
    sections = body.split("\n## ")
    duplicated = "\n## " + "\n## ".join(sections[2:4])  # two real sections again, headings and all
    boiler = "".join(f"\n## Further Remarks {i}\n\n{BOILERPLATE}\n" for i in range(3))
    filled = "\n## ".join(s.rstrip() + f"\n\n{FILLER}\n" for s in sections)
    return filled + duplicated + boiler + "\n## References" + refs


def _scores(text: str) -> dict[str, float]:
    survey = parse_markdown(text)
    survey.topic = TOPIC
    return score_survey(survey)


def test_padding_never_raises_any_component():
    text = FIXTURE.read_text()
    padded = _pad(text)
    assert len(padded.split()) > 1.5 * len(text.split())
    before, after = _scores(text), _scores(padded)
    for component in COMPONENTS:
        assert after[component] <= before[component] + 1e-9, (component, before, after)
    assert after["overall"] < before["overall"]  # waste is penalised, not merely ignored


def test_padding_a_real_draft_never_raises_any_component(shared_data):
    path = sorted((shared_data / "asg_bench" / "SurveyForge").glob("physics__*.md"))[0]
    text = path.read_text(encoding="utf-8")
    head, sep, refs = text.partition("## References")
    sections = head.split("\n## ")
    padded = ("\n## ".join(s.rstrip() + f"\n\n{FILLER}\n" for s in sections) + "\n## " + sections[2]
              + f"\n## Further Remarks\n\n{BOILERPLATE}\n" + sep + refs)
    topic = path.stem.split("__", 1)[1]
    before = score_survey(parse_markdown(text).model_copy(update={"topic": topic}))
    after = score_survey(parse_markdown(padded).model_copy(update={"topic": topic}))
    assert all(after[c] <= before[c] + 1e-9 for c in COMPONENTS), (before, after)


def test_content_quality_prefers_cited_synthesis_over_filler():
    cited = ("Dense retrievers rank passages by inner product [2]. Contrastive pre-training made them "
             "competitive with BM25 [5, 7]. Late interaction keeps one vector per token [6].")
    filler = " ".join([FILLER] * 3)
    good, bad = content_quality(cited), content_quality(filler)
    assert 1.0 <= bad < good <= 5.0
    assert content_quality(cited + "\n\n" + filler) < good
    assert content_quality("") <= bad  # nothing scores no better than uncited filler


def _drafts_ordered_by_sections(rng, systems: dict[str, float]) -> tuple[list[Draft], dict]:
    """Synthetic drafts of three systems in two disciplines: random features, except o_sections,
    which follows each system's rubric level (the target of every component)."""
    drafts, targets = [], {c: {} for c in ("outline", "content", "reference", "overall")}
    for disc in ("d1", "d2"):
        for t in range(4):
            for system, level in systems.items():
                features = {n: float(rng.uniform(0, 1)) for n in ALL_FEATURES}
                features["o_sections"] = 0.2 * level + 0.02 * rng.standard_normal()
                drafts.append(Draft(system, disc, f"t{t}", Path("x"), features))
                for c in targets:
                    targets[c][(system, disc)] = level
    return drafts, targets


def test_training_finds_the_feature_that_orders_systems():
    """fit_component on synthetic drafts: the one informative feature gets the weight."""
    rng = np.random.default_rng(0)
    systems = {"A": 1.0, "B": 2.0, "C": 3.0}
    drafts, targets = _drafts_ordered_by_sections(rng, systems)
    fit = fit_component(drafts, targets, "outline", alpha=1.0)
    weights = dict(zip(fit["names"], fit["weights"]))
    assert max(weights, key=weights.get) == "o_sections"
    scores = predict(fit, drafts)
    by_system = {s: np.mean([v for d, v in zip(drafts, scores) if d.system == s]) for s in systems}
    assert by_system["A"] < by_system["B"] < by_system["C"]


def test_system_identity_ceiling_reads_how_far_the_rubric_order_carries_across_disciplines():
    """The rubric's order in the other disciplines predicts a held-out one perfectly when every
    discipline orders the systems alike, and worse when one discipline reverses them."""
    rng = np.random.default_rng(0)
    systems = {"A": 1.0, "B": 2.0, "C": 3.0, "D": 4.0}
    drafts, targets = _drafts_ordered_by_sections(rng, systems)
    assert system_identity_rho(drafts, targets)["outline"] == pytest.approx(1.0)
    for system, level in systems.items():
        targets["outline"][(system, "d2")] = 5.0 - level
    assert system_identity_rho(drafts, targets)["outline"] == pytest.approx(-1.0)
    assert system_identity_rho(drafts, targets)["content"] == pytest.approx(1.0)


def test_expert_choices_pull_the_outline_fit_towards_what_they_reward():
    """With a label weight, the outline fit follows the experts where the rubric rows are silent:
    the rubric orders systems by o_sections, the experts choose by o_section_separation."""
    from surveygraph.evaluation.quality.dataset import OutlineLabel

    rng = np.random.default_rng(1)
    drafts, targets = _drafts_ordered_by_sections(rng, {"A": 1.0, "B": 2.0, "C": 3.0})
    labels = []
    for _ in range(60):
        a = {n: float(rng.uniform(0, 1)) for n in ALL_FEATURES}
        b = {n: float(rng.uniform(0, 1)) for n in ALL_FEATURES}
        choice = "a" if a["o_section_separation"] > b["o_section_separation"] else "b"
        labels.append(OutlineLabel("d1", "A", "B", choice, a, b, 10, 10))
    plain = dict(zip(*(lambda f: (f["names"], f["weights"]))(fit_component(drafts, targets, "outline", 1.0))))
    joint_fit = fit_component(drafts, targets, "outline", 1.0, labels, "rank", 3.0)
    joint = dict(zip(joint_fit["names"], joint_fit["weights"]))
    assert joint["o_section_separation"] > plain["o_section_separation"] + 0.1
    assert joint["o_sections"] > 0.1 and all(w >= 0 for w in joint.values())  # the rubric still counts
    # without a weight the labels change nothing: the plain ridge fit
    same = fit_component(drafts, targets, "outline", 1.0, labels, "rank", 0.0)
    assert np.allclose(same["weights"], list(plain.values()))


def test_section_separation_sees_matter_filed_twice():
    """The same matter under two sections ("Diagnostic Imaging" / "Imaging Techniques for Disease
    Diagnosis") lowers o_section_separation with the bundled encoder; distinct sections keep it high."""
    from surveygraph.evaluation.quality.features import outline_features

    def outline(second_section: str) -> float:
        survey = parse_markdown(f"""# Nanoparticles in Medicine
## 1 Synthesis
### 1.1 Green Synthesis with Plant Extracts
### 1.2 Diagnostic Imaging Agents
## 2 {second_section}
### 2.1 Imaging Techniques for Disease Diagnosis
### 2.2 Contrast Agents for Diagnostic Imaging
## 3 Toxicity
### 3.1 Cytotoxicity Assays in Cell Lines
""")
        survey.topic = "Nanoparticles in Medicine"
        return outline_features(survey)["o_section_separation"]

    filed_twice = outline("Diagnosis")
    distinct = parse_markdown("""# Nanoparticles in Medicine
## 1 Synthesis
### 1.1 Green Synthesis with Plant Extracts
### 1.2 Sol-Gel and Hydrothermal Routes
## 2 Diagnosis
### 2.1 Imaging Techniques for Disease Diagnosis
### 2.2 Contrast Agents for MRI
## 3 Toxicity
### 3.1 Cytotoxicity Assays in Cell Lines
""")
    distinct.topic = "Nanoparticles in Medicine"
    from surveygraph.evaluation.quality.features import outline_features as features_of

    assert 0.0 < filed_twice < features_of(distinct)["o_section_separation"] <= 1.0
    one_section = parse_markdown("# T\n## Only Section\n")
    assert features_of(one_section)["o_section_separation"] == 0.0  # nothing to compare across


def test_heading_encoder_is_safe_from_several_threads():
    """The leaderboard scores drafts from a thread pool; the shared encoder must give every thread
    the same vectors (a fast tokenizer shared unguarded between threads can raise)."""
    from concurrent.futures import ThreadPoolExecutor

    from surveygraph.evaluation.quality.features import heading_encoder

    texts = [f"Heading number {i} on graph neural networks for traffic" for i in range(40)]
    expected = heading_encoder()(texts)
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda _: heading_encoder()(texts), range(8)))
    assert all(np.allclose(r, expected, atol=1e-5) for r in results)


def test_train_command_reports_a_missing_folder(tmp_path, capsys):
    from surveygraph.evaluation.quality.train import main

    code = main(["--data", str(tmp_path / "nope"), "--out", str(tmp_path / "m.json"),
                 "--cache", str(tmp_path / "c.json")])
    assert code == 2 and "not found" in capsys.readouterr().err
    assert not (tmp_path / "m.json").exists()


def test_verdict_places_one_draft_by_the_median_and_its_per_draft_error():
    model = {"components": {"overall": {"reference_systems": {"A": 3.0, "B": 3.5, "C": 4.0}}},
             "cv": {"overall": {"heldout_rmse": 0.1, "per_draft_error": 0.1}}}
    line = verdict({"overall": 3.6}, model)
    assert "above the median of the 3 ASG-Bench reference systems (3.50); at or above 2 of them" in line
    assert "±0.20, so it cannot be told apart from B 3.50" in line and "level with" not in line
    assert "below the median" in verdict({"overall": 3.25}, model)
    assert "cannot be told apart" not in verdict({"overall": 2.0}, model)  # far from every system
    # the per-draft error, not the system-level one, sets the reach
    model["cv"]["overall"]["per_draft_error"] = 0.3
    assert "from C 4.00, B 3.50 and A 3.00" in verdict({"overall": 3.5}, model)
    model["components"]["overall"]["reference_systems"]["D"] = 3.2  # more than three: a range
    assert "from 4 of them, C 4.00 to A 3.00" in verdict({"overall": 3.5}, model)
