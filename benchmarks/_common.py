"""Helpers shared by the retrieval benchmark scripts (not part of the installed package)."""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = REPO_ROOT.parent / "shared" / "data"


def offline_env() -> None:
    for key, value in (("HF_HUB_OFFLINE", "1"), ("TRANSFORMERS_OFFLINE", "1"),
                       ("ANONYMIZED_TELEMETRY", "False"), ("TOKENIZERS_PARALLELISM", "false")):
        os.environ.setdefault(key, value)


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} CPUs"


def corpus_file(data: Path) -> Path:
    path = data / "corpus" / "arxiv_2025_2026.jsonl.gz"
    if not path.is_file():
        raise SystemExit(f"corpus not found: {path} (pass --data)")
    return path
