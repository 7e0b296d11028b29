"""make_chat_model error messages, role clients and the default-model line."""

from __future__ import annotations

import importlib.util

import pytest

from surveygraph.errors import UserError
from surveygraph.llm import LLMClient, build_role_clients, describe_default_model, make_chat_model
from surveygraph.llm.local import render_gemma_prompt, render_instruction_prompt
from surveygraph.settings import load_settings
from tests.local_llm import MISSING as LOCAL_LLM_MISSING
from tests.local_llm import REASON as LOCAL_LLM_REASON
from tests.scripted_llm import ScriptedChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage


def test_unknown_provider_is_a_user_error(tmp_home):
    with pytest.raises(UserError, match="unknown model provider 'nosuch'"):
        make_chat_model("nosuch:model-x", load_settings())


@pytest.mark.parametrize("spec", ["", "gpt-4o-mini", "openai:", ":model"])
def test_malformed_spec_is_a_user_error(tmp_home, spec):
    with pytest.raises(UserError, match="bad model spec"):
        make_chat_model(spec, load_settings())


def test_missing_gguf_file_is_a_user_error(tmp_home):
    with pytest.raises(UserError, match="GGUF model file not found"):
        make_chat_model("gguf:/definitely/not/here.gguf", load_settings())


def test_missing_provider_package_names_the_extra(tmp_home, monkeypatch):
    from surveygraph.llm import factory

    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(factory.importlib.util, "find_spec",
                        lambda name, *a: None if name == "langchain_openai" else real_find_spec(name, *a))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with pytest.raises(UserError, match=r"pip install 'surveygraph\[openai\]'"):
        make_chat_model("openai:gpt-4o-mini", load_settings())


@pytest.mark.skipif(importlib.util.find_spec("langchain_groq") is not None, reason="langchain-groq installed")
def test_missing_provider_without_extra_names_the_package(tmp_home):
    with pytest.raises(UserError, match="pip install langchain-groq"):
        make_chat_model("groq:llama-3.1-8b-instant", load_settings())


def test_role_clients_share_models_meter_budget_and_cache(tmp_home):
    settings = load_settings(**{"llm.judge": "other:judge-model", "llm.max_tokens": 1000})
    shared = ScriptedChatModel(responder=lambda p: "from shared")
    judge = ScriptedChatModel(responder=lambda p: "from judge")
    roles = build_role_clients(settings, chat_models={"local": shared, "other:judge-model": judge})
    assert roles.planner.model is shared and roles.writer.model is shared and roles.judge.model is judge
    assert roles.planner.spec == "local" and roles.judge.spec == "other:judge-model"
    assert roles.planner.meter is roles.judge.meter is roles.meter
    assert roles.writer.budget is roles.judge.budget is roles.budget and roles.budget.max_tokens == 1000
    assert roles.planner.cache is roles.judge.cache
    assert roles.planner.cache.path.is_relative_to(settings.cache_dir / "llm")
    roles.writer.complete("w", node="write")
    roles.judge.complete("j", node="judge")
    assert set(roles.meter.by_node()) == {"write", "judge"}
    assert roles.meter.by_model()["other:judge-model"]["calls"] == 1


def test_role_clients_inject_by_role_and_disable_cache(tmp_home):
    settings = load_settings(**{"llm.cache": False, "llm.retries": 1})
    planner = ScriptedChatModel(responder=lambda p: "p")
    other = ScriptedChatModel(responder=lambda p: "o")
    roles = build_role_clients(settings, chat_models={"planner": planner, "local": other})
    assert roles.planner.model is planner and roles.writer.model is other
    assert roles.writer.cache is None and roles.writer.retries == 1
    assert isinstance(roles.for_role("judge"), LLMClient)


def test_describe_default_model(tmp_home):
    assert "bundled local model gemma-3-270m" in describe_default_model(load_settings())
    assert describe_default_model(load_settings(**{"llm.default": "openai:gpt-4o-mini"})) == "model: openai:gpt-4o-mini"
    line = describe_default_model(load_settings(**{"llm.judge": "anthropic:claude-3-5-haiku-latest"}))
    assert "judge=anthropic:claude-3-5-haiku-latest" in line and "planner=local" in line


def test_prompt_rendering_for_base_and_chat_models():
    messages = [SystemMessage("You write surveys."), HumanMessage("Outline RAG."), AIMessage("{bad"),
                HumanMessage("Fix it.")]
    plain = render_instruction_prompt(messages)
    assert plain.startswith("You write surveys.") and plain.endswith("Instruction: Fix it.\n\nResponse:")
    assert "Response: {bad" in plain
    chat = render_gemma_prompt(messages)
    assert chat.startswith("<start_of_turn>user\nYou write surveys.\n\nOutline RAG.<end_of_turn>")
    assert chat.endswith("<start_of_turn>model\n")


def test_missing_api_key_names_the_env_var(tmp_home, monkeypatch):
    import surveygraph.llm.factory as factory

    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    real_find_spec = importlib.util.find_spec
    # Pretend the integration package is installed so the key check is reached.
    monkeypatch.setattr(factory.importlib.util, "find_spec",
                        lambda name: object() if name == "langchain_anthropic" else real_find_spec(name))
    with pytest.raises(UserError, match="set the ANTHROPIC_API_KEY environment variable"):
        make_chat_model("anthropic:claude-3-5-haiku-latest", load_settings())


def test_missing_llama_cpp_is_a_user_error(tmp_home, tmp_path, monkeypatch):
    import surveygraph.llm.factory as factory

    gguf = tmp_path / "model.gguf"
    gguf.write_bytes(b"GGUF")
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(factory.importlib.util, "find_spec",
                        lambda name: None if name == "llama_cpp" else real_find_spec(name))
    with pytest.raises(UserError, match=r"surveygraph\[local\]"):
        make_chat_model(f"gguf:{gguf}", load_settings())


def test_local_model_is_assembled_lazily(tmp_home):
    settings = load_settings()
    if LOCAL_LLM_MISSING:
        pytest.skip(LOCAL_LLM_REASON)
    roles = build_role_clients(settings, chat_models={"judge": ScriptedChatModel(responder=lambda p: "j")})
    assert roles.planner.model is roles.writer.model
    assert not (settings.models_dir / "gemma-3-270m-q4_k_m.gguf").exists()  # nothing written until a call


def test_openai_compatible_base_url_gets_max_tokens_in_body_and_no_sdk_retries(tmp_home, monkeypatch):
    pytest.importorskip("langchain_openai")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    settings = load_settings(**{"llm.base_url": "http://127.0.0.1:9/v1", "llm.max_output_tokens": 321})
    model = make_chat_model("openai:served-model", settings)
    # langchain-openai would send max_tokens as max_completion_tokens, which llama.cpp's server ignores.
    assert model.max_tokens is None and model.extra_body == {"max_tokens": 321}
    assert model.max_retries == 0  # LLMClient is the only retry layer
    payload = model._get_request_payload([HumanMessage(content="hi")])
    assert "max_completion_tokens" not in payload and payload["extra_body"]["max_tokens"] == 321


def test_openai_api_keeps_max_completion_tokens(tmp_home, monkeypatch):
    pytest.importorskip("langchain_openai")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    model = make_chat_model("openai:gpt-4o-mini", load_settings(**{"llm.max_output_tokens": 300}))
    payload = model._get_request_payload([HumanMessage(content="hi")])
    assert payload["max_completion_tokens"] == 300 and model.max_retries == 0
