"""Fault injection on the paper store, with real CLI processes on slices of the real corpus:
kill -9 at every write step of an ingest and re-run; an ingest next to searching processes; two
ingests at once; every read-only command on a read-only home.

Every case ends with the same check: the paper table, the search index and Chroma hold the same
ids, and they are the ids a clean, uninterrupted ingest of the same inputs gives.
"""

from __future__ import annotations

import gzip
import itertools
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from surveygraph.retrieval.corpus import Corpus
from surveygraph.retrieval.paper_table import PaperTable
from surveygraph.settings import load_settings
from tests.index_helpers import cached_static_model, link_static_model

pytestmark = [pytest.mark.fault, pytest.mark.data]

CLI = [sys.executable, "-c", "from surveygraph.cli import main; main()"]
# Every step of an ingest that writes (retrieval/locking.py crash_point): before, between and after
# the three stores, and in the middle of publishing the search index.
CRASH_POINTS = ["embedding", "embedded", "sqlite", "chroma:1", "index-save", "index-renamed", "published"]


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SURVEYGRAPH_") or k == "SURVEYGRAPH_SHARED_DATA"}
    # These stores keep the Chroma mirror (store.chroma_mirror, off by default): the cases check
    # that all three stores agree after every kill.
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", ANONYMIZED_TELEMETRY="False",
               SURVEYGRAPH_STORE__CHROMA_MIRROR="true", **extra)
    return env


def flat(text: str) -> str:
    """Messages with rich's line wrapping undone."""
    return " ".join(text.split())


def sg(home: Path, *args: str, timeout: float = 300, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, "--home", str(home), *args], capture_output=True, text=True,
                          timeout=timeout, env=_env(**env))


