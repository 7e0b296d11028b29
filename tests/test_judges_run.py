"""The judges end to end with a scripted judge model: prompts, verdicts, runs, the log, the CLI."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from tests.scripted_llm import ScriptedChatModel
from surveygraph.errors import UserError
from surveygraph.evaluation.judges import estimate_judge_cost, run_judges
from surveygraph.evaluation.judges.base import make_judge, render_prompt
from surveygraph.evaluation.judges.checklist import judge_subgroup, load_tasks, report_sections
from surveygraph.models import Citation, OutlineEntry, Reference, Survey, SurveySection
from surveygraph.settings import load_settings


def make_survey(name: str = "gen") -> Survey:
    outline = [OutlineEntry(level=1, title="Introduction"), OutlineEntry(level=1, title="Methods"),
               OutlineEntry(level=2, title="Dense Retrieval"), OutlineEntry(level=2, title="Sparse Retrieval"),
               OutlineEntry(level=1, title="Future Directions")]
    sections = [SurveySection(heading=e.title, level=e.level,
                              text=f"{name} discusses {e.title.lower()} in retrieval augmented generation [1].")
                for e in outline]
    refs = [Reference(key=str(i), text=f"[{i}] Paper number {i} on retrieval", title=f"Paper {i}") for i in range(1, 26)]
    cites = [Citation(sentence="Dense retrieval beats BM25 [1].", ref_keys=["1"]),
             Citation(sentence="Sparse retrieval is cheap [2, 3].", ref_keys=["2", "3"])]
    return Survey(title=f"{name} survey", topic="RAG", outline=outline, sections=sections,
                  references=refs, citations=cites)


def responder(prompt: str) -> str:
    """Routes on the text each judge prompt starts with and returns a short valid verdict."""
    if "Outline quality only" in prompt or "outline quality only" in prompt:
        return '{"notes": "balanced outline", "score": 82}'
    if "score the AI-generated review on" in prompt:
        return '{"notes": "close to the reference", "score": 70}'
    if 'Criterion "Outline"' in prompt:
        return '{"notes": "clear", "score": 4}'
    if "belongs under its parent section" in prompt:
        n = len(re.findall(r"^\d+\. ", prompt.split("Children:")[1], flags=re.M))
        return json.dumps({"included": ["Yes"] * (n - 1) + ["No"]})
    if "Score the survey content below" in prompt:
        return '{"notes": "solid", "coverage": 4, "structure": 3, "relevance": 5, "language": 4, "criticalness": 2}'
    if "Count the in-text citation occurrences" in prompt:
        return '{"total": 2, "supported": 1}'
    if 'Criterion "Reference"' in prompt:
        return '{"notes": "mostly relevant", "score": 3}'
    if "provide strong support for it" in prompt:
        n = int(re.search(r"Below are (\d+) reference", prompt).group(1))
        return json.dumps({"total": n, "supported": n // 2})
    if "You are a domain reviewer" in prompt:
        names = re.search(r"in this order: (.*)\.", prompt).group(1).split(", ")
        return json.dumps({"aspects": [{"aspect_name": a, "notes": "ok", "score": 3 + (i % 2)}
                                       for i, a in enumerate(names)]})
    if "building an evaluation checklist" in prompt:
        return json.dumps({"group_name": "Methods", "sub_groups": [
            {"sub_group_name": "Dense", "requirements": ["The article should mention dense retrieval methods.",
                                                         "The article should describe sparse retrieval."]}]})
    if "building a structure checklist" in prompt:
        return json.dumps({"group_name": "Taxonomy", "detailed_prompt": "Survey the methods by categorizing them.",
                           "sub_groups": [{"sub_group_name": "Dense", "requirements": [
                               "Dense retrieval should be presented as a category.",
                               "Sparse retrieval should be presented as a category."]}]})
    if "Assess whether the provided survey content meets" in prompt:
        n = int(re.search(r"exactly (\d+) labels", prompt).group(1))
        return json.dumps({"labels": (["mentioned_correct", "mentioned_incorrect", "not_mentioned"] * n)[:n]})
    if "compare two draft literature reviews" in prompt:
        return '{"notes": "A is broader", "D5": "A", "D1": "A", "D2": "Tie", "D3": "B", "D4": "BothBad"}'
    raise AssertionError("unrouted prompt: " + prompt[:200])


def patch_judge(monkeypatch, reply) -> ScriptedChatModel:
    """Every judge the code under test builds answers with ``reply``."""
    import surveygraph.llm as llm

    model = ScriptedChatModel(responder=reply)
    real = llm.build_role_clients
    monkeypatch.setattr(llm, "build_role_clients",
                        lambda settings, **kw: real(settings, chat_models={"judge": model}))
    return model


@pytest.fixture
def scripted(monkeypatch):
    return patch_judge(monkeypatch, responder)


def test_sam_prompts_carry_the_rubrics_and_inputs():
    from surveygraph.evaluation.judges.sam import sam_c_prompt, sam_o_prompt

    gen, human = make_survey("gen"), make_survey("human")
    o = sam_o_prompt(gen, "RAG", 4000)
    for text in ("Topic Uniqueness (30 points)", "Structural Balance (30 points)",
                 "Hierarchical Clarity (20 points)", "Logical Organization (20 points)",
                 '[2, "Dense Retrieval"]', "90-100 Exceptional"):
        assert text in o
    c = sam_c_prompt(gen, human, "RAG", "coverage", 4000)
    for text in ("Topic Comprehensiveness (35)", "Discussion Depth (35)", "Content Balance (30)",
                 "human discusses", "gen discusses", "not as the absolute standard", "avoid \"safe\" middle-range"):
        assert text in c
    assert "Information Focus (30)" in sam_c_prompt(gen, human, "RAG", "relevance", 4000)
    assert "Format & Presentation (30)" in sam_c_prompt(gen, human, "RAG", "structure", 4000)
    content = render_prompt("sgsim_content", topic="RAG", content="X")
    for crit in ("Coverage:", "Structure:", "Relevance:", "Language:", "Criticalness:"):
        assert crit in content


def test_run_judges_scores_everything_with_rationales(tmp_home, scripted):
    settings = load_settings()
    results = run_judges(make_survey(), human=make_survey("human"), topic="RAG",
                         names=["sam", "sgsim", "surveylens", "checklist"], settings=settings)
    by_name = {r.name: r for r in results}
    for r in results:
        assert r.value is not None, (r.name, r.rationale)
        assert r.rationale
    assert by_name["sam_o"].value == 82 and by_name["sam_c.avg"].value == 70
    assert by_name["sgsim.content.criticalness"].value == 2
    # Methods (level 1, 2 children: Yes/No) is the only parent: L = 0.5 -> H = 50
    assert by_name["sgsim.hierarchy"].value == pytest.approx(50.0)
    assert by_name["sgsim.faithfulness"].value == pytest.approx(50.0)   # 2 sentences × 1/2
    assert by_name["sgsim.supportiveness"].value == pytest.approx(100 * (10 + 2) / 25)
    # outline: scores 3,4,3 with equal weights -> 5 * mean(x/5) = 10/3
    assert by_name["surveylens.outline"].value == pytest.approx(10 / 3, abs=1e-3)
    assert "equal" in by_name["surveylens.outline"].details["weights_source"]
    assert by_name["surveylens.overall"].family == "rubric"
    assert by_name["checklist.s_all"].family == "checklist"
    # generated task: the judge's "Methods" group (2 grounded items, judged correct/incorrect), the
    # judge's group for "Future Directions" is not grounded in that section, so the extractive one
    # replaces it (1 item: correct), and the "Methods" taxonomy group (2 items): 3 / (3 + 2)
    assert by_name["checklist.precision"].value == pytest.approx(60.0)
    groups = by_name["checklist.s_all"].details["groups"]
    assert len(groups) == 3 and sum(g["strict"] for g in groups) == 1


def test_log_resumes_and_runs_are_distinct(tmp_home, scripted):
    settings = load_settings(**{"evaluation.judge_runs": 2})
    run_judges(make_survey(), human=None, topic="RAG", names=["sam"], settings=settings)
    first = len(scripted.calls)
    assert first == 2  # SAM-O × 2 runs; SAM-C skipped without a human survey
    assert "Independent evaluation run 2" in scripted.calls[1]
    log = settings.home / "judgments" / "judges.jsonl"
    assert len(log.read_text().splitlines()) == 2
    again = run_judges(make_survey(), human=None, topic="RAG", names=["sam"], settings=settings)
    assert len(scripted.calls) == first  # read back from the log, no new calls
    assert again[0].value == 82 and again[0].details["runs"] == [82.0, 82.0]
    assert again[1].value is None and "human" in again[1].rationale


def test_checklist_length_mismatch_falls_back_to_not_mentioned(tmp_home, monkeypatch):
    import surveygraph.llm as llm

    model = ScriptedChatModel(responder=lambda p: '{"labels": ["mentioned_correct"]}')
    clients = llm.build_role_clients(load_settings(), chat_models={"judge": model})
    judge = make_judge(load_settings(), clients)
    sg = {"sub_group_name": "x", "requirements": [{"content": "a", "reward": 1.0}, {"content": "b", "reward": 1.0}]}
    assert judge_subgroup(report_sections("# T\ntext"), sg, judge) == ["not_mentioned"] * 2
    assert len(model.calls) == 1 + load_settings().llm.retries  # the first ask, then repair prompts
    assert "at least 2 items" in model.calls[1]  # the repair prompt names the required length


def test_checklist_cli_scores_deepsynth_tasks(tmp_home, scripted, shared_data, tmp_path):
    from surveygraph.cli import app

    src = shared_data / "deepsynth_eval" / "example_tasks.jsonl"
    task = load_tasks(src)[0]
    for g in task["checklist"]:  # keep the test fast: two subgroups per group
        g["sub_groups"] = g["sub_groups"][:2]
    small = tmp_path / "task.jsonl"
    small.write_text(json.dumps(task) + "\n")
    res = CliRunner().invoke(app, ["checklist", "score", str(small), "--scored-out", str(tmp_path / "scored.jsonl")])
    assert res.exit_code == 0, res.output
    scored = load_tasks(tmp_path / "scored.jsonl")[0]
    labels = [lab for g in scored["checklist"] for sg in g["sub_groups"] for lab in sg["eval_result"]]
    assert len(labels) == sum(len(sg["requirements"]) for g in task["checklist"] for sg in g["sub_groups"])
    c, i = labels.count("mentioned_correct"), labels.count("mentioned_incorrect")
    assert re.search(rf"precision\s+{100 * c / (c + i):.1f}", res.output)
    missing = CliRunner().invoke(app, ["checklist", "score", str(tmp_path / "none.jsonl")])
    # the CLI's main() prints UserError as "error: ..." with exit 2 (see cli/__init__.py)
    assert isinstance(missing.exception, UserError) and "not found" in str(missing.exception)


def test_arena_cli_prints_ratings_with_intervals(tmp_home, scripted, tmp_path):
    from surveygraph.cli import app

    root = tmp_path / "drafts"
    for system in ("sysA", "sysB", "Human"):
        for topic in ("T1", "T2"):
            (root / system).mkdir(parents=True, exist_ok=True)
            (root / system / f"{topic}.md").write_text(f"# {topic}\n\n## Intro\nSome text [1].\n\n## References\n[1] A paper\n")
    res = CliRunner().invoke(app, ["arena", str(root), "--human-dir", str(root / "Human"),
                                   "--bootstrap", "20", "--out", str(tmp_path / "out")])
    assert res.exit_code == 0, res.output
    assert "D5 Overall Utility" in res.output and "95% CI" in res.output
    table = json.loads((tmp_path / "out" / "ratings.json").read_text())
    assert table["battles"] == 6 and set(table["players"]) == {"human", "sysA", "sysB"}
    assert (tmp_path / "out" / "ratings.csv").read_text().startswith("dimension,player")


def test_estimate_judge_cost_scales_with_surveys_and_runs():
    settings = load_settings(**{"evaluation.judge_runs": 3})
    one = estimate_judge_cost(1, ["sam"], settings)
    two = estimate_judge_cost(2, ["sam", "sgsim"], settings)
    assert one["calls"] == 12 and two["per_judge"]["sam"]["calls"] == 24
    assert two["input_tokens"] > one["input_tokens"] > 0
    with pytest.raises(Exception, match="unknown judge"):
        estimate_judge_cost(1, ["nope"], settings)


def rubric_responder(prompt: str) -> str:
    if "Write 2 concrete, checkable criteria" in prompt:
        aspect = re.search(r'"aspect_name" \("([^"]+)"\)', prompt).group(1)
        if "JUNK" in prompt:  # what a 270M model writes: format text and bare numbers
            return json.dumps({"aspect_name": aspect, "expanded_criteria": [
                {"criterion_name": "1", "description": "1", "example": ""},
                {"criterion_name": "...", "description": "criterion description ...", "example": ""}]})
        return json.dumps({"aspect_name": aspect, "expanded_criteria": [
            {"criterion_name": f"Taxonomy depth {i}", "description": "Groups methods into a clear taxonomy.",
             "example": "e"} for i in range(2)]})
    if "Merge them into exactly 2 criteria" in prompt:
        aspect = re.search(r'"aspect_name" \("([^"]+)"\)', prompt).group(1)
        return json.dumps({"aspect_name": aspect, "component_name": "x", "merged_expanded_criteria": [
            {"criterion_name": f"merged {aspect} {i}", "description": "One criterion merged from both surveys.",
             "example": "e"} for i in range(2)]})
    return responder(prompt)


def test_rubrics_build_and_weights_cli(tmp_home, monkeypatch, tmp_path):
    from surveygraph.cli import app
    from surveygraph.evaluation.judges.surveylens import ASPECTS, criteria_payload, load_rubric

    model = patch_judge(monkeypatch, rubric_responder)
    humans = tmp_path / "humans"
    humans.mkdir()
    for t in ("T1", "T2"):
        (humans / f"{t}.md").write_text(f"# {t}\n\n## Intro to {t}\nText about {t} [1].\n\n## Methods for {t}\nMore.\n\n"
                                        f"## References\n[1] A paper on {t}\n")
    rubric_path = tmp_path / "cs.v1.json"
    res = CliRunner().invoke(app, ["rubrics", "build", "--human-dir", str(humans), "--discipline", "cs",
                                   "--criteria", "2", "--out", str(rubric_path)])
    assert res.exit_code == 0, res.output
    assert len(model.calls) == 2 * 11 + 11  # expand per survey and aspect, one merge per aspect
    rubric = load_rubric("cs", path=rubric_path)
    assert set(rubric["components"]) == {"outline", "content", "reference"}
    assert all(len(rubric["components"][c][a]["criteria"]) == 2 for c in ASPECTS for a in ASPECTS[c])
    assert "merged Formal Precision" in criteria_payload(rubric, "outline")
    again = CliRunner().invoke(app, ["rubrics", "build", "--human-dir", str(humans), "--out", str(rubric_path)])
    assert isinstance(again.exception, UserError)  # never overwrites a rubric
    assert rubric["quality"] == {"failed_calls": 0, "dropped_criteria": 0, "merge_fallbacks": 0}

    prefs = tmp_path / "prefs.jsonl"
    names = list(ASPECTS["outline"])
    prefs.write_text("".join(json.dumps({"component": "outline", "winner": dict(zip(names, [5, 3, 3])),
                                         "loser": dict(zip(names, [2, 3, 3]))}) + "\n" for _ in range(8)))
    weighted = tmp_path / "cs.v2.json"
    res = CliRunner().invoke(app, ["rubrics", "weights", str(rubric_path), "--prefs", str(prefs), "--out", str(weighted)])
    assert res.exit_code == 0, res.output
    w = json.loads(weighted.read_text())["weights"]["outline"]
    assert max(w, key=w.get) == "Substantive Integrity"


def test_checklist_generate_cli_writes_deepsynth_format(tmp_home, scripted, tmp_path):
    from surveygraph.cli import app

    human = tmp_path / "Human.md"
    human.write_text("# RAG survey\n\n## Introduction\nIntro.\n\n## Retrieval\nDense retrieval [1].\n\n"
                     "### Dense\nBi-encoders.\n\n### Sparse\nBM25.\n\n## Generation\nReaders.\n\n"
                     "## References\n[1] A paper\n")
    out_file = tmp_path / "tasks.jsonl"
    res = CliRunner().invoke(app, ["checklist", "generate", str(human), "--out", str(out_file), "--topic", "RAG"])
    assert res.exit_code == 0, res.output
    [task] = load_tasks(out_file)
    groups = {g["group_name"]: g for g in task["checklist"]}
    strict = [g for g in task["checklist"] if g["strict"]]
    assert len(task["checklist"]) == 3 and len(strict) == 1  # Retrieval, Generation + taxonomy
    assert strict[0]["clip_factor"] == 0.8 and strict[0]["detailed_prompt"]
    assert all(g["clip_factor"] == 1.0 for g in task["checklist"] if not g["strict"])
    assert "RAG" in task["general_prompt"] and groups
    taxonomy_prompt = [c for c in scripted.calls if "building a structure checklist" in c][0]
    assert "Taxonomy: Retrieval" in taxonomy_prompt and "- Dense" in taxonomy_prompt


def test_evaluate_cli_with_every_judge_reports_numbers_and_progress(tmp_home, scripted, tmp_path):
    from surveygraph.cli import app

    def md(survey: Survey) -> str:
        body = "\n\n".join(f"{'#' * (s.level + 1)} {s.heading}\n\n{s.text}" for s in survey.sections)
        refs = "\n".join(r.text for r in survey.references)
        return f"# {survey.title}\n\n{body}\n\n## References\n\n{refs}\n"

    draft, human = tmp_path / "RAG.md", tmp_path / "human.md"
    draft.write_text(md(make_survey("gen")))
    human.write_text(md(make_survey("human")))
    out_file = tmp_path / "report.json"
    res = CliRunner().invoke(app, ["evaluate", str(draft), "--human", str(human), "--metrics", "structure",
                                   "--judges", "sam,sgsim,surveylens,checklist", "--out", str(out_file)])
    assert res.exit_code == 0, res.output
    assert "judge calls done" in res.output  # progress lines when the output is not a terminal
    metrics = {m["name"]: m for m in json.loads(out_file.read_text())["metrics"]}
    judged = [m for n, m in metrics.items() if n.split(".")[0] in ("sam_o", "sam_c", "sgsim", "surveylens", "checklist")
              and n != "sgsim.sigma"]
    assert len(judged) >= 20
    assert all(m["value"] is not None and m["rationale"] for m in judged), \
        [(m["name"], m["rationale"]) for m in judged if m["value"] is None]


def test_rubric_build_drops_unusable_criteria(tmp_home):
    import surveygraph.llm as llm
    from surveygraph.evaluation.judges.surveylens import build_rubric
    from surveygraph.evaluation.markdown_parser import parse_markdown

    model = ScriptedChatModel(responder=rubric_responder)
    settings = load_settings()
    judge = make_judge(settings, llm.build_role_clients(settings, chat_models={"judge": model}), use_log=False)
    junk = parse_markdown("# JUNK\n\n## JUNK methods\nJUNK text [1].\n\n## References\n[1] JUNK paper\n")
    rubric = build_rubric([junk], "cs", judge, n=2)
    # nothing usable to merge: no merge calls, and the scorer falls back to the aspect descriptions
    assert len(model.calls) == 11
    assert all(a["criteria"] == [] for comp in rubric["components"].values() for a in comp.values())
    assert rubric["quality"]["dropped_criteria"] == 22


def test_rubrics_build_cli_writes_nothing_when_no_criterion_is_usable(tmp_home, monkeypatch, tmp_path):
    from surveygraph.cli import app

    patch_judge(monkeypatch, rubric_responder)
    humans = tmp_path / "humans"
    humans.mkdir()
    (humans / "JUNK.md").write_text("# JUNK\n\n## JUNK methods\nJUNK text [1].\n\n## References\n[1] JUNK paper\n")
    target = tmp_path / "cs.v1.json"
    res = CliRunner().invoke(app, ["rubrics", "build", "--human-dir", str(humans), "--criteria", "2",
                                   "--out", str(target)])
    assert isinstance(res.exception, UserError) and "no usable criterion" in str(res.exception)
    assert not target.exists()


def test_leaderboard_cli_runs_the_judges_for_every_survey(tmp_home, scripted, tmp_path):
    from surveygraph.cli import app

    root, humans = tmp_path / "systems", tmp_path / "humans"
    for system in ("alpha", "beta"):
        (root / system).mkdir(parents=True)
        (root / system / "RAG.md").write_text(f"# {system} on RAG\n\n## Methods of {system}\n\n{system} retrieves [1].\n\n"
                                              "## References\n\n[1] Dense Passage Retrieval\n")
    humans.mkdir()
    (humans / "RAG.md").write_text("# RAG survey\n\n## Retrieval\n\nDense retrieval [1].\n\n"
                                   "## References\n\n[1] Dense Passage Retrieval\n")
    res = CliRunner().invoke(app, ["leaderboard", str(root), "--human-dir", str(humans), "--out", str(tmp_path / "lb"),
                                   "--metrics", "structure", "--judges", "sam"])
    assert res.exit_code == 0, res.output
    assert "judges sam on 3 survey(s)" in res.output  # two systems + the human survey (Balanced score)
    board = json.loads((tmp_path / "lb" / "leaderboard.json").read_text())
    for system in ("alpha", "beta"):
        metrics = {m["name"]: m["value"] for m in board["reports"][system]["RAG"]["metrics"]}
        assert metrics["sam_o"] == 82 and metrics["sam_c.avg"] == 70
    # SAM-O for both drafts and for the human survey (its Q_human for the Balanced scores)
    assert sum("Outline quality only" in c or "outline quality only" in c for c in scripted.calls) == 3
