"""The Survey Outline DB (D_S): human-written survey outlines, searchable by topic.

Each outline is one row of its own Chroma collection (``settings.store.outline_collection``),
embedded from "topic. title. top-level headings"; the full outline is kept as JSON in the row's
metadata. The row id is derived from topic + title, so re-ingesting the same survey replaces it.
"""

from __future__ import annotations

import hashlib
import json
import random as _random
import re
from pathlib import Path

from pydantic import BaseModel, Field

from ..errors import UserError
from ..models import HumanOutline, OutlineEntry, normalize_title
from ..settings import Settings

MODEL_KEY = "embedding_model"
OUTLINES_JSON = "outlines.json"

# "2.1.3 Title", "2.1. Title", "II-A1 Title", "IV. Title", "A. Title" (numbering, then a space).
_DECIMAL = re.compile(r"^(\d+(?:\.\d+)*)\.?\s+(.+)$")
_ROMAN = re.compile(r"^([IVXL]+)((?:-[A-Z]\d*)?)\.?\s+(.+)$")
_LETTER = re.compile(r"^([A-Z])\.\s+(.+)$")
# Headings that are not part of a survey's topical structure.
_NON_TOPICAL = re.compile(
    r"^(references?|bibliography|acknowledge?ments?|author contributions?|funding|"
    r"conflicts? of interest|declaration|competing interests?|ethics statement|"
    r"supplementary|abbreviations)\b",
    re.I,
)
_APPENDIX = re.compile(r"^(appendix|appendices)\b", re.I)


class OutlineIngestReport(BaseModel):
    path: str
    files: int = 0
    added: int = 0
    skipped: int = 0
    reasons: list[str] = Field(default_factory=list)


def split_numbering(title: str) -> tuple[int | None, str]:
    """(depth implied by the numbering or None, title without it): '2.1 Foo' -> (2, 'Foo')."""
    text = " ".join(title.split())
    match = _DECIMAL.match(text)
    if match:
        return match.group(1).count(".") + 1, match.group(2)
    match = _ROMAN.match(text)
    if match:
        suffix = match.group(2)  # "", "-A" or "-A1"
        depth = 1 if not suffix else (2 if not any(c.isdigit() for c in suffix) else 3)
        return depth, match.group(3)
    match = _LETTER.match(text)
    if match:
        return 2, match.group(2)
    return None, text


def parse_outline_text(text: str) -> list[OutlineEntry]:
    """Indented numbered lines (as in outlines.json) -> entries with levels.

    Levels come from indentation when the outline is indented (tabs count as 4 spaces; the
    smallest indent is one level), else from the numbering depth ("2.1" -> 2, "II-A" -> 2).
    """
    lines = [line.expandtabs(4).rstrip() for line in text.splitlines() if line.strip()]
    indents = [len(line) - len(line.lstrip()) for line in lines]
    unit = min((i for i in indents if i > 0), default=0)
    entries: list[OutlineEntry] = []
    for line, indent in zip(lines, indents):
        depth, title = split_numbering(line.strip())
        if not title:
            continue
        level = indent // unit + 1 if unit else (depth or 1)
        entries.append(OutlineEntry(level=level, title=title))
    return _clamp_levels(entries)


def _clamp_levels(entries: list[OutlineEntry]) -> list[OutlineEntry]:
    """Shift so the top is level 1 and never jump more than one level down."""
    if not entries:
        return entries
    shift = min(e.level for e in entries) - 1
    previous = 0
    for entry in entries:
        entry.level = max(1, min(entry.level - shift, previous + 1))
        previous = entry.level
    return entries


def drop_non_topical(entries: list[OutlineEntry]) -> list[OutlineEntry]:
    """Remove References/Acknowledgements-like headings (with their children) and appendices."""
    kept: list[OutlineEntry] = []
    skip_below: int | None = None
    for entry in entries:
        if skip_below is not None and entry.level > skip_below:
            continue
        skip_below = None
        title = split_numbering(entry.title)[1]
        if _APPENDIX.match(title):
            break  # appendices close the survey; what follows is supplementary
        if _NON_TOPICAL.match(title):
            skip_below = entry.level
            continue
        kept.append(OutlineEntry(level=entry.level, title=title))
    return _clamp_levels(kept)


