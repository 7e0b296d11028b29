"""The evaluation-data name check (agents/data_names.py): the shipped model is the one its labels
fit, and it beats the patterns alone when read leave-one-topic-out."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

from surveygraph.agents.data_names import FEATURES, MODEL_PATH, data_probability, load_model, name_features

ROOT = Path(__file__).resolve().parents[1]


def _fit_script():
    spec = importlib.util.spec_from_file_location("data_names_fit", ROOT / "benchmarks" / "data_names_fit.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_shipped_model_is_what_its_labels_fit():
    fit = _fit_script()
    x, y, topics = fit.load(fit.LABELS)
    assert x.shape[1] == len(FEATURES) and len(set(topics)) >= 20 and len(y) >= 500
    model = load_model(str(MODEL_PATH))
    refit = fit._fit(x, y)
    assert np.allclose(refit.coef_[0], model["weights"], atol=1e-3)
    assert model["threshold"] == fit.choose_threshold(fit.fitter(x, y), np.arange(len(y)), y, topics)


def test_held_out_topics_keep_fewer_wrong_names_than_the_patterns_alone():
    fit = _fit_script()
    x, y, topics = fit.load(fit.LABELS)
    keep, _ = fit.nested(fit.fitter(x, y), y, topics)
    assert y[keep].mean() > y.mean() + 0.05  # precision of the names kept, against everything kept
    assert (keep & y).sum() / y.sum() > 0.7  # most real data still printed


def test_context_moves_the_probability_the_way_a_reader_would():
    """The same name after "on" and before "benchmark" reads as data; inside a list of models, not."""
    as_data = name_features("NAVSIM", "A planner", "Experiments on NAVSIM benchmark show gains.", 0, 2)
    as_model = name_features("NAVSIM", "A planner", "We compare baselines such as NAVSIM models, reaching 93.7%.", 2, 0)
    assert data_probability(as_data) > load_model()["threshold"] > data_probability(as_model)
