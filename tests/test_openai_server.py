"""generate and evaluate over HTTP against llama-cpp-python's OpenAI-compatible server.

What a vLLM / LM Studio / llama.cpp user runs: the bundled GGUF served on loopback, surveygraph
pointed at it with SURVEYGRAPH_LLM__BASE_URL and ``--llm openai:<alias>``. The server refuses
``json_schema`` (HTTP 500), reads ``max_tokens`` but not ``max_completion_tokens``; the run must
still plan from parsed structured output, keep every reply within its cap and retry nothing that
cannot succeed.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.local_llm import MISSING as LOCAL_LLM_MISSING
from tests.local_llm import REASON as LOCAL_LLM_REASON

pytestmark = pytest.mark.slow

RETRIES = 2
MAX_OUTPUT_TOKENS = 192
CAP_SLACK = 16  # LLMClient.CAP_SLACK_TOKENS
PLAN_NODES = ("plan_sections", "plan_subsections")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _bundled_gguf(tmp_path_factory) -> Path:
    from surveygraph.llm.local import ensure_local_model
    from surveygraph.settings import Settings

    try:
        from surveygraph.llm.local import local_model_path

        return ensure_local_model(local_model_path(Settings()).parent)
    except Exception as exc:  # noqa: BLE001 - no bundled model package: nothing to serve
        pytest.skip(f"bundled GGUF unavailable: {exc}")


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory):
    """llama-cpp-python's server on a free loopback port; stopped (and waited for) in finally."""
    if LOCAL_LLM_MISSING:
        pytest.skip(LOCAL_LLM_REASON)
    pytest.importorskip("llama_cpp.server", reason="needs llama-cpp-python[server] (the `server` extra)")
    pytest.importorskip("langchain_openai", reason="needs langchain-openai (the `openai` extra)")
    model = _bundled_gguf(tmp_path_factory)
    port = _free_port()
    log_path = tmp_path_factory.mktemp("server") / "server.log"
    # One thread: ggml's threads meet at spinning barriers, and on a busy CI machine two threads on
    # two shared cores run far slower than one (see llm/local.py default_threads).
    threads = "1"
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--host", "127.0.0.1",
               "--port", str(port), "--n_ctx", "4096", "--n_threads", threads, "--n_threads_batch", threads,
               "--model_alias", "gemma", "--verbose", "False",
               # As docs/llm.md says: by default the server cuts a running reply when the next
               # request arrives, so parallel writers would get partial replies.
               "--interrupt_requests", "False",
               # The default keeps logits for every position: n_ctx x 262k floats (4.3 GB here).
               "--logits_all", "False"]
    with log_path.open("w") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    try:
        url = f"http://127.0.0.1:{port}/v1"
        deadline = time.monotonic() + 180
        while True:
            if process.poll() is not None:
                pytest.fail(f"llama-cpp-python server exited: {log_path.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{url}/models", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("llama-cpp-python server did not start within 180 s")
            time.sleep(1)
        yield {"url": url, "log": log_path}
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _requests_served(log_path: Path) -> int:
    return len(re.findall(r'"POST /v1/chat/completions HTTP/1\.1"', log_path.read_text(errors="replace")))


def _slice_corpus(shared_data: Path, target: Path, n: int = 120) -> Path:
    pattern = re.compile(r"vision transformer|\bViT\b", re.I)
    matches = []
    with gzip.open(shared_data / "corpus" / "arxiv_2025_2026.jsonl.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            if "ision" not in line and "ViT" not in line:
                continue
            record = json.loads(line)
            if pattern.search(record.get("title", "")) or pattern.search(record.get("abstract", "")[:300]):
                matches.append(line)
    step = max(1, len(matches) // n)
    target.write_text("".join(matches[::step][:n]), encoding="utf-8")
    return target


def _cli(args: list[str], env: dict, cwd: Path, timeout: float = 900) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from surveygraph.cli import main; main()", *args], env=env,
                          cwd=cwd, capture_output=True, text=True, timeout=timeout)


def _journal(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "llm_calls.jsonl").read_text().splitlines() if line.strip()]


def test_generate_and_evaluate_over_openai_compatible_server(llama_server, shared_data, tmp_path):
    home = tmp_path / "home"
    env = {key: value for key, value in os.environ.items() if not key.startswith("SURVEYGRAPH_")}
    env.update({
        "SURVEYGRAPH_HOME": str(home), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
        "ANONYMIZED_TELEMETRY": "False", "SURVEYGRAPH_LLM__BASE_URL": llama_server["url"],
        "SURVEYGRAPH_LLM__DEFAULT": "openai:gemma", "SURVEYGRAPH_LLM__CACHE": "false",
        "SURVEYGRAPH_LLM__RETRIES": str(RETRIES), "SURVEYGRAPH_LLM__MAX_OUTPUT_TOKENS": str(MAX_OUTPUT_TOKENS),
        "SURVEYGRAPH_GENERATION__OUTLINE_CANDIDATES": "40", "SURVEYGRAPH_GENERATION__PAPERS_PER_SECTION": "16",
        "SURVEYGRAPH_GENERATION__PAPERS_PER_SUBSECTION": "4", "SURVEYGRAPH_GENERATION__SUBQUERIES": "1",
        "SURVEYGRAPH_GENERATION__CONCURRENCY": "1",
        "SURVEYGRAPH_GENERATION__SELF_EVALUATE": "false",  # evaluate runs below, with a judge
        # the server's context is 4,096 tokens (--n_ctx below): the judge's prompt must leave room for
        # its reply, or the server stops it mid-JSON (it did once the survey's abstract grew)
        "SURVEYGRAPH_EVALUATION__JUDGE_INPUT_TOKENS": "2800",
    })
    env.pop("OPENAI_API_KEY", None)
    corpus = _slice_corpus(shared_data, tmp_path / "vit.jsonl")
    for args in (["corpus", "ingest", str(corpus)],
                 ["outlines", "ingest", str(shared_data / "weaidb_surveybench" / "HumanSurvey" / "outlines.json")]):
        done = _cli(args, env, tmp_path, timeout=600)
        assert done.returncode == 0, done.stderr[-2000:]

    served_before = _requests_served(llama_server["log"])
    # 1 section x 1 subsection: the server's grammar decoding checks every token against Gemma's
    # 262k vocabulary (~2 tok/s on a busy 2-core machine), so every call counts.
    done = _cli(["generate", "Vision Transformers", "--llm", "openai:gemma", "--sections", "1", "--subsections", "1"],
                env, tmp_path)
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-3000:])
    run_dir = next((home / "runs").iterdir())
    assert (run_dir / "survey.md").is_file() and (run_dir / "survey.tex").is_file()
    calls = _journal(run_dir)
    manifest = json.loads((run_dir / "manifest.json").read_text())

    # Structured output: the outline step parsed the model's JSON (no parse failure left for the
    # deterministic fallback). The sanitiser may still reject a 270M model's headings as noise:
    # that is a validation fallback, recorded as such, not a failed call.
    plan_calls = [c for c in calls if c["node"] in PLAN_NODES and not c.get("refused")]
    assert plan_calls and all(c.get("structured_mode") in ("json_schema", "tools", "json_object", "prompted")
                              for c in plan_calls)
    for node in PLAN_NODES:
        node_calls = [c for c in plan_calls if c["node"] == node]
        assert node_calls and node_calls[-1]["parse_ok"] is True, node_calls
    assert not [f for f in manifest["failures"] if f.get("node") in PLAN_NODES], manifest["failures"]
    # json_schema was refused once, remembered, and never sent again.
    refused = [c for c in calls if c.get("refused")]
    assert [c["structured_mode"] for c in refused].count("json_schema") <= 1

    # Output caps held on every reply, and no call was retried more than configured.
    for call in calls:
        assert call["output_tokens"] <= call.get("max_output_tokens", MAX_OUTPUT_TOKENS) + CAP_SLACK, call
        assert call.get("retries", 0) <= RETRIES, call
    # Every HTTP request the server saw is a journal entry or one of its retries: no hidden SDK retries.
    served = _requests_served(llama_server["log"]) - served_before
    assert served == sum(1 + c.get("retries", 0) for c in calls if not c.get("cached"))

    # evaluate with one cheap judge through the same server.
    served_before = _requests_served(llama_server["log"])
    report_path = tmp_path / "report.json"
    # The judge model comes from SURVEYGRAPH_LLM__DEFAULT (openai:gemma), like every role above.
    # The 192-token cap above keeps generation fast; a SurveyLens aspect verdict (a score and a note
    # per aspect) does not fit in it once the judge writes a little more, and a reply cut mid-JSON
    # is no verdict at all ("Unterminated string"), so the judge gets room for its schema.
    done = _cli(["evaluate", str(run_dir / "survey.json"), "--judges", "surveylens", "--out", str(report_path)],
                {**env, "SURVEYGRAPH_LLM__MAX_OUTPUT_TOKENS": "512"}, tmp_path)
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-3000:])
    assert _requests_served(llama_server["log"]) > served_before
    report = json.loads(report_path.read_text())
    judged = [m for m in report["metrics"] if m["name"].startswith("surveylens")]
    scored = [m for m in judged if m["name"] != "surveylens.overall" and m.get("value") is not None
              and not (m.get("details") or {}).get("empty")]
    assert scored, judged  # the judge's structured replies over HTTP gave at least one rubric score


