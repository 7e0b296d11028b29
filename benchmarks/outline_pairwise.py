"""Can the outline score agree with experts' pairwise outline choices *and* with SurveyLens' system ranking?

    python -m surveygraph.evaluation.topicality_fit --readings R1.pkl     # heading means (before the
    # outline was read whole) - any readings pickle whose heading part is a mean over headings
    python benchmarks/outline_pairwise.py --labels ../shared/data/asg_bench/human_outline_labels.jsonl \
        --readings-mean R1.pkl --readings-joined R2.pkl

Part 1: pairwise logistic regression on outline-feature differences of the 643 decided expert pairs,
leave-one-discipline-out, for several feature sets (outline features, + topic readings, + raw length).
Part 2: the same with the ASG-Bench drafts' system-level ρ against the rubric (free and non-negative
weights), and joint fits (rubric rows + lambda x pairwise rows, non-negative weights).
Results: BENCHMARKS.md, "Quality that reads the topic: per-draft checks".
"""
import sys
LABELS, MEAN, JOINED, CACHE = (sys.argv[sys.argv.index(f) + 1] if f in sys.argv else d for f, d in (
    ("--labels", "../shared/data/asg_bench/human_outline_labels.jsonl"), ("--readings-mean", "/tmp/read_minilm.pkl"),
    ("--readings-joined", "/tmp/read_minilm2.pkl"), ("--cache", "/tmp/pair_feats.pkl")))

# --- part 1 ---
import json, numpy as np, pickle, os
from surveygraph.evaluation.markdown_parser import parse_markdown
from surveygraph.evaluation.quality.features import outline_features, OUTLINE_FEATURES
from surveygraph.evaluation.topicality import load_gate, read_topicality
from surveygraph.evaluation.scoring import gate_memo
from surveygraph.settings import load_settings
from sklearn.linear_model import LogisticRegression
gate = load_gate(); enc = gate_memo(load_settings())
rows = [json.loads(l) for l in open(LABELS)]
cache = CACHE
if os.path.exists(cache):
    data = pickle.load(open(cache, "rb"))
else:
    data = []
    for row in rows:
        if row["choice"] not in ("a", "b"): continue
        fs = []
        for side in ("outline_a", "outline_b"):
            s = parse_markdown(row[side]); s.topic = row.get("topic", "")
            f = outline_features(s, None)
            r = read_topicality(s, s.topic, enc, gate["background_topics"])
            lines = [l for l in row[side].splitlines() if l.strip()]
            f["t_outline"] = r.outline
            f["t_heading_mean"] = float(np.mean([v for _, v in r.headings])) if r.headings else 0.0
            f["n_lines"] = np.log1p(len(lines))
            f["n_sub"] = np.log1p(sum(1 for l in lines if l.startswith("###")))
            f["mean_len"] = float(np.mean([len(l.lstrip('#').split()) for l in lines])) if lines else 0
            fs.append(f)
        data.append((row["discipline"].lower(), row["system_a"], row["system_b"], row["choice"], fs[0], fs[1]))
    pickle.dump(data, open(cache, "wb"))
names_sets = {"outline8": list(OUTLINE_FEATURES), "outline8+t": list(OUTLINE_FEATURES) + ["t_outline", "t_heading_mean"],
              "all": list(OUTLINE_FEATURES) + ["t_outline", "t_heading_mean", "n_lines", "n_sub", "mean_len"],
              "lines": ["n_lines"], "t only": ["t_outline"]}
discs = sorted({d[0] for d in data})
for label, names in names_sets.items():
    X = np.array([[a[n] - b[n] for n in names] for _, _, _, _, a, b in data]); y = np.array([1 if c == "a" else 0 for _, _, _, c, _, _ in data])
    D = np.array([d[0] for d in data])
    # symmetrise
    acc = []
    for held in discs:
        tr, te = D != held, D == held
        Xtr = np.vstack([X[tr], -X[tr]]); ytr = np.concatenate([y[tr], 1 - y[tr]])
        m = LogisticRegression(C=1.0, max_iter=2000).fit(Xtr, ytr)
        acc += list((m.predict(X[te]) == y[te]).astype(float))
    print(f"{label:<12} LODO pairwise acc {np.mean(acc):.3f} (n={len(acc)})")
print("---")
for label, names in {"outline8+t": list(OUTLINE_FEATURES) + ["t_outline", "t_heading_mean"],
                     "outline8+t+len": list(OUTLINE_FEATURES) + ["t_outline", "t_heading_mean", "mean_len"],
                     "outline8+t+nsub": list(OUTLINE_FEATURES) + ["t_outline", "t_heading_mean", "n_sub"],
                     "outline8+t+lines": list(OUTLINE_FEATURES) + ["t_outline", "t_heading_mean", "n_lines"],
                     "all": list(OUTLINE_FEATURES) + ["t_outline", "t_heading_mean", "n_lines", "n_sub", "mean_len"]}.items():
    X = np.array([[a[n] - b[n] for n in names] for _, _, _, _, a, b in data]); y = np.array([1 if c == "a" else 0 for _, _, _, c, _, _ in data])
    Xs = np.vstack([X, -X]); ys = np.concatenate([y, 1 - y])
    sd = Xs.std(axis=0); sd[sd == 0] = 1
    m = LogisticRegression(C=1.0, max_iter=2000).fit(Xs / sd, ys)
    print(label, {n: round(w, 2) for n, w in zip(names, m.coef_[0])})

