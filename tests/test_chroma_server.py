"""The paper index against a real Chroma server (``store.chroma_url``): the `chroma run` server
that ships with the chromadb package is started on a free loopback port for this module."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time

import httpx
import pytest

from surveygraph.retrieval.corpus import Corpus
from surveygraph.settings import load_settings
from tests.index_helpers import cached_static_model, link_static_model
from tests.test_index_corpus import PAPERS


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def chroma_server(tmp_path_factory):
    exe = shutil.which("chroma")
    if exe is None:
        pytest.skip("the `chroma` CLI (chromadb's server) is not on PATH")
    port = _free_port()
    data = tmp_path_factory.mktemp("chroma-server")
    proc = subprocess.Popen([exe, "run", "--path", str(data), "--host", "127.0.0.1", "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):  # the server starts in ~1-3 s
            try:
                if httpx.get(f"{url}/api/v2/heartbeat", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if proc.poll() is not None:
                pytest.fail(f"chroma run exited with {proc.returncode}")
            time.sleep(0.2)
        else:
            pytest.fail("the Chroma server did not answer within 20 s")
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def test_index_and_search_through_a_chroma_server(chroma_server, tmp_home):
    link_static_model(tmp_home, cached_static_model())
    overrides = {"embedding.model": "minilm-static", "store.chroma_url": chroma_server}
    corpus = Corpus(load_settings(**overrides))
    report = corpus.add_papers(PAPERS, progress=False, source="test")
    assert (report.added, report.duplicates) == (5, 0)
    hits = corpus.search("dense passage retrieval", 2, mode="dense", tre=False)
    assert hits[0].paper.title == "Dense passage retrieval revisited"
    filtered = corpus.search("retrieval", 5, mode="dense", categories=["cs.CV"], tre=False)
    assert [h.paper.title for h in filtered] == ["Diffusion models for image synthesis"]
    # a new client (another process) sees the server's collection, vectors and model record
    reopened = Corpus(load_settings(**overrides))
    assert reopened.count() == 5
    assert reopened.search("graph neural networks molecules", 1, tre=False)[0].paper.title == \
        "Graph neural networks for molecules"
    # the collection remembers its encoder on the server too
    with pytest.raises(Exception, match="minilm-static"):
        Corpus(load_settings(**{**overrides, "embedding.model": "minilm"})).search("x", 1)
