"""Fit the offline quality model and write ``model_v6.json`` (with its CV figures).

    python -m surveygraph.evaluation.quality.train --data ../shared/data/asg_bench \\
        --labels ../shared/data/asg_bench/human_outline_labels.jsonl

Model (outline, content, reference): a ranking regression at the level the targets are defined.
SurveyLens scores a system once per discipline (the mean over its topics), so each training row is
one (system, discipline): the mean of its drafts' standardised features, centred within the
discipline, against its centred target (the SurveyLens score, or the system's per-discipline rank:
``TARGETS``). Least squares on discipline-centred rows is least squares on every within-discipline
system pair's differences. ``sklearn.linear_model.Ridge(positive=True)`` fits it: non-negative
weights on features that are "higher = better" by construction keep the score monotone, so padding
that cannot raise a feature cannot raise the score. The ridge strength and the target form are
chosen by leave-one-discipline-out CV *inside* the training disciplines (nested); reported figures
are the outer leave-one-discipline-out Spearman ρ of the system means.

Overall is not fitted: SurveyLens defines it as the unweighted mean of the outline, content and
reference scores (spec §2.6, checked on all 121 cells of its Table 2), so it is the mean of the three
calibrated component scores, and its LODO figure the mean of the held-out component predictions.
A direct regression of overall on all features is kept in the CV record for comparison.

The outline model may also learn from the experts' pairwise outline choices: a logistic loss on
each choice's feature differences, weighted by ``LABEL_WEIGHTS`` (0 = the rubric alone), enters
the same non-negative fit; the inner CV chooses the weight by the sum of the two agreements,
ρ + (2·accuracy − 1), both on the [-1, 1] scale, so neither target is given up for the other.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from datetime import date
from pathlib import Path

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit
from scipy.stats import rankdata
from sklearn.linear_model import LinearRegression, Ridge
from sklearn.preprocessing import StandardScaler

from .agreement import (accuracy_interval, baselines, credit, discipline_rho, feature_matrix,
                        rho_interval, system_means)
from .dataset import (FEATURE_VERSION, HUMAN, HUMAN_REFERENCE_SCORE, REFERENCE_CSV, Draft, OutlineLabel,
                      load_training_set)
from .features import ALL_FEATURES, CONTENT_FEATURES, OUTLINE_FEATURES, REFERENCE_FEATURES
from .model import MODEL_PATH, component_score

COMPONENT_FEATURES = {"outline": OUTLINE_FEATURES, "content": CONTENT_FEATURES,
                      "reference": REFERENCE_FEATURES, "overall": ALL_FEATURES}
FITTED = ("outline", "content", "reference")  # overall = their mean (SurveyLens' definition)
ALPHAS = tuple(float(a) for a in np.logspace(-1, 6, 15))
# What the regression fits, chosen per component with the ridge strength by the inner CV:
# "rank" = each discipline's SurveyLens scores replaced by the systems' standardised ranks in that
# discipline (the validity figure is a rank correlation, and the disciplines' score scales differ:
# outline spans 1.2-4.6 in biology, 1.3-4.2 in business); "score" = the raw 1-5 scores.
TARGETS = ("rank", "score")
# Weights of the expert pairwise outline choices in the outline fit, chosen by the inner CV. With
# the outline features of model v5 no weight helped either outline target (BENCHMARKS.md, "per-draft
# checks"); with o_section_separation the joint fit raises both the outline's ρ and its pairwise
# accuracy, while the overall ρ falls within its interval (BENCHMARKS.md, "Quality model v6").
LABEL_WEIGHTS = (0.0, 0.3, 1.0, 3.0, 10.0, 30.0)


def _centred_rows(drafts: list[Draft], z: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One row per (system, discipline): its drafts' mean features and target, minus the
    discipline's mean over systems (within-discipline pairs). Fitting per draft instead regresses
    topic-to-topic feature noise on a target that does not vary by topic (LODO ρ lower on every
    component: BENCHMARKS.md, "Offline quality score")."""
    cells: dict[tuple[str, str], list[int]] = defaultdict(list)
    for i, d in enumerate(drafts):
        cells[(d.system, d.discipline)].append(i)
    keys = sorted(cells)
    x_cell = np.array([z[cells[k]].mean(axis=0) for k in keys])
    y_cell = np.array([y[cells[k]].mean() for k in keys])
    xs, ys = [], []
    for disc in sorted({k[1] for k in keys}):
        idx = [i for i, k in enumerate(keys) if k[1] == disc]
        if len(idx) < 2:
            continue
        xs.append(x_cell[idx] - x_cell[idx].mean(axis=0))
        ys.append(y_cell[idx] - y_cell[idx].mean())
    return np.vstack(xs), np.concatenate(ys)


