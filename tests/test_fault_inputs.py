"""Fault injection: every bad input of issue 11 gives its documented exit status and a one-line
message, never a traceback (real subprocesses of ``python -m surveygraph``; cases in bad_inputs.py)."""

from __future__ import annotations

import importlib.util

import pytest

from tests.bad_inputs import CASES, make_scratch, run_case

pytestmark = pytest.mark.fault


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    return make_scratch(tmp_path_factory.mktemp("bad-inputs"))


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_bad_input_gives_its_exit_status_and_message(case, scratch):
    if case.needs and importlib.util.find_spec(case.needs) is not None:
        pytest.skip(f"{case.needs} is installed: the missing-package message cannot be produced")
    result = run_case(case, scratch)
    assert result["problems"] == [], result


def test_run_outcome_flags_hollow_and_all_failed_runs():
    from surveygraph.agents.outcome import run_outcome

    def state(text, **extra):
        return {"survey": {"body": [{"subsections": [{"text": text}]}]}, **extra}

    assert run_outcome(state("Text [1].", drafts={"1.1": {"status": "written"}}), [{"output_tokens": 9}])["exit_code"] == 0
    hollow = run_outcome(state(""), [{"output_tokens": 9}])
    assert hollow["exit_code"] == 3 and "no usable survey" in hollow["message"]
    failed = state("Floor text.", failures=[{"node": "write_subsection", "error": "ConnectionError: refused"}])
    unanswered = [{"output_tokens": 0, "error": "OpenAIConnectionError"}, {"output_tokens": 0, "refused": "400"}]
    verdict = run_outcome(failed, unanswered)
    assert verdict["all_llm_calls_failed"] and verdict["exit_code"] == 3 and "extractive floor" in verdict["message"]
    assert run_outcome(failed, [*unanswered, {"cached": True}])["exit_code"] == 0  # one (cached) answer: usable
    assert run_outcome(failed, [{"output_tokens": 30, "error": "bad JSON"}])["exit_code"] == 0  # it did answer


def test_resume_takes_masked_secrets_from_the_current_configuration(tmp_path):
    import json

    from surveygraph.errors import UserError
    from surveygraph.graphs.runner import restore_redacted
    from surveygraph.sanitize import redact
    from surveygraph.settings import Settings
    from tests.bad_inputs import PASSWORD, UNREACHABLE

    def saved():
        return redact(Settings(home=tmp_path, llm={"base_url": UNREACHABLE}).model_dump(mode="json"))

    assert PASSWORD not in json.dumps(saved())
    current = Settings(home=tmp_path, llm={"base_url": UNREACHABLE})
    assert restore_redacted(saved(), current)["llm"]["base_url"] == UNREACHABLE
    with pytest.raises(UserError, match="SURVEYGRAPH_LLM__BASE_URL"):
        restore_redacted(saved(), Settings(home=tmp_path))
