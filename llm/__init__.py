"""surveygraph.llm: any LangChain chat model or the bundled local Gemma, with structured output,
an on-disk response cache, a token meter and a whole-run token budget."""

from .budget import TokenBudget
from .cache import ResponseCache
from .client import LLMClient
from .factory import describe_default_model, make_chat_model
from .local import LlamaCppChatModel, ensure_local_model
from .meter import TokenMeter
from .roles import RoleClients, build_role_clients
from .structured import StructuredOutputError

__all__ = [
    "LLMClient",
    "LlamaCppChatModel",
    "ResponseCache",
    "RoleClients",
    "StructuredOutputError",
    "TokenBudget",
    "TokenMeter",
    "build_role_clients",
    "describe_default_model",
    "ensure_local_model",
    "make_chat_model",
]
