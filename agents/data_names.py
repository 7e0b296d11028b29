"""Is a name the facet patterns read as evaluation data really data? A small learned check.

facets.py reads a work's evaluation data from its abstract by patterns ("experiments on X and Y"),
and name_roles.py corrects the names the topic's literature uses as tools. Blind readers still
quoted our tables' misreads in most panels: models in a list ("UViT and DiT"), measures ("PDMS",
"SR", "DreamSim"), the work's own method, hardware, venues. Labellers who did not write this code
read 600 (name, abstract) pairs the patterns had accepted, drawn from the 20 SurveyBench topics'
pools (benchmarks/data/labels/evaluation_data_names.jsonl): 77.6% were data. A logistic regression
on the features below, fitted by benchmarks/data_names_fit.py and checked leave-one-topic-out,
keeps a name when P(data) >= the threshold chosen inside the folds (BENCHMARKS.md, "Content
checks read by labellers").

Why not a sentence encoder: the same fit on MiniLM windows gains 0.02 AUC, needs the full
encoder at every table, and a model fitted on one encoder's space would not carry to the static or
test encoders a home may use. These features read only the abstract and how the run's kept papers
use the name (name_roles.name_mentions, counted once per run by topic_pool.misread_names).
"""

from __future__ import annotations

import json
import math
import re
from functools import lru_cache
from pathlib import Path

MODEL_PATH = Path(__file__).with_name("data_name_model.json")
WINDOW = 10  # words either side of the name's first mention

FEATURES = ("tool_mentions", "data_mentions", "data_over_tool", "in_title", "mentions", "data_shaped_name",
            "has_digit", "data_noun_after", "on_or_across_before", "model_list_before", "measure_after",
            "short_acronym", "introduced_before", "defined_in_brackets", "model_words_near", "data_words_near",
            "figure_after", "result_verb_before")

_DATA_SHAPED = re.compile(r"(?i)bench|qa$|set$|data|corpus|suite|arena|eval")
_DATA_AFTER = re.compile(r"(?i)(dataset|benchmark|corpus|suite|test)")
_ON_BEFORE = re.compile(r"(?i)\b(on|across)( the)?$")
_MODEL_LIST_BEFORE = re.compile(r"(?i)(model|baseline|method|architecture|backbone)s?( such as| like| including|,)?$")
_MEASURE_AFTER = re.compile(r"(?i)(score|metric|accuracy|of \d)")
_ACRONYM = re.compile(r"[A-Z]{2,5}")
_INTRODUCED = re.compile(r"(?i)\b(propose|introduce|present|call|name|term|dub)\w*\b")
_MODEL_WORDS = re.compile(r"(?i)(models?|LLMs?|VLMs?|baselines?|methods?|variants?)\b")
_DATA_WORDS = re.compile(r"(?i)\b(datasets?|benchmarks?|tasks?|suites?|splits?)\b")
_FIGURE = re.compile(r"\d+(\.\d+)?\s?%|\bscore")
_RESULT_VERB = re.compile(r"(?i)\b(achiev|improv|outperform|gain|reach)\w*$")


def _window(abstract: str, name: str) -> tuple[str, str]:
    at = abstract.find(name)
    if at < 0:
        at = abstract.lower().find(name.lower())
    if at < 0:
        return "", ""
    return " ".join(abstract[:at].split()[-WINDOW:]), " ".join(abstract[at + len(name):].split()[:WINDOW])


def name_features(name: str, title: str, abstract: str, tool: int, data: int) -> list[float]:
    """The features, in ``FEATURES`` order, of ``name`` in one work (``tool``/``data``: how often the
    run's kept papers use it as a tool and as data, name_roles.name_mentions)."""
    left, right = _window(abstract, name)
    near = f"{left} {right[:30]}"
    return [math.log1p(tool), math.log1p(data), float(data > tool), float(name in title),
            math.log1p(abstract.count(name)), float(bool(_DATA_SHAPED.search(name))), float(bool(re.search(r"\d", name))),
            float(bool(_DATA_AFTER.match(right))), float(bool(_ON_BEFORE.search(left))),
            float(bool(_MODEL_LIST_BEFORE.search(left))), float(bool(_MEASURE_AFTER.match(right))),
            float(bool(_ACRONYM.fullmatch(name))), float(bool(_INTRODUCED.search(left))),
            float(right.startswith(")") and left.endswith("(")), float(bool(_MODEL_WORDS.search(near))),
            float(bool(_DATA_WORDS.search(f"{left} {right}"))), float(bool(_FIGURE.search(right[:40]))),
            float(bool(_RESULT_VERB.search(left)))]


@lru_cache(maxsize=1)
def load_model(path: str = str(MODEL_PATH)) -> dict:
    model = json.loads(Path(path).read_text())
    if tuple(model["features"]) != FEATURES:
        raise ValueError(f"{path} was fitted on other features; refit with benchmarks/data_names_fit.py")
    return model


def data_probability(features: list[float], model: dict | None = None) -> float:
    model = model or load_model()
    z = model["intercept"] + sum(w * x for w, x in zip(model["weights"], features))
    return 1.0 / (1.0 + math.exp(-z))


def is_evaluation_data(name: str, title: str, abstract: str, tool: int, data: int) -> bool:
    """P(data) at or above the model's threshold."""
    model = load_model()
    return data_probability(name_features(name, title, abstract, tool, data), model) >= model["threshold"]
