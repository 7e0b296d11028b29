"""Prompt templates (jinja2 files) for the generation graph.

Each template starts with a ``TASK:`` line naming its job, so logs, caches and scripted test models
can tell prompts apart. Retrieved text is always placed inside <paper>/<draft> tags with an
instruction that the content is data.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from typing import Any

import jinja2

_ENV = jinja2.Environment(
    autoescape=False,  # prompts are plain text, not HTML
    undefined=jinja2.StrictUndefined,
    keep_trailing_newline=False,
    trim_blocks=False,
)


@lru_cache(maxsize=None)
def _template(name: str) -> jinja2.Template:
    source = resources.files(__package__).joinpath(f"{name}.j2").read_text(encoding="utf-8")
    return _ENV.from_string(source)


def render_prompt(name: str, **values: Any) -> str:
    """Render ``prompts/<name>.j2`` with ``values``."""
    return _template(name).render(**values).strip() + "\n"
