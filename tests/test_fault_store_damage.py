"""Fault injection on the store's files (issue 31): a file of the search index cut short,
overwritten or missing, half a paper table, half of Chroma's database. Every command says so in
one line that names `surveygraph corpus repair`; repair rebuilds the index and the Chroma mirror
from the paper table (searches then answer as before the damage) and says that it cannot rebuild
a damaged paper table. Also: the Chroma mirror is off by default, and `evaluate` works on a
read-only home."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from surveygraph.errors import UserError
from surveygraph.retrieval.corpus import Corpus
from surveygraph.retrieval.loaders import paper_from_record
from surveygraph.settings import load_settings
from tests.bad_inputs import run_cli
from tests.test_fault_ingest import _flat, _synthetic

pytestmark = pytest.mark.fault
QUERY = "graph retrieval agent memory"


def _settings(home: Path, **extra):
    return load_settings(home=str(home), **{"embedding.model": "minilm-static", **extra})


def _top(home: Path) -> list[str]:
    return [h.paper.paper_id for h in Corpus(_settings(home)).search(QUERY, 10, tre=False)]


@pytest.fixture(scope="module")
def base_home(tmp_path_factory) -> Path:
    home = tmp_path_factory.mktemp("damage") / "home"
    papers = [paper_from_record(json.loads(line)) for line in _synthetic(600)]
    Corpus(_settings(home)).add_papers(papers, progress=False)
    return home


@pytest.fixture
def home(base_home, tmp_path) -> Path:
    copy = tmp_path / "home"
    shutil.copytree(base_home, copy)
    return copy


def _live(home: Path) -> Path:
    index = home / "store" / "index"
    return index / (index / "CURRENT").read_text().strip()


def _segment(home: Path) -> Path:
    return home / "store" / "index" / "segments" / json.loads((_live(home) / "manifest.json").read_text())["segments"][0]


def _cut(path: Path) -> None:
    os.truncate(path, path.stat().st_size // 2)


def _overwrite_data(path: Path) -> None:
    """Same size, header intact, the numbers replaced: only a checksum can tell."""
    array = np.load(path, mmap_mode="r+")
    array[...] = np.random.default_rng(0).standard_normal(array.shape).astype(array.dtype)
    array.flush()


DAMAGE = {
    "CURRENT garbage": lambda h: (h / "store" / "index" / "CURRENT").write_bytes(b"\x00\xffgarbage"),
    "CURRENT cut": lambda h: (h / "store" / "index" / "CURRENT").write_text("g00"),
    "manifest cut": lambda h: _cut(_live(h) / "manifest.json"),
    "terms emptied": lambda h: (_live(h) / "terms.npy").write_bytes(b""),
    "vectors cut": lambda h: _cut(_segment(h) / "vectors.npy"),
    "ids missing": lambda h: (_segment(h) / "ids_sorted.npy").unlink(),
    "segment meta garbage": lambda h: (_segment(h) / "meta.json").write_text("{not json"),
}


@pytest.mark.parametrize("damage", list(DAMAGE), ids=list(DAMAGE))
def test_damaged_index_is_named_and_repair_rebuilds_it(home, damage):
    before = _top(home)
    DAMAGE[damage](home)
    for call in (lambda c: c.search(QUERY, 10, tre=False), lambda c: c.stats()):
        with pytest.raises(UserError, match="search index .* is damaged .* run `surveygraph corpus repair`"):
            call(Corpus(_settings(home)))
    report = Corpus(_settings(home)).repair(progress=False)
    assert any("search index was damaged" in a for a in report.actions), report.actions
    assert list((home / "store").glob("index.broken-*"))  # set aside, not deleted
    assert _top(home) == before
    assert Corpus(_settings(home)).check().consistent


def test_overwritten_vectors_are_found_by_their_checksum(home):
    before = _top(home)
    _overwrite_data(_segment(home) / "vectors.npy")
    report = Corpus(_settings(home)).repair(progress=False)
    assert any("checksum" in a for a in report.actions), report.actions
    assert _top(home) == before


def test_commands_on_a_damaged_index_say_one_line_and_repair_fixes_it(home):
    _cut(_segment(home) / "vectors.npy")
    for args in (["corpus", "search", QUERY], ["corpus", "stats"]):
        done = run_cli(args, home=home)
        said = _flat(done.stderr)
        assert done.returncode == 2 and said.count("error:") == 1 and "corpus repair" in said, said
        assert "Traceback" not in done.stderr and "Aborted" not in done.stderr
    repair = run_cli(["corpus", "repair"], home=home)
    assert repair.returncode == 0 and "repaired: the search index was damaged" in _flat(repair.stderr), repair.stderr
    assert run_cli(["corpus", "search", QUERY, "--json"], home=home).returncode == 0


def test_a_damaged_paper_table_is_named_and_repair_says_it_cannot_rebuild_it(home):
    _cut(home / "store" / "papers.sqlite")
    for args in (["corpus", "search", QUERY], ["corpus", "stats"], ["corpus", "repair"]):
        done = run_cli(args, home=home)
        said = _flat(done.stderr)
        assert done.returncode == 2 and said.count("error:") == 1, said
        assert "paper table" in said and "corpus repair` cannot rebuild it" in said and "Traceback" not in done.stderr


def test_the_chroma_mirror_is_off_by_default(home):
    assert not (home / "store" / "chroma").exists()
    check = Corpus(_settings(home)).check()
    assert check.consistent and check.chroma is None and "off" in check.chroma_note


def test_a_chroma_mirror_that_no_longer_opens_is_rebuilt_by_repair(home):
    mirrored = _settings(home, **{"store.chroma_mirror": True})
    Corpus(mirrored).repair(progress=False)  # builds the mirror of the 600 papers
    _cut(home / "store" / "chroma" / "chroma.sqlite3")
    with pytest.raises(UserError, match="Chroma mirror .* does not open .* run `surveygraph corpus repair`"):
        Corpus(mirrored).add_papers([paper_from_record(json.loads(_synthetic(601)[-1]))], progress=False)
    report = Corpus(mirrored).repair(progress=False)
    assert any("Chroma mirror did not open" in a for a in report.actions), report.actions
    assert list((home / "store").glob("chroma.broken-*"))
    check = Corpus(mirrored).check()
    assert check.consistent and check.papers == check.chroma == 600


def test_evaluate_on_a_read_only_home(base_home, tmp_path):
    from tests.test_fault_store import _read_only

    if os.geteuid() == 0:
        probe = subprocess.run(["unshare", "-m", "true"], capture_output=True)
        if probe.returncode != 0:
            pytest.skip("root without mount namespaces: cannot make a home read-only")
    home = tmp_path / "home"
    shutil.copytree(base_home, home)
    survey = tmp_path / "survey.md"
    survey.write_text("# A Survey on Graphs\n\n## Introduction\n\nGraph retrieval helps agents [1].\n\n"
                      "## References\n\n[1] A. Author. Graph retrieval. 2025.\n", encoding="utf-8")
    assert run_cli(["evaluate", str(survey), "--human", str(survey)], home=home).returncode == 0  # fills the cache
    if os.geteuid() != 0:
        subprocess.run(["chmod", "-R", "a-w", str(home)], check=True)
    try:
        done = _read_only(home, ["evaluate", str(survey), "--human", str(survey), "--metrics", "alignment"])
    finally:
        subprocess.run(["chmod", "-R", "u+w", str(home)], check=True)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert "ra_align" in done.stdout
