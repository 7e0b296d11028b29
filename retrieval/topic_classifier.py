"""The topic's vocabulary, learned from its confident papers (pseudo-relevance feedback).

A topic's literature does not repeat the topic's words: a KV-cache or speculative-decoding paper is
about efficient LLM inference without writing "efficient inference". What its papers share is a
vocabulary. Given *seeds* (candidates that name every facet of the topic in their title) and a
random *background* sample of the store, a linear classifier over word and bigram TF-IDF learns
that vocabulary ("kv cache", "speculative decoding", "quantization", "throughput") and scores any
paper by it. Scores are read relative to the background and the seeds, both held out from the fit
(a z-score against half of the background the classifier never saw, and the position between the
background's and the seeds' cross-validated medians), so they mean the same on every topic.

scikit-learn does the work (HashingVectorizer needs no vocabulary fit, so papers found in later
rounds are vectorised on their own; TfidfTransformer's IDF comes from the background sample, a
random sample of the store; LogisticRegression is the classifier).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

N_FEATURES = 2**20
MIN_BACKGROUND = 50


def paper_document(title: str, abstract: str) -> str:
    """The text a paper is vectorised from: the title counts twice (it says what the paper is about)."""
    return f"{title}. {title}. {abstract}"


class TermSpace:
    """Word + bigram TF-IDF with IDF from a background sample (hashed: no vocabulary to refit)."""

    def __init__(self, background_documents: Sequence[str]):
        from sklearn.feature_extraction.text import HashingVectorizer, TfidfTransformer

        self._hasher = HashingVectorizer(ngram_range=(1, 2), n_features=N_FEATURES, alternate_sign=False,
                                         norm=None, stop_words="english", dtype=np.float32)
        self._tfidf = TfidfTransformer(sublinear_tf=True).fit(self._hasher.transform(background_documents))

    def vectors(self, documents: Sequence[str]):
        return self._tfidf.transform(self._hasher.transform(documents))


@dataclass
class TopicClassifier:
    """A fitted classifier and the reference points that make its scores comparable across topics."""

    model: object
    background_mean: float
    background_std: float
    background_median: float
    seed_median: float

    def raw(self, matrix) -> np.ndarray:
        return self.model.decision_function(matrix)

    def readings(self, matrix) -> tuple[np.ndarray, np.ndarray]:
        """(z against the held-out background, position between background and seed medians)."""
        scores = self.raw(matrix)
        z = (scores - self.background_mean) / max(self.background_std, 1e-6)
        span = max(self.seed_median - self.background_median, 1e-6)
        return z, (scores - self.background_median) / span


class _Compact:
    """A classifier fitted on the hashed columns its training rows use: the solver's cost follows
    the width of the matrix, and 2^20 columns of which a few tens of thousands occur cost 10x more."""

    def __init__(self, positive, negative, c: float):
        from scipy.sparse import vstack
        from sklearn.linear_model import LogisticRegression

        matrix = vstack([positive, negative]).tocsr()
        self.columns = np.unique(matrix.indices)
        labels = np.r_[np.ones(positive.shape[0]), np.zeros(negative.shape[0])]
        self.model = LogisticRegression(C=c, solver="liblinear", class_weight="balanced").fit(
            matrix[:, self.columns], labels)

    def decision_function(self, matrix) -> np.ndarray:
        return self.model.decision_function(matrix.tocsr()[:, self.columns])


def _fit(positive, negative, c: float) -> _Compact:
    return _Compact(positive, negative, c)


def fit_topic_classifier(seeds, background, *, c: float = 1.0, seed: int = 0) -> TopicClassifier:
    """Fit on the seeds against half of the background; read the other half and cross-validated
    seed scores as the reference points. ``seeds`` and ``background`` are TermSpace matrices."""
    rng = np.random.default_rng(seed)
    n_bg = background.shape[0]
    if seeds.shape[0] < 2 or n_bg < MIN_BACKGROUND:
        raise ValueError(f"too few seeds ({seeds.shape[0]}) or background papers ({n_bg}) to learn a topic")
    order = rng.permutation(n_bg)
    train_bg, held_bg = background[order[: n_bg // 2]], background[order[n_bg // 2:]]
    model = _fit(seeds, train_bg, c)
    held = model.decision_function(held_bg)
    # Seeds' typical score as a paper the classifier did not train on: two folds over the seeds.
    seed_order = rng.permutation(seeds.shape[0])
    halves = [seed_order[::2], seed_order[1::2]]
    seed_scores = []
    for held_out, train in ((halves[0], halves[1]), (halves[1], halves[0])):
        if len(train) and len(held_out):
            seed_scores.append(_fit(seeds[train], train_bg, c).decision_function(seeds[held_out]))
    seed_median = float(np.median(np.concatenate(seed_scores))) if seed_scores else float(np.median(held))
    return TopicClassifier(model, float(held.mean()), float(held.std()), float(np.median(held)), seed_median)
