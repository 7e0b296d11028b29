"""Hand-made inputs for every Markdown rule: headings, title, references styles, citation markers."""

from surveygraph.evaluation.parsers import extract_citations, parse_markdown, parse_reference_entry
from surveygraph.models import Reference

NUMERIC = """# A Survey of Things

## 1 Introduction

Things matter [1]. Many works study them [1, 3]. Ranges are common [2-4]. So are split ranges [1]–[3].

### 1.1 Scope

We cover scope [4].

## 2 Methods

Methods exist [2].

## References

[1] Graph Neural Networks  A Review of Methods and Applications

[2] Attention Is All You Need

[3] Deep Residual Learning for Image Recognition

[4] BERT  Pre-training of Deep Bidirectional Transformers
"""


def test_title_outline_levels_and_sections():
    s = parse_markdown(NUMERIC)
    assert s.title == "A Survey of Things"
    assert [(e.level, e.title) for e in s.outline] == [
        (1, "1 Introduction"), (2, "1.1 Scope"), (1, "2 Methods")]
    assert [sec.heading for sec in s.sections] == ["1 Introduction", "1.1 Scope", "2 Methods"]
    assert "Things matter [1]." in s.sections[0].text
    assert all("Attention Is All" not in sec.text for sec in s.sections)  # references are not content


def test_numeric_references_and_markers():
    s = parse_markdown(NUMERIC)
    assert [r.key for r in s.references] == ["1", "2", "3", "4"]
    assert s.references[1].title == "Attention Is All You Need"
    by_sentence = {c.sentence: c.ref_keys for c in s.citations}
    assert by_sentence["Many works study them [1, 3]."] == ["1", "3"]
    assert by_sentence["Ranges are common [2-4]."] == ["2", "3", "4"]
    assert by_sentence["So are split ranges [1]–[3]."] == ["1", "2", "3"]
    assert s.citations[0].section == "1 Introduction"


def test_levels_normalised_to_one_and_number_depth_wins():
    text = "# Title\n\n### 1. Intro\n\ntext\n\n#### 1.1 Sub\n\ntext\n\n#### 1.1.1 Deeper\n\nx\n"
    s = parse_markdown(text)
    assert [e.level for e in s.outline] == [1, 2, 3]
    unnumbered = parse_markdown("# T\n\n### Intro\n\na\n\n#### Sub\n\nb\n")
    assert [e.level for e in unnumbered.outline] == [1, 2]


def test_repeated_title_heading_dropped():
    s = parse_markdown("# A Survey on X\n\n# 0. A Survey on X\n\n## 1. Introduction\n\nBody.\n")
    assert [e.title for e in s.outline] == ["1. Introduction"]
    assert s.outline[0].level == 1


def test_no_headings_title_is_first_line_and_warns():
    s = parse_markdown("Just a title line\n\nSome text without headings.\n")
    assert s.title == "Just a title line"
    assert s.outline == []
    assert any("no headings" in w for w in s.report.warnings)
    assert any("no references" in w for w in s.report.warnings)


def test_plain_text_headings_from_pdf():
    text = ("Deep Things: A Survey\n\nI. INTRODUCTION\n\nSome text here that is long.\n\n"
            "II. BACKGROUND\n\nMore text.\n\nA. Definitions\n\nDefs.\n\n**Bold Heading**\n\nBody.\n")
    s = parse_markdown(text)
    titles = [(e.level, e.title) for e in s.outline]
    assert (1, "INTRODUCTION") in titles and (1, "BACKGROUND") in titles
    assert (2, "Definitions") in titles and (2, "Bold Heading") in titles
    numbered = parse_markdown("T\n\n1 Introduction\n\nx y z.\n\n2.3 Details\n\nmore.\n")
    assert [(e.level, e.title) for e in numbered.outline] == [(1, "1 Introduction"), (2, "2.3 Details")]


def test_empty_input():
    s = parse_markdown("")
    assert s.outline == [] and s.references == []
    assert s.report.warnings


def test_one_heading_one_reference():
    s = parse_markdown("# T\n\n## Only\n\nA claim [1].\n\n## References\n\n[1] One Paper Title\n")
    assert [e.title for e in s.outline] == ["Only"]
    assert len(s.references) == 1 and s.references[0].title == "One Paper Title"
    assert s.citations[0].ref_keys == ["1"]


AUTHOR_YEAR = """# Survey

## Introduction

Tuning helps (Wei et al., 2022a; Longpre and Chen, 2023). Smith (2021) disagrees. Wei et al. (2022b) extend it.
Results improve (Smith, 2021). Jones et al. [2020] report it too.

## References

Jason Wei, Maarten Bosma, and Quoc Le. 2022. Finetuned language models are zero-shot learners. In ICLR.

Jason Wei, Xuezhi Wang, and Denny Zhou. 2022. Chain-of-thought prompting elicits reasoning. arXiv preprint arXiv:2201.11903.

Shayne Longpre and Wei Chen. 2023. The flan collection: Designing data and methods. In ICML.

Smith, J. (2021). A single author paper title. Journal of Things, 3(2), 1-10.

Ann Jones, Bo Li, and Cy Wu. Large models for time series. arXiv preprint arXiv:2310.10196, 2020.
"""


