"""A whole-run token budget shared by every LLM client of a run."""

from __future__ import annotations

import threading

from ..errors import BudgetExceeded


class TokenBudget:
    """Counts input + output tokens; ``check`` raises BudgetExceeded before a call once spent.

    ``max_tokens=None`` means unlimited. A call is refused when the budget is already spent or
    when its prompt alone would take the run past the limit; a call that starts within budget
    may finish slightly over it (output length is not known in advance).
    """

    def __init__(self, max_tokens: int | None) -> None:
        if max_tokens is not None and max_tokens < 0:
            raise ValueError("max_tokens must be >= 0 or None")
        self.max_tokens = max_tokens
        self._spent = 0
        self._lock = threading.Lock()

    @property
    def spent(self) -> int:
        with self._lock:
            return self._spent

    @property
    def remaining(self) -> int | None:
        if self.max_tokens is None:
            return None
        return max(0, self.max_tokens - self.spent)

    def check(self, upcoming_input_tokens: int = 0) -> None:
        if self.max_tokens is None:
            return
        with self._lock:
            spent = self._spent
        if spent >= self.max_tokens or spent + upcoming_input_tokens > self.max_tokens:
            raise BudgetExceeded(
                f"token budget exhausted: {spent} of {self.max_tokens} tokens spent"
                + (f", next call needs ~{upcoming_input_tokens} input tokens" if upcoming_input_tokens else "")
            )

    def add(self, tokens: int) -> None:
        with self._lock:
            self._spent += int(tokens)
