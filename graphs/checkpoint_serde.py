"""Checkpoints that carry paper ids, not papers.

The generation state keeps every candidate paper (``papers``: id -> Paper dump, ~2 KB each with
its abstract) and hands each writer its papers in a ``Send``; LangGraph checkpoints both at every
step, so a 1x1 survey's checkpoints held ~7 MB, most of it the same abstracts again. This
serializer wraps LangGraph's own (``JsonPlusSerializer``): before a value is written, every paper
dump whose fields equal those of the paper the store holds under its id becomes
``{"__paper__": id, "__keys__": [its field names]}`` (dumps leave out None fields); after a value
is read, the references are filled from the store again, field for field. A paper the store does not hold,
or holds differently (e.g. enriched with a citation count during the run), is written in full.
In memory nothing changes, and checkpoints written without it still load.
"""

from __future__ import annotations

from typing import Any

from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from ..errors import UserError
from ..models import Paper

REF = "__paper__"
KEYS = "__keys__"
_PAPER_KEYS = frozenset({"title", "abstract", "authors", "source"})


def _is_paper_dump(value: Any) -> bool:
    return isinstance(value, dict) and _PAPER_KEYS <= value.keys() and REF not in value


def _walk(value: Any, visit) -> Any:
    """``value`` with ``visit`` applied bottom-up to dicts (lists, tuples and Sends walked into)."""
    from langgraph.types import Send

    if isinstance(value, dict):
        return visit({k: _walk(v, visit) for k, v in value.items()})
    if isinstance(value, list):
        return [_walk(v, visit) for v in value]
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return tuple(_walk(v, visit) for v in value)
    if isinstance(value, Send):
        return Send(value.node, _walk(value.arg, visit))
    return value


def _fields_match(stored: dict | None, dump: dict) -> bool:
    return stored is not None and all(k in stored and stored[k] == v for k, v in dump.items())


class PaperRefSerializer:
    """A LangGraph ``SerializerProtocol`` that stores papers of ``corpus`` by reference."""

    def __init__(self, corpus: Any, inner: Any = None):
        self._corpus = corpus
        self._inner = inner or JsonPlusSerializer()

    # --- writing ------------------------------------------------------------------------
    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        return self._inner.dumps_typed(self._to_refs(obj))

    def _to_refs(self, obj: Any) -> Any:
        found: dict[str, dict] = {}

        def collect(value: dict) -> dict:
            if _is_paper_dump(value):
                try:
                    found.setdefault(Paper.model_validate(value).paper_id, value)
                except ValueError:
                    pass
            return value

        _walk(obj, collect)
        if not found:
            return obj
        stored = {p.paper_id: p.model_dump(mode="json") for p in self._corpus.get(list(found))}
        same = {pid for pid, dump in found.items() if _fields_match(stored.get(pid), dump)}
        if not same:
            return obj

        def replace(value: dict) -> dict:
            if _is_paper_dump(value):
                try:
                    pid = Paper.model_validate(value).paper_id
                except ValueError:
                    return value
                if pid in same and _fields_match(stored[pid], value):
                    return {REF: pid, KEYS: list(value)}
            return value

        return _walk(obj, replace)

    # --- reading ------------------------------------------------------------------------
    def loads_typed(self, data: tuple[str, bytes]) -> Any:
        return self._from_refs(self._inner.loads_typed(data))

    def _from_refs(self, obj: Any) -> Any:
        wanted: set[str] = set()

        def collect(value: dict) -> dict:
            if set(value) == {REF, KEYS}:
                wanted.add(value[REF])
            return value

        _walk(obj, collect)
        if not wanted:
            return obj
        papers = {p.paper_id: p.model_dump(mode="json") for p in self._corpus.get(sorted(wanted))}
        missing = sorted(wanted - papers.keys())
        if missing:
            raise UserError(f"this run's checkpoints refer to {len(missing)} papers the paper store no longer "
                            f"holds (e.g. {missing[0]}): resume it with the data home it was started with")

        def fill(value: dict) -> dict:
            if set(value) != {REF, KEYS}:
                return value
            full = papers[value[REF]]
            return {k: full[k] for k in value[KEYS]}

        return _walk(obj, fill)