# --- part 2 ---
import pickle, numpy as np, json
from collections import defaultdict
from scipy.stats import spearmanr
from sklearn.linear_model import LogisticRegression
from scipy.optimize import minimize
from surveygraph.evaluation.topicality_fit import DraftReading, relative
import __main__; __main__.DraftReading = DraftReading
from surveygraph.evaluation.quality.dataset import load_drafts, load_reference_scores
from surveygraph.evaluation.quality.features import OUTLINE_FEATURES
d1, tv = pickle.load(open(MEAN, "rb")); d2, _ = pickle.load(open(JOINED, "rb"))
keys = sorted(tv); T = np.stack([tv[k] for k in keys])
tvals = {}
for a, b in zip(d1, d2):
    k = keys.index((a.discipline, a.topic))
    th = relative(T @ a.means["headings"])[k] if a.means["headings"] is not None else 0.0
    to = relative(T @ b.means["headings"])[k] if b.means["headings"] is not None else 0.0
    tvals[(a.system, a.discipline, a.topic)] = (to, th)
targets = load_reference_scores()
systems = {s for s, _ in targets["overall"]}
drafts = [d for d in load_drafts("../shared/data/asg_bench", systems, progress=False) if (d.system, d.discipline) in targets["outline"]]
data = pickle.load(open(CACHE, "rb"))
names = list(OUTLINE_FEATURES) + ["t_outline", "t_heading_mean"]
def feats(d):
    to, th = tvals[(d.system, d.discipline, d.topic)]
    f = dict(d.features); f["t_outline"], f["t_heading_mean"] = to, th
    return [f[n] for n in names]
X_d = np.array([feats(d) for d in drafts]); disc_d = np.array([d.discipline for d in drafts])
X_p = np.array([[a[n] - b[n] for n in names] for _, _, _, _, a, b in data]); y_p = np.array([1 if c == "a" else 0 for _, _, _, c, _, _ in data])
disc_p = np.array([d[0] for d in data])
sd = X_d.std(axis=0); sd[sd == 0] = 1
def fit(tr_mask, positive):
    X = np.vstack([X_p[tr_mask], -X_p[tr_mask]]) / sd; y = np.concatenate([y_p[tr_mask], 1 - y_p[tr_mask]])
    if not positive:
        return LogisticRegression(C=1.0, max_iter=2000, fit_intercept=False).fit(X, y).coef_[0]
    def loss(w):
        z = X @ w; return np.mean(np.logaddexp(0, -z * (2 * y - 1))) + 0.5 * w @ w / len(y)
    r = minimize(loss, np.full(X.shape[1], 0.1), bounds=[(0, None)] * X.shape[1], method="L-BFGS-B")
    return r.x
for positive in (False, True):
    acc, rhos = [], []
    for held in sorted(set(disc_p)):
        w = fit(disc_p != held, positive)
        acc += list(((X_p[disc_p == held] / sd) @ w > 0).astype(int) == y_p[disc_p == held])
        s = (X_d[disc_d == held] / sd) @ w
        cell = defaultdict(list)
        for d, v in zip([d for d in drafts if d.discipline == held], s): cell[d.system].append(v)
        names_s = sorted(cell)
        rhos.append(spearmanr([np.mean(cell[x]) for x in names_s], [targets["outline"][(x, held)] for x in names_s]).statistic)
    w = fit(np.ones(len(y_p), bool), positive)
    print("positive" if positive else "free", "pairwise LODO", round(float(np.mean(acc)), 3), "system rho LODO", round(float(np.mean(rhos)), 3), {n: round(x, 2) for n, x in zip(names, w)})
print("--- joint fits (positive weights): rubric rows (rank targets, centred per discipline) + lambda * pairwise rows")
from surveygraph.evaluation.quality.train import rank_targets, _centred_rows
for use in (list(OUTLINE_FEATURES), list(OUTLINE_FEATURES) + ["t_outline"]):
    cols = [names.index(n) for n in use]
    for lam in (0.0, 0.3, 1.0, 3.0, 10.0):
        acc, rhos = [], []
        for held in sorted(set(disc_p)):
            tr_d = [i for i, d in enumerate(drafts) if d.discipline != held]
            dr = [drafts[i] for i in tr_d]
            rt = rank_targets(dr, targets["outline"])
            yr = np.array([rt[(d.system, d.discipline)] for d in dr])
            xc, yc = _centred_rows(dr, (X_d[tr_d] / sd)[:, cols], yr)
            m = disc_p != held
            Xp = np.vstack([X_p[m], -X_p[m]])[:, cols] / sd[cols]; yp = np.concatenate([y_p[m], 1 - y_p[m]])
            def loss(w):
                l1 = np.mean((xc @ w - yc) ** 2)
                l2 = np.mean(np.logaddexp(0, -(Xp @ w) * (2 * yp - 1)))
                return l1 + lam * l2 + 0.01 * w @ w
            w = minimize(loss, np.full(len(cols), 0.1), bounds=[(0, None)] * len(cols), method="L-BFGS-B").x
            acc += list((((X_p[disc_p == held][:, cols] / sd[cols]) @ w) > 0).astype(int) == y_p[disc_p == held])
            s = (X_d[disc_d == held][:, cols] / sd[cols]) @ w
            cell = defaultdict(list)
            for d, v in zip([d for d in drafts if d.discipline == held], s): cell[d.system].append(v)
            ns = sorted(cell)
            rhos.append(spearmanr([np.mean(cell[x]) for x in ns], [targets["outline"][(x, held)] for x in ns]).statistic)
        print(len(use), "features lambda", lam, "pairwise", round(float(np.mean(acc)), 3), "rho", round(float(np.nanmean(rhos)), 3))
