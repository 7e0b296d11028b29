"""Fault injection on ingest (issue 31), with the real command line: a bad record is skipped with
a counted one-line reason and never stops the file; impossible dates are dropped; a file without
one valid record fails; a data home may be any legal path; a full disk (a file-size limit in the
child process) stops an ingest with one line and loses nothing."""

from __future__ import annotations

import json
import os
import random
import resource
import subprocess
import sys

import pytest

from surveygraph.retrieval.corpus import Corpus
from surveygraph.retrieval.paper_table import PaperTable
from surveygraph.settings import load_settings
from tests.bad_inputs import run_cli
from tests.poisoned_corpus import BENIGN

pytestmark = pytest.mark.fault


def _good(n: int, **extra) -> dict:
    title, abstract = BENIGN[n % len(BENIGN)]
    return {"arxiv_id": f"2503.{n:05d}", "title": f"{title} {n}", "abstract": abstract, "authors": ["A. Author"],
            "categories": ["cs.CL"], "announced": "2025-03-18", **extra}


def _report(done: subprocess.CompletedProcess) -> dict:
    return json.loads(done.stdout[done.stdout.index("{"):])


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_bad_records_are_skipped_with_a_reason_each_and_the_rest_is_added(tmp_path):
    lines = [json.dumps(_good(1)), json.dumps(_good(2, externalIds="2503.99999")),
             json.dumps(_good(3)).replace('"announced"', '"year": 1e999, "announced"'),
             "[" * 100_000 + "]" * 100_000,
             json.dumps(_good(5, arxiv_id=2503.5)),
             json.dumps(_good(6, announced="2999-01-01")), json.dumps(_good(7, announced="1850-06-01", year=1850)),
             json.dumps(_good(8))]
    source = tmp_path / "mixed.jsonl"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = run_cli(["corpus", "ingest", str(source), "--json"], home=tmp_path / "home")
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-2000:]
    report = _report(done)
    assert (report["read"], report["added"], report["skipped"]) == (4, 4, 4)
    assert report["skipped_lines"] == [2, 3, 4, 5]
    skipped = [r for r in report["reasons"] if "dropped invalid" not in r]
    assert len(skipped) == 4 and all("\n" not in r and len(r) < 200 for r in skipped), skipped
    assert "externalIds" in skipped[0] and "year" in skipped[1] and "nested too deeply" in skipped[2]
    assert "skipped 4" in _flat(done.stderr)
    stats = json.loads(run_cli(["corpus", "stats", "--json"], home=tmp_path / "home").stdout)
    assert set(stats["years"]) == {"2025", "unknown"}  # not 2999, not 1850: those dates were dropped
    stored = PaperTable(tmp_path / "home" / "store" / "papers.sqlite", read_only=True).get(["arxiv:2503.00006"])
    assert stored["arxiv:2503.00006"].published is None and stored["arxiv:2503.00006"].year is None


@pytest.mark.parametrize("content", ["", "not json\n{\"title\": \"\"}\n[1, 2]\n"], ids=["empty", "all-invalid"])
def test_a_file_without_one_valid_record_fails(tmp_path, content):
    source = tmp_path / "nothing.jsonl"
    source.write_text(content, encoding="utf-8")
    done = run_cli(["corpus", "ingest", str(source)], home=tmp_path / "home")
    said = _flat(done.stderr)
    assert done.returncode == 2 and f"error: no valid paper record in {source}" in said, said
    assert "nothing was added" in said and "Traceback" not in done.stderr


def test_a_data_home_may_be_any_legal_path(tmp_path):
    parent = tmp_path / "homes"
    parent.mkdir()
    home = parent / "C#proj?x=1&y=%41 100%"
    source = tmp_path / "few.jsonl"
    source.write_text("".join(json.dumps(_good(n)) + "\n" for n in range(12)), encoding="utf-8")
    for args in (["corpus", "ingest", str(source)], ["corpus", "search", "retrieval", "--json", "-k", "3"]):
        done = run_cli(args, home=home)
        assert done.returncode == 0 and "Traceback" not in done.stderr, (args, done.stderr[-1500:])
    corpus = Corpus(load_settings(home=str(home)))
    assert corpus.stats()["papers"] == 12 and corpus.repair(progress=False).consistent
    assert [p.name for p in parent.iterdir()] == [home.name]  # no stray "C" beside it


def _synthetic(n: int) -> list[str]:
    rng = random.Random(5)
    words = ("graph retrieval language model agent vision diffusion protein robot policy reward token "
             "attention memory search ranking sparse dense kernel privacy audit").split()
    return [json.dumps({"arxiv_id": f"2504.{i:05d}", "title": " ".join(rng.choices(words, k=8)) + f" {i}",
                        "abstract": " ".join(rng.choices(words, k=120)), "authors": ["A. Author"],
                        "categories": ["cs.LG"], "announced": "2025-04-01"}) + "\n" for i in range(n)]


def test_a_full_disk_stops_an_ingest_with_one_line_and_loses_nothing(tmp_path):
    """RLIMIT_FSIZE in the child: every write past 1 MB per file fails (EFBIG, as a full disk or a
    quota would), in the embedding cache, the paper table or an index segment, wherever it hits."""
    source = tmp_path / "many.jsonl"
    source.write_text("".join(_synthetic(2000)), encoding="utf-8")
    home = tmp_path / "home"
    # batches small enough that some are stored before a file reaches the limit: a 384-dim
    # minilm-head vector takes 1.5 KB of the embedding cache, so 500 of them nearly fill 1 MB at once
    env = {"SURVEYGRAPH_STORE__INGEST_BATCH": "200"}
    limit = 1 << 20

    def small_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    command = [sys.executable, "-m", "surveygraph", "--home", str(home), "corpus", "ingest", str(source)]
    environ = {k: v for k, v in os.environ.items() if not k.startswith("SURVEYGRAPH_")}
    environ.update(HF_HUB_OFFLINE="1", ANONYMIZED_TELEMETRY="False", **env)
    full = subprocess.run(command, capture_output=True, text=True, env=environ, preexec_fn=small_files, timeout=600)
    said = _flat(full.stderr)
    assert full.returncode == 2 and "Traceback" not in full.stderr, full.stderr[-2000:]
    assert said.count("error:") == 1 and "could not write to the store" in said and "run the same ingest again" in said
    settings = load_settings(home=str(home))
    check = Corpus(settings).check()
    assert check.consistent and 0 < check.papers == check.index < 2000  # what was stored is whole and searchable
    again = run_cli(["corpus", "ingest", str(source)], home=home, env=env)
    assert again.returncode == 0, again.stderr[-2000:]
    check = Corpus(load_settings(home=str(home))).check()
    assert check.consistent and check.papers == check.index == 2000