def test_author_year_keys_and_markers():
    s = parse_markdown(AUTHOR_YEAR)
    keys = [r.key for r in s.references]
    assert keys == ["Wei et al., 2022a", "Wei et al., 2022b", "Longpre and Chen, 2023", "Smith, 2021",
                    "Jones et al., 2020"]
    assert s.references[1].arxiv_id == "2201.11903"
    assert s.references[3].title == "A single author paper title"
    cited = {c.sentence: c.ref_keys for c in s.citations}
    assert cited["Tuning helps (Wei et al., 2022a; Longpre and Chen, 2023)."] == [
        "Wei et al., 2022a", "Longpre and Chen, 2023"]
    assert cited["Smith (2021) disagrees."] == ["Smith, 2021"]
    assert cited["Wei et al. (2022b) extend it."] == ["Wei et al., 2022b"]
    assert cited["Jones et al. [2020] report it too."] == ["Jones et al., 2020"]


def test_unresolved_marker_keeps_raw_key():
    refs = [Reference(key="1", title="x")]
    cites = extract_citations("A claim [7]. Another (Nobody et al., 2019).", refs)
    assert cites[0].ref_keys == ["7"]
    assert cites[1].ref_keys == ["Nobody, 2019"]


def test_interval_is_not_a_citation():
    assert extract_citations("Scores lie in [0, 1] always.", [Reference(key="1")]) == []


def test_reference_entry_styles():
    ieee = parse_reference_entry('[12] A. Author and B. Other, "Title of paper," in Proc. CVPR, 2023, pp. 1-9.', "12")
    assert (ieee.title, ieee.year) == ("Title of paper", 2023)
    acm = parse_reference_entry("A. Author, B. Author. Title of paper. In Venue, 2023.", "12")
    assert (acm.title, acm.year) == ("Title of paper", 2023)
    apa = parse_reference_entry("Author, A. (2023). Title of the paper. Venue.", "x")
    assert (apa.title, apa.year) == ("Title of the paper", 2023)
    acl = parse_reference_entry("Ann Lee and Bo Kim. 2021. Title here: with colon. arXiv preprint arXiv:2101.00001v2.", "k")
    assert (acl.title, acl.year, acl.arxiv_id) == ("Title here: with colon", 2021, "2101.00001")
    bare = parse_reference_entry("[3] Title of paper", "3")
    assert bare.title == "Title of paper"
    springer = parse_reference_entry("Hou, Y., Li, J., McAuley, J.J.: Bridging language and items. CoRR abs/2403.02952 (2024)", "1")
    assert (springer.title, springer.arxiv_id, springer.year) == ("Bridging language and items", "2403.02952", 2024)
    doi = parse_reference_entry("X. Y, Some title. J. Big Data, 2023. https://doi.org/10.1186/s40537- 023- 00876- 4", "1")
    assert doi.doi == "10.1186/s40537-023-00876-4"
    gbt = parse_reference_entry("Li M, Song F, Yu B. Api-bank: A benchmark for tools. arXiv preprint arXiv:2304.08244, 2023", "1")
    assert gbt.title == "Api-bank: A benchmark for tools"
    web = parse_reference_entry("[2] FP-GNN: Adaptive FPGA Accelerator [https://x.org/a](https://x.org/a)", "2")
    assert web.title == "FP-GNN: Adaptive FPGA Accelerator"


def test_run_together_entries_are_split():
    text = ("# T\n\n## A\n\nSee [2] and [3].\n\n## REFERENCES\n\n"
            '[1] A. B, "First title," in X, 2020. 1[2] C. D, "Second title," arXiv:2001.00001, 2020. [3] E. F, '
            '"Third title," in Y, 2021.\n')
    s = parse_markdown(text)
    assert [r.title for r in s.references] == ["First title", "Second title", "Third title"]
    numbered = parse_markdown("# T\n\n## A\n\nx [1].\n\n## References\n\n1. Li M, Wu Z. Alpha paper. arXiv, "
                              "20232. Wang Y, Xu Q. Beta paper. In: CVPR3. Zhou K. Gamma paper. ICCV\n")
    assert [(r.key, r.title) for r in numbered.references] == [
        ("1", "Alpha paper"), ("2", "Beta paper"), ("3", "Gamma paper")]


def test_deep_research_source_list_and_bare_numbers():
    text = ("# T\n\n## 1 Intro\n\nGraphs are everywhere 1. Nodes pass messages 2 1 . Done.\n\n## References\n\n"
            "1 3 Understanding Convolutions on Graphs https://distill.pub/2021/gnn/\n\n"
            "2 Graph neural network - Wikipedia https://en.wikipedia.org/wiki/GNN\n")
    s = parse_markdown(text)
    assert [(r.key, r.aliases) for r in s.references] == [("1", ["3"]), ("2", [])]
    assert s.references[0].title == "Understanding Convolutions on Graphs"
    assert [c.ref_keys for c in s.citations] == [["1"], ["2", "1"]]


