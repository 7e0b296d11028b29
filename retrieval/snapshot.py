"""Generations of the search index: a list of immutable segments plus corpus-wide BM25 statistics,
published atomically.

Layout under ``<store>/index/``::

    CURRENT                    the name of the live generation, e.g. "g000007" (replaced by one rename)
    g000007/manifest.json      segments (in order), count, model, dim, N and total document length
    g000007/terms.npy, df.npy  document frequency of every term (``bm25_index.TermStats``)
    segments/s000012/ ...      one immutable segment (``segments.py``)

Adding papers writes one new segment (and, when enough segments of one size have gathered,
one merged segment in their place: at most ``merge_factor`` x the size of its parts, never above
``max_segment_rows``), then one small generation directory: the cost of an add is proportional
to what is added, not to the corpus. A writer writes and fsyncs everything new, renames the
generation into place and then swaps ``CURRENT`` (temporary file, fsync, rename, fsync the
directory). A crash at any moment leaves the old or the new generation live, never a mix;
unreferenced segments of a crashed writer are removed by the next one. Readers load what
``CURRENT`` names and never lock or write, so searches work next to an ingest and on a read-only
home. The previous generation (and its segments) is kept for readers that were loading it.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .bm25_index import SegmentPostings, TermStats, query_terms, term_hash, top_n
from .damage import IndexDamaged
from .locking import crash_point, fsync_dir
from .segments import (AnnConfig, DamagedFile, Segment, check_files, encode_categories, file_crc, merge_segments,
                       write_segment)

INDEX_DIR = "index"
SEGMENTS_DIR = "segments"
CURRENT = "CURRENT"
_KEEP = 2  # live + previous generation
_LOAD_ATTEMPTS = 3
_GENERATION_NAME = re.compile(r"g\d{6}")


@dataclass(frozen=True)
class IndexConfig:
    ann: AnnConfig = AnnConfig()
    merge_factor: int = 8
    max_segment_rows: int = 250_000


class IndexSnapshot:
    """One loaded generation; global row r is row r - offset of the segment holding it."""

    def __init__(self, directory: Path, segments: list[Segment], stats: TermStats, *, model: str | None,
                 generation: int, dim: int, config: IndexConfig = IndexConfig()):
        self.directory = directory
        self.config = config
        self.segments = segments
        self.stats = stats
        self.model = model
        self.generation = generation
        self._dim = dim
        self.offsets = np.cumsum([0] + [len(s) for s in segments])
        self._crcs: dict[str, int] = {}  # checksums of the generation's own files (manifest.json)

    @property
    def dim(self) -> int:
        return self._dim

    def __len__(self) -> int:
        return int(self.offsets[-1])

    @property
    def ids(self) -> list[str]:
        """Every id (O(corpus): for checks and repairs, not for searches)."""
        return [bytes(i).decode("utf-8") for seg in self.segments for i in seg.ids]

    @property
    def years(self) -> np.ndarray:
        return np.concatenate([np.asarray(s.years) for s in self.segments]) if self.segments else np.zeros(0, np.int32)

    def category_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for seg in self.segments:
            for name, n in zip(seg.category_names, seg.category_counts()):
                counts[name] = counts.get(name, 0) + int(n)
        return counts

    # --- reading ------------------------------------------------------------------------
    @classmethod
    def load(cls, store_dir: Path, config: IndexConfig = IndexConfig()) -> "IndexSnapshot | None":
        """The live generation, or None when none was ever published (or only in the layout of
        an older version, which the next writer rebuilds from the paper table)."""
        root = Path(store_dir) / INDEX_DIR
        for attempt in range(_LOAD_ATTEMPTS):
            try:
                name = (root / CURRENT).read_text().strip()
            except FileNotFoundError:
                return None
            except (OSError, UnicodeDecodeError) as exc:
                raise IndexDamaged(store_dir, f"{root / CURRENT}: {exc}") from exc
            if not _GENERATION_NAME.fullmatch(name):
                raise IndexDamaged(store_dir, f"{root / CURRENT} names {name[:40]!r}, not a generation")
            try:
                return cls._load_dir(root, root / name, config)
            except FileNotFoundError as exc:
                # A writer published a newer generation and removed this one while we read it;
                # the same file missing three times over is damage.
                if attempt == _LOAD_ATTEMPTS - 1:
                    raise IndexDamaged(store_dir, f"{exc.filename or exc} is missing") from exc
            except (DamagedFile, OSError, ValueError, EOFError, KeyError, TypeError) as exc:
                raise IndexDamaged(store_dir, str(exc)[:300]) from exc
        return None

    @classmethod
    def _load_dir(cls, root: Path, directory: Path, config: IndexConfig) -> "IndexSnapshot | None":
        manifest = json.loads((directory / "manifest.json").read_text())
        if not isinstance(manifest, dict):
            raise DamagedFile(f"{directory / 'manifest.json'} holds no manifest")
        if "segments" not in manifest:
            return None  # an older version's single-file generation
        segments = [Segment(root / SEGMENTS_DIR / name, config.ann) for name in manifest["segments"]]
        stats = TermStats(np.load(directory / "terms.npy", mmap_mode="r"), np.load(directory / "df.npy", mmap_mode="r"),
                          manifest["documents"], manifest["total_length"])
        if len(stats.terms) != len(stats.df):
            raise DamagedFile(f"{directory}: {len(stats.terms)} terms but {len(stats.df)} document frequencies")
        snap = cls(directory, segments, stats, model=manifest.get("model"),
                   generation=int(manifest["generation"]), dim=int(manifest.get("dim") or 0), config=config)
        snap._crcs = manifest.get("crc32") or {}
        if len(snap) != manifest["count"]:
            raise DamagedFile(f"{directory / 'manifest.json'} counts {manifest['count']} papers, its segments "
                              f"hold {len(snap)}")
        return snap

    def verify(self) -> str | None:
        """What is damaged in the live generation or its segments (every file's checksum, where one
        was recorded), None when sound. ``corpus repair`` runs it; searches check shapes only."""
        problem = check_files(self.directory, self._crcs)
        for seg in self.segments:
            problem = problem or seg.verify()
        return problem

    def _locate(self, global_rows: np.ndarray) -> list[np.ndarray]:
        """Split sorted global rows into local rows per segment."""
        bounds = np.searchsorted(global_rows, self.offsets)
        return [global_rows[bounds[i]:bounds[i + 1]] - self.offsets[i] for i in range(len(self.segments))]

    def row(self, paper_id: str) -> int | None:
        rows = self.rows_for([paper_id])
        return int(rows[0]) if len(rows) else None

    def rows_for(self, ids: Collection[str]) -> np.ndarray:
        wanted = list(ids)
        parts = [seg.rows_of(wanted) + off for seg, off in zip(self.segments, self.offsets)]
        return np.sort(np.concatenate(parts)) if parts else np.zeros(0, dtype=np.int64)

    def vectors_for(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        found = {}
        for seg in self.segments:
            for row in seg.rows_of(list(ids)):
                found[seg.id_at(int(row))] = np.asarray(seg.vectors[row], dtype=np.float32)
        return found

    def filter_mask(self, year_range: tuple[int, int] | None, categories: Sequence[str] | None) -> np.ndarray | None:
        """Boolean mask over global rows for the filters, or None when there are none."""
        if year_range is None and not categories:
            return None
        masks = []
        for seg in self.segments:
            mask = np.ones(len(seg), dtype=bool)
            if year_range is not None:
                years = np.asarray(seg.years)
                mask &= (years >= year_range[0]) & (years <= year_range[1])
            if categories:
                mask &= seg.category_mask(categories)
            masks.append(mask)
        return np.concatenate(masks) if masks else np.zeros(0, dtype=bool)

    def _restrict(self, rows: np.ndarray | None, mask: np.ndarray | None) -> list[np.ndarray | None]:
        if rows is not None and mask is not None:
            rows = rows[mask[rows]]
        elif mask is not None:
            rows = np.flatnonzero(mask)
        return [None] * len(self.segments) if rows is None else self._locate(np.asarray(rows, dtype=np.int64))

    def document_frequency(self, terms: Sequence[str]) -> dict[str, int]:
        """How many papers contain each (tokenised) term; 0 for terms the index never saw."""
        hashes = np.array([term_hash(t) for t in terms], dtype=np.uint64)
        return {t: int(df) for t, df in zip(terms, self.stats.lookup(hashes))}

    # --- search -------------------------------------------------------------------------
    def dense(self, vector: np.ndarray, n: int, *, rows: np.ndarray | None = None,
              mask: np.ndarray | None = None, exact: bool = False) -> list[tuple[str, float]]:
        """Top ``n`` (id, cosine) over all rows, or global ``rows``, or the rows a ``mask`` allows."""
        hits = []
        exact = exact or len(self) <= self.config.ann.exact_below
        for seg, local in zip(self.segments, self._restrict(rows, mask)):
            try:
                hits.extend(seg.dense(vector, n, local, exact=exact))
            except DamagedFile as exc:  # an IVF file is read at the first query that needs it
                raise IndexDamaged(self.directory.parents[1], str(exc)) from exc
        return _best(hits, n)

    def bm25(self, query: str, n: int, *, rows: np.ndarray | None = None,
             mask: np.ndarray | None = None) -> list[tuple[str, float]]:
        """Top ``n`` (id, BM25 score) with a positive score."""
        terms, counts = query_terms(query)
        weights = self.stats.idf(terms) * counts
        hits = []
        for seg, local in zip(self.segments, self._restrict(rows, mask)):
            if local is None or len(local):
                hits.extend(seg.bm25(terms, weights, self.stats.avgdl, n, local))
        return _best(hits, n)


def recorded_model(store_dir: Path) -> str | None:
    """The embedding model named by any readable manifest of the index, newest first (a damaged
    index is rebuilt with the model it was built with)."""
    for manifest in sorted((Path(store_dir) / INDEX_DIR).glob("g*/manifest.json"), reverse=True):
        try:
            model = json.loads(manifest.read_text()).get("model")
        except (OSError, ValueError, AttributeError):
            continue
        if isinstance(model, str) and model:
            return model
    return None


def _best(hits: list[tuple[str, float]], n: int) -> list[tuple[str, float]]:
    scores = np.array([s for _, s in hits], dtype=np.float64)
    return [hits[i] for i in top_n(scores, n, lambda i: hits[i][0])]


# --- writing ------------------------------------------------------------------------------


@dataclass
class NewRows:
    """Papers to add to the index, with their tokens and unit vectors."""

    ids: list[str]
    tokens: list[list[str]]
    years: list[int]
    categories: list[list[str]]
    vectors: np.ndarray


def _next_number(root: Path, prefix: str) -> int:
    numbers = [int(p.name[1:7]) for p in root.glob(f"{prefix}*") if p.name[1:7].isdigit()]
    numbers += [int(p.name.split("-")[1][1:]) for p in root.glob(f".tmp-{prefix}*")
                if p.name.split("-")[1][1:].isdigit()]
    return 1 + max(numbers, default=0)


def _new_segment(root: Path, write) -> str:
    """Name the next segment, let ``write(directory)`` fill a temporary directory, rename it in."""
    seg_root = root / SEGMENTS_DIR
    seg_root.mkdir(parents=True, exist_ok=True)
    name = f"s{_next_number(seg_root, 's'):06d}"
    tmp = seg_root / f".tmp-{name}-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        write(tmp)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)  # a full disk: give back the space of the half-written segment
        raise
    tmp.rename(seg_root / name)
    fsync_dir(seg_root)
    return name


def _write_new_segment(root: Path, rows: NewRows, config: IndexConfig) -> str:
    names, cat_ptr, cat_codes = encode_categories(rows.categories)
    return _new_segment(root, lambda tmp: write_segment(
        tmp, ids=rows.ids, years=np.array([y or 0 for y in rows.years], dtype=np.int32), category_names=names,
        cat_ptr=cat_ptr, cat_codes=cat_codes, postings=SegmentPostings.build(rows.tokens), vectors=rows.vectors,
        ann=config.ann))


def _merged(root: Path, parts: list[Segment], config: IndexConfig, drop: set[str] | None = None) -> str:
    return _new_segment(root, lambda tmp: merge_segments(parts, tmp, config.ann, drop))


def _tier(count: int, factor: int) -> int:
    return int(math.log(max(count, 1), factor))


def _merge_plan(segments: list[Segment], config: IndexConfig) -> list[Segment] | None:
    """``merge_factor`` segments of one size tier whose union stays within the size cap."""
    tiers: dict[int, list[Segment]] = {}
    for seg in segments:
        tiers.setdefault(_tier(len(seg), config.merge_factor), []).append(seg)
    for tier in sorted(tiers):
        group = tiers[tier][:config.merge_factor]
        if len(group) == config.merge_factor and sum(len(s) for s in group) <= config.max_segment_rows:
            return group
    return None


def update(store_dir: Path, base: IndexSnapshot | None, *, add: NewRows | None = None,
           drop: Collection[str] = (), model: str, dim: int,
           config: IndexConfig = IndexConfig()) -> IndexSnapshot:
    """Publish a generation = ``base`` minus the ids in ``drop`` plus ``add`` (merging segments
    when a size tier fills up) and return it loaded."""
    root = Path(store_dir) / INDEX_DIR
    root.mkdir(parents=True, exist_ok=True)
    segments = list(base.segments) if base is not None else []
    stats = base.stats if base is not None else TermStats.empty()
    drop = set(drop)
    if drop:  # only an older version can leave index rows without a paper record
        rewritten = []
        for seg in segments:
            if len(seg.rows_of(list(drop))):
                name = _merged(root, [seg], config, drop)
                rewritten.append(Segment(root / SEGMENTS_DIR / name, config.ann))
            else:
                rewritten.append(seg)
        segments = [s for s in rewritten if len(s)]
        stats = TermStats.combine([(s.postings.terms, s.postings.document_frequency()) for s in segments],
                                  sum(len(s) for s in segments),
                                  int(sum(int(np.asarray(s.postings.doc_len).sum()) for s in segments)))
    if add is not None and add.ids:
        name = _write_new_segment(root, add, config)
        crash_point("index-save")  # a segment on disk, not published
        new = Segment(root / SEGMENTS_DIR / name, config.ann)
        segments.append(new)
        stats = TermStats.combine([(stats.terms, stats.df), (new.postings.terms, new.postings.document_frequency())],
                                  stats.documents + len(new),
                                  stats.total_length + int(np.asarray(new.postings.doc_len).sum()))
    while (group := _merge_plan(segments, config)) is not None:
        name = _merged(root, group, config)
        position = segments.index(group[0])
        segments = [s for s in segments if s not in group]
        segments.insert(position, Segment(root / SEGMENTS_DIR / name, config.ann))
    return _publish(root, segments, stats, model=model, dim=dim, config=config)


def _publish(root: Path, segments: list[Segment], stats: TermStats, *, model: str, dim: int,
             config: IndexConfig) -> IndexSnapshot:
    generation = _next_number(root, "g")
    name = f"g{generation:06d}"
    tmp = root / f".tmp-{name}-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    for file, array in (("terms.npy", stats.terms), ("df.npy", stats.df)):
        with (tmp / file).open("wb") as fh:
            np.save(fh, np.ascontiguousarray(array))
            fh.flush()
            os.fsync(fh.fileno())
    manifest = {"generation": generation, "count": sum(len(s) for s in segments), "model": model, "dim": dim,
                "segments": [s.name for s in segments], "documents": stats.documents,
                "total_length": stats.total_length}
    manifest["crc32"] = {file: file_crc(tmp / file) for file in ("terms.npy", "df.npy")}
    with (tmp / "manifest.json").open("w") as fh:
        json.dump(manifest, fh)
        fh.flush()
        os.fsync(fh.fileno())
    fsync_dir(tmp)
    tmp.rename(root / name)
    fsync_dir(root)
    crash_point("index-renamed")  # complete generation on disk, CURRENT still names the old one
    pointer = root / f".{CURRENT}.tmp"
    with pointer.open("w") as fh:
        fh.write(name + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    pointer.replace(root / CURRENT)
    fsync_dir(root)
    crash_point("published")
    _collect_garbage(root, name)
    loaded = IndexSnapshot._load_dir(root, root / name, config)
    assert loaded is not None
    return loaded


def _collect_garbage(root: Path, live: str) -> None:
    """Drop generations older than the previous one, segments no kept generation lists, and
    temporary directories of crashed writers (only writers call this, under the write lock)."""
    generations = sorted(p for p in root.glob("g*") if p.is_dir() and p.name[1:].isdigit())
    keep = {p.name for p in generations[-_KEEP:]} | {live}
    referenced: set[str] = set()
    for path in generations:
        if path.name not in keep:
            shutil.rmtree(path, ignore_errors=True)
            continue
        try:
            referenced.update(json.loads((path / "manifest.json").read_text()).get("segments", []))
        except (OSError, ValueError):
            pass
    for path in root.glob(".tmp-*"):
        shutil.rmtree(path, ignore_errors=True)
    seg_root = root / SEGMENTS_DIR
    for path in seg_root.glob("*") if seg_root.is_dir() else []:
        if path.name not in referenced:
            shutil.rmtree(path, ignore_errors=True)