def _label_rows(labels: list[OutlineLabel], scaler: StandardScaler, cols: list[int]):
    """Each decided expert choice as (standardised feature difference a - b, +1 if a won else -1)."""
    names = [ALL_FEATURES[c] for c in cols]
    decided = [lab for lab in labels if lab.choice in ("a", "b")]
    if not decided:
        return np.zeros((0, len(cols))), np.zeros(0)
    diff = np.array([[lab.features_a[n] - lab.features_b[n] for n in names] for lab in decided])
    return diff / scaler.scale_[cols], np.array([1.0 if lab.choice == "a" else -1.0 for lab in decided])


def _fit_weights(xc: np.ndarray, yc: np.ndarray, alpha: float, pairs=None, label_weight: float = 0.0) -> np.ndarray:
    """Non-negative weights minimising ||xc w - yc||² + alpha ||w||² (ridge on the rubric rows),
    plus label_weight x len(yc) x the mean logistic loss of the expert choices when given."""
    if pairs is None or not label_weight or not len(pairs[1]):
        return Ridge(alpha=alpha, fit_intercept=False, positive=True).fit(xc, yc).coef_
    diff, sign = pairs
    scale = label_weight * len(yc) / len(sign)

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        residual, margin = xc @ w - yc, sign * (diff @ w)
        value = residual @ residual + alpha * w @ w + scale * np.logaddexp(0.0, -margin).sum()
        grad = 2 * xc.T @ residual + 2 * alpha * w - scale * (sign * expit(-margin)) @ diff
        return float(value), grad

    start = Ridge(alpha=alpha, fit_intercept=False, positive=True).fit(xc, yc).coef_
    return minimize(loss, start, jac=True, method="L-BFGS-B", bounds=[(0.0, None)] * xc.shape[1]).x


def rank_targets(drafts: list[Draft], scores: dict[tuple[str, str], float]) -> dict[tuple[str, str], float]:
    """(system, discipline) -> the system's standardised rank among the systems with drafts in
    that discipline (ties share their mean rank)."""
    out = {}
    for disc in sorted({d.discipline for d in drafts}):
        systems = sorted({d.system for d in drafts if d.discipline == disc})
        ranks = rankdata([scores[(s, disc)] for s in systems])
        spread = ranks.std() or 1.0
        out.update({(s, disc): float((r - ranks.mean()) / spread) for s, r in zip(systems, ranks)})
    return out


def fit_component(drafts: list[Draft], targets: dict, component: str, alpha: float,
                  labels: list[OutlineLabel] | None = None, target: str = "rank",
                  label_weight: float = 0.0) -> dict:
    """Scaler + non-negative weights for one component on ``drafts`` (and, for the outline with
    ``label_weight`` > 0, on the expert choices in ``labels``)."""
    names = COMPONENT_FEATURES[component]
    cols = [ALL_FEATURES.index(n) for n in names]
    x_all = feature_matrix(drafts)
    scaler = StandardScaler().fit(x_all)
    scaler.scale_[scaler.scale_ == 0] = 1.0
    z = scaler.transform(x_all)[:, cols]
    fitted = targets[component] if target == "score" else rank_targets(drafts, targets[component])
    y = np.array([fitted[(d.system, d.discipline)] for d in drafts])
    xc, yc = _centred_rows(drafts, z, y)
    pairs = _label_rows(labels, scaler, cols) if component == "outline" and labels and label_weight else None
    return {"scaler": scaler, "names": names, "cols": cols,
            "weights": _fit_weights(xc, yc, alpha, pairs, label_weight)}


def predict(fit: dict, drafts: list[Draft]) -> np.ndarray:
    z = fit["scaler"].transform(feature_matrix(drafts))[:, fit["cols"]]
    return z @ fit["weights"]


