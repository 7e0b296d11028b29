"""A scripted LangChain chat model for tests: replies come from a function of the prompt.

Tests route on the prompt text (each prompt template names its task), so one model can serve
a whole graph run. It reports token usage like a real provider so meters and budgets work.
"""

from __future__ import annotations

import threading
from typing import Any, Callable

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

Responder = Callable[[str], str]


def render(messages: list[BaseMessage]) -> str:
    return "\n\n".join(f"{m.type}: {m.content}" for m in messages)


class ScriptedChatModel(BaseChatModel):
    """Calls ``responder(prompt_text)``; a responder may raise to simulate provider errors."""

    responder: Any
    calls: list[str] = []
    model_name: str = "scripted"

    def model_post_init(self, __context: Any) -> None:
        self.calls = []
        self._lock = threading.Lock()

    @property
    def _llm_type(self) -> str:
        return "scripted"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_name": self.model_name}

    def _generate(self, messages: list[BaseMessage], stop=None, run_manager=None, **kwargs: Any) -> ChatResult:
        prompt = render(messages)
        with self._lock:
            self.calls.append(prompt)
        text = self.responder(prompt)
        usage = {
            "input_tokens": max(1, len(prompt) // 4),
            "output_tokens": max(1, len(text) // 4),
            "total_tokens": max(1, len(prompt) // 4) + max(1, len(text) // 4),
        }
        message = AIMessage(content=text, usage_metadata=usage)
        return ChatResult(generations=[ChatGeneration(message=message)])
