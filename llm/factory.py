"""Turning a model spec string ("local", "gguf:PATH", "provider:model") into a LangChain chat model."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel

from ..errors import UserError
from ..settings import Settings
from .local import INSTALL_LOCAL, LOCAL_MODEL_LABEL, LlamaCppChatModel, local_model_path

# provider -> (integration package, pip extra of surveygraph or None, API-key env var or None)
PROVIDERS: dict[str, tuple[str, str | None, str | None]] = {
    "openai": ("langchain-openai", "openai", "OPENAI_API_KEY"),
    "azure_openai": ("langchain-openai", "openai", "AZURE_OPENAI_API_KEY"),
    "anthropic": ("langchain-anthropic", "anthropic", "ANTHROPIC_API_KEY"),
    "ollama": ("langchain-ollama", "ollama", None),
    "google_genai": ("langchain-google-genai", None, "GOOGLE_API_KEY"),
    "groq": ("langchain-groq", None, "GROQ_API_KEY"),
    "mistralai": ("langchain-mistralai", None, "MISTRAL_API_KEY"),
    "deepseek": ("langchain-deepseek", None, "DEEPSEEK_API_KEY"),
    "together": ("langchain-together", None, "TOGETHER_API_KEY"),
    "fireworks": ("langchain-fireworks", None, "FIREWORKS_API_KEY"),
    "xai": ("langchain-xai", None, "XAI_API_KEY"),
    "cohere": ("langchain-cohere", None, "COHERE_API_KEY"),
    "openrouter": ("langchain-openrouter", None, "OPENROUTER_API_KEY"),
    "huggingface": ("langchain-huggingface", None, None),
    "bedrock": ("langchain-aws", None, None),
    "bedrock_converse": ("langchain-aws", None, None),
    "google_vertexai": ("langchain-google-vertexai", None, None),
}

# Providers whose chat class names the output-length field differently.
_MAX_TOKENS_FIELD = {"ollama": "num_predict"}
# Providers whose SDK retries on its own (OpenAI SDK: 2 retries by default, Anthropic SDK too).
# LLMClient is the one retry layer (tenacity, transient errors only), so theirs is switched off:
# stacked, 4 of ours x 3 of theirs turned one refused request into 12 HTTP calls.
_SDK_RETRY_PROVIDERS = {"openai", "azure_openai", "anthropic", "deepseek", "xai", "groq", "mistralai", "fireworks",
                        "together"}
# Providers whose chat class takes a request timeout as `timeout` (field or alias). Without one
# langchain-openai sends timeout=None and a server that accepts the connection and never answers
# held `generate` forever (issue 31). Ollama's client takes it in `client_kwargs`; the others
# (bedrock, vertexai, huggingface, cohere) keep their SDK's own timeout.
_TIMEOUT_PROVIDERS = _SDK_RETRY_PROVIDERS | {"google_genai", "openrouter"}
# The OpenAI SDK family reads an httpx.Timeout, so connecting gets its own short limit.
_HTTPX_TIMEOUT_PROVIDERS = {"openai", "azure_openai", "deepseek", "xai", "together", "openrouter"}
CONNECT_TIMEOUT_S = 10.0


def request_timeout(provider: str, seconds: float) -> dict[str, Any]:
    """Constructor kwargs that bound every HTTP request of ``provider``'s chat model."""
    if provider in _HTTPX_TIMEOUT_PROVIDERS:
        import httpx

        return {"timeout": httpx.Timeout(seconds, connect=min(seconds, CONNECT_TIMEOUT_S))}
    if provider in _TIMEOUT_PROVIDERS:
        return {"timeout": seconds}
    if provider == "ollama":
        return {"client_kwargs": {"timeout": seconds}}
    return {}


def _local_model(path: Path, settings: Settings, label: str, bundled: bool = False) -> LlamaCppChatModel:
    # The bundled model is built for every role by default but only loaded on its first call, which
    # the default path never makes: a missing extra is reported then (llm/local.py), not here.
    if not bundled and importlib.util.find_spec("llama_cpp") is None:
        raise UserError(f"local GGUF models need llama-cpp-python, which is not installed: {INSTALL_LOCAL}")
    llm = settings.llm
    return LlamaCppChatModel(
        model_path=str(path),
        model_name=label,
        bundled=bundled,
        n_ctx=llm.local_n_ctx,
        n_threads=llm.local_threads,
        weight_repack=llm.local_weight_repack,
        temperature=llm.temperature,
        max_tokens=llm.max_output_tokens,
    )