def test_parallel_calls_to_the_server_lose_no_reply(llama_server, monkeypatch):
    """Three writers at once, as a run with concurrency 3 sends them: every reply arrives whole
    (the server's finish reason seen, no retry needed), none empty."""
    from concurrent.futures import ThreadPoolExecutor

    from surveygraph.llm import LLMClient, TokenMeter, make_chat_model
    from surveygraph.settings import Settings

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    settings = Settings(llm={"base_url": llama_server["url"], "max_output_tokens": 48, "retries": 2})
    meter = TokenMeter()
    client = LLMClient(make_chat_model("openai:gemma", settings), spec="openai:gemma", meter=meter, retries=2,
                       max_output_tokens=48, retry_wait_seconds=0.5)
    from langchain_core.messages import HumanMessage, SystemMessage

    # the base model answers a bare one-line request with nothing at all; a system turn gets text
    prompts = [[SystemMessage("You are a helpful writer."), HumanMessage(f"Topic: {t}. Write a paragraph.")]
               for t in ("dense retrieval", "graph neural networks", "diffusion models")]
    with ThreadPoolExecutor(max_workers=3) as pool:
        replies = list(pool.map(lambda p: client.complete(p, node="write"), prompts))
    assert all(r.strip() for r in replies), replies
    entries = meter.entries()
    assert len(entries) == 3 and not any(e.get("error") for e in entries)
    assert all(e["retries"] == 0 for e in entries), entries  # nothing was cut and retried
