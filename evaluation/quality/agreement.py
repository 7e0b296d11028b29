"""How far a score agrees with people: SurveyLens' per-discipline system ranking (Spearman ρ of
system means) and the experts' pairwise outline choices; and the baselines every fitted model is
compared with (single features, section count, "more lines wins", the rubric itself)."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
from scipy.stats import spearmanr, t

from .dataset import HUMAN, Draft, OutlineLabel
from .features import ALL_FEATURES


def feature_matrix(drafts: list[Draft], names=ALL_FEATURES) -> np.ndarray:
    return np.array([[d.features[n] for n in names] for d in drafts], dtype=float)


def system_means(drafts: list[Draft], scores: np.ndarray) -> dict[tuple[str, str], float]:
    acc: dict[tuple[str, str], list[float]] = defaultdict(list)
    for d, s in zip(drafts, scores):
        acc[(d.system, d.discipline)].append(float(s))
    return {k: float(np.mean(v)) for k, v in acc.items()}


def discipline_rho(drafts: list[Draft], scores: np.ndarray, targets: dict, component: str) -> dict[str, float]:
    """Spearman ρ of system means vs the SurveyLens scores, per discipline."""
    means = system_means(drafts, scores)
    out = {}
    for disc in sorted({d for _, d in means}):
        systems = sorted(s for s, d in means if d == disc and s != HUMAN)
        pred = [means[(s, disc)] for s in systems]
        if len(set(pred)) < 2:  # a constant prediction ranks nothing
            out[disc] = 0.0
            continue
        rho = spearmanr(pred, [targets[component][(s, disc)] for s in systems]).statistic
        out[disc] = float(rho) if np.isfinite(rho) else 0.0
    return out


def credit(a: float, b: float, choice: str) -> float:
    """Credit for predicting an expert's choice from two scores: 1 right, 0 wrong, 1/2 for equal scores."""
    return 0.5 if a == b else float((a > b) == (choice == "a"))


def baselines(drafts: list[Draft], targets: dict, labels: list[OutlineLabel]) -> dict:
    """Each single feature's mean per-discipline ρ (no fitting), and "more lines wins"."""
    out: dict = {"single_feature_rho": {}}
    x = feature_matrix(drafts)
    for component in ("outline", "content", "reference", "overall"):
        out["single_feature_rho"][component] = {
            name: float(np.mean(list(discipline_rho(drafts, x[:, i], targets, component).values())))
            for i, name in enumerate(ALL_FEATURES)}
    # the fair comparison: the single feature chosen on five disciplines, scored on the sixth
    per_feature = {c: {i: discipline_rho(drafts, x[:, i], targets, c) for i in range(len(ALL_FEATURES))}
                   for c in ("outline", "content", "reference", "overall")}
    out["single_feature_lodo"] = {}
    for component, table in per_feature.items():
        held_rhos, chosen = [], []
        for held in sorted({d.discipline for d in drafts}):
            best = max(table, key=lambda i: np.mean([r for disc, r in table[i].items() if disc != held]))
            held_rhos.append(table[best][held])
            chosen.append(ALL_FEATURES[best])
        out["single_feature_lodo"][component] = {"rho_mean": float(np.mean(held_rhos)), "chosen": chosen}
    sections = np.array([d.features["o_sections"] for d in drafts])
    out["section_count_rho"] = {c: float(np.mean(list(discipline_rho(drafts, sections, targets, c).values())))
                                for c in ("outline", "content", "reference", "overall")}
    decided = [lab for lab in labels if lab.choice in ("a", "b")]
    lines = [credit(lab.lines_a, lab.lines_b, lab.choice) for lab in decided]
    out["more_lines_wins_accuracy"] = float(np.mean(lines)) if lines else None
    # The ceiling a reference point sets: SurveyLens' own (system, discipline) outline score as the
    # predictor of the same expert choices (ties in the score = 1/2).
    rubric = targets["outline"]
    known = [lab for lab in decided if (lab.system_a, lab.discipline) in rubric and (lab.system_b, lab.discipline) in rubric]
    by_rubric = [credit(rubric[(lab.system_a, lab.discipline)], rubric[(lab.system_b, lab.discipline)], lab.choice)
                 for lab in known]
    out["surveylens_outline_rubric_accuracy"] = float(np.mean(by_rubric)) if by_rubric else None
    out["system_identity_rho"] = system_identity_rho(drafts, targets)
    return out


def system_identity_rho(drafts: list[Draft], targets: dict) -> dict[str, float]:
    """What knowing each system's rubric score in the *other* disciplines ranks the held-out one at
    (mean per-discipline ρ, LODO): how far the rubric's system order carries across disciplines. A
    score that reads only what systems share everywhere stays near this; reading the held-out drafts
    can in principle pass it."""
    systems = {(d.system, d.discipline) for d in drafts if d.system != HUMAN}
    disciplines = sorted({disc for _, disc in systems})
    out = {}
    for component in ("outline", "content", "reference", "overall"):
        rhos = []
        for held in disciplines:
            names = sorted(s for s, disc in systems if disc == held)
            elsewhere = [np.mean([targets[component][(s, disc)] for disc in disciplines
                                  if disc != held and (s, disc) in systems] or [np.nan]) for s in names]
            known = [i for i, v in enumerate(elsewhere) if np.isfinite(v)]
            if len(known) > 2:
                rhos.append(float(spearmanr([elsewhere[i] for i in known],
                                            [targets[component][(names[i], held)] for i in known]).statistic))
        out[component] = float(np.mean(rhos)) if rhos else float("nan")
    return out


def rho_interval(per_discipline: dict[str, float]) -> list[float]:
    """95% interval of a mean over disciplines (t with n - 1 degrees of freedom): how far another
    draw of disciplines could move the LODO ρ."""
    values = np.array(list(per_discipline.values()), dtype=float)
    half = t.ppf(0.975, len(values) - 1) * values.std(ddof=1) / np.sqrt(len(values)) if len(values) > 1 else np.nan
    return [round(float(values.mean() - half), 3), round(float(values.mean() + half), 3)]


def accuracy_interval(accuracy: dict[str, float], pairs: dict[str, int]) -> list[float]:
    """95% interval of a pooled pairwise accuracy with the disciplines as clusters: one discipline's
    experts and outlines are not independent pairs (cluster-robust variance, G/(G-1) corrected)."""
    keys = [k for k in accuracy if accuracy[k] is not None and pairs.get(k)]
    n = np.array([pairs[k] for k in keys], dtype=float)
    a = np.array([accuracy[k] for k in keys], dtype=float)
    pooled = float((n * a).sum() / n.sum())
    g = len(keys)
    se = np.sqrt(g / (g - 1) * ((n * (a - pooled)) ** 2).sum()) / n.sum() if g > 1 else np.nan
    return [round(pooled - 1.96 * float(se), 3), round(pooled + 1.96 * float(se), 3)]

