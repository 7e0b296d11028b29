"""Reading user-supplied JSONL files with errors that name the file and line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

from ..errors import UserError


def read_jsonl(path: Path, what: str) -> Iterator[tuple[int, dict]]:
    """(line number, object) for every non-blank line; a missing file or a line that is not a
    JSON object is a UserError naming ``path:line`` (``what`` names the file in messages)."""
    path = Path(path)
    if not path.is_file():
        raise UserError(f"{what} file not found: {path}")
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise UserError(f"{path}:{n}: not JSON ({exc.msg})") from exc
        if not isinstance(row, dict):
            raise UserError(f"{path}:{n}: expected a JSON object")
        yield n, row
