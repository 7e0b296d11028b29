"""Errors that mean "the user asked for something we cannot do": the CLI prints them as one line."""


class UserError(Exception):
    """A problem with the user's input or environment (bad path, no network, bad option).

    The CLI shows ``error: <message>`` and exits with status 2, never a traceback.
    """


class NetworkUnavailable(UserError):
    """A remote service (arXiv, Semantic Scholar, an LLM API) could not be reached."""


class BudgetExceeded(Exception):
    """The run's token budget is spent; graphs stop cleanly and keep what was written."""
