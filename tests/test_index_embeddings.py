"""Embedders: the on-disk cache, MiniLM and the locally distilled minilm-static."""

from __future__ import annotations

import numpy as np
import pytest

from surveygraph.retrieval.embeddings import CachedEmbedder, EmbeddingCache, get_embedder
from surveygraph.settings import load_settings

from tests.index_helpers import cached_static_model, link_static_model


class CountingEmbedder:
    name = "counting"
    dim = 3

    def __init__(self):
        self.calls: list[list[str]] = []

    def encode(self, texts, *, progress=False):
        self.calls.append(list(texts))
        return np.array([[len(t), 1.0, 0.0] for t in texts], dtype=np.float32)


def test_cache_hit_does_not_call_model(tmp_path):
    inner = CountingEmbedder()
    embedder = CachedEmbedder(inner, EmbeddingCache(tmp_path / "c.sqlite"))
    first = embedder.encode(["alpha", "be", "alpha"])
    assert inner.calls == [["alpha", "be"]]  # duplicates encoded once
    second = embedder.encode(["be", "alpha"])
    assert inner.calls == [["alpha", "be"]]  # all from the cache
    np.testing.assert_array_equal(second, first[[1, 0]])
    embedder.encode(["gamma", "be"])
    assert inner.calls[-1] == ["gamma"]
    # A new process (new cache object on the same file) still hits.
    again = CachedEmbedder(inner, EmbeddingCache(tmp_path / "c.sqlite"))
    again.encode(["gamma"])
    assert len(inner.calls) == 2
    assert embedder.encode([]).shape == (0, 3)


def test_cache_key_depends_on_model():
    assert EmbeddingCache.key("a", "text") != EmbeddingCache.key("b", "text")
    assert EmbeddingCache.key("a", "text") == EmbeddingCache.key("a", "text")


@pytest.fixture(scope="session")
def static_model(request):
    return cached_static_model(request.config.cache.mkdir("surveygraph-models"))


def test_minilm_static_encodes_normalised_and_memoised(tmp_home, static_model):
    link_static_model(tmp_home, static_model)
    settings = load_settings(**{"embedding.model": "minilm-static"})
    embedder = get_embedder(settings)
    assert get_embedder(settings) is embedder
    vectors = embedder.encode(["retrieval-augmented generation", "retrieval augmented LLM", "diffusion models for images"])
    assert vectors.dtype == np.float32 and vectors.shape == (3, embedder.dim)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]
    assert (settings.cache_dir / "embeddings" / "vectors.sqlite").is_file()


def test_minilm_bundled_model(tmp_home):
    embedder = get_embedder(load_settings(**{"embedding.model": "minilm", "embedding.cache": False}))
    vectors = embedder.encode(["graph neural networks", "message passing on graphs", "image super-resolution"])
    assert embedder.dim == 384 and vectors.shape == (3, 384)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]


def test_onnx_backend_without_optimum_is_one_line_error(tmp_home):
    import importlib.util

    from surveygraph.errors import UserError

    if importlib.util.find_spec("optimum") is not None:
        pytest.skip("optimum is installed here")
    with pytest.raises(UserError, match="optimum"):
        get_embedder(load_settings(**{"embedding.model": "minilm", "embedding.backend": "onnx"}))


def test_minilm_head_reads_a_paper_s_opening_only(tmp_home):
    """minilm-head is MiniLM cut at HEAD_TOKENS word pieces: two texts that differ only after the
    opening encode alike under it and apart under the full MiniLM, and the two never share cache
    keys (the index records the encoder's name)."""
    from surveygraph.retrieval.embeddings import HEAD_TOKENS, MINILM_HEAD

    opening = " ".join(["graph neural networks learn node representations by message passing"] * (HEAD_TOKENS // 8))
    texts = [f"{opening} for molecules", f"{opening} for recommendation in e-commerce and social networks"]
    head = get_embedder(load_settings(**{"embedding.model": MINILM_HEAD, "embedding.cache": False}))
    full = get_embedder(load_settings(**{"embedding.model": "minilm", "embedding.cache": False}))
    assert head.name == MINILM_HEAD and head.dim == 384
    a, b = head.encode(texts)
    np.testing.assert_allclose(a, b, atol=1e-6)
    c, d = full.encode(texts)
    assert c @ d < 0.9999
    short = ["retrieval-augmented generation"]
    np.testing.assert_allclose(head.encode(short), full.encode(short), atol=1e-5)  # within the opening: MiniLM


def test_progress_to_a_log_file_prints_plain_lines_with_time_left(capsys):
    """A first ingest is minutes long; rich draws nothing when stderr is a file, so a user tailing
    a log must still see how far it got and an estimate of what is left."""
    from surveygraph.retrieval.embeddings import _Progress

    bar = _Progress(True, 200, "ingesting")
    for _ in range(40):
        bar.advance(5)
    bar.close()
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 9  # every tenth, none at 100%
    assert lines[0].startswith("ingesting: 20 of 200 (10%), about ") and lines[0].endswith(" left")
    assert _Progress(False, 200, "ingesting")._plain is None
