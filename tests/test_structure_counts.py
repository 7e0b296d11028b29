"""Structural counts / ratios (SurveyLens) and citation integrity / claim support on tiny inputs."""

import numpy as np
import pytest

from surveygraph.evaluation.integrity import citation_integrity, claim_support
from surveygraph.evaluation.parsers import parse_markdown
from surveygraph.evaluation.structure import COUNT_KEYS, structural_counts, structural_ratios
from surveygraph.models import Citation, Reference, Survey, SurveySection

RICH = r"""# Rich Survey

## 1 Intro

First paragraph cites [1] and [2]. It has two sentences.

![arch](fig1.png)

Figure 1: The architecture.

| a | b |
|---|---|
| 1 | 2 |

Table 1: The table above.

$$ x = y $$

\begin{equation} a = b \end{equation}

\[ c = d \]

Second paragraph cites [1] again.

## References

[1] Paper One Title Here

[2] Paper Two Title Here

[3] Paper Three Title Here
"""


def test_counts_every_kind():
    counts = structural_counts(parse_markdown(RICH))
    assert set(counts) == set(COUNT_KEYS)
    assert counts["figures"] == 1  # the image and its caption are one figure
    assert counts["tables"] == 1  # a Markdown table and its caption are one table
    assert counts["equations"] == 3
    assert counts["paragraphs"] == 2
    assert counts["sentences"] == 5  # 3 prose sentences + 2 captions; table and math lines are not sentences
    assert counts["citations"] == 3
    assert counts["references"] == 3
    assert counts["sections"] == 1
    assert counts["words"] > 20 and counts["characters"] > counts["words"]


def test_captions_count_when_converted_text_lost_the_objects():
    text = "# T\n\n## A\n\nTable 1 Results.\n\nTABLE II Oops.\n\nTable II More.\n\nFig. 3. A plot.\n\n<table><tr></tr></table>\n"
    counts = structural_counts(parse_markdown(text))
    assert counts["tables"] == 2  # "Table 1" and "TABLE II" = "Table II": two distinct numbers
    assert counts["figures"] == 1


def test_counts_empty_survey():
    counts = structural_counts(Survey())
    assert all(v == 0 for v in counts.values())


def test_ratios_and_zero_human_is_none():
    gen = parse_markdown(RICH)
    human = parse_markdown("# H\n\n## 1 A\n\nOne paragraph cites [1].\n\n## References\n\n[1] Only One Paper\n")
    ratios = structural_ratios(gen, human)
    assert ratios["references"] == pytest.approx(3.0)
    assert ratios["citations"] == pytest.approx(3.0)
    assert ratios["figures"] is None and ratios["equations"] is None
    assert structural_ratios(human, human)["words"] == pytest.approx(1.0)


def test_citation_integrity_counts_and_rates():
    survey = Survey(
        references=[Reference(key="1", title="Attention is all you need"),
                    Reference(key="2", title="Attention Is All You Need!"),  # duplicate title
                    Reference(key="3", title="Never cited paper", arxiv_id="2501.00001"),
                    Reference(key="4", title="Same id other title", arxiv_id="2501.00001")],
        citations=[Citation(sentence="a", ref_keys=["1", "9"]), Citation(sentence="b", ref_keys=["2", "1"])],
    )
    m = {r.name: r for r in citation_integrity(survey)}
    assert all(r.family == "integrity" for r in m.values())
    assert m["integrity.citations"].value == 4
    assert m["integrity.dangling_markers"].value == 1 and m["integrity.dangling_markers"].details["keys"] == ["9"]
    assert m["integrity.dangling_rate"].value == pytest.approx(1 / 3)
    assert m["integrity.uncited_references"].value == 2
    assert m["integrity.uncited_rate"].value == pytest.approx(0.5)
    assert m["integrity.duplicate_references"].value == 2
    assert sorted(map(sorted, m["integrity.duplicate_references"].details["groups"])) == [["1", "2"], ["3", "4"]]


def test_citation_integrity_aliases_and_empty():
    survey = Survey(references=[Reference(key="1", aliases=["3"], title="Some web page")],
                    citations=[Citation(sentence="a", ref_keys=["3"])])
    m = {r.name: r.value for r in citation_integrity(survey)}
    assert m["integrity.dangling_markers"] == 0 and m["integrity.uncited_references"] == 0
    empty = {r.name: r for r in citation_integrity(Survey())}
    assert empty["integrity.dangling_rate"].value is None and empty["integrity.dangling_rate"].rationale
    assert empty["integrity.uncited_rate"].value is None


class _Embedder:
    """Bag-of-letters vectors: similar text -> high cosine. Enough to check the arithmetic."""

    def encode(self, texts):
        rows = []
        for t in texts:
            v = np.zeros(26)
            for ch in t.lower():
                if "a" <= ch <= "z":
                    v[ord(ch) - 97] += 1
            rows.append(v / (np.linalg.norm(v) or 1.0))
        return np.array(rows)


def test_claim_support_mean_cosine():
    survey = Survey(
        sections=[SurveySection(heading="A", text="x")],
        references=[Reference(key="1"), Reference(key="2"), Reference(key="3")],
        citations=[Citation(sentence="aaaa", ref_keys=["1", "2"]), Citation(sentence="zzzz", ref_keys=["3"])],
    )
    result = claim_support(survey, _Embedder(), {"1": "aaaa", "2": "zzzz"})
    assert result.value == pytest.approx(0.5)  # cos(aaaa,aaaa)=1, cos(aaaa,zzzz)=0
    assert result.details["pairs"] == 2 and result.details["sentences"] == 1
    assert result.details["sentence_coverage"] == pytest.approx(0.5)
    none = claim_support(survey, _Embedder(), {})
    assert none.value is None and none.rationale
