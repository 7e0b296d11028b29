"""A persisted BM25 index over title + abstract.

rank-bm25's ``BM25Okapi`` computes the statistics (idf with its epsilon floor, document lengths,
average length); scoring it with ``get_scores`` walks every document in Python per query term
(~tens of ms per term at 75k papers), so the Okapi term weights are precomputed once into a
sparse document x term matrix and a query is a sparse column sum. The scores equal
``BM25Okapi.get_scores`` (a test checks it).

On disk (one directory of an index generation, see ``snapshot.py``): ``index.pkl`` (ids,
vocabulary, years, categories, normalised titles) and ``weights.npz`` load fast for search;
``tokens.pkl`` (the tokenised corpus) is read only when papers are added, because idf changes with
every addition and the weights are rebuilt. The files are written once into a fresh directory and
never changed: publishing a new generation is one rename (``snapshot.publish``).

Ties are broken by paper id, so a ranking does not depend on the order rows were added in.
"""

from __future__ import annotations

import os
import pickle
import re
from collections.abc import Collection, Sequence
from pathlib import Path

import numpy as np
from scipy import sparse

_TOKEN = re.compile(r"[a-z0-9]+")
_STOPWORDS = frozenset(
    "a an and are as at be by for from has have in into is it its of on or our that the their "
    "this these to was we were which with via using based towards toward can also than".split()
)


def tokenize(text: str) -> list[str]:
    """Lower-case alphanumeric words without stopwords; a plural 's' is dropped so that
    'models' matches 'model' (cheap, predictable, no stemmer dependency)."""
    tokens = []
    for tok in _TOKEN.findall(text.lower()):
        if tok in _STOPWORDS or len(tok) < 2:
            continue
        if len(tok) > 3 and tok.endswith("s") and not tok.endswith("ss"):
            tok = tok[:-1]
        tokens.append(tok)
    return tokens


