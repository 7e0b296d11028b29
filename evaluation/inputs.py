"""What ``evaluate`` and ``generate --human`` accept: one rule for the CLI and the Python API.

Kept out of parsers.py on purpose: the quality model's FEATURE_VERSION hashes the parser sources,
and refusing an input is not parsing it.
"""

from __future__ import annotations

import stat
from pathlib import Path

from ..errors import NotASurvey, UserError
from ..models import Survey

# The largest survey of the shared benchmarks is 2.9 MB of Markdown (a SurveyX draft); ten times
# that is still a survey. Anything larger (or endless: /dev/zero) is refused before it is read.
MAX_SURVEY_BYTES = 32 * 1024 * 1024
_CONTROL_BYTES = bytes(b for b in range(32) if b not in (9, 10, 12, 13))  # tab, newline, form feed, CR are text
_MAX_BAD_SHARE = 0.01  # undecodable bytes or control characters allowed in a text file


def require_survey(survey: Survey, path: "Path | str") -> Survey:
    """Refuse (NotASurvey, exit 4) a file with no survey in it: binary, empty, unrelated JSON,
    headings without a word of text. Scoring it would print zeros that look like a result."""
    words = sum(len(s.text.split()) for s in survey.sections)
    if survey.report.format == "unknown" or words == 0:
        why = ("; ".join(survey.report.warnings) if survey.report.format == "unknown" else "") \
            or f"{len(survey.sections)} heading(s) and no text"
        raise NotASurvey(f"{path} is not a survey: {why}")
    return survey


def check_survey_file(path: "Path | str", what: str = "survey") -> Path:
    """Refuse, before reading it whole, an input that cannot be a survey: a device or pipe
    (/dev/zero never ends), a file over MAX_SURVEY_BYTES, or bytes that are not text (NUL bytes,
    more than 1% undecodable or control characters). A folder: each survey file in it."""
    path = Path(path)
    if not path.exists():
        raise UserError(f"{what} not found: {path}")
    if path.is_dir():
        for file in _files_read_from(path):
            check_survey_file(file, what)
        return path
    mode = path.stat().st_mode
    if not stat.S_ISREG(mode):
        raise NotASurvey(f"{path} is not a survey: not a regular file (a device, pipe or socket)")
    with path.open("rb") as handle:
        data = handle.read(MAX_SURVEY_BYTES + 1)
    if len(data) > MAX_SURVEY_BYTES:
        raise NotASurvey(f"{path} is not a survey: larger than {MAX_SURVEY_BYTES // (1024 * 1024)} MB "
                         f"(the largest benchmark survey is 3 MB)")
    if b"\x00" in data:
        raise NotASurvey(f"{path} is not a survey: a binary file (it holds NUL bytes)")
    text = data.decode("utf-8", errors="replace")
    controls = len(data) - len(data.translate(None, _CONTROL_BYTES))
    bad = text.count("\ufffd") + controls
    if text and bad > _MAX_BAD_SHARE * len(text):
        raise NotASurvey(f"{path} is not a survey: not UTF-8 text ({bad:,} of {len(text):,} characters are "
                         f"undecodable bytes or control characters)")
    return path


def _files_read_from(folder: Path) -> list[Path]:
    """The files ``parse_survey`` reads from a folder, in its order of preference: the split JSON
    files, else survey.json or survey.md, else the folder's one Markdown file."""
    from .parsers import _MARKDOWN_SUFFIXES, _SPLIT_FILES  # the parser's own lists: one rule

    split = [folder / name for name in _SPLIT_FILES if (folder / name).is_file()]
    if split:
        return split
    for name in ("survey.json", "survey.md"):
        if (folder / name).is_file():
            return [folder / name]
    markdown = [p for p in folder.iterdir() if p.suffix.lower() in _MARKDOWN_SUFFIXES and p.is_file()]
    return markdown if len(markdown) == 1 else []


def read_survey(path: "Path | str", what: str = "survey", *, topic: str = "") -> Survey:
    """The survey at ``path`` for scoring: checked (``check_survey_file``), parsed, and refused
    when it holds no survey (``require_survey``)."""
    from .parsers import parse_survey

    checked = check_survey_file(path, what)
    return require_survey(parse_survey(checked, topic=topic), checked)
