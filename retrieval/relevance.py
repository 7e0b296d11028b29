"""Is this paper about the topic? The one place that decides which papers may enter a survey.

A topic is read as a few key concepts ("Retrieval-Augmented Generation for Large Language Models"
-> "retrieval-augmented generation", "large language models"), each with the variants the
literature uses for it: its plural/hyphen forms, the acronyms the candidates' own abstracts
define for it ("(RAG)", "(VLA)", "(3DGS)") and the phrase without a generic head noun
("graph neural" for "graph neural networks"). A paper is then described by

- ``coverage``: the share of the concepts' weight (corpus IDF) that its title and abstract mention;
- ``all_concepts``: whether every concept is mentioned;
- ``specific_title``: the most specific concept (highest IDF) named in the title;
- ``topic_cos``: dense similarity of the paper to the topic string;
- ``centroid_cos``: dense similarity to the centroid of the best-ranked candidates that mention
  every concept (pseudo-relevance feedback: the "on-topic centroid").

A logistic model over these features, fitted on the labelled relevance set
(``tests/data/relevance_labels.jsonl``, guide in docs/relevance_labelling.md), gives a probability;
the threshold that keeps a paper was chosen on the labelled data, leave-one-topic-out
(``benchmarks/relevance_bench.py``, figures in BENCHMARKS.md). The model and threshold ship in
``relevance_model.json``; nothing here is tuned per topic.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from .bm25_index import tokenize

MODEL_PATH = Path(__file__).with_name("relevance_model.json")
FEATURES = ("coverage", "all_concepts", "specific_title", "topic_cos", "centroid_cos")

# Words that join the concepts of a topic ("X for Y", "X in Y", "LLM-based Y"); "and" is not
# one of them: "Integrated Sensing and Communication" is one concept.
_CONNECTORS = re.compile(r"\s+(?:for|in|of|on|with|via|using|towards?|across|under|from)\s+|-based\s+|\s+based\s+",
                         re.IGNORECASE)
# Head nouns that say what kind of thing a concept is, not what it is about.
GENERIC_HEADS = frozenset({"model", "network", "system", "method", "approach", "framework", "technique",
                           "architecture", "algorithm"})
_ACRONYM = re.compile(r"\(([A-Za-z0-9][A-Za-z0-9\-]{1,11})\)")
SEED_LIMIT = 30  # best-ranked candidates that mention every concept, averaged into the centroid
MIN_SEEDS = 5


@dataclass(frozen=True)
class TopicConcept:
    phrase: str  # as written in the topic
    variants: tuple[str, ...]  # token strings (bm25 tokenisation) any of which names the concept
    idf: float  # log(N / df) of the concept in the corpus, the weight of its coverage

    def to_dict(self) -> dict:
        return {"phrase": self.phrase, "variants": list(self.variants), "idf": round(self.idf, 4)}

    @classmethod
    def from_dict(cls, data: dict) -> "TopicConcept":
        return cls(str(data["phrase"]), tuple(data["variants"]), float(data["idf"]))


def _token_string(text: str) -> str:
    return " ".join(tokenize(text))


def concept_phrases(topic: str) -> list[str]:
    """The topic split at its connectors: "Diffusion Models for Video Generation" ->
    ["Diffusion Models", "Video Generation"]."""
    parts = [p.strip(" ,:;-") for p in _CONNECTORS.split(" ".join(topic.split()))]
    return [p for p in parts if tokenize(p)]


def mine_acronyms(phrase_tokens: Sequence[str], texts: Sequence[str], *, min_count: int = 2) -> list[str]:
    """Acronyms the texts define for a phrase: "... large language models (LLMs)" -> "llm".

    The phrase (or the phrase without its generic head: "vision-language-action (VLA) models")
    must end right before the parenthesis; an acronym must be seen ``min_count`` times and its
    letters must start like the phrase (so "(GPT-4)" after "large language models" is not one)."""
    full = list(phrase_tokens)
    headless = full[:-1] if len(full) > 1 and full[-1] in GENERIC_HEADS else None
    counts: Counter[str] = Counter()
    for text in texts:
        for match in _ACRONYM.finditer(text):
            before = tokenize(text[max(0, match.start() - 160):match.start()])
            acronym = _token_string(match.group(1)).replace(" ", "")
            if not acronym or acronym[0] != full[0][0]:
                continue
            if before[-len(full):] == full or (headless and before[-len(headless):] == headless):
                counts[acronym] += 1
    return sorted(a for a, n in counts.items() if n >= min_count and len(a) >= 2)


def topic_concepts(topic: str, texts: Sequence[str], document_frequency: Callable[[list[str]], dict[str, int]],
                   n_documents: int) -> list[TopicConcept]:
    """The topic's concepts with their variants (mined from ``texts``, the candidates' titles and
    abstracts) and their corpus IDF (``document_frequency`` maps tokens to document counts)."""
    concepts = []
    for phrase in concept_phrases(topic):
        tokens = tokenize(phrase)
        variants = {" ".join(tokens)}
        if len(tokens) > 1 and tokens[-1] in GENERIC_HEADS:
            variants.add(" ".join(tokens[:-1]))
        if len(tokens) == 3:  # siblings: "graph * network" (convolutional, attention, ...)
            variants.add(f"{tokens[0]} * {tokens[2]}")
        variants.update(mine_acronyms(tokens, texts))
        needed = sorted({t for v in variants for t in v.split() if t != "*"})
        df = document_frequency(needed)
        # A multi-word variant is at most as frequent as its rarest word; the concept at least as
        # frequent as its most frequent variant (an estimate that needs no phrase index).
        variant_df = [min(df.get(t, 0) for t in v.split() if t != "*") for v in variants]
        concept_df = max(max(variant_df), 1)
        concepts.append(TopicConcept(phrase, tuple(sorted(variants)), math.log(max(n_documents, 2) / concept_df)))
    return concepts


@lru_cache(maxsize=4096)
def _variant_pattern(variant: str) -> re.Pattern:
    words = [r"\S+" if w == "*" else re.escape(w) for w in variant.split()]
    return re.compile(r"(?<!\S)" + " ".join(words) + r"(?!\S)")


def _mentions(variants: Sequence[str], token_text: str) -> int:
    return sum(len(_variant_pattern(v).findall(token_text)) for v in variants)


@dataclass
class PaperText:
    paper_id: str
    title: str
    abstract: str

    @property
    def text(self) -> str:
        return f"{self.title}. {self.abstract}"


def lexical_features(concepts: Sequence[TopicConcept], paper: PaperText) -> dict[str, float]:
    title, body = _token_string(paper.title), _token_string(paper.text)
    weights = np.array([max(c.idf, 1e-3) for c in concepts])
    present = np.array([_mentions(c.variants, body) > 0 for c in concepts], dtype=float)
    specific = concepts[int(np.argmax(weights))]
    return {
        "coverage": float(weights @ present / weights.sum()),
        "all_concepts": float(present.all()),
        "specific_title": float(_mentions(specific.variants, title) > 0),
    }


def _unit(matrix: np.ndarray) -> np.ndarray:
    return matrix / np.maximum(np.linalg.norm(matrix, axis=-1, keepdims=True), 1e-12)


def on_topic_centroid(vectors: np.ndarray, all_concepts: np.ndarray) -> np.ndarray:
    """Mean of the best-ranked candidates (rows in rank order) that mention every concept; the
    first candidates when fewer than MIN_SEEDS do."""
    seeds = np.flatnonzero(all_concepts > 0)[:SEED_LIMIT]
    if len(seeds) < MIN_SEEDS:
        seeds = np.arange(min(len(vectors), MIN_SEEDS * 2))
    return _unit(vectors[seeds].mean(axis=0))


@dataclass
class PoolFeatures:
    """Features of a ranked candidate pool (rows in retrieval order) and what they were made from."""

    ids: list[str]
    matrix: np.ndarray  # rows x FEATURES
    concepts: list[TopicConcept]
    centroid: np.ndarray
    topic_vector: np.ndarray

    def as_dicts(self) -> list[dict[str, float]]:
        return [dict(zip(FEATURES, map(float, row))) for row in self.matrix]


def pool_features(papers: Sequence[PaperText], vectors: np.ndarray, topic_vector: np.ndarray,
                  concepts: Sequence[TopicConcept], *, centroid: np.ndarray | None = None) -> PoolFeatures:
    """Features of ``papers`` (in rank order; ``vectors`` their embeddings) for the topic given by
    ``concepts`` and ``topic_vector``. The centroid comes from this pool unless given (scoring
    papers found later against the pool's)."""
    vectors, topic_vector = _unit(np.asarray(vectors, dtype=float)), _unit(np.asarray(topic_vector, dtype=float))
    lexical = [lexical_features(concepts, p) for p in papers]
    all_concepts = np.array([f["all_concepts"] for f in lexical])
    if centroid is None:
        centroid = on_topic_centroid(vectors, all_concepts)
    rows = [[f["coverage"], f["all_concepts"], f["specific_title"], float(v @ topic_vector), float(v @ centroid)]
            for f, v in zip(lexical, vectors)]
    matrix = np.array(rows, dtype=float).reshape(len(papers), len(FEATURES))
    return PoolFeatures([p.paper_id for p in papers], matrix, list(concepts), centroid, topic_vector)


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
        return 1.0 / (1.0 + np.exp(-(z @ np.array(self.coef) + self.intercept)))

    def keep(self, matrix: np.ndarray) -> np.ndarray:
        return self.probability(matrix) >= self.threshold

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


def fit_model(matrix: np.ndarray, labels: np.ndarray, weights: np.ndarray | None = None, *,
              threshold: float = 0.5, record: dict | None = None, c: float = 1.0) -> RelevanceModel:
    """Fit the logistic model (sklearn, L2, C=``c``) on standardised features."""
    from sklearn.linear_model import LogisticRegression

    matrix = np.asarray(matrix, dtype=float)
    mean, scale = matrix.mean(axis=0), matrix.std(axis=0)
    scale = np.where(scale > 1e-9, scale, 1.0)
    fitted = LogisticRegression(C=c, max_iter=1000).fit((matrix - mean) / scale, labels, sample_weight=weights)
    return RelevanceModel(tuple(map(float, mean)), tuple(map(float, scale)), tuple(map(float, fitted.coef_[0])),
                          float(fitted.intercept_[0]), float(threshold), dict(record or {}))


def best_threshold(probability: np.ndarray, labels: np.ndarray, weights: np.ndarray, *, beta: float = 0.5) -> float:
    """The probability cut maximising the weighted F-beta (beta < 1 weighs precision higher: a
    survey is better without a doubtful reference than with it)."""
    best, best_score = 0.5, -1.0
    for cut in np.unique(np.round(probability, 4)):
        kept = probability >= cut
        tp = float(weights[kept & (labels == 1)].sum())
        precision = tp / max(float(weights[kept].sum()), 1e-12)
        recall = tp / max(float(weights[labels == 1].sum()), 1e-12)
        if precision + recall == 0:
            continue
        score = (1 + beta**2) * precision * recall / (beta**2 * precision + recall)
        if score > best_score:
            best, best_score = float(cut), score
    return best


Encode = Callable[[list[str]], np.ndarray]


@dataclass
class PoolJudgment:
    """A judged candidate pool: features, probabilities and which papers are kept."""

    features: PoolFeatures
    probability: np.ndarray
    threshold: float

    @property
    def keep(self) -> np.ndarray:
        return self.probability >= self.threshold

    def kept_ids(self) -> list[str]:
        return [pid for pid, k in zip(self.features.ids, self.keep) if k]

    def summary(self) -> dict:
        """What the manifest records: the concepts read from the topic and the pool's fate."""
        return {"concepts": [c.to_dict() for c in self.features.concepts], "candidates": len(self.features.ids),
                "kept": int(self.keep.sum()), "threshold": round(self.threshold, 4),
                "excluded": [pid for pid, k in zip(self.features.ids, self.keep) if not k]}


def topic_pool_features(topic: str, papers: Sequence[PaperText], encode: Encode,
                        document_frequency: Callable[[list[str]], dict[str, int]], n_documents: int) -> PoolFeatures:
    """The topic's concepts (variants mined from ``papers``) and the features of the ranked pool."""
    texts = [p.text for p in papers]
    concepts = topic_concepts(topic, texts, document_frequency, n_documents)
    topic_vector = encode([topic])[0]
    vectors = encode(texts) if texts else np.zeros((0, len(topic_vector)))
    return pool_features(papers, vectors, topic_vector, concepts)


def judge_pool(topic: str, papers: Sequence[PaperText], encode: Encode,
               document_frequency: Callable[[list[str]], dict[str, int]], n_documents: int, *,
               model: RelevanceModel | None = None) -> PoolJudgment:
    """Judge a ranked candidate pool for ``topic`` with the shipped model (or ``model``)."""
    model = model or load_model()
    features = topic_pool_features(topic, papers, encode, document_frequency, n_documents)
    return PoolJudgment(features, model.probability(features.matrix), model.threshold)


def keep_against(concepts: Sequence[TopicConcept], topic_vector: np.ndarray, centroid: np.ndarray,
                 papers: Sequence[PaperText], encode: Encode, model: RelevanceModel | None = None) -> np.ndarray:
    """Which papers found after the pool was judged (store-wide reads) the model keeps, measured
    against the pool's topic vector and on-topic centroid."""
    if not papers:
        return np.zeros(0, dtype=bool)
    features = pool_features(papers, encode([p.text for p in papers]), topic_vector, concepts, centroid=centroid)
    return (model or load_model()).keep(features.matrix)


def load_labels(path: Path, topic: str) -> dict[str, int]:
    """arXiv id -> 0/1 for ``topic`` from a labelled relevance file (tests/data/relevance_labels.jsonl
    format); empty when the file has no judgment for the topic."""
    wanted = " ".join(topic.lower().split())
    found: dict[str, int] = {}
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            if " ".join(str(row.get("topic", "")).lower().split()) == wanted:
                found[str(row["arxiv_id"])] = int(row["label"])
    return found
