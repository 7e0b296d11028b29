"""Prompt templates (jinja2 files) for the generation graph.

Each template starts with a ``TASK:`` line naming its job, so logs, caches and scripted test models
can tell prompts apart.

Untrusted text is data. Every ``{{ value }}`` passes through ``sanitize.untrusted`` unless a
template marks it otherwise (an "autoescape" whose escape function is our sanitizer), so titles,
topics, headings and abstracts arrive as one line of plain prose with no tag, no bracketed number
and no angle bracket. Two filters mark the exceptions:

- ``| lines``: multi-line data (a demonstration outline); each line sanitized, indentation kept;
- ``| draft``: our own draft with its ``[n]`` citation markers (the smoothing prompt); paragraphs
  and markers kept, HTML and Markdown markup removed.

Quoted data sits between ``{{ open }}`` and ``{{ close }}``: ``<<DATA-t>>`` / ``<<END-t>>`` where
``t`` is a hash of everything rendered into the prompt. The attacker's own text is part of the
hashed input, so it cannot contain the delimiter (and sanitized text has no ``<`` at all); the
token is still a pure function of the prompt's content, so response caching and replays stay
byte-identical.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from importlib import resources
from typing import Any

import jinja2
from markupsafe import Markup

from ..sanitize import markdown_safe, untrusted

DELIMITER_PREFIX = "DATA"  # <<DATA-token>> opens a data block
DELIMITER_END = "END"  # <<END-token>> closes it


def _finalize(value: Any) -> Any:
    """Applied to every rendered expression: untrusted unless already marked safe by a filter."""
    if isinstance(value, Markup):
        return str(value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    # Double quotes become single ones: values also sit inside quoted phrases ('section "X"').
    return untrusted("" if value is None else str(value)).replace('"', "'")


def _lines_filter(value: Any) -> Markup:
    lines = []
    for line in str(value or "").splitlines():
        indent = line[: len(line) - len(line.lstrip(" "))]
        clean = untrusted(line)
        if clean:
            lines.append(indent + clean)
    return Markup("\n".join(lines))


def _draft_filter(value: Any) -> Markup:
    return Markup(markdown_safe(str(value or "")))


_ENV = jinja2.Environment(
    autoescape=False,  # prompts are plain text; escaping is _finalize (the sanitizer), not HTML entities
    finalize=_finalize,
    undefined=jinja2.StrictUndefined,
    keep_trailing_newline=False,
    trim_blocks=False,
)
_ENV.filters["lines"] = _lines_filter
_ENV.filters["draft"] = _draft_filter


@lru_cache(maxsize=None)
def _template(name: str) -> jinja2.Template:
    source = resources.files(__package__).joinpath(f"{name}.j2").read_text(encoding="utf-8")
    return _ENV.from_string(source)


def delimiter_token(name: str, values: dict[str, Any]) -> str:
    """12 hex digits of a hash over the template name and every value rendered into it."""
    blob = json.dumps({"template": name, "values": values}, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:12]


def render_prompt(name: str, **values: Any) -> str:
    """Render ``prompts/<name>.j2`` with ``values`` (untrusted by default, see the module doc)."""
    if "open" in values or "close" in values:
        raise ValueError("'open' and 'close' are reserved for the data delimiters")
    token = delimiter_token(name, values)
    delimiters = {"open": Markup(f"<<{DELIMITER_PREFIX}-{token}>>"), "close": Markup(f"<<{DELIMITER_END}-{token}>>")}
    return _template(name).render(**values, **delimiters).strip() + "\n"
