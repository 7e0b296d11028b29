"""JSON forms (survey.json, split JSON, three-file folder) and garbage input: a report, never a crash."""

import json

import pytest

from surveygraph.errors import UserError
from surveygraph.evaluation.parsers import parse_markdown as parse_markdown_text
from surveygraph.evaluation.parsers import parse_survey
from surveygraph.models import Citation, OutlineEntry, Reference, Survey, SurveySection


def _survey() -> Survey:
    return Survey(
        title="T", topic="rag", system="surveygraph",
        outline=[OutlineEntry(level=1, title="1 Intro"), OutlineEntry(level=2, title="1.1 Sub")],
        sections=[SurveySection(heading="1 Intro", level=1, text="A claim [1]."),
                  SurveySection(heading="1.1 Sub", level=2, text="More [2].")],
        references=[Reference(key="1", title="Paper One", arxiv_id="2501.00001"),
                    Reference(key="2", title="Paper Two")],
        citations=[Citation(sentence="A claim [1].", ref_keys=["1"], section="1 Intro")],
    )


def test_survey_json_round_trips(tmp_path):
    original = _survey()
    path = tmp_path / "survey.json"
    path.write_text(original.model_dump_json())
    parsed = parse_survey(path)
    assert parsed.model_dump(exclude={"report"}) == original.model_dump(exclude={"report"})
    assert parsed.report.format == "survey-json"


def test_survey_json_with_run_fields_and_no_citations(tmp_path):
    data = _survey().model_dump()
    data["citations"] = []
    data["run_id"] = "abc"
    data["usage"] = {"tokens": 5}
    path = tmp_path / "survey.json"
    path.write_text(json.dumps(data))
    parsed = parse_survey(path, system="mine")
    assert parsed.system == "mine"
    assert [c.ref_keys for c in parsed.citations] == [["1"], ["2"]]  # recomputed from the text
    assert any("run_id" in w for w in parsed.report.warnings)


def test_split_json(tmp_path):
    data = {
        "outline": [[1, "Introduction"], [2, "Background"], ["bad"]],
        "content": [{"heading": "Introduction", "level": 1, "content": "We cite [1] and [2]."}],
        "references": [{"title": "Attention Is All You Need", "text": "[1] Attention Is All You Need"},
                       "[2] A. Author, \"Second Paper,\" in ICML, 2020."],
    }
    path = tmp_path / "split.json"
    path.write_text(json.dumps(data))
    s = parse_survey(path)
    assert s.report.format == "split-json"
    assert [(e.level, e.title) for e in s.outline] == [(1, "Introduction"), (2, "Background")]
    assert s.report.unparsed_lines == 1
    assert [r.title for r in s.references] == ["Attention Is All You Need", "Second Paper"]
    assert [r.key for r in s.references] == ["1", "2"]
    assert s.citations[0].ref_keys == ["1", "2"]


def test_three_file_folder(tmp_path):
    (tmp_path / "outline.json").write_text(json.dumps([[1, "Intro"], [1, "Methods"]]))
    (tmp_path / "content.json").write_text(json.dumps([{"heading": "Intro", "level": 1, "content": "X [1]."}]))
    (tmp_path / "references.json").write_text(json.dumps(["[1] Only Paper Title"]))
    s = parse_survey(tmp_path)
    assert s.report.format == "split-folder"
    assert len(s.outline) == 2 and s.references[0].title == "Only Paper Title"
    assert s.citations[0].ref_keys == ["1"]


def test_markdown_file_dispatch(tmp_path):
    path = tmp_path / "s.md"
    path.write_text("# Title\n\n## 1 Intro\n\nText [1].\n\n## References\n\n[1] A Paper Title\n")
    s = parse_survey(path, system="X", topic="t")
    assert (s.title, s.system, s.topic) == ("Title", "X", "t")
    assert s.report.format == "markdown"


def test_missing_path_raises_user_error(tmp_path):
    with pytest.raises(UserError, match="not found"):
        parse_survey(tmp_path / "nope.md")


@pytest.mark.parametrize("name,content", [
    ("empty.md", b""),
    ("empty.json", b""),
    ("junk.md", bytes(range(256)) * 4),
    ("junk.json", b"\x00\x01\x02garbage"),
    ("list.json", b"[1, 2, 3]"),
    ("wrong.json", b'{"foo": 1, "bar": [2]}'),
    ("badschema.json", b'{"sections": "not a list"}'),
    ("badsplit.json", b'{"outline": "nope", "content": 7, "references": {"a": 1}}'),
    ("noheadings.md", b"just some words\nand more words\n"),
    ("weird.xyz", b"# T\n\n## A\n\ntext\n"),
])
def test_garbage_gives_report_not_crash(tmp_path, name, content):
    path = tmp_path / name
    path.write_bytes(content)
    s = parse_survey(path)
    assert isinstance(s, Survey)
    assert s.report.warnings, f"{name} should explain what was not understood"


def test_empty_folder_reports(tmp_path):
    s = parse_survey(tmp_path)
    assert s.report.warnings and s.sections == []


def test_generated_markdown_export_parses_back():
    exporter = pytest.importorskip("surveygraph.agents.exporter")
    original = _survey()
    original.references = [Reference(key="1", text="A. Author. Paper One. arXiv:2501.00001, 2025.", title="Paper One"),
                           Reference(key="2", text="B. Author. Paper Two. In ICML, 2024.", title="Paper Two")]
    parsed = parse_markdown_text(exporter.to_markdown(original))
    assert parsed.title == "T"
    assert [(e.level, e.title) for e in parsed.outline] == [(1, "1 Intro"), (2, "1.1 Sub")]
    assert [(r.key, r.title, r.arxiv_id) for r in parsed.references] == [
        ("1", "Paper One", "2501.00001"), ("2", "Paper Two", None)]
    assert [c.ref_keys for c in parsed.citations] == [["1"], ["2"]]