def _install_hint(provider: str) -> str:
    package, extra, _ = PROVIDERS.get(provider, (f"langchain-{provider.replace('_', '-')}", None, None))
    return f"pip install 'surveygraph[{extra}]'" if extra else f"pip install {package}"


def _api_model(provider: str, model: str, settings: Settings) -> BaseChatModel:
    from langchain.chat_models import init_chat_model

    spec = f"{provider}:{model}"
    if provider not in PROVIDERS:
        known = ", ".join(sorted(PROVIDERS))
        raise UserError(f"unknown model provider '{provider}' in '{spec}' (known: local, gguf:PATH, {known})")
    package, _, key_var = PROVIDERS[provider]
    if importlib.util.find_spec(package.replace("-", "_")) is None:
        raise UserError(f"model provider '{provider}' is not installed: {_install_hint(provider)}")
    kwargs: dict[str, Any] = {"temperature": settings.llm.temperature}
    if provider == "openai" and settings.llm.base_url:
        # langchain-openai sends max_tokens as `max_completion_tokens`, which llama.cpp's server
        # (and older vLLM / Ollama) ignore: send the classic `max_tokens` in the body instead.
        kwargs["extra_body"] = {"max_tokens": settings.llm.max_output_tokens}
    else:
        kwargs[_MAX_TOKENS_FIELD.get(provider, "max_tokens")] = settings.llm.max_output_tokens
    if provider in _SDK_RETRY_PROVIDERS:
        kwargs["max_retries"] = 0
    kwargs.update(request_timeout(provider, settings.llm.timeout))
    if settings.llm.base_url:
        kwargs["base_url"] = settings.llm.base_url
    if key_var and not os.environ.get(key_var):
        if provider == "openai" and settings.llm.base_url:
            # Self-hosted OpenAI-compatible servers (vLLM, llama.cpp server) usually ignore the key.
            kwargs["api_key"] = "EMPTY"
        else:
            raise UserError(f"model '{spec}' needs an API key: set the {key_var} environment variable")
    try:
        return init_chat_model(model, model_provider=provider, **kwargs)
    except ImportError as exc:
        raise UserError(f"model provider '{provider}' is not installed: {_install_hint(provider)}") from exc
    except Exception as exc:  # provider constructors validate eagerly; report, never a traceback
        raise UserError(f"could not create chat model '{spec}': {exc}") from exc


def make_chat_model(spec: str, settings: Settings) -> BaseChatModel:
    """A LangChain chat model for ``spec``.

    ``local`` is the bundled Gemma 3 270M GGUF; ``gguf:PATH`` any GGUF file run by llama.cpp;
    ``provider:model`` goes through ``langchain.chat_models.init_chat_model`` (openai, anthropic,
    ollama, ...; ``settings.llm.base_url`` points an OpenAI-compatible client at vLLM etc.).
    """
    spec = spec.strip()
    if spec == "local":
        return _local_model(local_model_path(settings), settings, LOCAL_MODEL_LABEL, bundled=True)
    if spec.startswith("gguf:"):
        path = Path(spec[len("gguf:") :]).expanduser()
        if not path.is_file():
            raise UserError(f"GGUF model file not found: {path}")
        return _local_model(path, settings, path.stem)
    provider, sep, model = spec.partition(":")
    if not sep or not provider or not model:
        raise UserError(f"bad model spec '{spec}': use 'local', 'gguf:PATH' or 'provider:model' (e.g. openai:gpt-4o-mini)")
    return _api_model(provider.strip().lower(), model.strip(), settings)


def describe_default_model(settings: Settings) -> str:
    """One line for the CLI saying which model(s) a run will use."""
    llm = settings.llm
    roles = {role: llm.for_role(role) for role in ("planner", "writer", "judge")}
    if set(roles.values()) == {"local"}:
        return f"no model configured: using the bundled local model {LOCAL_MODEL_LABEL} (offline)"
    if len(set(roles.values())) == 1:
        return f"model: {llm.default}"
    return "models: " + ", ".join(f"{role}={spec}" for role, spec in roles.items())
