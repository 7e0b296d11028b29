"""Can one offline score follow both the blind readers and SurveyLens' rubric? (issue 30)

    python benchmarks/quality_frontier.py [--data ../shared/data] [--cache <features.pkl>]

Candidate "synthesis" features that the shipped quality model does not have (below, ``extra``:
sentences citing several works, contrast markers, paragraph length, works per paragraph, tallies
such as "12 works", paragraph-opening repetition, "X proposes ..." sentences, repeated 4-grams),
read on every draft of the stored reader panels (benchmarks/data/reader_panels) and on the 481
ASG-Bench drafts. Reported:

1. each feature alone: mean per-panel Spearman with the reader's overall (all five drafts; the
   four SurveyBench systems only), its median on our drafts and on the four's, and the mean
   per-discipline Spearman of system means with the rubric's overall on ASG-Bench;
2. non-negative ridge fits of feature sets on the panels (rows centred within each panel: the
   readers' order), leave-one-topic-out (all versions of a topic held out together): mean per-panel
   Spearman, and the cases of our draft above a draft its reader rated >= 1.0 higher;
3. the joint fit: panel rows plus ASG-Bench (system, discipline) rows weighted by lambda, read
   leave-one-topic-out on the panels and leave-one-discipline-out on ASG-Bench. Lambda = 0 is the
   panels alone; a large lambda is the rubric alone.

The component scores are the shipped model's form scores (no topicality gate), on both sides.
An experiment: nothing here is shipped.
"""

from __future__ import annotations

import argparse
import collections
import gzip
import json
import pickle
import re
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import DEFAULT_DATA, REPO_ROOT, offline_env  # noqa: E402

PANELS = REPO_ROOT / "benchmarks" / "data" / "reader_panels"
_WORD = re.compile(r"[A-Za-z][A-Za-z\-]+")
_CONTRAST = re.compile(r"\b(whereas|in contrast|unlike|by contrast|on the other hand|compared (?:with|to)|"
                       r"trade-?offs?|differs?|difference|while|however|outperform\w*|instead of|rather than|"
                       r"similarly|likewise|both)\b", re.I)
_TALLY = re.compile(r"\b\d+\s+(?:of\s+the\s+\d+\s+)?(?:works|papers|studies|methods|of them)\b", re.I)
_PAPER_SUBJECT = re.compile(
    r"^\s*(?:[A-Z][\w\-\.]*[A-Z0-9][\w\-\.]*|[A-Z]\w+ et al\.?)\s*(?:\[[^\]]*\]\s*)?(?:\(\w[^)]*\)\s*)?"
    r"(?:propose|proposes|introduce|introduces|present|presents|develop|develops|uses|use|builds|adopts|"
    r"reports|shows|achieves|designs|leverages|employs|extends|addresses|tackles)\b")
# The direction each feature is read in (higher = better, by the design argument in its name).
SIGN = {"quality.outline": 1, "quality.content": 1, "quality.reference": 1, "x_multi_cite": 1, "x_contrast": 1,
        "x_para_words": 1, "x_works_per_paragraph": 1, "o_heading_specificity": 1, "r_use_per_reference": 1,
        "x_words_per_sentence": 1, "o_heading_uniqueness": 1, "c_substance_share": 1,
        "x_tally": -1, "x_opener_concentration": -1, "x_paper_subject": -1, "x_repeated_4grams": -1}
COMPONENTS = ["quality.outline", "quality.content", "quality.reference"]
SYNTHESIS = ["x_multi_cite", "x_contrast", "x_para_words", "x_works_per_paragraph"]
STYLE = ["x_tally", "x_opener_concentration", "x_paper_subject", "x_repeated_4grams"]
SETS = {
    "components (shipped model's three)": COMPONENTS,
    "components + synthesis": COMPONENTS + SYNTHESIS,
    "components + synthesis + heading specificity, use per reference":
        COMPONENTS + SYNTHESIS + ["o_heading_specificity", "r_use_per_reference"],
    "components + style (tallies, openers, 'X proposes', repeats)": COMPONENTS + STYLE,
    "all of the above": COMPONENTS + SYNTHESIS + STYLE + ["o_heading_specificity", "r_use_per_reference"],
}


