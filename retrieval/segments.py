"""One immutable segment of the search index: a directory of numpy arrays for a set of papers.

    <store>/index/segments/s000042/
        meta.json                       count, dim, category names, whether ivf.faiss exists
        ids.npy                         paper ids by row (fixed-width bytes)
        ids_sorted.npy, ids_order.npy   the ids sorted, and their rows (id -> row by binary search)
        years.npy                       int32, 0 = unknown
        cat_ptr.npy, cat_codes.npy      categories of row i: codes[ptr[i]:ptr[i+1]] into meta's names
        terms.npy, ptr.npy, rows.npy, tf.npy, doc_len.npy     BM25 term frequencies (bm25_index.py)
        vectors.npy                     float32 unit vectors by row
        ivf.faiss                       an inverted-file index of the vectors (large segments only)

Every array is opened with ``mmap``: opening a segment reads nothing, processes share the page
cache, and memory does not grow with the corpus. A segment is written once into a temporary
directory, fsynced and renamed into place; it never changes afterwards (``snapshot.py`` lists the
live ones).

Dense search is exact (a matrix-vector product) on segments below ``ann_min_rows`` and on
restricted row sets (memory-scoped retrieval, filters) small enough to gather; large segments
answer through faiss' IVF-Flat index (the inner products are exact, only lists far from the
query are skipped), which keeps a query at 1M papers well below an exact scan's ~150 ms.
IVF was chosen over HNSW because its result depends only on the stored index, not on insertion
threads, so every process returns the same list; k-means runs with a fixed seed.
"""

from __future__ import annotations

import json
import math
import os
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .bm25_index import SegmentPostings, top_n
from .locking import fsync_dir

_EXACT_GATHER_LIMIT = 50_000  # restricted searches up to this many rows gather and scan exactly
_TRAIN_POINTS_PER_LIST = 64


@dataclass(frozen=True)
class AnnConfig:
    min_rows: int = 100_000  # segments at least this large get an IVF index
    # ... used only when the whole index holds more papers than this: below it the exact scan is
    # fast enough (25 ms p50 at 300k), and with only 2-3 IVF segments each must return a deep
    # share of the top k, where nprobe 96 gave recall@100 0.934 at 300k (0.952 at 1M)
    exact_below: int = 500_000
    nprobe: int = 96  # inverted lists (of 4 sqrt(rows)) scanned per query (recall measured in benchmarks/scale_bench.py)


class DamagedFile(ValueError):
    """A file of the index is not what its writer wrote (cut short, overwritten, missing)."""


def file_crc(path: Path) -> int:
    """CRC-32 of a file, read in 1 MB blocks (what ``corpus repair`` compares with meta.json)."""
    crc = 0
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            crc = zlib.crc32(block, crc)
    return crc


def check_files(directory: Path, crcs: dict[str, int]) -> str | None:
    """The first file of ``directory`` whose CRC-32 differs from the one recorded, else None."""
    for name, crc in sorted(crcs.items()):
        path = directory / name
        if not path.is_file():
            return f"{path} is missing"
        if file_crc(path) != crc:
            return f"{path} does not hold what was written (checksum)"
    return None


def _save(directory: Path, name: str, array: np.ndarray) -> None:
    with (directory / name).open("wb") as fh:
        np.save(fh, np.ascontiguousarray(array))
        fh.flush()
        os.fsync(fh.fileno())


def _bytes_ids(ids: Sequence[str]) -> np.ndarray:
    encoded = [i.encode("utf-8") for i in ids]
    width = max((len(e) for e in encoded), default=1)
    return np.array(encoded, dtype=f"S{max(width, 1)}")


def build_ivf(vectors: np.ndarray, path: Path) -> None:
    import faiss

    n, dim = vectors.shape
    # 4 sqrt(n) lists (faiss' guideline is 4-16 sqrt(n)): with sqrt(n) lists, recall 0.95 needed 16%
    # of a segment scanned, as slow as the exact scan at 1M papers (BENCHMARKS.md "Scale").
    nlist = max(1, int(round(4 * math.sqrt(n))))
    rng = np.random.default_rng(0)
    sample_rows = np.sort(rng.choice(n, size=min(n, _TRAIN_POINTS_PER_LIST * nlist), replace=False))
    quantizer = faiss.IndexFlatIP(dim)
    index = faiss.IndexIVFFlat(quantizer, dim, nlist, faiss.METRIC_INNER_PRODUCT)
    index.cp.seed = 1234
    index.cp.spherical = True  # unit vectors, inner-product lists
    index.train(np.ascontiguousarray(vectors[sample_rows], dtype=np.float32))
    for start in range(0, n, 50_000):
        index.add(np.ascontiguousarray(vectors[start:start + 50_000], dtype=np.float32))
    faiss.write_index(index, str(path))


