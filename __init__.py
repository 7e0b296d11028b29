"""surveygraph: write literature surveys with a LangGraph pipeline and score them.

Public API (kept small on purpose; everything is imported on first use, so ``import surveygraph``
stays fast):

- :func:`generate`, :func:`resume`, :func:`evaluate`, :func:`leaderboard` and :class:`Run`
  (see :mod:`surveygraph.api`): one call each, options are Settings fields by name.
- :class:`Settings` / :func:`load_settings`: all configuration in one typed object.
- :class:`Paper`, :class:`Survey`, :class:`OutlineEntry`: the shared data types.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

# name -> submodule that defines it
_EXPORTS = {
    "generate": "api", "resume": "api", "evaluate": "api", "leaderboard": "api", "Run": "api",
    "BudgetExceeded": "errors", "NetworkUnavailable": "errors", "UserError": "errors",
    "HumanOutline": "models", "OutlineEntry": "models", "Paper": "models", "Reference": "models",
    "Survey": "models", "SurveySection": "models", "EvaluationReport": "models",
    "Settings": "settings", "load_settings": "settings",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'surveygraph' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])