GEMINI = """# Acoustofluidic Separation: A Review

## 1. Introduction

Acoustic radiation force sorts cells [cite: 3, 1]. Streaming mixes fluids [cite: 4].

## References

[cite: 3] Huang, T. J. (2020). Acoustofluidics: merging acoustics and microfluidics. *iCANX Talks*. [cite: 3]
[cite: 4] Wu, M. (2018). *Systematic studies on acoustofluidic separation technology*. Dissertation. [cite: 4]
[cite: 1] Fan, Y., Wang, X. (2022). Recent advances in acoustofluidic separation technology in biology. *Microsystems*. [cite: 1, 38]
"""


def test_deep_research_cite_labels_and_references_in_their_own_order():
    survey = parse_markdown(GEMINI)
    assert [r.key for r in survey.references] == ["3", "4", "1"]  # one entry per line, not renumbered
    assert survey.references[2].title.startswith("Recent advances in acoustofluidic separation")
    assert "[cite" not in survey.references[0].text and not survey.references[0].text.rstrip().endswith("]")
    keys = [c.ref_keys for c in survey.citations]
    assert keys == [["3", "1"], ["4"]]


def test_keyed_references_followed_by_a_numbered_source_list():
    """Gemini prints its references, then a "Sources:" list numbered 1, 2, 3 ... of web domains:
    two lists, not one run-together entry; the first keeps the keys the text cites."""
    sources = "\n**Sources:**\n" + "".join(f"{n}. [site{n}.org](https://redirect.example/{n})\n" for n in range(1, 6))
    survey = parse_markdown(GEMINI + sources)
    assert [r.key for r in survey.references] == ["3", "4", "1", "2", "5"]
    assert survey.references[2].title.startswith("Recent advances")
    assert [c.ref_keys for c in survey.citations] == [["3", "1"], ["4"]]


def test_bulleted_bold_bracket_keys():
    text = ("# T\n\n## 1 Intro\n\nA claim [cite: 12]. Another [cite: 3].\n\n## References\n\n"
            "*   **[12]** Hull, C. E., et al. (2007). Taking advantage of digital opportunities. *IJEIM*. [12]\n"
            "*   **[3]** Kraus, S. (2019). Digital entrepreneurship: a research agenda. *IJEBR*. [3]\n"
            "*   **[5]** Nambisan, S. (2017). Digital entrepreneurship. *ETP*. [5]\n")
    survey = parse_markdown(text)
    assert [(r.key, r.year) for r in survey.references] == [("12", 2007), ("3", 2019), ("5", 2017)]
    assert survey.references[0].title.startswith("Taking advantage of digital opportunities")


def test_numbered_titles_with_url_lines_ending_in_digits():
    """Qwen's "N. Title" / "URL: ...2759" pairs: a number opening a line starts the next entry even
    right after a URL that ends in a digit."""
    text = ("# T\n\n## 1 Intro\n\nThe model [1] and its limits [3].\n\n# References\n\n"
            "1. The Hubbard model at half a century | Nature Physics\n   URL: https://www.nature.com/articles/nphys2759\n"
            "2. [2103.12097] The Hubbard Model\n   URL: https://arxiv.org/abs/2103.12097\n"
            "3. A strong-coupling expansion for the Hubbard model\n   URL: https://arxiv.org/abs/cond-mat/0008447\n")
    survey = parse_markdown(text)
    assert [r.key for r in survey.references] == ["1", "2", "3"]
    assert "Hubbard Model" in survey.references[1].text and "half a century" not in survey.references[1].text


def test_references_label_and_entries_on_one_line():
    """A PDF conversion (SurveyX) with no References heading, the label running into the list."""
    text = ("# T\n\n## 1 Intro\n\n" + "Filler sentence about the topic. " * 3 + "\n\nA study [1] and another [2].\n\n"
            "## 2 Conclusion\n\nDone.\n\nReferences [1] Ann Lee and Bo Chen. A survey on twins, 2020. "
            "[2] Cy Dee. Industry 4.0 and circular economy, 2021.\n")
    survey = parse_markdown(text)
    assert [(r.key, r.year) for r in survey.references] == [("1", 2020), ("2", 2021)]
    assert [c.ref_keys for c in survey.citations] == [["1", "2"]]
    assert "References" not in survey.sections[-1].text


def test_default_topic_comes_from_a_topical_file_name_else_the_title(tmp_path):
    from pathlib import Path

    from surveygraph.evaluation.parsers import default_topic

    survey = parse_markdown("# A Survey on Graph Neural Networks\n\n## Intro\n\nText [1].\n")
    assert default_topic(survey, Path("survey.md")) == "A Survey on Graph Neural Networks"
    assert default_topic(survey, Path("draft_v2.md")) == "A Survey on Graph Neural Networks"
    assert default_topic(survey, Path("physics__Dark Matter.md")) == "physics__Dark Matter"
    survey.topic = "Graph Neural Networks"
    assert default_topic(survey, Path("survey.md")) == "Graph Neural Networks"
