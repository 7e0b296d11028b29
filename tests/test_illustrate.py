"""Tables per section and the survey's figure (agents/illustrate.py)."""

from __future__ import annotations

import re

from tests.synthesis_fixtures import CLEAN_PAPERS, FORBIDDEN, POISONED_PAPER
from surveygraph.agents.deps import GenerationDeps
from surveygraph.agents.illustrate import FIGURE_NAME, illustrate, pipe_table
from surveygraph.settings import Settings

PIPE_PAPER = {**CLEAN_PAPERS[1], "arxiv_id": "2502.20099", "title": "Pipes | in a Title: A Study of Tables"}
PAPERS = [*CLEAN_PAPERS, POISONED_PAPER, PIPE_PAPER]
IDS = [f"arxiv:{p['arxiv_id']}" for p in PAPERS]


def state(run_dir) -> dict:
    body = [
        {"id": "1", "title": "Retrieval", "text": "", "subsections": [
            {"id": "1.1", "title": "Dense", "text": "Smith et al. [1] fuse passages. Okafor [2] expands terms."},
            {"id": "1.2", "title": "Graphs", "text": "Novak and Haddad [3] walk graphs [1, 3]."}]},
        {"id": "2", "title": "Robustness", "text": "", "subsections": [
            {"id": "2.1", "title": "Abstention", "text": "An abstention head [4] and attacks [5, 6]."},
            {"id": "2.2", "title": "Empty", "text": ""}]},
    ]
    return {"topic": "RAG", "run_dir": str(run_dir), "outline": [],
            "papers": dict(zip(IDS, PAPERS)), "survey": {"topic": "RAG", "body": body, "references": IDS}}


def deps(tmp_path, **generation) -> GenerationDeps:
    return GenerationDeps(settings=Settings(home=tmp_path / "home", generation=generation), corpus=None,
                          outlines=None, clients=None)


HEADER = "| Work | Year | Contribution | Name | Focus | Evaluation data | Measures | Stated result |"


def test_each_section_gets_a_comparison_table_of_its_cited_works(tmp_path):
    survey = illustrate(state(tmp_path), deps(tmp_path))["survey"]
    first, second = (s["text"] for s in survey["body"])
    assert first.startswith("Table 1 compares the 3 works this section is the first to cite.")
    rows = [line for line in first.splitlines() if line.startswith("| ") and "---" not in line]
    assert rows[0] == HEADER
    assert [re.search(r"\[(\d+)\]", r).group(1) for r in rows[1:]] == ["1", "2", "3"]
    # short phrases from the abstract, not cut sentences
    assert rows[1] == ("| Smith et al. [1] | 2025 | method | DenseFuse | DenseFuse: Late Fusion of Dense Passages for "
                       "Open-Domain QA | Natural Questions, TriviaQA | exact match | improves exact match by 3.1 points "
                       "over concatenation readers |")
    assert rows[2].startswith("| Okafor [2] | 2025 | empirical study | – | Sparse Lexical Expansion Revisited | SciFact |")
    assert "..." not in first
    assert all(r.count(" | ") == 7 for r in rows)  # eight cells, no stray pipe
    assert "Pipes \\| in a Title" in second  # a pipe inside a cell is escaped
    for bad in FORBIDDEN:
        assert bad not in second, bad
    assert [t["section_id"] for t in survey["tables"]] == ["1", "2"]
    assert survey["tables"][1]["caption"].startswith("Table 2: Works first cited in “Robustness”")
    # a column fewer than a third of the works fill is left out, and the caption says so
    assert "Name" not in survey["tables"][1]["header"]
    assert survey["tables"][1]["caption"].endswith("the name of the proposed system left out, as fewer than a third "
                                                   "of the abstracts state them.")


def test_a_work_is_listed_in_one_table_only(tmp_path):
    data = state(tmp_path)
    data["survey"]["body"][1]["subsections"][0]["text"] = "An abstention head [4], attacks [5, 6] and DenseFuse [1]."
    survey = illustrate(data, deps(tmp_path))["survey"]
    listed = [re.search(r"\[(\d+)\]", row[0]).group(1) for t in survey["tables"] for row in t["rows"]]
    assert sorted(listed) == ["1", "2", "3", "4", "5", "6"]  # [1] stays in Table 1 only


