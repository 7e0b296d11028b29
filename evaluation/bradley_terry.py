"""Bradley–Terry fits: arena ratings on the Elo scale (LitReview Arena §2) and SurveyLens aspect
weights (SurveyLens §2.5), plus the online Elo view and bootstrap intervals.

Battle outcomes are soft labels y ∈ {1, 0, 0.5}: A won, B won, Tie/BothBad (half a win each).
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
from scipy.optimize import minimize

Battle = tuple[str, str, float]  # (player_a, player_b, y = 1 A won | 0 B won | 0.5 neutral)
ELO_SCALE = 400.0 / math.log(10.0)


def _log_sigmoid(z: np.ndarray) -> np.ndarray:
    return -np.logaddexp(0.0, -z)


def fit_bt_strengths(battles: Sequence[Battle], players: Sequence[str], l2: float = 1e-4,
                     max_iter: int = 100) -> np.ndarray:
    """MLE of β (natural-log scale) with a tiny L2 penalty, centred to mean 0.

    The penalised log-likelihood is strictly concave, so damped Newton steps (the Hessian is a
    players × players matrix) converge in a few dozen iterations even when a player never lost;
    this is much faster than a generic optimiser inside a 1,000-round bootstrap."""
    n = len(players)
    if not battles:
        return np.zeros(n)
    index = {p: i for i, p in enumerate(players)}
    a = np.array([index[x] for x, _, _ in battles], dtype=int)
    b = np.array([index[x] for _, x, _ in battles], dtype=int)
    y = np.array([float(v) for _, _, v in battles])

    def loss(beta: np.ndarray) -> float:
        z = beta[a] - beta[b]
        return float(-np.sum(y * _log_sigmoid(z) + (1 - y) * _log_sigmoid(-z)) + l2 * beta @ beta)

    beta = np.zeros(n)
    current = loss(beta)
    for _ in range(max_iter):
        p = 1.0 / (1.0 + np.exp(-(beta[a] - beta[b])))
        resid = p - y
        grad = np.bincount(a, resid, n) - np.bincount(b, resid, n) + 2 * l2 * beta
        w = p * (1 - p)
        hess = np.zeros((n, n))
        np.add.at(hess, (a, a), w)
        np.add.at(hess, (b, b), w)
        np.add.at(hess, (a, b), -w)
        np.add.at(hess, (b, a), -w)
        hess[np.diag_indices(n)] += 2 * l2
        step = np.linalg.solve(hess, grad)
        t = 1.0
        while t > 1e-8:  # backtracking keeps each step an improvement
            candidate = loss(beta - t * step)
            if candidate <= current:
                break
            t *= 0.5
        beta = beta - t * step
        improvement, current = current - candidate, candidate
        if np.max(np.abs(t * step)) < 1e-9 or improvement < 1e-12:
            break
    return beta - beta.mean()


def bt_elo_ratings(battles: Sequence[Battle], players: Sequence[str]) -> dict[str, float]:
    """R_i = 1000 + 400·β_i/ln 10, mean 1000, so P(i beats j) = 1/(1 + 10^((R_j − R_i)/400))."""
    beta = fit_bt_strengths(battles, players)
    return {p: 1000.0 + ELO_SCALE * float(v) for p, v in zip(players, beta)}


def bootstrap_bt_elo(battles: Sequence[Battle], players: Sequence[str], rounds: int = 200,
                     seed: int = 0, level: float = 0.95) -> dict[str, tuple[float, float]]:
    """Percentile intervals: resample battles with replacement, refit, take the quantiles."""
    if not battles:
        return {p: (1000.0, 1000.0) for p in players}
    rng = np.random.default_rng(seed)
    samples = np.empty((rounds, len(players)))
    battles = list(battles)
    for r in range(rounds):
        pick = rng.integers(0, len(battles), len(battles))
        beta = fit_bt_strengths([battles[i] for i in pick], players)
        samples[r] = 1000.0 + ELO_SCALE * beta
    lo, hi = (1 - level) / 2 * 100, (1 + level) / 2 * 100
    return {p: (float(np.percentile(samples[:, i], lo)), float(np.percentile(samples[:, i], hi)))
            for i, p in enumerate(players)}


def online_elo(battles: Sequence[Battle], players: Sequence[str], init: float = 1500.0,
               k: float = 32.0) -> dict[str, float]:
    """One sequential pass in the given order (order-dependent: an auxiliary view only)."""
    rating = {p: init for p in players}
    for pa, pb, y in battles:
        expect_a = 1.0 / (1.0 + 10 ** ((rating[pb] - rating[pa]) / 400.0))
        rating[pa] += k * (y - expect_a)
        rating[pb] += k * ((1 - y) - (1 - expect_a))
    return rating


def fit_aspect_weights(winner: np.ndarray, loser: np.ndarray, alpha: float = 0.01) -> np.ndarray:
    """SurveyLens eq. 3: argmax_{w ≥ 0} Σ log σ(wᵀ(x̄_win − x̄_lose)) − α‖w‖², normalised to sum 1.

    ``winner``/``loser``: (n_pairs, K) normalised aspect scores x̄ = x/5. Uniform when every
    fitted weight is zero (or there are no pairs)."""
    winner = np.atleast_2d(np.asarray(winner, dtype=float))
    loser = np.atleast_2d(np.asarray(loser, dtype=float))
    k = winner.shape[1]
    if winner.shape[0] == 0:
        return np.full(k, 1.0 / k)
    diff = winner - loser

    def objective(w: np.ndarray) -> tuple[float, np.ndarray]:
        z = diff @ w
        loss = -np.sum(_log_sigmoid(z)) + alpha * w @ w
        grad = -diff.T @ (1.0 / (1.0 + np.exp(z))) + 2 * alpha * w
        return float(loss), grad

    res = minimize(objective, np.full(k, 1.0 / k), jac=True, method="L-BFGS-B",
                   bounds=[(0.0, None)] * k)
    w = np.clip(res.x, 0.0, None)
    total = w.sum()
    return w / total if total > 1e-12 else np.full(k, 1.0 / k)
