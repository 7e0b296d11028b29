"""Checkpoint bytes of a finished run, as written (papers by id) and as they would be with
LangGraph's plain serializer (papers in full): issue 18's "the state carries ids, not abstracts".

    python benchmarks/checkpoint_size.py RUN_DIR [--home H]

Reads every checkpoint and pending write of RUN_DIR/checkpoints.sqlite, decodes it with the
run's serializer (references filled from the store) and encodes it again both ways.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import offline_env  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("--home", default=None)
    args = parser.parse_args()
    offline_env()
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

    from surveygraph.graphs.checkpoint_serde import PaperRefSerializer
    from surveygraph.retrieval.corpus import Corpus
    from surveygraph.settings import load_settings

    ours = PaperRefSerializer(Corpus(load_settings(**({"home": args.home} if args.home else {}))))
    plain = JsonPlusSerializer()
    db = sqlite3.connect(args.run_dir / "checkpoints.sqlite")
    written = plain_bytes = rows = 0
    for table, type_col, blob_col in (("checkpoints", "type", "checkpoint"), ("writes", "type", "value")):
        for kind, blob in db.execute(f"SELECT {type_col}, {blob_col} FROM {table}"):
            value = ours.loads_typed((kind, blob))
            written += len(blob)
            plain_bytes += len(plain.dumps_typed(value)[1])
            rows += 1
    print(json.dumps({"run": args.run_dir.name, "rows": rows, "written_bytes": written,
                      "plain_serializer_bytes": plain_bytes,
                      "file_bytes": (args.run_dir / "checkpoints.sqlite").stat().st_size}))


if __name__ == "__main__":
    main()
