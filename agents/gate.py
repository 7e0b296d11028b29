"""The gate: model text replaces the deterministic floor only when it is valid and not worse.

Every writing step has a floor that needs no model (the extractive synthesis for a subsection,
the unsmoothed draft for smoothing). ``choose`` decides between the model's text and the floor:

1. the model text must pass ``validate_prose`` (agents/validators.py) and the step's own checks
   (e.g. "cites at least one paper it was given"); otherwise the floor wins;
2. a floor that is itself not valid prose (too few usable abstract sentences) loses to any valid
   model text;
3. otherwise both are scored with a content scorer (``Callable[[str], float]``, higher = better)
   and the model text wins when its score is not lower than the floor's.

The decision (winner, reason, both scores) is returned as a record for the manifest.

Content scorer. The project's offline quality score (``surveygraph.evaluation.quality``) is being
built; until it is wired here, ``interim_content_score`` is used. It is the mean of five features
in [0, 1], equally weighted (no weight tuned to any case), all computed on the text with the
writer's local citation keys [1]..[K] and the K papers behind them:

- citation correctness: share of cited numbers that name a given paper *and* fit the sentence:
  the cited paper's TF-IDF similarity to the sentence (title, authors' surnames and abstract) is
  at least the median over the K papers. Numbers that were not given count as wrong;
- claim support: share of sentences carrying at least one correct citation;
- breadth: share of the K papers cited correctly at least once;
- non-redundancy: (1 - share of repeated sentences) x (1 - share of looping 6-grams);
- own words: 1 - share of the text's word 6-grams copied from the abstracts. An extractive floor
  scores low here by construction. That is intended: a survey should synthesise in its own words,
  so grounded model prose with a few uncited framing sentences can still beat a collage of quotes,
  while a model that only copies gains nothing the floor does not already have.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Callable, Sequence

import numpy as np

from ..sanitize import untrusted
from .attribution import surname
from .text import CITATION_MARKER, PAPER_MARKER, degenerate_repetition, marker_numbers, sentence_key, sentences
from .validators import validate_prose

Scorer = Callable[[str], float]
Validator = Callable[[str], list[str]]
NGRAM = 6  # copied-span length for "own words" (six words in a row rarely match by chance)
_WORD = re.compile(r"[a-z0-9]+(?:['-][a-z0-9]+)*")


@dataclass
class GateDecision:
    step: str  # node name: write_subsection, polish_sections, write_frame ...
    item: str  # subsection id or frame part
    winner: str  # "model" or "floor"
    reason: str
    model_score: float | None = None
    floor_score: float | None = None

    def record(self) -> dict:
        return {k: (round(v, 4) if isinstance(v, float) else v) for k, v in asdict(self).items()}

    def fallback(self) -> dict:
        """The manifest.fallbacks entry when the floor won."""
        return {"node": self.step, "item": self.item, "reason": f"floor kept: {self.reason}"}


def choose(step: str, item: str, model_text: str | None, floor_text: str, *, score: Scorer,
           validate: Validator | None = None, min_words: int = 40,
           no_model_reason: str = "no model text") -> tuple[str, GateDecision]:
    """The text to use (model's or floor's) and the decision record."""
    validate = validate or (lambda text: validate_prose(text, min_words=min_words))
    if not (model_text or "").strip():
        return floor_text, GateDecision(step, item, "floor", no_model_reason)
    problems = validate(model_text)
    if problems:
        return floor_text, GateDecision(step, item, "floor", "model text invalid: " + "; ".join(problems))
    floor_problems = validate(floor_text) if floor_text.strip() else ["empty"]
    if floor_problems:
        return model_text, GateDecision(step, item, "model", "model text valid; the floor is not ("
                                        + "; ".join(floor_problems) + ")")
    model_score, floor_score = float(score(model_text)), float(score(floor_text))
    if model_score >= floor_score:
        return model_text, GateDecision(step, item, "model", f"model text valid and not worse than the floor "
                                        f"(content score {model_score:.3f} >= {floor_score:.3f})",
                                        model_score, floor_score)
    return floor_text, GateDecision(step, item, "floor", f"model text valid but worse than the floor "
                                    f"(content score {model_score:.3f} < {floor_score:.3f})", model_score, floor_score)


# --- interim content score -------------------------------------------------------------------

def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _ngrams(words: Sequence[str]) -> set[tuple[str, ...]]:
    return {tuple(words[i:i + NGRAM]) for i in range(len(words) - NGRAM + 1)}


def _paper_document(paper: dict) -> str:
    names = " ".join(surname(a) for a in (paper.get("authors") or []))
    return " ".join(untrusted(x) for x in (paper.get("title"), names, paper.get("abstract")) if x)


class InterimContentScore:
    """``interim_content_score(papers)(text)``: see the module docstring."""

    def __init__(self, papers: Sequence[dict]):
        from sklearn.feature_extraction.text import TfidfVectorizer

        self.k = len(papers)
        documents = [_paper_document(p) for p in papers]
        self._vectorizer = TfidfVectorizer(stop_words="english", sublinear_tf=True)
        self._papers = self._vectorizer.fit_transform(documents or [""])
        self._source_ngrams: set[tuple[str, ...]] = set()
        for paper in papers:
            self._source_ngrams |= _ngrams(_words(untrusted(paper.get("abstract") or "")))

    def features(self, text: str) -> dict[str, float]:
        said = [s for paragraph in re.split(r"\n\s*\n", text or "") for s in sentences(paragraph)]
        said = [s for s in said if len(CITATION_MARKER.sub("", s).split()) >= 5]
        if not said or not self.k:
            return {"citation_correctness": 0.0, "claim_support": 0.0, "breadth": 0.0,
                    "non_redundancy": 0.0, "own_words": 0.0}
        similarity = (self._vectorizer.transform([CITATION_MARKER.sub(" ", s) for s in said])
                      @ self._papers.T).toarray()
        cited_total = correct_total = supported = 0
        correct_papers: set[int] = set()
        for row, sentence in zip(similarity, said):
            bar = float(np.median(row))
            numbers = [n for m in CITATION_MARKER.finditer(sentence) for n in marker_numbers(m.group(1))]
            correct = [n for n in numbers if 1 <= n <= self.k and row[n - 1] >= bar]
            cited_total += len(numbers)
            correct_total += len(correct)
            supported += bool(correct)
            correct_papers.update(correct)
        keys = [sentence_key(s) for s in said]
        duplicates = len(keys) - len(set(keys))
        words = _words(PAPER_MARKER.sub(" ", CITATION_MARKER.sub(" ", text)))
        grams = [tuple(words[i:i + NGRAM]) for i in range(len(words) - NGRAM + 1)]
        copied = sum(g in self._source_ngrams for g in grams) / len(grams) if grams else 0.0
        return {
            "citation_correctness": correct_total / cited_total if cited_total else 0.0,
            "claim_support": supported / len(said),
            "breadth": len(correct_papers) / self.k,
            "non_redundancy": (1 - duplicates / len(said)) * (1 - min(1.0, degenerate_repetition(text))),
            "own_words": 1 - copied,
        }

    def __call__(self, text: str) -> float:
        values = self.features(text)
        return sum(values.values()) / len(values)


def interim_content_score(papers: Sequence[dict]) -> InterimContentScore:
    """The interim content scorer for text citing ``papers`` by local keys [1]..[K]."""
    return InterimContentScore(papers)
