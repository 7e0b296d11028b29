"""What ``evaluate`` accepts: one rule for the CLI and the Python API.

Kept out of parsers.py on purpose: the quality model's FEATURE_VERSION hashes the parser sources,
and refusing an input is not parsing it.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import NotASurvey
from ..models import Survey


def require_survey(survey: Survey, path: "Path | str") -> Survey:
    """Refuse (NotASurvey, exit 4) a file with no survey in it: binary, empty, unrelated JSON,
    headings without a word of text. Scoring it would print zeros that look like a result."""
    words = sum(len(s.text.split()) for s in survey.sections)
    if survey.report.format == "unknown" or words == 0:
        why = ("; ".join(survey.report.warnings) if survey.report.format == "unknown" else "") \
            or f"{len(survey.sections)} heading(s) and no text"
        raise NotASurvey(f"{path} is not a survey: {why}")
    return survey