def test_figure_is_a_png_in_the_run_folder_and_recorded(tmp_path):
    update = illustrate(state(tmp_path), deps(tmp_path))
    (figure,) = update["survey"]["figures"]
    assert figure == {"path": f"figures/{FIGURE_NAME}.png", "section_id": "introduction",
                      "caption": figure["caption"]}
    assert "per publication quarter" in figure["caption"]  # 2025-26 papers with dates: quarters
    png = tmp_path / figure["path"]
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000
    from matplotlib.image import imread

    height, width, _ = imread(png).shape
    assert width > 600 and height > 300
    again = tmp_path / "again"
    again.mkdir()
    illustrate(state(again), deps(tmp_path))
    assert (again / figure["path"]).read_bytes() == data  # same survey, same bytes


def test_switch_off_and_a_studio_run_without_folder(tmp_path):
    assert illustrate(state(tmp_path), deps(tmp_path, illustrate=False)) == {}
    no_dir = {**state(tmp_path), "run_dir": None}
    update = illustrate(no_dir, deps(tmp_path))
    assert update["run_dir"].startswith(str(tmp_path / "home"))
    assert (tmp_path / update["run_dir"] / update["survey"]["figures"][0]["path"]).is_file()


def test_build_survey_carries_the_section_text(tmp_path):
    from surveygraph.agents.exporter import build_survey

    data = state(tmp_path)
    data["survey"] = illustrate(data, deps(tmp_path))["survey"]
    data["outline"] = [{"id": s["id"], "title": s["title"], "subsections": []} for s in data["survey"]["body"]]
    survey = build_survey(data)
    section = next(s for s in survey.sections if s.section_id == "1")
    assert HEADER in section.text.splitlines()


def test_pipe_table_renders_empty_cells_as_dash():
    assert pipe_table(["A", "B"], [["x|y", ""]]) == "| A | B |\n|---|---|\n| x\\|y | – |"


def test_exported_introduction_keeps_our_figure_and_flattens_foreign_images(tmp_path):
    from surveygraph.agents.exporter import build_survey, to_markdown
    from surveygraph.agents.latex_document import to_latex

    data = state(tmp_path)
    data["survey"] = illustrate(data, deps(tmp_path))["survey"]
    data["outline"] = [{"id": s["id"], "title": s["title"], "subsections": []} for s in data["survey"]["body"]]
    path = data["survey"]["figures"][0]["path"]
    data["survey"]["introduction"] = (
        "Intro text [1].\n\n![x](http://evil.example/x.png)\n\n"
        f"![Figure 1: Cited <b>works</b> per year [2].]({path})\n\n![Figure 2: fake](figures/other.png)")
    survey = build_survey(data)
    intro = next(s for s in survey.sections if s.section_id == "introduction").text
    assert f"![Figure 1: Cited works per year.]({path})" in intro.split("\n\n")  # no marker in a caption
    assert "evil.example" not in intro and "figures/other.png" not in intro  # not rendered by this run
    assert f"]({path})" in to_markdown(survey)
    assert "\\includegraphics" in to_latex(survey) and path in to_latex(survey)


def test_columns_the_abstracts_rarely_fill_are_left_out_of_real_tables(shared_data):
    """Eight real RAG papers: only the columns a third of their abstracts fill are shown."""
    from tests.generation_helpers import rag_papers

    from surveygraph.agents.illustrate import OPTIONAL_COLUMNS, TABLE_HEADER, paper_row, section_table

    papers = {p.paper_id: p.model_dump(mode="json", exclude_none=True) for p in rag_papers(shared_data, 40)}
    ids = list(papers)[:24]
    section = {"id": "1", "title": "Retrieval", "subsections": [
        {"text": " ".join(f"Work [{n}]." for n in range(1, 25))}]}
    table = section_table(1, section, ids, papers, set())
    full = [paper_row(n, papers[pid]) for n, pid in enumerate(ids, start=1)]
    for i, name in enumerate(TABLE_HEADER):
        filled = sum(bool(row[i]) for row in full)
        if name in OPTIONAL_COLUMNS:
            assert (name in table["header"]) == (3 * filled >= len(full)), (name, filled)
        else:
            assert name in table["header"]
    cells = [c for row in table["rows"] for c in row]
    full_cells = [c for row in full for c in row]
    assert sum(not c for c in cells) / len(cells) < sum(not c for c in full_cells) / len(full_cells)
