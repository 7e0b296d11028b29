"""SurveyLens human-reference alignment (spec surveylens.md §3): RA-AlignF1 and τ-MaxSim.

The metric functions are pure: they take similarity matrices (rows = generated entries,
columns = human entries) so they can be checked against hand-computed cases. ``similarity``
builds those matrices from embeddings in either the paper's cosine or the Chroma-default
squared-L2 form (``1 - ||a-b||^2``, which is ``2·cos - 1`` for unit vectors).
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from scipy.optimize import linear_sum_assignment

SimMode = Literal["cosine", "chroma_l2"]


def _unit_rows(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    if x.ndim == 1:
        x = x[None, :]
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.where(norms == 0.0, 1.0, norms)


def similarity(a: np.ndarray, b: np.ndarray, mode: SimMode = "cosine") -> np.ndarray:
    """|a| x |b| similarity matrix of two embedding matrices (rows are re-normalised to unit length).

    ``cosine``: a·b. ``chroma_l2``: 1 - ||a - b||^2, what SGSimEval's code gets from a Chroma
    collection left at its default squared-L2 space; it can be negative and is not clipped.
    """
    if mode not in ("cosine", "chroma_l2"):
        raise ValueError(f"unknown similarity mode {mode!r} (use cosine or chroma_l2)")
    a_arr, b_arr = np.asarray(a), np.asarray(b)
    if a_arr.size == 0 or b_arr.size == 0:
        return np.zeros((len(a_arr), len(b_arr)), dtype=np.float64)
    cos = np.clip(_unit_rows(a_arr) @ _unit_rows(b_arr).T, -1.0, 1.0)
    return cos if mode == "cosine" else 2.0 * cos - 1.0


def redundancy_weights(sim_gen_gen: np.ndarray, *, lam: float = 1.0) -> np.ndarray:
    """ω(e_i) = exp(-λ · max_{k≠i} sim(e_i, e_k)); ω = 1 when there is a single entry."""
    gg = np.asarray(sim_gen_gen, dtype=np.float64)
    m = gg.shape[0]
    if m <= 1:
        return np.ones(m)
    off_diagonal = gg.copy()
    np.fill_diagonal(off_diagonal, -np.inf)
    return np.exp(-lam * off_diagonal.max(axis=1))


def ra_align_f1(
    sim_gen_human: np.ndarray, sim_gen_gen: np.ndarray, *, tau: float = 0.95, lam: float = 1.0
) -> dict:
    """RA-AlignF1 (SurveyLens Algorithm 1) for one (component, topic).

    Returns ``{"f1", "precision", "recall", "pairs"}`` where ``pairs`` lists the one-to-one
    assignment pairs ``(i, j, sim)`` whose similarity reaches τ (the matches that count).
    """
    sim = np.asarray(sim_gen_human, dtype=np.float64)
    m, n = sim.shape if sim.ndim == 2 else (0, 0)
    if m == 0 or n == 0:
        return {"f1": 0.0, "precision": 0.0, "recall": 0.0, "pairs": []}
    size = max(m, n)
    margin = np.zeros((size, size))
    margin[:m, :n] = np.maximum(0.0, sim - tau)
    rows, cols = linear_sum_assignment(margin, maximize=True)
    omega = redundancy_weights(sim_gen_gen, lam=lam)
    pairs, weighted_hits, hits = [], 0.0, 0
    for i, j in zip(rows, cols):
        if i >= m or j >= n or sim[i, j] < tau:  # padding pairs and sub-threshold pairs don't count
            continue
        pairs.append((int(i), int(j), float(sim[i, j])))
        weighted_hits += float(omega[i])
        hits += 1
    precision = weighted_hits / m
    recall = hits / n
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return {"f1": f1, "precision": precision, "recall": recall, "pairs": pairs}


def tau_maxsim(sim_gen_human: np.ndarray, *, tau: float = 0.95, rescale: bool = False) -> float:
    """τ-MaxSim (SurveyLens Eq. 8): mean over generated entries of max(0, best sim - τ).

    With ``rescale`` the score is divided by (1 - τ), mapping it into [0, 1]; the paper's
    reported values exceed 1 - τ, so they were probably rescaled (spec §3.3 [AMBIG]).
    No entries on either side -> 0.0.
    """
    sim = np.asarray(sim_gen_human, dtype=np.float64)
    if sim.ndim != 2 or sim.shape[0] == 0 or sim.shape[1] == 0:
        return 0.0
    score = float(np.maximum(0.0, sim.max(axis=1) - tau).mean())
    if rescale:
        if tau >= 1.0:
            raise ValueError("rescale needs tau < 1")
        score /= 1.0 - tau
    return score
