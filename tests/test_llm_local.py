"""The real bundled model (Gemma 3 270M GGUF via llama.cpp): constrained JSON and free text."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, Field

from surveygraph.llm import LlamaCppChatModel, TokenMeter, build_role_clients
from surveygraph.settings import load_settings
from tests.local_llm import requires_local_llm

pytestmark = [pytest.mark.slow, requires_local_llm]


class SectionPlan(BaseModel):
    title: str = Field(min_length=1)
    keywords: list[str] = Field(max_length=5)
    year: int


@pytest.fixture(scope="module")
def roles(tmp_path_factory):
    home = tmp_path_factory.mktemp("home")
    settings = load_settings(home=str(home), **{"llm.local_n_ctx": 2048, "llm.cache": False})
    return build_role_clients(settings, meter=TokenMeter())


def test_constrained_json_validates(roles):
    assert isinstance(roles.planner.model, LlamaCppChatModel)
    plan = roles.planner.structured(
        "Plan one section of a survey on retrieval-augmented generation: a title, up to three keywords "
        "and the year the topic became popular.",
        SectionPlan,
        node="plan",
        max_tokens=120,
    )
    assert isinstance(plan, SectionPlan) and plan.title.strip()
    row = roles.meter.by_node()["plan"]
    assert row["output_tokens"] > 0 and row["estimated_calls"] == 0 and row["cost_usd"] == 0.0


def test_free_text_completion_is_non_empty(roles):
    text = roles.writer.complete(
        "Write one sentence about dense passage retrieval.", node="write", max_tokens=40
    )
    assert text.strip()
    assert roles.writer.model is roles.planner.model  # one model load for roles with the same spec


def test_every_data_home_shares_one_copy_of_the_bundled_gguf(tmp_path, monkeypatch):
    """Issue 20: each data home used to assemble its own 242 MB copy. The path is the per-user
    cache unless a home already holds its own copy (homes made before the shared cache)."""
    from surveygraph.llm.local import LOCAL_MODEL_FILE, local_model_path
    from surveygraph.settings import Settings

    shared = tmp_path / "user-cache" / "models"
    monkeypatch.setenv("SURVEYGRAPH_MODELS_DIR", str(shared))
    first, second = Settings(home=tmp_path / "a"), Settings(home=tmp_path / "b")
    assert local_model_path(first) == local_model_path(second) == shared / LOCAL_MODEL_FILE
    (second.models_dir).mkdir(parents=True)
    (second.models_dir / LOCAL_MODEL_FILE).write_bytes(b"GGUF")  # an older home's own copy
    assert local_model_path(second) == second.models_dir / LOCAL_MODEL_FILE
    assert local_model_path(first) == shared / LOCAL_MODEL_FILE
