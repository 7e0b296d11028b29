"""Errors that mean "the user asked for something we cannot do": the CLI prints them as one line.

Exit statuses of the ``surveygraph`` command (documented in README "Security and exit codes"):
"""

EXIT_OK = 0  # done; the result is usable
EXIT_CRASH = 1  # an unexpected error stopped the command (a generation run can be resumed)
EXIT_USER_ERROR = 2  # bad input, path, option or environment: one "error: ..." line, nothing written
EXIT_DEGRADED = 3  # generate finished but the survey is not usable (no text, or every LLM call failed); files kept
EXIT_NOT_A_SURVEY = 4  # evaluate was given something that is not a survey (binary, empty, no text)
EXIT_INTERRUPTED = 130  # Ctrl-C
EXIT_TERMINATED = 143  # SIGTERM (128 + 15): the run is saved as after Ctrl-C


class UserError(Exception):
    """A problem with the user's input or environment (bad path, no network, bad option).

    The CLI shows ``error: <message>`` and exits with ``exit_code`` (2), never a traceback.
    ``resumable``: raised in a run that a later ``--resume`` can finish once the cause is fixed
    (the CLI then prints the resume command under the message).
    """

    exit_code = EXIT_USER_ERROR
    resumable = False


class NetworkUnavailable(UserError):
    """A remote service (arXiv, Semantic Scholar, an LLM API) could not be reached."""

    resumable = True


class ModelRefused(UserError):
    """A model API refused the key or the model name: fix the setting, then resume."""

    resumable = True


class RunAlreadyFinished(UserError):
    """``--resume`` of a run whose graph has nothing left to do."""


class NotASurvey(UserError):
    """The file given to ``evaluate`` holds no survey text (binary, empty, unrelated JSON)."""

    exit_code = EXIT_NOT_A_SURVEY


class BudgetExceeded(Exception):
    """The run's token budget is spent; graphs stop cleanly and keep what was written."""