def write_segment(directory: Path, *, ids: Sequence[str] | np.ndarray, years: np.ndarray,
                  category_names: Sequence[str], cat_ptr: np.ndarray, cat_codes: np.ndarray,
                  postings: SegmentPostings, vectors: np.ndarray | None, ann: AnnConfig) -> None:
    """Write a complete segment to ``directory`` (a fresh temporary directory) and fsync it.
    ``vectors`` None: ``directory/vectors.npy`` was streamed in already (a merge)."""
    directory.mkdir(parents=True, exist_ok=True)
    id_array = ids if isinstance(ids, np.ndarray) else _bytes_ids(ids)
    order = np.argsort(id_array, kind="stable").astype(np.int32)
    n = len(id_array)
    for name, array in (("ids.npy", id_array), ("ids_sorted.npy", id_array[order]), ("ids_order.npy", order),
                        ("years.npy", np.asarray(years, dtype=np.int32)), ("cat_ptr.npy", cat_ptr.astype(np.int64)),
                        ("cat_codes.npy", cat_codes.astype(np.int32)), ("terms.npy", postings.terms),
                        ("ptr.npy", postings.ptr), ("rows.npy", postings.rows), ("tf.npy", postings.tf),
                        ("doc_len.npy", postings.doc_len)):
        _save(directory, name, array)
    if vectors is not None:
        _save(directory, "vectors.npy", np.asarray(vectors, dtype=np.float32))
    stored = np.load(directory / "vectors.npy", mmap_mode="r")
    dim = int(stored.shape[1]) if stored.ndim == 2 else 0
    del stored
    use_ivf = n >= ann.min_rows and dim > 0
    if use_ivf:
        build_ivf(np.load(directory / "vectors.npy", mmap_mode="r"), directory / "ivf.faiss")
    # Checksums let `corpus repair` find a file overwritten in place (searches check shapes only).
    crcs = {p.name: file_crc(p) for p in sorted(directory.iterdir()) if p.name != "meta.json"}
    with (directory / "meta.json").open("w") as fh:
        json.dump({"count": n, "dim": dim, "categories": list(category_names), "ivf": use_ivf, "crc32": crcs}, fh)
        fh.flush()
        os.fsync(fh.fileno())
    fsync_dir(directory)


def encode_categories(categories: Sequence[Sequence[str]]) -> tuple[list[str], np.ndarray, np.ndarray]:
    names = sorted({c for cats in categories for c in cats})
    code = {c: i for i, c in enumerate(names)}
    ptr = np.zeros(len(categories) + 1, dtype=np.int64)
    codes: list[int] = []
    for row, cats in enumerate(categories):
        codes.extend(code[c] for c in cats)
        ptr[row + 1] = len(codes)
    return names, ptr, np.array(codes, dtype=np.int32)


