"""One entry point for any survey on disk -> a typed ``Survey``.

Accepted forms: Markdown / text (any system's, or converted from PDF); our ``survey.json`` (a
``Survey`` dump, possibly with extra run fields); the split JSON ``{outline: [[level, title]],
content: [{heading, level, content}], references: [{title, text}] | [str]}``; and a folder holding
``outline.json`` / ``content.json`` / ``references.json``. Input we cannot read gives a Survey whose
``report.warnings`` say why — only a path that does not exist raises (``UserError``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from pydantic import ValidationError

from ..errors import UserError
from ..models import OutlineEntry, ParseReport, Survey, SurveySection
from .citations import extract_citations, uses_bare_numbers
from .markdown_parser import parse_markdown
from .references import parse_reference_entry

__all__ = ["parse_survey", "parse_markdown", "parse_reference_entry", "extract_citations"]

_MARKDOWN_SUFFIXES = {".md", ".markdown", ".txt", ".mmd"}
_SPLIT_FILES = ("outline.json", "content.json", "references.json")


def parse_survey(path: Path, *, system: str = "", topic: str = "") -> Survey:
    """Read a survey in any supported form; ``system`` / ``topic`` fill the fields when given."""
    path = Path(path)
    if not path.exists():
        raise UserError(f"survey not found: {path}")
    if path.is_dir():
        survey = _parse_folder(path)
    elif path.suffix.lower() == ".json":
        survey = _parse_json_file(path)
    else:
        text = _read_text(path)
        survey = parse_markdown(text, name=path.name) if text is not None else _unreadable(path)
        if text is not None and path.suffix.lower() not in _MARKDOWN_SUFFIXES:
            survey.report.warnings.append(f"unknown extension {path.suffix!r}; read as Markdown")
    if system:
        survey.system = system
    if topic:
        survey.topic = topic
    if not survey.title:
        survey.title = path.stem
    return survey


_GENERIC_STEM = re.compile(r"^(?:survey|draft|paper|output|result|review|main|index|readme|report|final|v?\d+|[-_ ])+$", re.I)


def default_topic(survey: Survey, path: Path | None = None) -> str:
    """The topic a survey is scored on when none is given: its own field, else the file name when
    it names a topic (ASG-Bench's ``<discipline>__<topic>.md``), else its title ("survey.md",
    "draft_v2.md" name no topic)."""
    if survey.topic:
        return survey.topic
    if path is not None and not _GENERIC_STEM.match(path.stem):
        return path.stem
    return survey.title or (path.stem if path is not None else "")


def _read_text(path: Path) -> str | None:
    data = path.read_bytes()
    if b"\x00" in data[:4096]:
        return None  # binary
    return data.decode("utf-8", errors="replace")


def _unreadable(path: Path, why: str = "binary or unreadable file") -> Survey:
    return Survey(report=ParseReport(format="unknown", warnings=[f"{path.name}: {why}; nothing parsed"]))


def _parse_json_file(path: Path) -> Survey:
    text = _read_text(path)
    if text is None:
        return _unreadable(path)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return _unreadable(path, f"not valid JSON ({exc.msg} at line {exc.lineno})")
    return parse_json_data(data, name=path.name)


def parse_json_data(data, *, name: str = "") -> Survey:
    """A decoded JSON value in either JSON form (``survey.json`` dump or split JSON)."""
    if not isinstance(data, dict):
        return _unreadable(Path(name or "input"), f"JSON {type(data).__name__} is not a survey object")
    if "sections" in data or "report" in data:
        return _from_survey_dump(data, name)
    if {"outline", "content"} & data.keys():
        return _from_split(data.get("outline"), data.get("content"), data.get("references"), name, data)
    if isinstance(data.get("survey"), dict):  # a run record wrapping the survey
        return parse_json_data(data["survey"], name=name)
    keys = ", ".join(sorted(data)[:8]) or "none"
    return _unreadable(Path(name or "input"), f"JSON object has no survey fields (keys: {keys})")


def _from_survey_dump(data: dict, name: str) -> Survey:
    known = {k: v for k, v in data.items() if k in Survey.model_fields}
    extra = sorted(set(data) - set(known))
    try:
        survey = Survey.model_validate(known)
    except ValidationError as exc:
        return _unreadable(Path(name or "input"), f"survey.json does not match the Survey schema ({exc.error_count()} errors)")
    survey.report.format = "survey-json"
    if extra:
        survey.report.warnings.append(f"ignored extra fields: {', '.join(extra)}")
    if not survey.citations and survey.sections:
        _fill_citations(survey)
    return survey


def _from_split(outline, content, references, name: str, data: dict | None = None) -> Survey:
    report = ParseReport(format="split-json")
    entries = []
    for item in outline if isinstance(outline, list) else []:
        if isinstance(item, (list, tuple)) and len(item) >= 2 and str(item[1]).strip():
            try:
                level = max(1, int(item[0]))
            except (TypeError, ValueError):
                level = 1
            entries.append(OutlineEntry(level=level, title=str(item[1]).strip()))
        else:
            report.unparsed_lines += 1
    if outline is not None and not isinstance(outline, list):
        report.warnings.append("'outline' is not a list of [level, title]; ignored")
    sections = []
    for item in content if isinstance(content, list) else []:
        if isinstance(item, dict):
            sections.append(SurveySection(
                heading=str(item.get("heading") or item.get("title") or ""),
                level=_int(item.get("level"), 1),
                text=str(item.get("content") or item.get("text") or ""),
            ))
        elif isinstance(item, str):
            sections.append(SurveySection(heading="", text=item))
        else:
            report.unparsed_lines += 1
    if content is not None and not isinstance(content, list):
        report.warnings.append("'content' is not a list of sections; ignored")
    refs = []
    for i, item in enumerate(references if isinstance(references, list) else [], start=1):
        refs.append(_reference_from_json(item, i))
    if references is not None and not isinstance(references, list):
        report.warnings.append("'references' is not a list; ignored")
    if not entries and sections:
        entries = [OutlineEntry(level=s.level, title=s.heading) for s in sections if s.heading]
    if report.unparsed_lines:
        report.warnings.append(f"{report.unparsed_lines} items of unexpected shape skipped")
    survey = Survey(
        title=str((data or {}).get("title") or ""), topic=str((data or {}).get("topic") or ""),
        outline=entries, sections=sections, references=[r for r in refs if r], report=report,
    )
    _fill_citations(survey)
    return survey


def _reference_from_json(item, position: int):
    if isinstance(item, str):
        m = re.match(r"^\s*\[([^\]]{1,60})\]", item)
        return parse_reference_entry(item, m.group(1).strip() if m else str(position))
    if isinstance(item, dict):
        text = str(item.get("text") or item.get("title") or "")
        ref = parse_reference_entry(text, str(item.get("key") or position))
        if item.get("title"):
            ref.title = str(item["title"]).strip()
        for field in ("arxiv_id", "doi", "year", "paper_id"):
            if item.get(field) and not getattr(ref, field):
                setattr(ref, field, item[field])
        return ref
    return None


def _int(value, default: int) -> int:
    try:
        return max(1, int(value))
    except (TypeError, ValueError):
        return default


def _fill_citations(survey: Survey) -> None:
    bare = uses_bare_numbers(survey.text, survey.references)
    for section in survey.sections:
        survey.citations.extend(
            c.model_copy(update={"section": section.heading or None})
            for c in extract_citations(section.text, survey.references, bare_numbers=bare)
        )


def _parse_folder(folder: Path) -> Survey:
    present = [name for name in _SPLIT_FILES if (folder / name).is_file()]
    if present:
        loaded = {}
        warnings = []
        for name in _SPLIT_FILES:
            file = folder / name
            if not file.is_file():
                continue
            try:
                loaded[name] = json.loads(file.read_text(encoding="utf-8", errors="replace"))
            except json.JSONDecodeError as exc:
                warnings.append(f"{name}: not valid JSON ({exc.msg}); ignored")
        survey = _from_split(loaded.get("outline.json"), loaded.get("content.json"), loaded.get("references.json"), folder.name)
        survey.report.format = "split-folder"
        survey.report.warnings.extend(warnings)
        return survey
    for candidate in ("survey.json", "survey.md"):
        if (folder / candidate).is_file():
            return parse_survey(folder / candidate)
    markdown = sorted(p for p in folder.iterdir() if p.suffix.lower() in _MARKDOWN_SUFFIXES)
    if len(markdown) == 1:
        return parse_survey(markdown[0])
    return _unreadable(folder, "folder has no outline.json / content.json / references.json, survey.json or single Markdown file")
