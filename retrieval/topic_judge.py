"""Is this paper about the topic? The one judgment that decides which papers may enter a survey.

A ``TopicJudge`` holds what a topic was read as: its facets (retrieval/topic_facets.py), the
classifier of its vocabulary learned from its confident papers (retrieval/topic_classifier.py), the
centroid of those papers and the topic string in the index's embedding space, and a random
background sample of the store that puts every reading on a common scale. It describes any paper
of the store by ``FEATURES``:

- ``vocab_z``, ``vocab_rel``: the vocabulary classifier's score as a z-score against the held-out
  background, and as the position between the background's and the seeds' medians;
- ``facet_title``, ``facet_text``, ``facet_mean``: how much of the weakest facet the title names,
  and title + abstract, and the facets' mean share (words, stemmed);
- ``facet_vocab_min``: every facet also has a vocabulary of its own, learned from the store's papers
  that name that facet in their title (fairness papers of any field, recommender papers of any
  kind); the weakest facet's z-score says whether the paper is about *every* facet in meaning,
  not only in words (a KV-cache paper is about "efficient inference" without the words);
- ``centroid_z``, ``topic_z``: embedding cosine to the confident papers' centroid and to the topic
  string, as z-scores against the background.

A logistic model over these features, fitted on the corpus-wide labelled set
(``tests/data/relevance_corpus_labels.jsonl``; guide in docs/relevance_labelling.md) with
leave-one-topic-out checks (``benchmarks/relevance_bench.py``), gives a probability; the threshold
that keeps a paper was chosen there too. Model and threshold ship in ``relevance_model.json``;
nothing is tuned per topic.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from .embeddings import MINILM_STATIC
from .topic_classifier import TermSpace, TopicClassifier, paper_document
from .facet_reading import FacetReading, read_facets
from .topic_facets import Facet

MODEL_PATH = Path(__file__).with_name("relevance_model.json")  # fitted on a minilm-head index (the default)
# The model fitted on a minilm-static index (session 20): ``centroid_z`` and ``topic_z`` read the
# index's own vectors, so a store indexed with the static encoder keeps the model fitted on it.
STATIC_MODEL_PATH = Path(__file__).with_name("relevance_model_static.json")
# A paper holds a facet in meaning when its score on the facet's vocabulary is this many standard
# deviations above the store's background (chosen leave-one-topic-out on the labelled set:
# benchmarks/results/topic_pool.md, "facet gate").
FACET_HOLDS_Z = 1.0
# ... and, on the facet the candidates name least, at least as high as all but this share of the
# topic's own papers (the candidates naming every facet) score on it: a fixed z lets a steady share
# of the broad facet's papers through, which swamps a rare pairing (topic_pool.md, session 16).
FACET_BAR_QUANTILE = 0.1
MIN_BAR_REFERENCE = 5  # fewer papers naming every facet than this: the fixed bar alone
FEATURES = ("vocab_z", "vocab_rel", "facet_title", "facet_text", "facet_mean", "facet_vocab_min", "centroid_z",
            "topic_z")


@dataclass(frozen=True)
class RelevanceModel:
    """Standardised logistic regression over FEATURES and the keep-threshold on its probability."""

    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float
    threshold: float
    record: dict = field(default_factory=dict, compare=False)

    def probability(self, matrix: np.ndarray) -> np.ndarray:
        z = (np.asarray(matrix, dtype=float) - np.array(self.mean)) / np.array(self.scale)
        return 1.0 / (1.0 + np.exp(-np.clip(z @ np.array(self.coef) + self.intercept, -50, 50)))

    def to_dict(self) -> dict:
        return {"features": list(FEATURES), "mean": list(self.mean), "scale": list(self.scale),
                "coef": list(self.coef), "intercept": self.intercept, "threshold": self.threshold,
                "record": self.record}

    @classmethod
    def from_dict(cls, data: dict) -> "RelevanceModel":
        if list(data.get("features", [])) != list(FEATURES):
            raise ValueError(f"relevance model features {data.get('features')} do not match {list(FEATURES)}")
        return cls(tuple(data["mean"]), tuple(data["scale"]), tuple(data["coef"]), float(data["intercept"]),
                   float(data["threshold"]), dict(data.get("record") or {}))


@lru_cache(maxsize=2)
def load_model(path: str | None = None) -> RelevanceModel:
    return RelevanceModel.from_dict(json.loads(Path(path or MODEL_PATH).read_text(encoding="utf-8")))


def model_path_for(store: object) -> Path:
    """The shipped model fitted on the encoder ``store`` (a Corpus) indexes with."""
    encoder = getattr(getattr(getattr(store, "settings", None), "embedding", None), "model", None)
    return STATIC_MODEL_PATH if encoder == MINILM_STATIC else MODEL_PATH


def model_for(store: object) -> RelevanceModel:
    return load_model(str(model_path_for(store)))


def fit_model(matrix: np.ndarray, labels: np.ndarray, weights: np.ndarray | None = None, *,
              threshold: float = 0.5, record: dict | None = None, c: float = 1.0) -> RelevanceModel:
    """Fit the logistic model (scikit-learn, L2, C=``c``) on standardised features."""
    from sklearn.linear_model import LogisticRegression

    matrix = np.asarray(matrix, dtype=float)
    mean, scale = matrix.mean(axis=0), matrix.std(axis=0)
    scale = np.where(scale > 1e-9, scale, 1.0)
    fitted = LogisticRegression(C=c, max_iter=2000).fit((matrix - mean) / scale, labels, sample_weight=weights)
    return RelevanceModel(tuple(map(float, mean)), tuple(map(float, scale)), tuple(map(float, fitted.coef_[0])),
                          float(fitted.intercept_[0]), float(threshold), dict(record or {}))


def best_threshold(probability: np.ndarray, labels: np.ndarray, weights: np.ndarray, *,
                   min_precision: float = 0.9) -> float:
    """The lowest probability cut whose weighted precision is at least ``min_precision`` (recall
    first, then precision: the issue's order); the F0.5 cut when no cut reaches it."""
    cuts = np.unique(np.round(probability, 4))
    best_f, best_cut = -1.0, 0.5
    positives = max(float(weights[labels == 1].sum()), 1e-12)
    for cut in cuts:  # ascending: the first cut that is precise enough keeps the most
        kept = probability >= cut
        tp = float(weights[kept & (labels == 1)].sum())
        precision = tp / max(float(weights[kept].sum()), 1e-12)
        if precision >= min_precision and kept.any():
            return float(cut)
        recall = tp / positives
        if precision + recall > 0:
            f = 1.25 * precision * recall / (0.25 * precision + recall)
            if f > best_f:
                best_f, best_cut = f, float(cut)
    return best_cut


def _unit(matrix: np.ndarray) -> np.ndarray:
    return matrix / np.maximum(np.linalg.norm(matrix, axis=-1, keepdims=True), 1e-12)


@dataclass
class PaperRecord:
    """What the judge reads of a paper: its text and its vector in the index."""

    paper_id: str
    title: str
    abstract: str
    vector: np.ndarray | None


class ReadingCache:
    """Term vectors and facet readings of papers, kept across a pool build's rounds: the facets
    and the term space do not change between rounds, only the classifier and the centroid do."""

    def __init__(self, space: TermSpace, facets: Sequence[Facet]):
        self.space, self.facets = space, list(facets)
        self._rows: dict[str, object] = {}
        self._readings: dict[str, FacetReading] = {}

    def term_rows(self, papers: Sequence[PaperRecord]):
        from scipy.sparse import vstack

        missing = [p for p in papers if p.paper_id not in self._rows]
        if missing:
            matrix = self.space.vectors([paper_document(p.title, p.abstract) for p in missing]).tocsr()
            self._rows.update((p.paper_id, matrix[i]) for i, p in enumerate(missing))
        return vstack([self._rows[p.paper_id] for p in papers]).tocsr()

    def readings(self, papers: Sequence[PaperRecord]) -> list[FacetReading]:
        for p in papers:
            if p.paper_id not in self._readings:
                self._readings[p.paper_id] = read_facets(self.facets, p.title, p.abstract)
        return [self._readings[p.paper_id] for p in papers]


@dataclass
class TopicJudge:
    facets: list[Facet]
    space: TermSpace
    classifier: TopicClassifier
    centroid: np.ndarray
    topic_vector: np.ndarray
    background_cosines: dict[str, tuple[float, float]]  # "centroid"/"topic" -> (mean, std) over the background
    # one per facet, in the facets' order; None where the store holds too few papers naming it to learn
    facet_classifiers: list[TopicClassifier | None] = field(default_factory=list)
    cache: ReadingCache | None = None
    facet_gate: bool = True
    # one per facet: the vocabulary score a paper not naming the facet needs (facet_bars())
    facet_bars: list[float] = field(default_factory=list)

    def features(self, papers: Sequence[PaperRecord]) -> np.ndarray:
        if not papers:
            return np.zeros((0, len(FEATURES)))
        cache = self.cache or ReadingCache(self.space, self.facets)
        rows = cache.term_rows(papers)
        vocab_z, vocab_rel = self.classifier.readings(rows)
        learned = [c for c in self.facet_classifiers if c is not None]
        facet_vocab = np.min([c.readings(rows)[0] for c in learned], axis=0) if learned else vocab_z
        facets = cache.readings(papers)
        dim = len(self.centroid)
        vectors = _unit(np.stack([p.vector if p.vector is not None else np.zeros(dim) for p in papers]))
        rows = np.column_stack([
            vocab_z, vocab_rel,
            [f.title_min for f in facets], [f.text_min for f in facets], [f.text_mean for f in facets], facet_vocab,
            self._z(vectors @ self.centroid, "centroid"), self._z(vectors @ self.topic_vector, "topic"),
        ])
        return rows

    def _z(self, cosines: np.ndarray, name: str) -> np.ndarray:
        mean, std = self.background_cosines[name]
        return (cosines - mean) / max(std, 1e-6)

    def facets_hold(self, papers: Sequence[PaperRecord]) -> np.ndarray:
        """Whether each paper is about every facet of a multi-facet topic: it names the facet
        (every unit, in title or abstract) or reads as the facet's own papers do (its score on the
        vocabulary learned from the papers naming the facet reaches the facet's bar, facet_bars()).

        Why a rule beside the model: the model weighs the topic's learned vocabulary far above the
        facet readings, and a vocabulary learned from a few seeds of a rare facet pairing is the
        broad facet's vocabulary ('graph neural networks for drug discovery' kept GNN papers on
        tabular data and fraud; 'privacy attacks on federated learning' kept personalised FL). A
        paper off one facet is off the topic however close it is to the other."""
        if not papers:
            return np.ones(0, dtype=bool)
        cache = self.cache or ReadingCache(self.space, self.facets)
        readings = cache.readings(papers)
        # a facet asking for a kind of work ("how to benchmark ...") holds only where the work says
        # it is one: the vocabulary of reasoning benchmarks is the vocabulary of reasoning methods
        # (retrieval/kind_units.py)
        holds = np.array([all(r.kinds) for r in readings], dtype=bool)
        if len(self.facets) < 2:
            return holds
        rows = cache.term_rows(papers)
        shares = np.array([r.text_shares for r in readings])
        for index, facet in enumerate(self.facets):
            named = shares[:, index] >= 1.0
            classifier = self.facet_classifiers[index] if index < len(self.facet_classifiers) else None
            bar = self.facet_bars[index] if index < len(self.facet_bars) else FACET_HOLDS_Z
            meaning = (classifier.readings(rows)[0] >= bar if classifier is not None
                       else np.zeros(len(papers), dtype=bool))
            holds &= named | meaning
        return holds

    def probability(self, papers: Sequence[PaperRecord], model: RelevanceModel | None = None) -> np.ndarray:
        p = (model or load_model()).probability(self.features(papers))
        return np.where(self.facets_hold(papers), p, 0.0) if self.facet_gate else p

    def to_record(self) -> dict:
        """What the manifest keeps of the judge (its facets and scale), for reading it later."""
        return {"facets": [f.to_dict() for f in self.facets], "facet_gate": self.facet_gate,
                "facet_vocabularies": [c is not None for c in self.facet_classifiers],
                "facet_bars": [round(b, 3) for b in self.facet_bars],
                "classifier": {"background_median": round(self.classifier.background_median, 4),
                               "seed_median": round(self.classifier.seed_median, 4)},
                "background_cosines": {k: [round(v, 4) for v in pair] for k, pair in self.background_cosines.items()}}


@dataclass
class FacetRuleJudge:
    """A small store's judge: on topic when the title or abstract names every facet. A store of a
    few hundred papers holds too little background to learn a vocabulary against (the classifier
    needs MIN_BACKGROUND papers off the topic), so the facets' words are all there is to read."""

    facets: list[Facet]
    cache: ReadingCache

    def probability(self, papers: Sequence[PaperRecord], model: RelevanceModel | None = None) -> np.ndarray:
        return np.array([float(r.text_min >= 1.0) for r in self.cache.readings(papers)])

    def to_record(self) -> dict:
        return {"facets": [f.to_dict() for f in self.facets], "rule": "every facet named (small store)"}


def facet_bars(facets: Sequence[Facet], facet_classifiers: Sequence[TopicClassifier | None],
               cache: ReadingCache, candidates: Sequence[PaperRecord]) -> list[float]:
    """Per facet, the vocabulary score a paper must reach to hold the facet without naming it:
    FACET_HOLDS_Z, and for the facet the candidates name least, at least the FACET_BAR_QUANTILE of
    the scores of the candidates that name every facet (the topic's undisputed papers; when fewer
    than MIN_BAR_REFERENCE do and that facet is a term, of those naming it). Why: the
    papers naming a rare pairing score far above the background on the rare facet (GNNs for drug
    discovery: 5-45 SD on the drug-discovery vocabulary) while a knowledge-graph QA paper reaches
    1-2.5, so a fixed bar of 1 SD keeps a steady share of the broad facet's papers, which swamps
    a pairing the corpus holds a dozen papers of."""
    bars = [FACET_HOLDS_Z] * len(facets)
    if len(facets) < 2 or not candidates:
        return bars
    named = np.array([r.text_shares for r in cache.readings(candidates)]) >= 1.0
    undisputed = named.all(axis=1)
    # Only the facet the candidates name least: the drift runs through the other facet's papers
    # reading a little like the rare one. Raising every facet's bar cost recall on an untuned
    # topic ('federated learning in healthcare' 50 -> 26 kept, mostly on topic).
    rarest = int(np.argmin(named.sum(axis=0)))
    if undisputed.sum() < MIN_BAR_REFERENCE:
        # too few name every facet to read the pairing from: when the rare facet is a term (one unit
        # of several words), the papers naming it are the reference ("graph neural networks for
        # molecular property prediction": 3 candidates name both, and at 1 SD the GNN papers on
        # knowledge graphs and images held the molecular facet). Not for a description's words: read
        # so, "decentralized clients" of a federated-learning description kept 23 papers, not 202.
        if not _is_term(facets[rarest]):
            return bars
        undisputed = named[:, rarest]
        if undisputed.sum() < MIN_BAR_REFERENCE:
            return bars
    rows = cache.term_rows([p for p, keep in zip(candidates, undisputed) if keep])
    classifier = facet_classifiers[rarest] if rarest < len(facet_classifiers) else None
    if classifier is not None:
        bars[rarest] = max(FACET_HOLDS_Z, float(np.quantile(classifier.readings(rows)[0], FACET_BAR_QUANTILE)))
    return bars


def _is_term(facet: Facet) -> bool:
    """One unit of several words: a term the literature names (and often abbreviates) as a whole."""
    return len(facet.units) == 1 and " " in facet.units[0].phrase


def make_judge(facets: list[Facet], space: TermSpace, classifier: TopicClassifier, seed_vectors: np.ndarray,
               topic_vector: np.ndarray, background_vectors: np.ndarray, cache: ReadingCache | None = None,
               facet_classifiers: Sequence[TopicClassifier | None] = (), facet_gate: bool = True,
               bars: Sequence[float] = ()) -> TopicJudge:
    """A judge whose centroid is the seeds' and whose cosines are scaled by the background's."""
    centroid = _unit(np.asarray(seed_vectors, dtype=float).mean(axis=0))
    topic_vector = _unit(np.asarray(topic_vector, dtype=float))
    background = _unit(np.asarray(background_vectors, dtype=float))
    scale = {}
    for name, reference in (("centroid", centroid), ("topic", topic_vector)):
        cosines = background @ reference
        scale[name] = (float(cosines.mean()), float(cosines.std()))
    return TopicJudge(facets, space, classifier, centroid, topic_vector, scale, list(facet_classifiers), cache,
                      facet_gate, list(bars))


def load_labels(path: Path, topic: str) -> dict[str, int]:
    """arXiv id -> 0/1 for ``topic`` from a labelled relevance file (JSON lines with topic,
    arxiv_id, label); empty when the file has no judgment for the topic."""
    wanted = " ".join(topic.lower().split())
    found: dict[str, int] = {}
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            if " ".join(str(row.get("topic", "")).lower().split()) == wanted:
                found[str(row["arxiv_id"])] = int(row["label"])
    return found
