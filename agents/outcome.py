"""Was a finished run a usable survey? The verdict behind ``generate``'s exit status.

A run can finish every node and still be hollow: every LLM call failed (no network, wrong key)
and only the deterministic floor wrote text, or no subsection has any text at all. Such a run
keeps its files but must not look like success; the verdict goes into manifest.json and the CLI
exits with ``errors.EXIT_DEGRADED``.
"""

from __future__ import annotations

from typing import Any

from ..errors import EXIT_DEGRADED, EXIT_OK

MODEL_STATUSES = {"written"}  # subsection text that came from the model (extractive = the floor)


def run_outcome(state: dict, llm_entries: list[dict[str, Any]]) -> dict[str, Any]:
    """Summary of a finished run; ``exit_code`` is EXIT_OK or EXIT_DEGRADED with a ``message``.

    ``llm_entries`` are the meter's entries (cached calls included); the state's ``failures`` are
    the calls that failed for good.
    """
    drafts = state.get("drafts") or {}
    body = (state.get("survey") or {}).get("body") or []
    texts = [sub.get("text", "") for section in body for sub in section.get("subsections", [])]
    if not texts:  # no polish output (e.g. a run stopped before polish): fall back to the drafts
        texts = [d.get("text", "") for d in drafts.values()]
    with_text = sum(1 for t in texts if t.split())
    body_words = sum(len(t.split()) for t in texts)
    failures = state.get("failures") or []
    answered = sum(1 for e in llm_entries if _answered(e))
    from_model = sum(1 for d in drafts.values() if d.get("status") in MODEL_STATUSES)
    outcome: dict[str, Any] = {
        "subsections": len(texts), "subsections_with_text": with_text, "body_words": body_words,
        "subsections_from_model": from_model, "llm_calls_answered": answered, "llm_calls_failed": len(failures),
        "all_llm_calls_failed": bool(failures) and answered == 0,
        "exit_code": EXIT_OK, "message": "",
    }
    problems = []
    if with_text == 0:
        problems.append(f"no usable survey: none of the {len(texts)} subsections has any text")
    if outcome["all_llm_calls_failed"]:
        first = failures[0].get("error", "unknown error")
        problems.append(f"every LLM call failed ({len(failures)} failed, 0 answered; first: {first})")
        if with_text:
            problems.append("the text was written by the deterministic extractive floor only")
    if problems:
        outcome.update(exit_code=EXIT_DEGRADED, message="; ".join(problems))
    return outcome


def _answered(entry: dict[str, Any]) -> bool:
    """The model replied (a cached reply counts; a reply that failed to parse still came back):
    the meter also records calls that never reached a model (connection errors, refusals)."""
    if entry.get("cached") or entry.get("output_tokens", 0) > 0:
        return True
    return not entry.get("error") and not entry.get("refused")
