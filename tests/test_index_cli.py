"""`surveygraph corpus ingest/search/stats` through typer's CliRunner (and one real process)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from surveygraph.cli import app
from surveygraph.cli.corpus_index import parse_years
from surveygraph.errors import UserError
from tests.index_helpers import cached_static_model, link_static_model

RECORDS = [
    {"arxiv_id": "2503.00001", "title": "Retrieval-augmented generation with long contexts",
     "abstract": "We study retrieval for LLMs.", "authors": ["A. B."], "categories": ["cs.CL"], "announced": "2025-03-20"},
    {"arxiv_id": "2504.00002", "title": "Gaussian splatting for dynamic scenes",
     "abstract": "Real-time rendering with 3D Gaussians.", "authors": ["C. D."], "categories": ["cs.CV"], "announced": "2025-04-02"},
    {"arxiv_id": "2601.00003", "title": "Agents that retrieve before they act",
     "abstract": "Tool-using LLM agents with retrieval.", "authors": ["E. F."], "categories": ["cs.AI"], "announced": "2026-01-05"},
]


@pytest.fixture(scope="session")
def static_model(request):
    return cached_static_model(request.config.cache.mkdir("surveygraph-models"))


@pytest.fixture
def cli_home(tmp_path, tmp_home, static_model):
    link_static_model(tmp_home, static_model)
    data = tmp_path / "papers.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in RECORDS) + "\n{not json\n", encoding="utf-8")
    return tmp_home, data


def run(*args: str):
    return CliRunner().invoke(app, list(args))


def test_ingest_search_stats(cli_home):
    home, data = cli_home
    result = run("--home", str(home), "corpus", "ingest", str(data), "--embedding-model", "minilm-static", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert (report["read"], report["added"], report["skipped"], report["skipped_lines"]) == (3, 3, 1, [4])

    result = run("--home", str(home), "corpus", "search", "retrieval augmented generation", "-k", "2", "--json")
    assert result.exit_code == 0, result.output
    hits = json.loads(result.stdout)
    assert len(hits) == 2 and hits[0]["paper"]["arxiv_id"] == "2503.00001"

    result = run("--home", str(home), "corpus", "search", "retrieval", "--years", "2026", "--category", "cs.AI",
                 "--mode", "bm25", "--no-tre", "--json")
    assert [h["paper"]["arxiv_id"] for h in json.loads(result.stdout)] == ["2601.00003"]

    result = run("--home", str(home), "corpus", "search", "gaussian splatting", "-k", "1")
    assert result.exit_code == 0 and "2504.00002" in result.stdout

    result = run("--home", str(home), "corpus", "stats", "--json")
    stats = json.loads(result.stdout)
    assert stats["papers"] == 3 and stats["embedding_model"] == "minilm-static"


def test_user_errors(cli_home):
    home, data = cli_home
    result = run("--home", str(home), "corpus", "ingest", str(home / "missing.jsonl"))
    assert isinstance(result.exception, UserError) and "no such file" in str(result.exception)
    result = run("--home", str(home), "corpus", "search", "anything")
    assert isinstance(result.exception, UserError) and "empty" in str(result.exception)
    result = run("--home", str(home), "corpus", "search", "x", "--years", "26-24")
    assert isinstance(result.exception, UserError)
    result = run("--home", str(home), "corpus", "search", "x", "--mode", "sparse")
    assert isinstance(result.exception, UserError)


def test_parse_years():
    assert parse_years("2024-2026") == (2024, 2026)
    assert parse_years(" 2025 ") == (2025, 2025)
    assert parse_years(None) is None
    for bad in ("2026-2024", "last year", "2024-"):
        with pytest.raises(UserError):
            parse_years(bad)


def test_real_process_prints_one_line_error(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-c", "from surveygraph.cli import main; main()", "--home", str(tmp_path / "h"),
         "corpus", "ingest", str(tmp_path / "nope.bib")],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().startswith("error:") and "Traceback" not in proc.stderr


def test_prepare_models_reports_ready_model(cli_home):
    home, _ = cli_home
    result = run("--home", str(home), "corpus", "prepare-models")
    assert result.exit_code == 0, result.output
    assert "minilm-static ready" in result.stderr
