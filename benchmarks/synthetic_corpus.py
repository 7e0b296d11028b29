"""Synthetic copies of the shared arXiv corpus, for scale benchmarks (issue 18).

    python benchmarks/synthetic_corpus.py --papers 300000 --out /tmp/scale/300k.jsonl.gz [--skip 0]

Copy 0 is the corpus itself. Copy c moves every arXiv id 2*(c mod 11) years back (2503.11731 ->
2303.11731 for c = 1: still a valid id, and distinct) and, from c = 11 on, adds 50000 to its number
(2503.61731: monthly numbers stay below 50000), shifts the year the same way and appends
" (copy c)" to the title, so the duplicate check keeps every copy and the title's embedding
differs; abstracts are unchanged, so the vocabulary grows slowly, as a real corpus's does. The
output is streamed; memory stays flat whatever --papers is.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import DEFAULT_DATA, corpus_file  # noqa: E402


def _shift(record: dict, copy: int) -> dict:
    if copy == 0:
        return record
    out = dict(record)
    years_back, number_offset = 2 * (copy % 11), 50000 * (copy // 11)
    arxiv_id = str(record.get("arxiv_id") or "")
    if len(arxiv_id) >= 10 and arxiv_id[:4].isdigit() and arxiv_id[4] == "." and arxiv_id[5:10].isdigit():
        out["arxiv_id"] = f"{int(arxiv_id[:2]) - years_back:02d}{arxiv_id[2:5]}{int(arxiv_id[5:10]) + number_offset:05d}{arxiv_id[10:]}"
    for key in ("announced", "published", "updated"):
        value = record.get(key)
        if isinstance(value, str) and value[:4].isdigit():
            out[key] = f"{int(value[:4]) - years_back}{value[4:]}"
    if isinstance(record.get("year"), int):
        out["year"] = record["year"] - years_back
    out["title"] = f"{record.get('title', '')} (copy {copy})"
    out.pop("doi", None)  # a DOI names one paper; copies would collide on it
    return out


def generate(source: Path, papers: int, skip: int = 0):
    """Yield ``papers`` records after the first ``skip`` of the endless copy sequence."""
    emitted, position, copy = 0, 0, 0
    while emitted < papers:
        if copy > 21:
            raise SystemExit("more than 22 copies (1.6M papers) are not distinct")
        with gzip.open(source, "rt", encoding="utf-8") as fh:
            for line in fh:
                if position >= skip:
                    yield _shift(json.loads(line), copy)
                    emitted += 1
                    if emitted >= papers:
                        return
                position += 1
        copy += 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--papers", type=int, required=True)
    parser.add_argument("--skip", type=int, default=0, help="start after this many synthetic records")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(args.out, "wt", encoding="utf-8", compresslevel=1) as out:
        for record in generate(corpus_file(args.data), args.papers, args.skip):
            out.write(json.dumps(record, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