class Segment:
    def __init__(self, directory: Path, ann: AnnConfig):
        self.directory = directory
        self.name = directory.name
        try:
            meta = json.loads((directory / "meta.json").read_text())
            self.count, self.dim = int(meta["count"]), int(meta["dim"])
            self.category_names: list[str] = list(meta["categories"])
        except FileNotFoundError:
            raise  # a generation removed while it was being read (snapshot.py retries)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise DamagedFile(f"{directory / 'meta.json'}: {exc}") from exc
        self._crcs: dict[str, int] = meta.get("crc32") or {}

        def load(name: str) -> np.ndarray:
            try:
                return np.load(directory / name, mmap_mode="r", allow_pickle=False)
            except FileNotFoundError:
                raise
            except (OSError, ValueError, EOFError) as exc:  # cut short, garbage header, empty file
                raise DamagedFile(f"{directory / name}: {exc}") from exc

        self.ids = load("ids.npy")
        self._ids_sorted, self._ids_order = load("ids_sorted.npy"), load("ids_order.npy")
        self.years = load("years.npy")
        self.cat_ptr, self.cat_codes = load("cat_ptr.npy"), load("cat_codes.npy")
        self.postings = SegmentPostings(load("terms.npy"), load("ptr.npy"), load("rows.npy"), load("tf.npy"),
                                        load("doc_len.npy"))
        self.vectors = load("vectors.npy")
        self._ann = ann
        self._ivf = None
        self._has_ivf = bool(meta.get("ivf"))
        self._check_shapes()

    def _check_shapes(self) -> None:
        """Every array has the length the segment's count implies (cheap: headers only), so a file
        replaced by another array or cut to a valid header is caught before a search reads it."""
        n, post = self.count, self.postings
        expected = {"ids.npy": (len(self.ids), n), "ids_sorted.npy": (len(self._ids_sorted), n),
                    "ids_order.npy": (len(self._ids_order), n), "years.npy": (len(self.years), n),
                    "cat_ptr.npy": (len(self.cat_ptr), n + 1), "doc_len.npy": (len(post.doc_len), n),
                    "ptr.npy": (len(post.ptr), len(post.terms) + 1), "tf.npy": (len(post.tf), len(post.rows)),
                    "vectors.npy": (self.vectors.shape, (n, self.dim))}
        for name, (found, wanted) in expected.items():
            if found != wanted:
                raise DamagedFile(f"{self.directory / name}: {found} rows where the segment holds {wanted}")

    def verify(self) -> str | None:
        """What is damaged in this segment's files (checksums of segments written since they were
        recorded), None when sound."""
        return check_files(self.directory, self._crcs)

    def __len__(self) -> int:
        return self.count

    def id_at(self, row: int) -> str:
        return bytes(self.ids[row]).decode("utf-8")

    def rows_of(self, ids: Sequence[str]) -> np.ndarray:
        """Local rows of those ids that are in this segment, sorted."""
        if not len(ids) or not self.count:
            return np.zeros(0, dtype=np.int64)
        width = self._ids_sorted.dtype.itemsize
        wanted = np.array([e for e in (i.encode("utf-8") for i in ids) if len(e) <= width], dtype=f"S{width}")
        pos = np.minimum(np.searchsorted(self._ids_sorted, wanted), self.count - 1)
        found = self._ids_sorted[pos] == wanted
        return np.sort(np.asarray(self._ids_order[pos[found]], dtype=np.int64))

    def category_mask(self, wanted: Sequence[str]) -> np.ndarray:
        codes = [i for i, name in enumerate(self.category_names) if name in set(wanted)]
        mask = np.zeros(self.count, dtype=bool)
        if codes:
            hits = np.flatnonzero(np.isin(self.cat_codes, codes))
            mask[np.searchsorted(self.cat_ptr, hits, side="right") - 1] = True
        return mask

    def categories_of(self, row: int) -> list[str]:
        return [self.category_names[c] for c in self.cat_codes[self.cat_ptr[row]:self.cat_ptr[row + 1]]]

    def category_counts(self) -> np.ndarray:
        return np.bincount(np.asarray(self.cat_codes), minlength=len(self.category_names))

    # --- search ---------------------------------------------------------------------------
    def _index(self):
        if self._ivf is None:
            import faiss

            # One query at a time uses one thread; idle OpenMP workers spinning next to BLAS's
            # threads put the load at 6 on 2 cores in the 1M benchmark.
            faiss.omp_set_num_threads(1)
            try:
                self._ivf = faiss.read_index(str(self.directory / "ivf.faiss"),
                                             faiss.IO_FLAG_MMAP | faiss.IO_FLAG_READ_ONLY)
            except RuntimeError as exc:  # faiss: "Error in ... read_index": a cut or overwritten file
                raise DamagedFile(f"{self.directory / 'ivf.faiss'}: {str(exc).splitlines()[0][:200]}") from exc
            self._ivf.nprobe = self._ann.nprobe
        return self._ivf

    def dense(self, vector: np.ndarray, n: int, rows: np.ndarray | None = None,
              exact: bool = False) -> list[tuple[str, float]]:
        """Top ``n`` (id, cosine) of this segment, or of its local ``rows``."""
        if n <= 0 or self.count == 0 or (rows is not None and len(rows) == 0):
            return []
        query = np.asarray(vector, dtype=np.float32)
        approximate = self._has_ivf and not exact and (rows is None or len(rows) > _EXACT_GATHER_LIMIT)
        if approximate:
            import faiss

            params = None
            if rows is not None:
                params = faiss.SearchParametersIVF(sel=faiss.IDSelectorBatch(rows.astype(np.int64)),
                                                   nprobe=self._ann.nprobe)
            scores, labels = self._index().search(query[None, :], n, params=params)
            hits = [(int(r), float(s)) for r, s in zip(labels[0], scores[0]) if r >= 0]
            return [(self.id_at(r), s) for r, s in hits]
        matrix = self.vectors if rows is None else self.vectors[rows]
        scores = np.asarray(matrix @ query, dtype=np.float32)
        row_ids = np.arange(self.count) if rows is None else rows
        picked = top_n(scores, n, lambda i: self.id_at(int(row_ids[i])))
        return [(self.id_at(int(row_ids[i])), float(scores[i])) for i in picked]

    def bm25(self, q_terms: np.ndarray, weights: np.ndarray, avgdl: float, n: int,
             rows: np.ndarray | None = None) -> list[tuple[str, float]]:
        """Top ``n`` (id, BM25) with a positive score, optionally only among local ``rows``."""
        scores = self.postings.scores(q_terms, weights, avgdl)
        among = np.flatnonzero(scores > 0) if rows is None else rows[scores[rows] > 0]
        picked = top_n(scores, n, lambda i: self.id_at(int(i)), among=among)
        return [(self.id_at(int(i)), float(scores[i])) for i in picked]


