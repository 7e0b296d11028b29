"""One real judgment by the bundled local model (Gemma 3 270M via llama.cpp): the constrained
JSON must parse into the verdict, and the score must be a number with a rationale."""

from __future__ import annotations

import pytest

from surveygraph.models import OutlineEntry, Survey
from tests.local_llm import requires_local_llm

pytestmark = requires_local_llm


@pytest.mark.slow
def test_local_model_sam_o_verdict_parses(tmp_home):
    from surveygraph.evaluation.judges import run_judges
    from surveygraph.settings import load_settings

    outline = [OutlineEntry(level=1, title="Introduction"), OutlineEntry(level=1, title="Dense Retrieval"),
               OutlineEntry(level=2, title="Bi-encoders"), OutlineEntry(level=2, title="Late Interaction"),
               OutlineEntry(level=1, title="Evaluation"), OutlineEntry(level=1, title="Conclusion")]
    survey = Survey(title="Dense retrieval", topic="Dense retrieval", outline=outline)
    settings = load_settings(**{"llm.judge": "local", "llm.max_output_tokens": 96})
    [sam_o, *rest] = run_judges(survey, human=None, topic="Dense retrieval", names=["sam"], settings=settings)
    assert sam_o.name == "sam_o"
    assert isinstance(sam_o.value, float) and 0 <= sam_o.value <= 100, sam_o.rationale
    assert sam_o.rationale
    assert (settings.home / "judgments" / "judges.jsonl").is_file()


@pytest.mark.slow
def test_local_model_checklist_labels_have_the_subgroup_length(tmp_home):
    from surveygraph.evaluation.judges.base import make_judge
    from surveygraph.evaluation.judges.checklist import LABELS, judge_subgroup, report_sections
    from surveygraph.settings import load_settings

    judge = make_judge(load_settings(**{"llm.judge": "local", "llm.cache": False}), use_log=False)
    report = report_sections("# Dense retrieval\n\n## Bi-encoders\nDPR encodes questions and passages "
                             "separately; ColBERT adds late interaction.\n")
    for n in (3, 5):
        sg = {"sub_group_name": "Bi-encoders", "requirements": [
            {"content": f"The article should mention method number {i}.", "reward": 1.0} for i in range(n)]}
        labels = judge_subgroup(report, sg, judge)
        assert len(labels) == n and set(labels) <= set(LABELS)
    assert judge.client.meter.total()["calls"] == 2  # the grammar gave the right length: no repair calls
