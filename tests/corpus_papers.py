"""Real papers of the shared arXiv corpus by id, for tests of text built from their abstracts."""

from __future__ import annotations

import functools
import gzip
import json
from pathlib import Path


@functools.lru_cache(maxsize=8)
def _read(corpus: Path, ids: tuple[str, ...]) -> dict[str, dict]:
    from surveygraph.retrieval.loaders import paper_from_record

    wanted, found = set(ids), {}
    with gzip.open(corpus, "rt", encoding="utf-8") as fh:
        for line in fh:
            if '"arxiv_id"' in line and any(i in line for i in wanted):
                record = json.loads(line)
                if record["arxiv_id"] in wanted:
                    found[record["arxiv_id"]] = paper_from_record(record).model_dump(mode="json", exclude_none=True)
    return found


def corpus_papers(shared_data: Path, *ids: str) -> list[dict]:
    """The papers with these arXiv ids, in the order given (all must exist in the corpus)."""
    found = _read(shared_data / "corpus" / "arxiv_2025_2026.jsonl.gz", tuple(sorted(set(ids))))
    missing = [i for i in ids if i not in found]
    assert not missing, f"not in the corpus: {missing}"
    return [found[i] for i in ids]
