"""BM25 over title + abstract, split into immutable segments that share corpus-wide statistics.

The scores are rank-bm25's ``BM25Okapi.get_scores`` over the whole corpus (k1 = 1.5, b = 0.75,
idf = ln(N - df + 0.5) - ln(df + 0.5), negative idfs floored at 0.25 x the mean idf; a test checks
equality), but nothing is precomputed that depends on the whole corpus: a segment stores only
term frequencies and document lengths (``SegmentPostings``), and a generation stores the
document frequency of every term (``TermStats``). Adding papers writes one new segment and
merges its document frequencies in; the old design rebuilt a precomputed weight matrix of the
whole corpus on every add (unpickling every tokenised paper: 3.1 GB at 300k papers).

Terms are stored as 64-bit hashes (blake2b): at 3M papers the vocabulary has millions of terms,
and an array of hashes is mmap-able and 8 bytes a term, where a Python dict of strings is not.
A collision between two of a few million terms has a probability of ~1e-7.

Ties are broken by paper id, so a ranking does not depend on row or segment order.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

K1, B, EPSILON = 1.5, 0.75, 0.25  # rank-bm25's BM25Okapi defaults
EMPTY_DOCUMENT = ["\0"]  # rank-bm25 divides by corpus and vocabulary size: an empty paper gets one token

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


@lru_cache(maxsize=1 << 20)
def term_hash(term: str) -> int:
    return int.from_bytes(hashlib.blake2b(term.encode("utf-8"), digest_size=8).digest(), "little")


def query_terms(query: str) -> tuple[np.ndarray, np.ndarray]:
    """(sorted unique term hashes, how often each occurs in the query)."""
    counts = Counter(term_hash(t) for t in tokenize(query))
    terms = np.array(sorted(counts), dtype=np.uint64)
    return terms, np.array([counts[int(t)] for t in terms], dtype=np.float64)


@dataclass
class SegmentPostings:
    """Term frequencies of one segment: for term ``terms[i]``, documents ``rows[ptr[i]:ptr[i+1]]``
    (local rows) with frequencies ``tf[ptr[i]:ptr[i+1]]``; ``doc_len`` per row."""

    terms: np.ndarray  # uint64, sorted, unique
    ptr: np.ndarray  # int64, len(terms) + 1
    rows: np.ndarray  # int32
    tf: np.ndarray  # uint16 (capped)
    doc_len: np.ndarray  # int32

    @classmethod
    def build(cls, tokens: Sequence[Sequence[str]]) -> "SegmentPostings":
        term_list: list[int] = []
        row_list: list[int] = []
        tf_list: list[int] = []
        doc_len = np.zeros(len(tokens), dtype=np.int32)
        for row, doc in enumerate(tokens):
            doc = doc or EMPTY_DOCUMENT
            doc_len[row] = len(doc)
            for term, freq in Counter(doc).items():
                term_list.append(term_hash(term))
                row_list.append(row)
                tf_list.append(freq)
        return cls.from_triples(np.array(term_list, dtype=np.uint64), np.array(row_list, dtype=np.int32),
                                np.minimum(np.array(tf_list, dtype=np.int64), 65535).astype(np.uint16), doc_len)

    @classmethod
    def from_triples(cls, terms: np.ndarray, rows: np.ndarray, tf: np.ndarray,
                     doc_len: np.ndarray) -> "SegmentPostings":
        order = np.lexsort((rows, terms))
        terms, rows, tf = terms[order], rows[order], tf[order]
        unique, starts = np.unique(terms, return_index=True)
        ptr = np.append(starts, len(terms)).astype(np.int64)
        return cls(unique.astype(np.uint64), ptr, rows.astype(np.int32), tf.astype(np.uint16), doc_len)

    def document_frequency(self) -> np.ndarray:
        return np.diff(self.ptr)

    def triples(self, row_offset: int = 0, keep_rows: np.ndarray | None = None):
        """(term, row + offset, tf) of every posting; ``keep_rows`` maps old local rows to new ones
        (-1 = dropped) when a segment is rewritten without some papers."""
        terms = np.repeat(self.terms, np.diff(self.ptr))
        rows, tf = np.asarray(self.rows), np.asarray(self.tf)
        if keep_rows is not None:
            new_rows = keep_rows[rows]
            kept = new_rows >= 0
            return terms[kept], (new_rows[kept] + row_offset).astype(np.int32), tf[kept]
        return terms, (rows + row_offset).astype(np.int32), tf

    def scores(self, q_terms: np.ndarray, weights: np.ndarray, avgdl: float) -> np.ndarray:
        """BM25 of every row: sum over query terms of weight (= idf x query count) x the Okapi tf part.
        The postings of all query terms are gathered first and summed per row with one bincount
        (scattering term by term with fancy indexing cost ~3x more at 300k papers)."""
        n = len(self.doc_len)
        if len(self.terms) == 0 or len(q_terms) == 0:
            return np.zeros(n, dtype=np.float64)
        positions = np.searchsorted(self.terms, q_terms)
        rows_parts, value_parts = [], []
        norm_base, norm_slope = K1 * (1 - B), K1 * B / avgdl
        for term, term_pos, weight in zip(q_terms, positions, weights):
            if term_pos >= len(self.terms) or self.terms[term_pos] != term or weight == 0:
                continue
            lo, hi = int(self.ptr[term_pos]), int(self.ptr[term_pos + 1])
            rows = np.asarray(self.rows[lo:hi])
            tf = np.asarray(self.tf[lo:hi], dtype=np.float64)
            norm = norm_base + norm_slope * self.doc_len[rows]
            rows_parts.append(rows)
            value_parts.append(weight * (K1 + 1) * tf / (tf + norm))
        if not rows_parts:
            return np.zeros(n, dtype=np.float64)
        return np.bincount(np.concatenate(rows_parts), weights=np.concatenate(value_parts), minlength=n)


class TermStats:
    """Corpus-wide document frequencies (sorted term hashes + counts), document count and total
    length: what rank-bm25's idf and average document length need."""

    def __init__(self, terms: np.ndarray, df: np.ndarray, documents: int, total_length: int):
        self.terms, self.df = terms, df
        self.documents, self.total_length = int(documents), int(total_length)
        self.average_idf = self._average_idf()

    @classmethod
    def empty(cls) -> "TermStats":
        return cls(np.zeros(0, np.uint64), np.zeros(0, np.int64), 0, 0)

    @classmethod
    def combine(cls, parts: Sequence[tuple[np.ndarray, np.ndarray]], documents: int,
                total_length: int) -> "TermStats":
        """Sum the (terms, df) of several parts (segments, or the old stats and a new segment)."""
        parts = [(t, d) for t, d in parts if len(t)]
        if not parts:
            return cls(np.zeros(0, np.uint64), np.zeros(0, np.int64), documents, total_length)
        terms = np.concatenate([np.asarray(t, dtype=np.uint64) for t, _ in parts])
        df = np.concatenate([np.asarray(d, dtype=np.int64) for _, d in parts])
        unique, inverse = np.unique(terms, return_inverse=True)
        return cls(unique, np.bincount(inverse, weights=df).astype(np.int64), documents, total_length)

    def _average_idf(self) -> float:
        if not len(self.df):
            return 0.0
        n = self.documents
        return float(np.mean(np.log(n - self.df + 0.5) - np.log(self.df + 0.5)))

    @property
    def avgdl(self) -> float:
        return self.total_length / self.documents if self.documents else 1.0

    def lookup(self, terms: np.ndarray) -> np.ndarray:
        """Document frequency of each term hash (0 when unseen)."""
        if not len(self.terms):
            return np.zeros(len(terms), dtype=np.int64)
        pos = np.minimum(np.searchsorted(self.terms, terms), len(self.terms) - 1)
        return np.where(self.terms[pos] == terms, self.df[pos], 0)

    def idf(self, terms: np.ndarray) -> np.ndarray:
        """rank-bm25's idf, 0 for terms no paper contains (rank-bm25 skips them)."""
        df = self.lookup(terms).astype(np.float64)
        n = self.documents
        raw = np.log(n - df + 0.5) - np.log(df + 0.5)
        raw = np.where(raw < 0, EPSILON * self.average_idf, raw)
        return np.where(df > 0, raw, 0.0)


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