class BM25Index:
    """Document rows in insertion order; ``ids[i]`` is the paper id of row i."""

    def __init__(self, directory: Path):
        self.directory = directory
        self.ids: list[str] = []
        self.vocab: dict[str, int] = {}
        self.years = np.zeros(0, dtype=np.int32)  # 0 = unknown
        self.categories: list[tuple[str, ...]] = []
        self.titles: list[str] = []  # normalised titles, for duplicate detection on ingest
        self._weights = sparse.csc_matrix((0, 0), dtype=np.float32)
        self._row_of: dict[str, int] = {}
        self._category_rows: dict[str, np.ndarray] | None = None

    # --- persistence --------------------------------------------------------------------
    @classmethod
    def load(cls, directory: Path) -> "BM25Index":
        index = cls(directory)
        meta_path = directory / "index.pkl"
        if meta_path.is_file():
            with meta_path.open("rb") as fh:
                meta = pickle.load(fh)
            index.ids, index.vocab = meta["ids"], meta["vocab"]
            index.years, index.categories, index.titles = meta["years"], meta["categories"], meta["titles"]
            index._weights = sparse.load_npz(directory / "weights.npz").tocsc()
            index._row_of = {pid: i for i, pid in enumerate(index.ids)}
        return index

    def write(self, directory: Path, tokens: list[list[str]]) -> None:
        """Write the three files into ``directory`` (fresh, not yet published) and fsync them."""
        directory.mkdir(parents=True, exist_ok=True)
        meta = {"ids": self.ids, "vocab": self.vocab, "years": self.years,
                "categories": self.categories, "titles": self.titles}
        for name, dump in (("index.pkl", lambda fh: pickle.dump(meta, fh, protocol=5)),
                           # uncompressed: loads without conversion
                           ("weights.npz", lambda fh: sparse.save_npz(fh, self._weights.tocsc(), compressed=False)),
                           ("tokens.pkl", lambda fh: pickle.dump(tokens, fh, protocol=5))):
            with (directory / name).open("wb") as fh:
                dump(fh)
                fh.flush()
                os.fsync(fh.fileno())

    def load_tokens(self) -> list[list[str]]:
        path = self.directory / "tokens.pkl"
        if not path.is_file():
            return []
        with path.open("rb") as fh:
            return pickle.load(fh)

    # --- building -----------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.ids)

    def __contains__(self, paper_id: str) -> bool:
        return paper_id in self._row_of

    @classmethod
    def build(cls, directory: Path, ids: Sequence[str], tokens: list[list[str]], years: Sequence[int | None],
              categories: Sequence[Sequence[str]], titles: Sequence[str]) -> "BM25Index":
        """An index over tokenised documents (weights computed over all of them); not yet written."""
        index = cls(directory)
        index.ids = list(ids)
        index.years = np.array([y or 0 for y in years], dtype=np.int32)
        index.categories = [tuple(c) for c in categories]
        index.titles = list(titles)
        index._row_of = {pid: i for i, pid in enumerate(index.ids)}
        index._build(tokens)
        return index

    def _build(self, tokens: list[list[str]]) -> None:
        from rank_bm25 import BM25Okapi

        if not tokens:  # rank-bm25 cannot average over zero documents
            self.vocab, self._weights = {}, sparse.csc_matrix((0, 0), dtype=np.float32)
            return
        # rank-bm25 divides by the corpus size and the vocabulary size; give it one token.
        okapi = BM25Okapi([doc or ["\0"] for doc in tokens])
        self.vocab = {term: i for i, term in enumerate(okapi.idf)}
        idf = np.array([okapi.idf[t] for t in self.vocab], dtype=np.float64)
        norm = okapi.k1 * (1 - okapi.b + okapi.b * np.asarray(okapi.doc_len, dtype=np.float64) / okapi.avgdl)
        rows, cols, tfs = [], [], []
        for row, freqs in enumerate(okapi.doc_freqs):
            rows.extend([row] * len(freqs))
            cols.extend(self.vocab[t] for t in freqs)
            tfs.extend(freqs.values())
        rows_a, cols_a = np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64)
        tf = np.asarray(tfs, dtype=np.float64)
        weights = idf[cols_a] * tf * (okapi.k1 + 1) / (tf + norm[rows_a])
        self._weights = sparse.csc_matrix(
            (weights.astype(np.float32), (rows_a, cols_a)), shape=(len(tokens), len(self.vocab))
        )

    def document_frequency(self, terms: Sequence[str]) -> dict[str, int]:
        """Documents containing each (tokenised) term; 0 for terms the index never saw."""
        weights = self._weights.tocsc() if not sparse.isspmatrix_csc(self._weights) else self._weights
        counts = {}
        for term in terms:
            col = self.vocab.get(term)
            counts[term] = 0 if col is None else int(weights.indptr[col + 1] - weights.indptr[col])
        return counts

    # --- searching ----------------------------------------------------------------------
    def row(self, paper_id: str) -> int | None:
        return self._row_of.get(paper_id)

    def rows_for(self, ids: Collection[str]) -> np.ndarray:
        return np.array(sorted(self._row_of[i] for i in ids if i in self._row_of), dtype=np.int64)

    def filter_mask(self, year_range: tuple[int, int] | None,
                    categories: Sequence[str] | None) -> np.ndarray | None:
        """Boolean row mask for the filters, or None when there are none."""
        if year_range is None and not categories:
            return None
        mask = np.ones(len(self.ids), dtype=bool)
        if year_range is not None:
            mask &= (self.years >= year_range[0]) & (self.years <= year_range[1])
        if categories:
            if self._category_rows is None:
                grouped: dict[str, list[int]] = {}
                for row, cats in enumerate(self.categories):
                    for c in cats:
                        grouped.setdefault(c, []).append(row)
                self._category_rows = {c: np.array(r, dtype=np.int64) for c, r in grouped.items()}
            any_category = np.zeros(len(self.ids), dtype=bool)
            for c in categories:
                any_category[self._category_rows.get(c, np.zeros(0, dtype=np.int64))] = True
            mask &= any_category
        return mask

    def scores(self, query: str, rows: np.ndarray | None = None) -> np.ndarray:
        """BM25 score of every row (or of ``rows``) for the query; query terms count with repeats."""
        n_rows = len(self.ids) if rows is None else len(rows)
        cols = [self.vocab[t] for t in tokenize(query) if t in self.vocab]
        if not cols:
            return np.zeros(n_rows, dtype=np.float32)
        unique, counts = np.unique(cols, return_counts=True)
        sub = self._weights[:, unique]
        if rows is not None:
            sub = sub.tocsr()[rows]
        return np.asarray(sub @ counts.astype(np.float32)).ravel()

    def search(self, query: str, n: int, *, within: Collection[str] | None = None,
               mask: np.ndarray | None = None) -> list[tuple[str, float]]:
        """Top ``n`` (id, score) with a positive score, optionally only within ids / a row mask."""
        rows = self.rows_for(within) if within is not None else None
        if rows is not None and mask is not None:
            rows = rows[mask[rows]]
        elif mask is not None:
            rows = np.flatnonzero(mask)
        scores = self.scores(query, rows)
        positive = np.flatnonzero(scores > 0)
        row_ids = rows if rows is not None else np.arange(len(self.ids))
        return [(self.ids[row_ids[i]], float(scores[i]))
                for i in top_n(scores, n, lambda i: self.ids[row_ids[i]], among=positive)]


def top_n(scores: np.ndarray, n: int, id_of, among: np.ndarray | None = None) -> list[int]:
    """Positions of the ``n`` best scores (optionally only ``among`` positions), best first, ties
    broken by ``id_of(position)``: every tie at the cut is kept before sorting, so the result does
    not depend on row order or on how a partial sort splits equal scores."""
    candidates = np.arange(len(scores)) if among is None else np.asarray(among, dtype=np.int64)
    if n <= 0 or len(candidates) == 0:
        return []
    if len(candidates) > n:
        cut = -np.partition(-scores[candidates], n - 1)[n - 1]
        candidates = candidates[scores[candidates] >= cut]
    return sorted(candidates.tolist(), key=lambda i: (-float(scores[i]), id_of(i)))[:n]
