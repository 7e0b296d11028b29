"""What the generation nodes need from outside the state: settings, retrieval, models.

Kept out of the graph state because none of it is data to checkpoint; the graph builder binds
one ``GenerationDeps`` into every node.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, TypeVar

from ..errors import BudgetExceeded, UserError
from ..settings import Settings

log = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass
class GenerationDeps:
    settings: Settings
    corpus: Any  # surveygraph.retrieval.corpus.Corpus (search/get/count)
    outlines: Any | None  # surveygraph.retrieval.outlines.OutlineStore, None = no outline DB
    clients: Any  # surveygraph.llm.RoleClients (planner / writer / judge + meter)
    bench_refs: Path | None = None
    human: Path | None = None  # human survey of the topic for the self-evaluation's judges / alignment
    on_judgment: Callable[[str], None] | None = None  # progress of the self-evaluation's judge calls
    evaluate: Callable[..., Any] | None = None  # evaluate_survey; None = import lazily
    extra: dict = field(default_factory=dict)


LOCAL_DRAFTS_SKIPPED = ("skipped: the bundled 270M base model's drafts never pass the gate; "
                        "set llm.local_drafts=true to call it anyway, or configure a capable model")


def drafts_enabled(deps: GenerationDeps, role: str) -> bool:
    """Whether generation should ask ``role``'s model for drafts (outline, sub-queries, prose)."""
    client = deps.clients.for_role(role)
    bundled = bool(getattr(getattr(client, "model", None), "bundled", False))
    return not bundled or deps.settings.llm.local_drafts


@dataclass
class LLMOutcome:
    """Result of one guarded LLM call: a value, or why there is none."""

    value: Any = None
    failure: dict | None = None
    budget_exhausted: bool = False

    @property
    def ok(self) -> bool:
        return self.failure is None and not self.budget_exhausted


def guarded_call(node: str, call: Callable[[], T], *, item: str | None = None) -> LLMOutcome:
    """Run an LLM call; provider errors and malformed output become a recorded failure.

    The clients already retry (settings.llm.retries); what reaches here failed for good, and the
    node falls back deterministically instead of stopping the survey. A spent budget is not a
    failure: the caller stops asking the model and keeps what it has.
    """
    try:
        return LLMOutcome(value=call())
    except BudgetExceeded:
        return LLMOutcome(budget_exhausted=True)
    except UserError:
        # An unreachable server or a refused key is not one bad reply: every later call would fail
        # the same way. Stop the run (it stays resumable at this step) instead of writing floors.
        raise
    except Exception as exc:  # noqa: BLE001 - any provider/parse error is recorded, not fatal
        log.warning("%s%s: LLM call failed: %s", node, f" {item}" if item else "", exc)
        failure = {"node": node, "error": f"{type(exc).__name__}: {exc}"[:300]}
        if item:
            failure["item"] = item
        return LLMOutcome(failure=failure)
