"""`langgraph dev` serves both graphs from langgraph.json, and runs go through its REST API.

Starts the in-memory LangGraph server (langgraph-cli[inmem], dev extra) on a free loopback port
with a throwaway data home, from a folder outside the repository (`--config .../langgraph.json`),
WITHOUT --allow-blocking. Bad input and context are refused with one readable line each, before a
run folder exists. Then: lists the assistants, fetches each
graph's drawing and schemas, runs the generation graph on a thread (bundled local model, 1x1
outline) stopped before export and resumed, and runs the evaluation graph on the result.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.generation_helpers import rag_papers

REPO = Path(__file__).resolve().parents[1]
TOPIC = "Retrieval-Augmented Generation"
OPTIONS = {"sections": 1, "subsections": 1, "outline_demos": "none", "papers_per_subsection": 3,
           "max_output_tokens": 96, "self_evaluate": True}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def _serve(home: Path, workdir: Path):
    """`langgraph dev` on a free loopback port serving the repo's langgraph.json, started from
    ``workdir`` (not the repository: the docs say any folder works with --config), with the data
    home ``home``; yields an httpx client and the log path; killed at the end."""
    httpx = pytest.importorskip("httpx")
    cli = shutil.which("langgraph")
    if cli is None:
        pytest.skip("langgraph CLI not installed (pip install 'surveygraph[dev]' installs langgraph-cli[inmem])")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SURVEYGRAPH_")}
    env.update(SURVEYGRAPH_HOME=str(home), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
               ANONYMIZED_TELEMETRY="False", LANGSMITH_TRACING="false")
    port = _free_port()
    log_path = workdir / "server.log"
    log = log_path.open("w")
    # --no-reload: files edited elsewhere must not restart the server mid-run. The in-memory server
    # keeps its state in ./.langgraph_api of the working folder.
    proc = subprocess.Popen([cli, "dev", "--config", str(REPO / "langgraph.json"), "--port", str(port),
                             "--host", "127.0.0.1", "--no-browser", "--no-reload"],
                            cwd=workdir, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    client = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=900)
    try:
        deadline = time.monotonic() + 180
        while True:
            if proc.poll() is not None:
                pytest.fail("langgraph dev exited:\n" + log_path.read_text()[-3000:])
            try:
                if client.get("/ok").status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("langgraph dev did not answer /ok in 180 s:\n" + log_path.read_text()[-3000:])
            time.sleep(1)
        yield client, log_path
    finally:
        client.close()
        _stop(proc)
        log.close()


@pytest.fixture
def server(shared_data, tmp_path):
    """The server with a data home holding 40 RAG papers, for runs with the bundled local model."""
    pytest.importorskip("llama_cpp", reason="the generation run uses the bundled local model ([local] extra)")
    from surveygraph.retrieval.corpus import Corpus
    from surveygraph.settings import Settings

    home = tmp_path / "home"
    Corpus(Settings(home=home)).add_papers(rag_papers(shared_data, 80), progress=False)
    (tmp_path / "elsewhere").mkdir()
    with _serve(home, tmp_path / "elsewhere") as (client, log):
        yield client, home, log


@pytest.fixture
def bare_server(tmp_path):
    """The server with an empty data home: enough for requests refused before a run starts."""
    (tmp_path / "elsewhere").mkdir()
    with _serve(tmp_path / "home", tmp_path / "elsewhere") as (client, _log):
        yield client, tmp_path / "home"


def _stop(proc: subprocess.Popen) -> None:
    """SIGTERM the server's process group (uvicorn and its workers), SIGKILL if it lingers."""
    for sig, wait in ((signal.SIGTERM, 20), (signal.SIGKILL, 5)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def _assistants(client) -> dict[str, str]:
    found = client.post("/assistants/search", json={"limit": 20}).json()
    return {a["graph_id"]: a["assistant_id"] for a in found}


@pytest.mark.slow
def test_both_graphs_served_with_schemas_and_runs(server):
    client, home, log = server
    assistants = _assistants(client)
    assert {"generation", "evaluation"} <= set(assistants)

    for graph_id, assistant in assistants.items():
        drawing = client.get(f"/assistants/{assistant}/graph")
        assert drawing.status_code == 200, drawing.text  # was 500 BlockingError without --allow-blocking
        assert {n["id"] for n in drawing.json()["nodes"]} >= ({"open_run", "write_subsection"}
                                                              if graph_id == "generation" else {"evaluate"})
        schemas = client.get(f"/assistants/{assistant}/schemas")
        assert schemas.status_code == 200, schemas.text
        body = schemas.json()
        wanted = "topic" if graph_id == "generation" else "survey"
        assert body["input_schema"]["required"] == [wanted]
        options = body["context_schema"]["properties"]
        assert ({"llm", "sections", "subsections", "polish", "judges"} if graph_id == "generation"
                else {"metrics", "judges", "judge_llm"}) <= set(options)

    # A thread run (what Studio does), stopped before export, then resumed from its checkpoint.
    thread = client.post("/threads", json={}).json()["thread_id"]
    first = client.post(f"/threads/{thread}/runs/wait", json={
        "assistant_id": assistants["generation"], "input": {"topic": TOPIC}, "context": OPTIONS,
        "interrupt_before": ["export_survey"]})
    assert first.status_code == 200, first.text
    state = client.get(f"/threads/{thread}/state").json()
    assert state["next"] == ["export_survey"], first.text[-3000:]
    run_dir = Path(state["values"]["run_dir"])
    assert run_dir.parent == home.resolve() / "runs" and run_dir.name.startswith("retrieval-augmented-generation-")
    assert (run_dir / "run.json").is_file() and not (run_dir / "survey.md").exists()
    assert json.loads((run_dir / "run.json").read_text())["settings"]["generation"]["sections"] == 1

    resumed = client.post(f"/threads/{thread}/runs/wait", json={
        "assistant_id": assistants["generation"], "input": None, "context": OPTIONS})
    assert resumed.status_code == 200, resumed.text
    values = resumed.json()
    assert "__error__" not in values, values.get("__error__")
    for name in ("survey.md", "survey.json", "survey.tex", "references.bib", "manifest.json", "evaluation.json"):
        assert (run_dir / name).is_file(), name
    assert values["run_dir"] == str(run_dir)
    evaluation = json.loads((run_dir / "evaluation.json").read_text())
    assert not any("pickle" in w for w in evaluation["warnings"]), evaluation["warnings"]
    assert any(m["name"].startswith("structure.") for m in evaluation["metrics"]), evaluation["warnings"]
    assert "BlockingError" not in log.read_text()

    # The evaluation graph on the survey just written.
    thread = client.post("/threads", json={}).json()["thread_id"]
    scored = client.post(f"/threads/{thread}/runs/wait", json={
        "assistant_id": assistants["evaluation"], "input": {"survey": str(run_dir / "survey.md")},
        "context": {"metrics": ["structure", "integrity"]}})
    assert scored.status_code == 200, scored.text
    report = scored.json()["report"]
    names = {m["name"] for m in report["metrics"]}
    assert "structure.sections" in names or any(n.startswith("structure.") for n in names)
    assert any(n.startswith("integrity.") for n in names)


def test_studio_graphs_in_process_take_options_from_the_context(shared_data, tmp_path, monkeypatch):
    """The same compiled graphs without a server (fast): the context picks the options, a run
    opens its folder first, and the evaluation graph returns a report."""
    import importlib.util

    from langgraph.checkpoint.memory import InMemorySaver

    from surveygraph.llm import roles
    from tests.generation_helpers import corpus_home, scripted_models

    model, _ = scripted_models()
    monkeypatch.setattr(roles, "make_chat_model", lambda spec, settings: model)
    home = tmp_path / "home"
    import shutil

    shutil.copytree(corpus_home(shared_data), home)
    monkeypatch.setenv("SURVEYGRAPH_HOME", str(home))
    monkeypatch.setenv("SURVEYGRAPH_LLM__CACHE", "false")
    spec = importlib.util.spec_from_file_location("studio_in_process", REPO / "graphs" / "studio.py")
    studio = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(studio)  # settings are read here, once

    graph = studio.generation.copy(update={"checkpointer": InMemorySaver()})
    config = {"configurable": {"thread_id": "t1"}}
    context = {"sections": 1, "subsections": 1, "outline_demos": "none", "self_evaluate": False}
    out = graph.invoke({"topic": TOPIC}, config, context=context)
    run_dir = Path(out["run_dir"])
    assert run_dir.parent == home.resolve() / "runs" and (run_dir / "survey.md").is_file()
    record = json.loads((run_dir / "run.json").read_text())
    assert record["settings"]["generation"]["sections"] == 1 and record["server"]["thread_id"] == "t1"
    assert len(out["outline"]) == 1 and "evaluation" not in out
    # Nothing but plain data in the checkpointed state.
    json.dumps(graph.get_state(config).values)

    scored = studio.evaluation.invoke({"survey": str(run_dir / "survey.md")},
                                      context={"metrics": ["structure", "integrity"]})
    assert any(m["name"].startswith("structure.") for m in scored["report"]["metrics"])


def test_server_nodes_report_user_mistakes_in_one_readable_line(shared_data, tmp_path, monkeypatch):
    """Through the server a UserError used to reach the client as "An internal error occurred"
    (langgraph-api passes messages of ValueError-like errors only), and a missing context.human was
    found only after planning. Now: checked before the run folder exists, and readable."""
    import importlib.util

    from langgraph.checkpoint.memory import InMemorySaver

    from tests.generation_helpers import corpus_home

    home = tmp_path / "home"
    shutil.copytree(corpus_home(shared_data), home)
    monkeypatch.setenv("SURVEYGRAPH_HOME", str(home))
    spec = importlib.util.spec_from_file_location("studio_errors", REPO / "graphs" / "studio.py")
    studio = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(studio)

    graph = studio.generation.copy(update={"checkpointer": InMemorySaver()})
    missing = tmp_path / "no-such-human.md"
    with pytest.raises(ValueError, match=r"context\.human: no such file on the server: .*no-such-human\.md") as caught:
        graph.invoke({"topic": TOPIC}, {"configurable": {"thread_id": "bad-path"}},
                     context={"sections": 1, "subsections": 1, "human": str(missing)})
    assert type(caught.value).__name__ == "ServerUserError"
    assert not (home / "runs").exists() or not any((home / "runs").iterdir())  # nothing was started

    with pytest.raises(ValueError, match="input.survey is empty") as caught:
        studio.evaluation.invoke({"survey": ""}, context={"metrics": ["structure"]})

    serde = pytest.importorskip("langgraph_api.serde", reason="langgraph-api (dev extra) serialises server errors")
    shown = serde.default(caught.value)
    assert shown["message"] == str(caught.value) and "internal error" not in shown["message"]
    assert serde.default(RuntimeError("x"))["message"] == "x"  # the rule the wrapper relies on


# Bad input and context, and the one line each gives (issue 31: "KeyError: 'topic'", "attempt to get
# argmax of an empty sequence", a 400-character topic accepted, a multi-line pydantic report).
BAD_RUNS = [
    ({}, None, "the topic is empty"),
    ({"topic": "a"}, None, "the topic 'a' has no words to search for"),
    ({"topic": "x" * 400}, None, "the topic is 400 characters long (at most 300)"),
    ({"topic": 5}, None, "the topic must be text, not int"),
    ({"topic": TOPIC}, {"sections": -1}, "invalid setting context.sections: Input should be greater than or equal to 1"),
    ({"topic": TOPIC}, {"outline_demos": "maybe"}, "invalid setting context.outline_demos"),
    ({"topic": TOPIC}, {"max_output_tokens": 4}, "invalid setting context.max_output_tokens"),
]


def _studio(home: Path, monkeypatch, name: str):
    """graphs/studio.py loaded afresh (it reads its settings at import) with ``home`` as data home."""
    import importlib.util

    monkeypatch.setenv("SURVEYGRAPH_HOME", str(home))
    spec = importlib.util.spec_from_file_location(name, REPO / "graphs" / "studio.py")
    studio = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(studio)
    return studio


@pytest.mark.fault
def test_bad_input_and_context_are_one_line_each_and_start_no_run(tmp_path, monkeypatch):
    """The server checks a run's input and context with the CLI's own rules (valid_topic, the
    settings' ranges) before anything runs."""
    from langgraph.checkpoint.memory import InMemorySaver

    home = tmp_path / "home"
    studio = _studio(home, monkeypatch, "studio_bad_inputs")
    graph = studio.generation.copy(update={"checkpointer": InMemorySaver()})
    for i, (graph_input, context, message) in enumerate(BAD_RUNS):
        with pytest.raises(ValueError) as caught:
            graph.invoke(graph_input, {"configurable": {"thread_id": f"bad-{i}"}}, context=context)
        assert type(caught.value).__name__ == "ServerUserError" and message in str(caught.value)
        assert "\n" not in str(caught.value)
    with pytest.raises(ValueError, match="invalid setting context.tau: Input should be less than 1"):
        studio.evaluation.invoke({"survey": "# T\n\n## A\n\nText [1].\n"}, context={"tau": 5})
    assert not (home / "runs").exists()


def test_both_graphs_declare_input_and_output_schemas(tmp_path, monkeypatch):
    studio = _studio(tmp_path / "home", monkeypatch, "studio_schemas")
    for graph, wanted_in, wanted_out in ((studio.generation, "topic", {"run_dir", "export", "evaluation"}),
                                         (studio.evaluation, "survey", {"report"})):
        assert graph.get_input_jsonschema()["required"] == [wanted_in]
        assert wanted_out <= set(graph.get_output_jsonschema()["properties"])  # generation's was null


@pytest.mark.fault
def test_the_server_from_another_folder_refuses_bad_runs_in_one_line(bare_server):
    """langgraph.json worked only from the repository root; over REST the bad inputs above gave
    KeyError, argmax and multi-line pydantic errors."""
    client, home = bare_server
    assistants = _assistants(client)
    schemas = client.get(f"/assistants/{assistants['generation']}/schemas").json()
    assert "run_dir" in schemas["output_schema"]["properties"]
    assert schemas["context_schema"]["properties"]["sections"]["anyOf"][0]["minimum"] == 1  # the setting's range
    for graph_input, context, message in BAD_RUNS:
        body = {"assistant_id": assistants["generation"], "input": graph_input, **({"context": context} if context else {})}
        answer = client.post("/runs/wait", json=body).json()
        error = answer.get("__error__") or {}
        assert error.get("error") == "ServerUserError" and message in error.get("message", ""), answer
        assert "\n" not in error["message"]
    assert not (home / "runs").exists()