def merge_segments(parts: Sequence[Segment], directory: Path, ann: AnnConfig,
                   drop: set[str] | None = None) -> None:
    """Write one segment holding the rows of ``parts`` (minus the ids in ``drop``)."""
    keeps, id_arrays = [], []
    for part in parts:
        if drop:
            keep = np.array([part.id_at(r) not in drop for r in range(part.count)], dtype=bool)
        else:
            keep = np.ones(part.count, dtype=bool)
        keeps.append(keep)
        id_arrays.append(np.asarray(part.ids)[keep])
    width = max((a.dtype.itemsize for a in id_arrays), default=1)
    ids = np.concatenate([a.astype(f"S{width}") for a in id_arrays]) if id_arrays else np.zeros(0, "S1")
    names = sorted({c for p in parts for c in p.category_names})
    code_of = {c: i for i, c in enumerate(names)}
    terms, rows, tfs, doc_lens, years, ptrs, codes = [], [], [], [], [], [np.zeros(1, np.int64)], []
    offset = 0
    dim = max((p.dim for p in parts), default=0)
    directory.mkdir(parents=True)
    vectors = np.lib.format.open_memmap(directory / "vectors.npy", mode="w+", dtype=np.float32,
                                        shape=(len(ids), dim))
    for part, keep in zip(parts, keeps):
        new_row = np.full(part.count, -1, dtype=np.int64)
        new_row[keep] = np.arange(int(keep.sum()))
        t, r, f = part.postings.triples(offset, new_row)
        terms.append(t), rows.append(r), tfs.append(f)
        doc_lens.append(np.asarray(part.postings.doc_len)[keep])
        years.append(np.asarray(part.years)[keep])
        remap = np.array([code_of[c] for c in part.category_names], dtype=np.int32)
        part_ptr, part_codes = np.asarray(part.cat_ptr), np.asarray(part.cat_codes)
        for row in np.flatnonzero(keep):
            row_codes = remap[part_codes[part_ptr[row]:part_ptr[row + 1]]]
            codes.append(row_codes)
            ptrs.append(np.array([ptrs[-1][-1] + len(row_codes)]))
        kept = int(keep.sum())
        vectors[offset:offset + kept] = np.asarray(part.vectors)[keep]
        offset += kept
    vectors.flush()
    del vectors
    with (directory / "vectors.npy").open("rb+") as fh:
        os.fsync(fh.fileno())
    postings = SegmentPostings.from_triples(
        np.concatenate(terms) if terms else np.zeros(0, np.uint64), np.concatenate(rows) if rows else np.zeros(0, np.int32),
        np.concatenate(tfs) if tfs else np.zeros(0, np.uint16),
        np.concatenate(doc_lens) if doc_lens else np.zeros(0, np.int32))
    cat_ptr = np.concatenate(ptrs).astype(np.int64)
    cat_codes = np.concatenate(codes).astype(np.int32) if codes else np.zeros(0, np.int32)
    write_segment(directory, ids=ids, years=np.concatenate(years) if years else np.zeros(0, np.int32),
                  category_names=names, cat_ptr=cat_ptr, cat_codes=cat_codes, postings=postings, vectors=None,
                  ann=ann)
