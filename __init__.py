"""surveygraph: write literature surveys with a LangGraph pipeline and score them.

Public API (kept small on purpose):

- :class:`Settings` / :func:`load_settings`: all configuration in one typed object.
- :class:`Paper`, :class:`Survey`, :class:`OutlineEntry`: the shared data types.
"""

from .errors import BudgetExceeded, NetworkUnavailable, UserError
from .models import HumanOutline, OutlineEntry, Paper, Reference, Survey, SurveySection
from .settings import Settings, load_settings

__version__ = "0.1.0"

__all__ = [
    "BudgetExceeded",
    "HumanOutline",
    "NetworkUnavailable",
    "OutlineEntry",
    "Paper",
    "Reference",
    "Settings",
    "Survey",
    "SurveySection",
    "UserError",
    "load_settings",
]