def choose_hyper(drafts: list[Draft], targets: dict, component: str, labels=None,
                 target_forms: tuple[str, ...] = TARGETS,
                 label_weights: tuple[float, ...] = LABEL_WEIGHTS) -> tuple[float, str, float, dict]:
    """Inner leave-one-discipline-out: the (alpha, target form, label weight) with the best mean
    held-out agreement: ρ, plus (2·accuracy - 1) on the held-out expert choices when there are any."""
    disciplines = sorted({d.discipline for d in drafts})
    weights = label_weights if component == "outline" and labels else (0.0,)
    table = {}
    for form, weight, alpha in ((f, w, a) for f in target_forms for w in weights for a in ALPHAS):
        agreement = []
        for held in disciplines:
            train = [d for d in drafts if d.discipline != held]
            test = [d for d in drafts if d.discipline == held]
            fit = fit_component(train, targets, component, alpha,
                                [lab for lab in labels or [] if lab.discipline != held], form, weight)
            value = discipline_rho(test, predict(fit, test), targets, component)[held]
            credits = label_credits(fit, [lab for lab in labels or [] if lab.discipline == held])
            agreement.append(value + (2 * float(np.mean(credits)) - 1 if credits else 0.0))
        table[(form, weight, alpha)] = float(np.mean(agreement))
    # ties: the first target form listed, then the smaller label weight, then the stronger regulariser
    best = max(table, key=lambda k: (round(table[k], 6), -target_forms.index(k[0]), -k[1], k[2]))
    return best[2], best[0], best[1], {f"{form}:{weight:g}:{alpha:g}": v for (form, weight, alpha), v in table.items()}


def calibration(fit: dict, drafts: list[Draft], targets: dict, component: str) -> tuple[float, float]:
    """(intercept, slope > 0) mapping the fit's system means onto the SurveyLens 1-5 scores:
    least squares, so a weakly predictive component is shrunk towards the mean it adds to."""
    means = system_means(drafts, predict(fit, drafts))
    keys = sorted(k for k in means if k[0] != HUMAN)  # the scale is the systems' rubric scale
    x = np.array([[means[k]] for k in keys])
    y = np.array([targets[component][k] for k in keys])
    slope = max(float(LinearRegression().fit(x, y).coef_[0]), 1e-6)  # monotone by construction
    return float(y.mean() - slope * x.mean()), slope


def lodo(drafts: list[Draft], targets: dict, component: str, labels=None, eval_labels=None,
         target_forms: tuple[str, ...] = TARGETS,
         label_weights: tuple[float, ...] = LABEL_WEIGHTS) -> tuple[dict, np.ndarray]:
    """Outer leave-one-discipline-out with nested choice of alpha, target form and label weight;
    ``labels`` train the outline model, ``eval_labels`` (held-out discipline only) measure its
    pairwise accuracy. Also returns each draft's held-out score on the 1-5 scale (calibrated on the
    training disciplines)."""
    eval_labels = eval_labels if eval_labels is not None else labels
    per_disc, alphas, forms, weights, human_above = {}, {}, {}, {}, {}
    label_acc, acc_per_disc, pairs_per_disc = [], {}, {}
    heldout = np.zeros(len(drafts))
    for held in sorted({d.discipline for d in drafts}):
        train = [d for d in drafts if d.discipline != held]
        test_idx = [i for i, d in enumerate(drafts) if d.discipline == held]
        test = [drafts[i] for i in test_idx]
        train_labels = [lab for lab in labels or [] if lab.discipline != held]
        alpha, form, weight, _ = choose_hyper(train, targets, component, train_labels, target_forms, label_weights)
        fit = fit_component(train, targets, component, alpha, train_labels, form, weight)
        intercept, slope = calibration(fit, train, targets, component)
        raw = predict(fit, test)
        heldout[test_idx] = np.clip(intercept + slope * raw, 1.0, 5.0)
        forms[held], weights[held] = form, weight
        per_disc[held] = discipline_rho(test, raw, targets, component)[held]
        alphas[held] = alpha
        if component == "outline" and eval_labels:
            held_credits = label_credits(fit, [lab for lab in eval_labels if lab.discipline == held])
            label_acc += held_credits
            acc_per_disc[held] = float(np.mean(held_credits)) if held_credits else None
            pairs_per_disc[held] = len(held_credits)
        held_means = system_means(test, raw)
        if (HUMAN, held) in held_means:  # how many systems the held-out human surveys score above
            human_above[held] = sum(held_means[(HUMAN, held)] > v for (sy, _), v in held_means.items() if sy != HUMAN)
    result = {"rho_mean": float(np.mean(list(per_disc.values()))), "rho_interval": rho_interval(per_disc),
              "rho_per_discipline": per_disc,
              "alpha_per_fold": alphas, "target_per_fold": forms}
    if component == "outline" and labels:
        result["label_weight_per_fold"] = weights
    if human_above:
        result["human_surveys_above_systems"] = human_above
    if label_acc:
        result["human_pairwise_accuracy"] = float(np.mean(label_acc))
        result["human_pairwise_interval"] = accuracy_interval(acc_per_disc, pairs_per_disc)
        result["human_pairwise_accuracy_per_discipline"] = acc_per_disc
        result["human_pairs"] = len(label_acc)
    return result, heldout