def extra(survey) -> dict[str, float]:
    from surveygraph.evaluation.citations import split_sentences
    from surveygraph.evaluation.quality.features import _CITE_MARKER

    sentences, paragraphs = [], []
    for section in survey.sections:
        paragraphs += [p for p in re.split(r"\n\s*\n", section.text)
                       if p.strip() and not p.lstrip().startswith(("|", "#"))]
        sentences += [s for s in split_sentences(section.text) if len(s.split()) >= 5 and not s.lstrip().startswith("|")]
    n = max(1, len(sentences))
    words = [[w.lower() for w in _WORD.findall(_CITE_MARKER.sub(" ", s))] for s in sentences]
    openers = collections.Counter(" ".join(w[:2]) for w in words if len(w) >= 2)
    grams = collections.Counter(" ".join(w[i:i + 4]) for w in words for i in range(len(w) - 3))
    cites = survey.citations
    works_per_paragraph = [len(set(re.findall(r"\d+", " ".join(_CITE_MARKER.findall(p))))) for p in paragraphs]
    return {
        "x_opener_concentration": sum(c for _, c in openers.most_common(10)) / n,
        "x_repeated_4grams": sum(c for c in grams.values() if c >= 3) / max(1, sum(grams.values())),
        "x_multi_cite": sum(1 for c in cites if len(set(c.ref_keys)) >= 2) / max(1, len(cites)),
        "x_contrast": sum(bool(_CONTRAST.search(s)) for s in sentences) / n,
        "x_tally": sum(bool(_TALLY.search(s)) for s in sentences) / n,
        "x_paper_subject": sum(bool(_PAPER_SUBJECT.search(s)) for s in sentences) / n,
        "x_words_per_sentence": float(np.mean([len(w) for w in words])) if words else 0.0,
        "x_works_per_paragraph": float(np.mean(works_per_paragraph)) if works_per_paragraph else 0.0,
        "x_para_words": float(np.mean([len(p.split()) for p in paragraphs])) if paragraphs else 0.0,
    }


def _features(survey, shipped: dict | None = None) -> dict[str, float]:
    from surveygraph.evaluation.quality.features import survey_features
    from surveygraph.evaluation.quality.model import component_score, load_model, topic_view

    feats = dict(shipped) if shipped is not None else survey_features(topic_view(survey))
    out = {**feats, **extra(survey)}
    for component in ("outline", "content", "reference"):
        out[f"quality.{component}"] = component_score(feats, component, load_model())
    return out


def read_panels(data: Path) -> tuple[list[tuple], dict]:
    from surveygraph.evaluation.inputs import read_survey

    panels, feats = [], {}
    for path in sorted(PANELS.glob("v*/*.json")):
        version, panel = path.parent.name, json.loads(path.read_text())
        keys = []
        for draft in panel["drafts"]:
            ours = draft["system"] == "surveygraph"
            key = f"{version}:{draft['draft']}" if ours else draft["draft"]
            keys.append(key)
            if key in feats:
                continue
            if ours:
                with tempfile.NamedTemporaryFile("w", suffix=".md", delete=False, encoding="utf-8") as tmp:
                    tmp.write(gzip.open(path.parent / draft["draft"], "rt", encoding="utf-8").read())
                source = tmp.name
            else:
                source = str(data / draft["draft"])
            feats[key] = _features(read_survey(source, topic=panel["topic"]))
        panels.append((panel["topic"], version, keys, [d["system"] for d in panel["drafts"]],
                       np.array([d["overall"] for d in panel["drafts"]], dtype=float)))
    return panels, feats


def read_asg(data: Path) -> tuple[list, dict, list[dict]]:
    from surveygraph.evaluation.parsers import parse_survey
    from surveygraph.evaluation.quality.dataset import load_training_set

    drafts, _, targets, _ = load_training_set(data / "asg_bench")
    rows = [_features(parse_survey(d.path, system=d.system, topic=d.topic), d.features) for d in drafts]
    return drafts, targets, rows