def outline_from_markdown(text: str, *, name: str = "") -> HumanOutline:
    """A Markdown survey -> its outline (topic = file name stem, title = the survey's title)."""
    from ..evaluation.parsers import parse_markdown

    survey = parse_markdown(text, name=name)
    entries = drop_non_topical([OutlineEntry(level=e.level, title=e.title) for e in survey.outline])
    topic = Path(name).stem if name else survey.title
    return HumanOutline(topic=topic, title=survey.title or topic, source=name, entries=entries)


def outlines_from_json(path: Path) -> list[HumanOutline]:
    """``[{topic, outline, title?}]`` where ``outline`` is indented text or a list of [level, title]."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise UserError(f"{path} is not a readable JSON file: {exc}") from exc
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, list):
        raise UserError(f"{path}: expected a list of {{topic, outline}} objects")
    outlines = []
    for item in data:
        if not isinstance(item, dict) or not item.get("topic") or not item.get("outline"):
            continue
        raw = item["outline"]
        if isinstance(raw, str):
            entries = parse_outline_text(raw)
        else:
            entries = _clamp_levels([OutlineEntry(level=int(lv), title=str(t)) for lv, t in raw])
        outlines.append(HumanOutline(topic=item["topic"], title=item.get("title", ""),
                                     source=path.name, entries=drop_non_topical(entries)))
    return outlines


def outline_id(outline: HumanOutline) -> str:
    key = f"{normalize_title(outline.topic)}|{normalize_title(outline.title)}"
    return "outline:" + hashlib.sha1(key.encode()).hexdigest()[:16]


def outline_embedding_text(outline: HumanOutline) -> str:
    top = [e.title for e in outline.entries if e.level == 1]
    head = outline.topic if not outline.title or outline.title == outline.topic else (
        f"{outline.topic}. {outline.title}")
    return f"{head}. " + "; ".join(top)


class OutlineStore:
    """Add, search and sample human outlines in their own Chroma collection."""

    def __init__(self, settings: Settings):
        from .store import chroma_client

        self.settings = settings.with_embedding_model(settings.store.outline_embedding_model)
        self._client = chroma_client(settings)
        self._name = settings.store.outline_collection
        self._collection = None
        self._embedder = None

    # --- plumbing ------------------------------------------------------------------------------
    def _embed(self, texts: list[str]):
        if self._embedder is None:
            from .embeddings import get_embedder

            self._embedder = get_embedder(self.settings)
        return self._embedder.encode(texts)

    def _model_id(self) -> str:
        from .embeddings import embedder_id

        return embedder_id(self.settings)

    def _open(self, create: bool):
        if self._collection is not None:
            return self._collection
        if self._name in self._collection_names():
            self._collection = self._client.get_collection(self._name)
        elif create:
            self._collection = self._client.create_collection(
                self._name, metadata={MODEL_KEY: self._model_id()})
        else:
            return None
        built_with = (self._collection.metadata or {}).get(MODEL_KEY)
        if built_with and built_with != self._model_id():
            raise UserError(
                f"the outline DB was built with embedding model {built_with!r} but "
                f"{self._model_id()!r} is configured; run `surveygraph outlines ingest --rebuild PATH`")
        return self._collection

    def reset(self) -> None:
        """Delete every stored outline (used by ``outlines ingest --rebuild``)."""
        if self._name in self._collection_names():
            self._client.delete_collection(self._name)
        self._collection = None

    def _collection_names(self) -> set[str]:
        # chromadb 1.x lists Collection objects; 0.6 listed names.
        return {c if isinstance(c, str) else c.name for c in self._client.list_collections()}

    # --- public API ----------------------------------------------------------------------------
    def add(self, outlines: list[HumanOutline]) -> int:
        """Insert or replace outlines (same topic + title = same row); returns how many were written."""
        unique = {outline_id(o): o for o in outlines if o.entries}
        if not unique:
            return 0
        collection = self._open(create=True)
        items = list(unique.items())
        vectors = self._embed([outline_embedding_text(o) for _, o in items])
        collection.upsert(
            ids=[oid for oid, _ in items],
            embeddings=vectors,
            documents=[outline_embedding_text(o) for _, o in items],
            metadatas=[{"topic": o.topic, "title": o.title, "source": o.source,
                        "outline": o.model_dump_json()} for _, o in items],
        )
        return len(items)

    def ingest_path(self, path: Path) -> OutlineIngestReport:
        """A Markdown survey, a folder of them, or an outlines.json ({topic, outline} list).

        In a folder that also holds outlines.json, its clean outlines win over outlines
        extracted from the Markdown file of the same topic.
        """
        path = Path(path).expanduser()
        if not path.exists():
            raise UserError(f"no such file or directory: {path}")
        report = OutlineIngestReport(path=str(path))
        outlines = self._collect(path, report)
        report.added = self.add(outlines)
        return report

    def _collect(self, path: Path, report: OutlineIngestReport) -> list[HumanOutline]:
        if path.is_file():
            report.files = 1
            if path.suffix.lower() == ".json":
                return outlines_from_json(path)
            if path.suffix.lower() in (".md", ".markdown", ".txt"):
                return self._from_markdown_files([path], report)
            raise UserError(f"unsupported outline input {path}: expected .md, .json or a folder")
        json_files = sorted(path.rglob(OUTLINES_JSON))
        md_files = sorted(p for p in path.rglob("*") if p.suffix.lower() in (".md", ".markdown"))
        if not json_files and not md_files:
            raise UserError(f"no Markdown files or {OUTLINES_JSON} found in {path}")
        report.files = len(json_files) + len(md_files)
        outlines = [o for f in json_files for o in outlines_from_json(f)]
        covered = {normalize_title(o.topic) for o in outlines}
        md_files = [p for p in md_files if normalize_title(p.stem) not in covered]
        return outlines + self._from_markdown_files(md_files, report)

    def _from_markdown_files(self, files: list[Path], report: OutlineIngestReport) -> list[HumanOutline]:
        outlines = []
        for md in files:
            outline = outline_from_markdown(md.read_text(encoding="utf-8", errors="replace"),
                                            name=md.name)
            if len(outline.entries) < 2:
                report.skipped += 1
                report.reasons.append(f"{md.name}: fewer than 2 headings")
                continue
            outlines.append(outline)
        return outlines

    def count(self) -> int:
        collection = self._open(create=False)
        return collection.count() if collection is not None else 0

    def search(self, topic: str, k: int = 3) -> list[HumanOutline]:
        """The ``k`` outlines whose topic/title/top headings are closest to ``topic``."""
        collection = self._open(create=False)
        if collection is None or k <= 0 or not topic.strip():
            return []
        n = min(k, collection.count())
        if n == 0:
            return []
        vector = self._embed([topic])[0]
        got = collection.query(query_embeddings=[vector], n_results=n, include=["metadatas"])
        return [HumanOutline.model_validate_json(m["outline"]) for m in got["metadatas"][0]]

    def random(self, k: int, *, seed: int = 0) -> list[HumanOutline]:
        """``k`` outlines drawn uniformly (reproducible for a seed): the "random demos" ablation."""
        collection = self._open(create=False)
        if collection is None or k <= 0:
            return []
        ids = sorted(collection.get(include=[])["ids"])
        chosen = _random.Random(seed).sample(ids, min(k, len(ids)))
        got = collection.get(ids=chosen, include=["metadatas"])
        by_id = dict(zip(got["ids"], got["metadatas"]))
        return [HumanOutline.model_validate_json(by_id[i]["outline"]) for i in chosen]