def label_credits(fit: dict, labels: list[OutlineLabel]) -> list[float]:
    """Credit (``agreement.credit``) of the fit's scores for each decided expert choice."""
    decided = [lab for lab in labels if lab.choice in ("a", "b")]
    if not decided:
        return []
    sides = [np.array([[f.get(n, 0.0) for n in ALL_FEATURES] for f in side])
             for side in ([lab.features_a for lab in decided], [lab.features_b for lab in decided])]
    za, zb = (fit["scaler"].transform(x)[:, fit["cols"]] @ fit["weights"] for x in sides)
    return [credit(a, b, lab.choice) for a, b, lab in zip(za, zb, decided)]


def _reference_systems(drafts: list[Draft], scores: np.ndarray) -> dict[str, float]:
    """Each training system's mean score over its (system, discipline) cells."""
    per_system = defaultdict(list)
    for (system, _disc), v in system_means(drafts, scores).items():
        if system != HUMAN:  # the self-evaluation compares a draft with the systems
            per_system[system].append(v)
    return {s: round(float(np.mean(v)), 4) for s, v in sorted(per_system.items())}


def build_model(drafts: list[Draft], targets: dict, labels: list[OutlineLabel], command: str,
                humans: list[Draft] | None = None) -> dict:
    """The model JSON; ``humans`` (human surveys with a target in ``targets["reference"]``) join the
    reference fit only."""
    humans = humans or []
    scaler = StandardScaler().fit(feature_matrix(drafts))
    scale = np.where(scaler.scale_ == 0, 1.0, scaler.scale_)
    model: dict = {
        "version": "6", "feature_version": FEATURE_VERSION, "date": date.today().isoformat(),
        "command": command,
        "features": {n: {"mean": float(scaler.mean_[i]), "scale": float(scale[i])}
                     for i, n in enumerate(ALL_FEATURES)},
        "training_data": {
            "drafts": len(drafts), "systems": sorted({d.system for d in drafts}),
            "disciplines": sorted({d.discipline for d in drafts}),
            "topics": len({(d.discipline, d.topic) for d in drafts}),
            "targets": "SurveyLens per-(system, discipline) rubric scores, §6 Tables 2/16/17/18 "
                       f"({REFERENCE_CSV.name})",
            "outline_labels": sum(1 for lab in labels if lab.choice in ("a", "b")),
            "outline_labels_use": "outline fit (logistic loss, weight chosen by nested CV) and validation "
                                  "(held-out discipline's accuracy)",
            "human_surveys": (f"{len(humans)} drafts in the reference fit with SurveyLens' human reference mean "
                              f"{HUMAN_REFERENCE_SCORE} in each discipline; not in any reported ρ") if humans else "none",
        },
        "method": "ridge regression on (system, discipline) mean features centred within each discipline, "
                  "positive weights; the outline fit adds a logistic loss on the experts' pairwise choices; "
                  "alpha, target form and label weight by nested leave-one-discipline-out CV; linear map onto "
                  "the 1-5 rubric scale; overall = mean of the three component scores (SurveyLens' definition)",
        "target_forms": {"rank": "per-discipline standardised ranks of the SurveyLens scores",
                         "score": "the SurveyLens 1-5 scores"},
        "components": {}, "cv": {}, "baselines": baselines(drafts, targets, labels),
    }
    heldout = {}
    for component in FITTED:
        print(f"fitting {component} ...", file=sys.stderr)
        rows = drafts + (humans if component == "reference" else [])
        model["cv"][component], heldout[component] = _component_cv(rows, targets, component, labels)
        model["components"][component] = _component_entry(rows, targets, component, labels)
    print("overall (mean of the components; direct regression for comparison) ...", file=sys.stderr)
    heldout["overall"] = np.mean([heldout[c] for c in FITTED], axis=0)
    per_disc = discipline_rho(drafts, heldout["overall"], targets, "overall")
    direct = lodo(drafts, targets, "overall")[0]
    model["cv"]["overall"] = {
        "rho_mean": float(np.mean(list(per_disc.values()))), "rho_interval": rho_interval(per_disc),
        "rho_per_discipline": per_disc, "direct_regression": {k: direct[k] for k in ("rho_mean", "rho_per_discipline")}}
    for component, scores in heldout.items():  # how far a held-out system score is from the rubric's
        means = system_means(drafts, scores)
        rmse = float(np.sqrt(np.mean([(v - targets[component][k]) ** 2 for k, v in means.items()])))
        model["cv"][component]["heldout_rmse"] = rmse
        # One draft is not a system: SurveyLens scores a system once per discipline, so a single
        # draft's score also carries its spread around its system's mean (pooled within cells).
        spread = [s - means[(d.system, d.discipline)] for d, s in zip(drafts, scores)]
        within = float(np.sqrt(np.mean(np.square(spread))))
        model["cv"][component]["per_draft_within_sd"] = within
        model["cv"][component]["per_draft_error"] = float(np.sqrt(rmse ** 2 + within ** 2))
    model["components"]["overall"] = {"combination": "mean", "of": list(FITTED)}
    in_sample = np.array([component_score(d.features, "overall", model) for d in drafts])
    model["components"]["overall"]["reference_systems"] = _reference_systems(drafts, in_sample)
    return model