class Frontier:
    """The panels' and ASG-Bench's rows on one scale (the panel drafts' mean and spread)."""

    def __init__(self, panels, pfeats, drafts, targets, arows, names: list[str]):
        self.panels, self.drafts, self.targets, self.names = panels, drafts, targets, names
        self.rows = [(topic, version, key, system, score) for topic, version, keys, systems, scores in panels
                     for key, system, score in zip(keys, systems, scores)]
        xp = np.array([[SIGN[f] * pfeats[r[2]][f] for f in names] for r in self.rows], dtype=float)
        xa = np.array([[SIGN[f] * row[f] for f in names] for row in arows], dtype=float)
        mu, sd = xp.mean(0), xp.std(0) + 1e-9
        self.zp, self.za = (xp - mu) / sd, (xa - mu) / sd
        self.pid = [f"{r[0]}|{r[1]}" for r in self.rows]
        self.y = np.array([r[4] for r in self.rows])

    def panel_rows(self, keep) -> tuple[np.ndarray, np.ndarray]:
        xs, ys = [], []
        for p in sorted(set(self.pid)):
            idx = [i for i, q in enumerate(self.pid) if q == p and keep(self.rows[i][0])]
            if idx:
                xs.append(self.zp[idx] - self.zp[idx].mean(0))
                ys.append(self.y[idx] - self.y[idx].mean())
        return np.vstack(xs), np.concatenate(ys)

    def asg_rows(self, keep) -> tuple[np.ndarray, np.ndarray]:
        cells = collections.defaultdict(list)
        for i, d in enumerate(self.drafts):
            if d.system != "HumanSurvey" and keep(d.discipline):
                cells[(d.system, d.discipline)].append(i)
        xs, ys = [], []
        for disc in sorted({k[1] for k in cells}):
            keys = [k for k in cells if k[1] == disc]
            xm = np.array([self.za[cells[k]].mean(0) for k in keys])
            ym = np.array([self.targets["overall"][k] for k in keys])
            xs.append(xm - xm.mean(0))
            ys.append(ym - ym.mean())
        return np.vstack(xs), np.concatenate(ys)

    @staticmethod
    def fit(parts: list[tuple[np.ndarray, np.ndarray, float]]) -> np.ndarray:
        from sklearn.linear_model import Ridge

        x = np.vstack([np.sqrt(w) * a for a, _, w in parts if w > 0])
        y = np.concatenate([np.sqrt(w) * b for _, b, w in parts if w > 0])
        return Ridge(alpha=1.0, positive=True, fit_intercept=False).fit(x, y).coef_

    def read(self, lam: float) -> tuple[float, int, float, np.ndarray]:
        """(panels LOTO mean rho, inversions, ASG LODO mean rho, weights fitted on everything)."""
        from scipy.stats import spearmanr
        from surveygraph.evaluation.quality.agreement import discipline_rho

        asg_all = self.asg_rows(lambda d: True)
        rhos, inversions = [], 0
        for topic in sorted({r[0] for r in self.rows}):
            w = self.fit([(*self.panel_rows(lambda t: t != topic), 1.0), (*asg_all, lam)])
            score = self.zp @ w
            for p in sorted({q for q, r in zip(self.pid, self.rows) if r[0] == topic}):
                idx = [i for i, q in enumerate(self.pid) if q == p]
                rhos.append(spearmanr(score[idx], self.y[idx]).statistic)
                ours = next(i for i in idx if self.rows[i][3] == "surveygraph")
                inversions += sum(1 for i in idx if i != ours and self.y[i] >= self.y[ours] + 1.0
                                  and score[ours] > score[i])
        panels_all, lodo = self.panel_rows(lambda t: True), []
        for disc in sorted({d.discipline for d in self.drafts}):
            w = self.fit([(*panels_all, 1.0), (*self.asg_rows(lambda d: d != disc), lam)])
            lodo.append(discipline_rho(self.drafts, self.za @ w, self.targets, "overall")[disc])
        return float(np.nanmean(rhos)), inversions, float(np.mean(lodo)), self.fit([(*panels_all, 1.0), (*asg_all, lam)])


def single_features(panels, pfeats, drafts, targets, arows) -> None:
    from scipy.stats import spearmanr
    from surveygraph.evaluation.quality.agreement import discipline_rho

    print("| feature | panels: all five | panels: the four systems | ours (median) | the four (median) | ASG-Bench rubric |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in SIGN:
        all5, four, ours, others = [], [], [], []
        for _, _, keys, systems, scores in panels:
            x = np.array([pfeats[k][name] for k in keys])
            if np.ptp(x) == 0:
                continue
            all5.append(spearmanr(x, scores).statistic)
            mask = np.array([s != "surveygraph" for s in systems])
            if np.ptp(x[mask]) > 0:
                four.append(spearmanr(x[mask], scores[mask]).statistic)
            ours.append(x[~mask][0])
            others += list(x[mask])
        asg = discipline_rho(drafts, np.array([r[name] for r in arows]), targets, "overall")
        print(f"| {name} | {np.nanmean(all5):+.3f} | {np.nanmean(four):+.3f} | {np.median(ours):.3g} | {np.median(others):.3g} | "
              f"{np.mean(list(asg.values())):+.3f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--cache", type=Path, help="pickle of the read features (written, then reused)")
    args = parser.parse_args()
    offline_env()
    if args.cache and args.cache.is_file():
        panels, pfeats, drafts, targets, arows = pickle.loads(args.cache.read_bytes())
    else:
        panels, pfeats = read_panels(args.data)
        drafts, targets, arows = read_asg(args.data)
        if args.cache:
            args.cache.write_bytes(pickle.dumps((panels, pfeats, drafts, targets, arows)))
    print(f"# {len(panels)} reader panels ({len(pfeats)} distinct drafts), {len(drafts)} ASG-Bench drafts\n")
    single_features(panels, pfeats, drafts, targets, arows)
    print("\n| feature set | lambda (ASG-Bench rows' weight) | panels, leave-one-topic-out: mean rho | "
          "inversions | ASG-Bench, leave-one-discipline-out: mean rho | weights (all rows) |")
    print("|---|---:|---:|---:|---:|---|")
    for label, names in SETS.items():
        frontier = Frontier(panels, pfeats, drafts, targets, arows, names)
        for lam in (0.0, 1.0, 5.0, 20.0, 100.0):
            rho, inversions, asg, w = frontier.read(lam)
            weights = ", ".join(f"{n.split('.')[-1]} {v:.2f}" for n, v in zip(names, w) if v >= 0.005)
            print(f"| {label} | {lam:g} | {rho:.3f} | {inversions} | {asg:.3f} | {weights} |")


if __name__ == "__main__":
    main()
