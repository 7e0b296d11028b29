"""One LLMClient per role (planner, writer, judge) sharing a meter, a budget and a cache."""

from __future__ import annotations

from dataclasses import dataclass

from langchain_core.language_models.chat_models import BaseChatModel

from ..settings import Settings
from .budget import TokenBudget
from .cache import ResponseCache
from .client import LLMClient
from .factory import make_chat_model
from .meter import TokenMeter

ROLES = ("planner", "writer", "judge")


@dataclass
class RoleClients:
    planner: LLMClient
    writer: LLMClient
    judge: LLMClient
    meter: TokenMeter
    budget: TokenBudget

    def for_role(self, role: str) -> LLMClient:
        return getattr(self, role)


def build_role_clients(
    settings: Settings,
    *,
    meter: TokenMeter | None = None,
    chat_models: dict[str, BaseChatModel] | None = None,
) -> RoleClients:
    """Clients for every role from ``settings.llm.for_role(role)``.

    Roles with the same spec share one chat model instance (one local model load). ``chat_models``
    maps a spec *or* a role name to a ready model, so tests can inject scripted models.
    """
    llm = settings.llm
    meter = meter or TokenMeter()
    budget = TokenBudget(llm.max_tokens)
    cache = ResponseCache.for_settings(settings) if llm.cache else None
    injected = dict(chat_models or {})
    by_spec: dict[str, BaseChatModel] = {}
    clients: dict[str, LLMClient] = {}
    for role in ROLES:
        spec = llm.for_role(role)
        model = injected.get(role) or injected.get(spec) or by_spec.get(spec)
        if model is None:
            model = make_chat_model(spec, settings)
        by_spec.setdefault(spec, model)
        clients[role] = LLMClient(
            model,
            spec=spec,
            meter=meter,
            cache=cache,
            budget=budget,
            retries=llm.retries,
            max_output_tokens=llm.max_output_tokens,
            temperature=llm.temperature,
            timeout=llm.timeout,
        )
    return RoleClients(meter=meter, budget=budget, **clients)