def _component_cv(drafts: list[Draft], targets: dict, component: str,
                  labels: list[OutlineLabel]) -> tuple[dict, np.ndarray]:
    """The nested LODO record of one component (with its comparison figures) and its held-out scores
    (of ``drafts``'s systems; human surveys, where the component has them, are trained on but not returned)."""
    systems = sum(1 for d in drafts if d.system != HUMAN)  # humans come last (build_model)
    comp_labels = labels if component == "outline" else None
    cv, heldout = lodo(drafts, targets, component, comp_labels, comp_labels)
    if comp_labels:  # the rubric alone, as models v1-v5 were fitted
        cv["rubric_only"] = {k: v for k, v in lodo(drafts, targets, component, comp_labels, comp_labels,
                                                    label_weights=(0.0,))[0].items()
                             if k in ("rho_mean", "rho_per_discipline", "human_pairwise_accuracy")}
    for form in TARGETS:  # each target form alone, for comparison
        cv[f"{form}_targets_only"] = {k: v for k, v in lodo(
            drafts, targets, component, comp_labels, None, (form,))[0].items()
            if k in ("rho_mean", "rho_per_discipline")}
    return cv, heldout[:systems]


def _component_entry(drafts: list[Draft], targets: dict, component: str, labels: list[OutlineLabel]) -> dict:
    """The shipped fit of one component on all six disciplines."""
    comp_labels = labels if component == "outline" else None
    alpha, form, weight, grid = choose_hyper(drafts, targets, component, comp_labels)
    fit = fit_component(drafts, targets, component, alpha, comp_labels, form, weight)
    intercept, slope = calibration(fit, drafts, targets, component)
    return {
        "features": list(fit["names"]), "alpha": alpha, "target": form, "label_weight": weight,
        "grid_agreement": grid,
        "weights": {n: round(float(w), 6) for n, w in zip(fit["names"], fit["weights"])},
        "calibration": {"intercept": intercept, "slope": slope},
        "reference_systems": _reference_systems(drafts, intercept + slope * predict(fit, drafts)),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m surveygraph.evaluation.quality.train", description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data/asg_bench"))
    parser.add_argument("--labels", type=Path, default=None, help="expert outline labels JSONL (default: DATA/human_outline_labels.jsonl)")
    parser.add_argument("--reference-scores", type=Path, default=REFERENCE_CSV)
    parser.add_argument("--out", type=Path, default=MODEL_PATH)
    parser.add_argument("--cache", type=Path, default=None, help="feature cache file (default: <home>/cache/quality_features.json)")
    args = parser.parse_args(argv)
    from ...errors import UserError

    try:
        drafts, humans, targets, labels = load_training_set(args.data, args.labels, args.reference_scores, args.cache)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    command = ("python -m surveygraph.evaluation.quality.train --data ../shared/data/asg_bench "
               "--labels ../shared/data/asg_bench/human_outline_labels.jsonl")
    model = build_model(drafts, targets, labels, command, humans)
    tmp = args.out.with_suffix(".tmp")
    tmp.write_text(json.dumps(model, indent=1) + "\n", encoding="utf-8")
    tmp.replace(args.out)  # never a half-written model
    for component, cv in model["cv"].items():
        single = model["baselines"]["single_feature_lodo"][component]
        print(f"{component:<10} LODO ρ {cv['rho_mean']:+.3f}  best single feature (chosen LODO) "
              f"{single['rho_mean']:+.3f} ({', '.join(sorted(set(single['chosen'])))}); the rubric's own order in"
              f" the other disciplines {model['baselines']['system_identity_rho'][component]:+.3f}")
    if "human_pairwise_accuracy" in model["cv"]["outline"]:
        print(f"outline human pairwise accuracy (LODO) {model['cv']['outline']['human_pairwise_accuracy']:.3f}"
              f" vs more-lines-wins {model['baselines']['more_lines_wins_accuracy']:.3f}"
              f" and SurveyLens' outline rubric {model['baselines']['surveylens_outline_rubric_accuracy']:.3f}")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