def sg_start(home: Path, *args: str, **env: str) -> subprocess.Popen:
    return subprocess.Popen([*CLI, "--home", str(home), *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=_env(**env))


def settings_for(home: Path):
    return load_settings(home=str(home), **{"embedding.model": "minilm-static", "store.chroma_mirror": True})


def store_ids(home: Path) -> set[str]:
    return set(PaperTable(home / "store" / "papers.sqlite", read_only=True).ids())


def assert_consistent(home: Path, expected: set[str]) -> None:
    check = Corpus(settings_for(home)).check()
    assert check.consistent, check
    assert check.papers == check.index == check.chroma == len(expected)
    assert store_ids(home) == expected


@pytest.fixture(scope="module")
def slices(shared_data, tmp_path_factory) -> dict[str, Path]:
    """A: 1,500 papers already in the store; B: the next 1,500; C: 1,500 overlapping B by 500."""
    with gzip.open(shared_data / "corpus" / "arxiv_2025_2026.jsonl.gz", "rt", encoding="utf-8") as fh:
        lines = list(itertools.islice(fh, 4000))
    folder = tmp_path_factory.mktemp("slices")
    spans = {"A": (0, 1500), "B": (1500, 3000), "C": (2500, 4000)}
    paths = {}
    for name, (start, end) in spans.items():
        paths[name] = folder / f"{name}.jsonl"
        paths[name].write_text("".join(lines[start:end]), encoding="utf-8")
    return paths


def _home_with(folder: Path, *inputs: Path) -> Path:
    home = folder / "home"
    link_static_model(home, cached_static_model())
    corpus = Corpus(settings_for(home))
    for path in inputs:
        corpus.ingest_path(path, progress=False)
    return home


@pytest.fixture(scope="module")
def base_home(slices, tmp_path_factory) -> Path:
    return _home_with(tmp_path_factory.mktemp("base"), slices["A"])


@pytest.fixture(scope="module")
def expected_ab(slices, tmp_path_factory) -> set[str]:
    return store_ids(_home_with(tmp_path_factory.mktemp("ref_ab"), slices["A"], slices["B"]))


@pytest.fixture(scope="module")
def expected_abc(slices, tmp_path_factory) -> set[str]:
    return store_ids(_home_with(tmp_path_factory.mktemp("ref_abc"), slices["A"], slices["B"], slices["C"]))


@pytest.fixture
def home(base_home, tmp_path) -> Path:
    """A private copy of the base home (A ingested)."""
    copy = tmp_path / "home"
    shutil.copytree(base_home, copy, symlinks=True)
    return copy


@pytest.mark.parametrize("point", CRASH_POINTS)
def test_kill_during_ingest_then_rerun_loses_nothing(home, slices, expected_ab, point):
    killed = sg(home, "corpus", "ingest", str(slices["B"]), SURVEYGRAPH_CRASH_AT=point)
    assert killed.returncode == -9, (point, killed.stderr[-2000:])
    # Searches keep working on what was published before the kill.
    assert Corpus(settings_for(home)).search("image segmentation", 5, tre=False)
    again = Corpus(settings_for(home)).ingest_path(slices["B"], progress=False)
    assert again.added + again.repaired > 0 or point == "published"
    assert_consistent(home, expected_ab)


def test_ctrl_c_during_ingest_says_what_the_store_holds_and_what_to_run(home, slices, expected_ab):
    """SIGINT (Ctrl-C) after the paper table took a batch but before the index did: exit 130 and
    one message with the stored count and the repair command; repair then completes the store."""
    stopped = sg(home, "corpus", "ingest", str(slices["B"]), SURVEYGRAPH_CRASH_AT="sqlite", SURVEYGRAPH_CRASH_SIGNAL="INT")
    assert stopped.returncode == 130, stopped.stderr[-2000:]
    said = flat(stopped.stderr)
    stored = len(store_ids(home))
    assert f"interrupted: the store keeps the {stored} papers committed before Ctrl-C" in said, said[-1500:]
    assert "not in the search index yet: run `surveygraph corpus repair`" in said
    assert "Traceback" not in stopped.stderr
    assert sg(home, "corpus", "repair").returncode == 0
    assert_consistent(home, expected_ab)


def test_doctor_names_the_gap_and_repair_fixes_it(home, slices, expected_ab):
    assert sg(home, "corpus", "ingest", str(slices["B"]), SURVEYGRAPH_CRASH_AT="sqlite").returncode == -9
    missing = sorted(store_ids(home) - set(Corpus(settings_for(home)).snapshot.ids))
    assert len(missing) == len(expected_ab) - 1500 and missing

    doctor = sg(home, "doctor", "--skip-llm")
    assert doctor.returncode == 1, doctor.stderr
    assert "missing from the search index" in flat(doctor.stderr) and "corpus repair" in flat(doctor.stderr)
    title = Corpus(settings_for(home)).get([missing[0]])[0].title
    search = sg(home, "corpus", "search", title, "--mode", "bm25", "--no-tre", "--json")
    assert search.returncode == 0 and "missing from the search index" in flat(search.stderr)

    repair = sg(home, "corpus", "repair")
    assert repair.returncode == 0, repair.stderr
    assert f"added {len(missing)} to the index" in flat(repair.stderr)
    assert sg(home, "doctor", "--skip-llm").returncode == 0
    found = sg(home, "corpus", "search", title, "--mode", "bm25", "--no-tre", "--json", "-k", "3")
    assert missing[0].split(":", 1)[1] in found.stdout and "warning" not in found.stderr
    assert_consistent(home, expected_ab)


def test_ingest_next_to_searching_processes(home, slices, expected_ab):
    ingest = sg_start(home, "corpus", "ingest", str(slices["B"]))
    searches = failures = 0
    cli_searches = []
    while ingest.poll() is None:
        if len(cli_searches) < 2:
            cli_searches.append(sg_start(home, "corpus", "search", "diffusion models", "--json", "-k", "5"))
        # A new Corpus per search, as a new process would: it loads whichever index is published.
        try:
            hits = Corpus(settings_for(home)).search("large language model agents", 10, tre=False)
            failures += len(hits) != 10
        except Exception:  # noqa: BLE001 - counted and asserted below
            failures += 1
        searches += 1
    _, err = ingest.communicate()
    assert ingest.returncode == 0, err
    for proc in cli_searches:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0 and len(json.loads(out)) == 5, err
    assert searches > 3 and failures == 0
    assert_consistent(home, expected_ab)


def test_two_ingests_at_once_queue_and_keep_both(home, slices, expected_abc):
    first = sg_start(home, "corpus", "ingest", str(slices["B"]))
    time.sleep(0.5)
    second = sg_start(home, "corpus", "ingest", str(slices["C"]))
    results = [p.communicate(timeout=300) + (p.returncode,) for p in (first, second)]
    assert [r[2] for r in results] == [0, 0], results
    assert any("waiting for another ingest (pid" in flat(err) for _, err, _ in results)
    assert_consistent(home, expected_abc)


def _read_only(home: Path, args: list[str]) -> subprocess.CompletedProcess:
    """Run a command with ``home`` read-only: a read-only bind mount when we are root (root ignores
    file modes), else file modes."""
    command = [*CLI, "--home", str(home), *args]
    if os.geteuid() == 0:
        command = ["unshare", "-m", "--propagation", "private", "sh", "-c",
                   'mount --bind -o ro "$0" "$0" && exec "$@"', str(home), *command]
    return subprocess.run(command, capture_output=True, text=True, timeout=300, env=_env())


def _tree(home: Path) -> dict[str, tuple[int, int]]:
    return {str(p): (p.stat().st_size, p.stat().st_mtime_ns) for p in home.rglob("*") if not p.is_symlink()}


def test_read_only_home(home):
    if os.geteuid() == 0:
        probe = subprocess.run(["unshare", "-m", "true"], capture_output=True)
        if probe.returncode != 0 or not shutil.which("unshare"):
            pytest.skip("root without mount namespaces: cannot make a home read-only")
    else:
        subprocess.run(["chmod", "-R", "a-w", str(home)], check=True)
    before = _tree(home)
    try:
        search = _read_only(home, ["corpus", "search", "image segmentation", "--json", "-k", "5"])
        assert search.returncode == 0 and len(json.loads(search.stdout)) == 5, search.stderr
        for mode in ("dense", "bm25"):
            assert _read_only(home, ["corpus", "search", "diffusion", "--mode", mode]).returncode == 0
        stats = _read_only(home, ["corpus", "stats", "--json"])
        assert stats.returncode == 0 and '"papers": 1500' in stats.stdout, stats.stderr
        doctor = _read_only(home, ["doctor", "--skip-llm"])
        assert doctor.returncode == 0 and "not opened (read-only home)" in flat(doctor.stderr), doctor.stderr
        ingest = _read_only(home, ["corpus", "ingest", str(home / "missing.jsonl")])
        assert ingest.returncode == 2
        for result in (search, stats, doctor, ingest):
            assert "Traceback" not in result.stderr
    finally:
        subprocess.run(["chmod", "-R", "u+w", str(home)], check=True)
    assert _tree(home) == before  # nothing was written


def test_read_only_home_refuses_ingest_with_one_line(home, slices):
    if os.geteuid() != 0:
        subprocess.run(["chmod", "-R", "a-w", str(home)], check=True)
    try:
        result = _read_only(home, ["corpus", "ingest", str(slices["B"])])
    finally:
        subprocess.run(["chmod", "-R", "u+w", str(home)], check=True)
    assert result.returncode == 2 and "read-only" in flat(result.stderr) and "Traceback" not in result.stderr


def test_truncated_gzip_is_named_and_what_was_read_is_kept(home, slices):
    data = gzip.compress(slices["B"].read_bytes())
    cut = home.parent / "cut.jsonl.gz"
    cut.write_bytes(data[: len(data) // 2])
    result = sg(home, "corpus", "ingest", str(cut), "--json")
    message = flat(result.stderr)
    assert result.returncode == 3, result.stderr
    assert f"truncated gzip archive: {cut}" in message and "records read before the cut" in message
    read = json.loads(result.stdout[result.stdout.index("{"):])["read"]
    assert 0 < read < 1500 and "skipped 0" in message
    check = Corpus(settings_for(home)).check()
    assert check.consistent and check.papers == 1500 + read


def test_store_of_an_older_version_gets_its_index_once(home, expected_ab, slices):
    """A store without store/index (older versions kept BM25 in store/bm25) keeps working: the first
    search builds the index from the paper table, with a message, and later ingests add to it."""
    shutil.rmtree(home / "store" / "index")
    first = sg(home, "corpus", "search", "image segmentation", "--json", "-k", "5")
    assert first.returncode == 0 and len(json.loads(first.stdout)) == 5, first.stderr
    assert "building the search index" in flat(first.stderr)
    second = sg(home, "corpus", "search", "image segmentation", "--json", "-k", "5")
    assert "building" not in second.stderr and second.stdout == first.stdout
    assert sg(home, "corpus", "ingest", str(slices["B"])).returncode == 0
    assert_consistent(home, expected_ab)


def test_broken_chroma_does_not_stop_searches_and_is_rebuilt(home, slices):
    """Garbage in Chroma's files (what a crash inside Chroma can leave): searches do not open
    Chroma, and `corpus repair --rebuild-chroma` sets it aside and rebuilds it from the index."""
    for path in (home / "store" / "chroma").rglob("*"):
        if path.is_file():
            path.write_bytes(b"\x00garbage" * 64)
    search = sg(home, "corpus", "search", "image segmentation", "--json", "-k", "5")
    assert search.returncode == 0 and len(json.loads(search.stdout)) == 5, search.stderr
    repair = sg(home, "corpus", "repair", "--rebuild-chroma")
    assert repair.returncode == 0, repair.stderr
    assert list((home / "store").glob("chroma.broken-*"))  # set aside, not deleted
    assert_consistent(home, store_ids(home))
    assert len(store_ids(home)) == 1500
