"""The scoring core: metric families over one survey, reduced into one ``EvaluationReport``.

Each family (structure, integrity, coverage, alignment, sgsim, quality, judges) is one function
``(state, config) -> partial state`` that appends ``MetricResult``s; ``combine_node`` then folds the
SGSimEval σ into any judge scores (Human-as-Perfect and Balanced) and builds the report.
``evaluate_survey`` runs the requested families side by side in threads; ``graphs/evaluation.py``
wires the same functions as a LangGraph graph (for Studio and the server). This module lives
below graphs/ so that the leaderboard, calibration and the self-evaluation never import upwards.

Texts are embedded through one ``EmbeddingMemo`` per call (or one shared by a whole
leaderboard), so a text - e.g. a human survey's units reused for four systems - is encoded once.
"""

from __future__ import annotations

import operator
import re
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Annotated, Any, Callable, Sequence, TypedDict

import numpy as np
from langchain_core.runnables import RunnableConfig

from . import alignment, sgsim
from .calibration import resolve_tau
from .coverage import input_coverage, load_bench_refs, reference_coverage, reference_title
from ..models import EvaluationReport, MetricResult, Paper, Reference, Survey
from ..settings import Settings

FAMILIES = ("structure", "integrity", "coverage", "alignment", "sgsim", "quality", "judges")
COMPONENTS = ("outline", "content", "reference")
_NUMBERING = re.compile(r"^\s*(?:\d+(?:\.\d+)*\.?|[IVXLC]+\.|[A-Z]\.(?:\d+\.?)*|\(\w\))\s+")


class EmbeddingMemo:
    """text -> unit vector, computed once per text; ``encode`` is the (possibly disk-cached)
    embedder. A lock keeps parallel nodes from running two encoders at once on a small CPU."""

    def __init__(self, encode: Callable[[list[str]], np.ndarray]):
        self._encode = encode
        self._vectors: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()
        self.dim: int | None = None

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        with self._lock:
            missing = [t for t in dict.fromkeys(texts) if t not in self._vectors]
            if missing:
                vectors = np.asarray(self._encode(missing), dtype=np.float32)
                self.dim = vectors.shape[1]
                self._vectors.update(zip(missing, vectors))
            if not texts:
                return np.zeros((0, self.dim or 1), dtype=np.float32)
            return np.stack([self._vectors[t] for t in texts])


def embedding_memo(settings: Settings, encoder: str | None = None) -> EmbeddingMemo:
    """A memo over the similarity metrics' encoder (``evaluation.embedding_model``) or ``encoder``."""
    from ..retrieval.embeddings import get_embedder

    return EmbeddingMemo(get_embedder(settings.with_embedding_model(encoder or settings.evaluation.embedding_model)).encode)


def gate_memo(settings: Settings) -> EmbeddingMemo | None:
    """A memo over the encoder the topicality gate was fitted with (None when it is not fitted):
    what ``read_quality`` must be given, whatever ``evaluation.embedding_model`` says."""
    from .topicality import load_gate

    gate = load_gate()
    return embedding_memo(settings, gate["encoder"]) if gate else None


def strip_numbering(title: str) -> str:
    """"3.1 Hierarchical Structures" -> "Hierarchical Structures": numbering styles differ
    between systems and would otherwise add spurious similarity (or dissimilarity)."""
    return _NUMBERING.sub("", title).strip() or title.strip()


def alignment_entries(survey: Survey) -> dict[str, list[str]]:
    """SurveyLens entries: section titles (O), section bodies (C), reference titles (R)."""
    titles = [strip_numbering(e.title) for e in survey.outline if e.title.strip()]
    if not titles:
        titles = [strip_numbering(s.heading) for s in survey.sections if s.heading.strip()]
    bodies = [s.text.strip() for s in survey.sections if s.text.strip()]
    refs = [t for t in (reference_title(r) for r in survey.references) if t]
    return {"outline": titles, "content": bodies, "reference": refs}


def sgsim_units(survey: Survey) -> dict[str, list[str]]:
    outline = [e.model_copy(update={"title": strip_numbering(e.title)}) for e in survey.outline]
    return {
        "outline": sgsim.outline_units(outline, survey.topic or survey.title),
        "content": sgsim.content_units(survey),
        "reference": sgsim.reference_units(survey),
    }


class EvaluationState(TypedDict, total=False):
    survey: Survey
    human: Survey | None
    bench: list[Reference] | None
    retrieved: list[Paper] | None
    families: list[str]
    judges: list[str]
    human_judge_scores: dict[str, float] | None
    results: Annotated[list[MetricResult], operator.add]
    warnings: Annotated[list[str], operator.add]
    report: EvaluationReport


def _settings(config: RunnableConfig) -> Settings:
    return config["configurable"]["settings"]


def _memo(config: RunnableConfig) -> EmbeddingMemo:
    return config["configurable"]["embed"]


# --- family nodes ---------------------------------------------------------------------------
def structure_node(state: EvaluationState) -> dict:
    from .structure import structural_counts, structural_ratios

    counts = structural_counts(state["survey"])
    results = [MetricResult(name=f"structure.{k}", family="structure", value=float(v))
               for k, v in counts.items()]
    if state.get("human") is not None:
        ratios = structural_ratios(state["survey"], state["human"])
        results += [MetricResult(name=f"structure.ratio.{k}", family="structure", value=v,
                                 rationale=None if v is not None else "the human survey's count is 0")
                    for k, v in ratios.items()]
    return {"results": results}


def quality_node(state: EvaluationState, config: RunnableConfig) -> dict:
    """The learned offline score, gated by the topic read with the gate's encoder (no LLM)."""
    from .quality.metrics import quality_metrics

    survey = state["survey"]
    abstracts = cited_abstracts(survey, state, config)
    return {"results": quality_metrics(survey, encode=gate_encoder(config), abstracts=abstracts)}


def cited_abstracts(survey, state: dict, config: RunnableConfig) -> dict[str, str]:
    """Reference key -> abstract of the cited works: the papers the run retrieved, and any the local
    paper store holds (copying.stored_abstracts)."""
    from .copying import known_abstracts, stored_abstracts

    return {**stored_abstracts(survey, _settings(config).store_dir),
            **known_abstracts(survey, state.get("retrieved") or [])}


def gate_encoder(config: RunnableConfig) -> EmbeddingMemo | None:
    """The encoder the topicality gate was fitted with: the run's memo when it is that encoder,
    else one of its own; None when the gate is not fitted (the score is then form only)."""
    from .topicality import load_gate

    gate = load_gate()
    if gate is None:
        return None
    settings, memo = _settings(config), config["configurable"].get("embed")
    if memo is not None and settings.evaluation.embedding_model == gate["encoder"]:
        return memo
    key = ("gate", gate["encoder"])
    with _GATE_MEMOS_LOCK:
        if key not in _GATE_MEMOS:
            _GATE_MEMOS[key] = embedding_memo(settings, gate["encoder"])
        return _GATE_MEMOS[key]


_GATE_MEMOS: dict = {}
_GATE_MEMOS_LOCK = threading.Lock()


def integrity_node(state: EvaluationState, config: RunnableConfig) -> dict:
    from .copying import known_abstracts
    from .integrity import citation_integrity, claim_support

    survey = state["survey"]
    results = list(citation_integrity(survey))
    # the run's own papers only: claim support embeds every citing sentence, and the default
    # evaluation (structure and integrity) stays free of embeddings
    abstracts = known_abstracts(survey, state.get("retrieved") or [])
    if not abstracts:  # external drafts: nothing to compare claims with, so no metric at all
        return {"results": results,
                "warnings": ["integrity.claim_support: skipped, no cited paper has a known abstract"]}
    memo = _memo(config)
    results.append(claim_support(survey, _MemoEncoder(memo), abstracts))
    return {"results": results}


class _MemoEncoder:
    """Adapts an EmbeddingMemo to the ``.encode(texts)`` interface claim_support expects."""

    def __init__(self, memo: "EmbeddingMemo"):
        self._memo = memo

    def encode(self, texts, **_kwargs) -> np.ndarray:
        return self._memo(list(texts))


def coverage_node(state: EvaluationState, config: RunnableConfig) -> dict:
    fuzzy = _settings(config).evaluation.ref_match_fuzzy
    bench = state.get("bench") or []
    cov = reference_coverage(state["survey"].references, bench, fuzzy=fuzzy)
    details = {k: v for k, v in cov.items() if k != "pairs"}
    results = [
        MetricResult(name="sam_r", family="coverage", value=cov["coverage"], details=details),
        MetricResult(name="sam_r.recall", family="coverage", value=cov["recall"], details=details),
    ]
    if state.get("retrieved"):
        inp = input_coverage(state["retrieved"], bench, fuzzy=fuzzy)
        results.append(MetricResult(name="input_coverage", family="coverage", value=inp["coverage"],
                                    details={k: v for k, v in inp.items() if k != "pairs"}))
    return {"results": results}


def alignment_node(state: EvaluationState, config: RunnableConfig) -> dict:
    cfg = _settings(config).evaluation
    embed = _memo(config)
    gen, human = alignment_entries(state["survey"]), alignment_entries(state["human"])
    results, f1s, maxsims = [], [], []
    for comp in COMPONENTS:
        g_vec, h_vec = embed(gen[comp]), embed(human[comp])
        sim_gh = alignment.similarity(g_vec, h_vec, cfg.sim_mode)
        sim_gg = alignment.similarity(g_vec, g_vec, cfg.sim_mode)
        tau, tau_source = resolve_tau(cfg, comp)  # encoder-calibrated unless tau_mode = "paper"
        ra = alignment.ra_align_f1(sim_gh, sim_gg, tau=tau, lam=cfg.lam)
        ms = alignment.tau_maxsim(sim_gh, tau=tau, rescale=cfg.rescale_maxsim)
        best = sim_gh.max(axis=1) if sim_gh.size else np.zeros(0)
        details = {"precision": ra["precision"], "recall": ra["recall"], "matches": len(ra["pairs"]),
                   "generated": len(gen[comp]), "human": len(human[comp]), "tau": tau,
                   "tau_source": tau_source,
                   "lam": cfg.lam, "sim_mode": cfg.sim_mode,
                   "mean_best_sim": float(best.mean()) if best.size else None}
        results.append(MetricResult(name=f"ra_align_f1.{comp}", family="alignment",
                                    value=ra["f1"], details=details))
        results.append(MetricResult(name=f"tau_maxsim.{comp}", family="alignment", value=ms,
                                    details={"tau": tau, "rescale": cfg.rescale_maxsim,
                                             "scope": "topic"}))
        f1s.append(ra["f1"])
        maxsims.append(ms)
    results.append(MetricResult(name="ra_align_f1", family="alignment", value=float(np.mean(f1s)),
                                details={"components": list(COMPONENTS)}))
    results.append(MetricResult(name="tau_maxsim", family="alignment", value=float(np.mean(maxsims)),
                                details={"components": list(COMPONENTS), "scope": "topic"}))
    return {"results": results}


def sgsim_node(state: EvaluationState, config: RunnableConfig) -> dict:
    mode = _settings(config).evaluation.sim_mode
    embed = _memo(config)
    gen, human = sgsim_units(state["survey"]), sgsim_units(state["human"])
    results, sigmas = [], []
    for comp in COMPONENTS:
        sim = alignment.similarity(embed(gen[comp]), embed(human[comp]), mode)
        value = sgsim.sigma(sim, sgsim.TOP_N[comp])
        sigmas.append(value)
        results.append(MetricResult(
            name=f"sgsim.sigma.{comp}", family="similarity", value=value,
            details={"top_n": sgsim.TOP_N[comp], "units": len(gen[comp]),
                     "human_units": len(human[comp]), "sim_mode": mode}))
    results.append(MetricResult(name="sgsim.sigma", family="similarity", value=float(np.mean(sigmas)),
                                details={"components": list(COMPONENTS)}))
    return {"results": results}


def judges_node(state: EvaluationState, config: RunnableConfig) -> dict:
    from .judges import run_judges

    settings = _settings(config)
    survey, human = state["survey"], state.get("human")
    topic = survey.topic or survey.title
    on_judgment = config["configurable"].get("on_judgment")
    results = run_judges(survey, human=human, topic=topic, names=state["judges"], settings=settings,
                         on_judgment=on_judgment)
    update: dict[str, Any] = {"results": list(results)}
    if human is not None and state.get("human_judge_scores") is None:
        # Q_human of the Balanced score: the same judges on the human survey itself.
        human_results = run_judges(human, human=None, topic=topic, names=state["judges"], settings=settings,
                                   on_judgment=on_judgment)
        update["human_judge_scores"] = {m.name: m.value for m in human_results if m.value is not None}
    return update


# --- reduce ---------------------------------------------------------------------------------
def _component_of(metric_name: str) -> str:
    """Which σ applies to a judge score (SGSimEval §5.5): outline, reference, else content."""
    low = metric_name.lower()
    if "outline" in low or "hierarchy" in low or "sam_o" in low:
        return "outline"
    if "reference" in low or "supportiveness" in low or ".ref" in low:
        return "reference"
    return "content"


def _scale_max(result: MetricResult) -> float:
    """Q0 of Human-as-Perfect: the top of the judge's scale ("scale": "1-5" / "0-100")."""
    scale = result.details.get("scale")
    if isinstance(scale, str) and "-" in scale:
        try:
            return float(scale.rsplit("-", 1)[1])
        except ValueError:
            pass
    if isinstance(result.details.get("scale_max"), (int, float)):
        return float(result.details["scale_max"])
    return 1.0 if (result.value or 0) <= 1 else 5.0 if (result.value or 0) <= 5 else 100.0


def combine_node(state: EvaluationState) -> dict:
    results = list(state.get("results", []))
    sigmas = {m.name.rsplit(".", 1)[1]: m.value for m in results
              if m.name.startswith("sgsim.sigma.") and m.value is not None}
    human_scores = state.get("human_judge_scores") or {}
    judged = [m for m in results if m.family not in
              {"structure", "integrity", "coverage", "alignment", "similarity", "quality"} and m.value is not None]
    for m in judged if sigmas else []:
        comp = _component_of(m.name)
        s, q_max = sigmas[comp], _scale_max(m)
        results.append(MetricResult(
            name=f"{m.name}.hp", family=m.family, details={"sigma": s, "component": comp, "q_max": q_max},
            value=sgsim.human_as_perfect(m.value, s, q_max),
            rationale=f"Human-as-Perfect: σ·Q_max + (1-σ)·Q with {comp} similarity σ={s:.3f}, "
                      f"Q_max={q_max:g}, Q={m.value:.4g}"))
        if m.name in human_scores and human_scores[m.name] is not None:
            q_h = human_scores[m.name]
            results.append(MetricResult(
                name=f"{m.name}.balanced", family=m.family,
                value=sgsim.balanced(m.value, s, q_h),
                details={"sigma": s, "component": comp, "human_score": q_h},
                rationale=f"Balanced: σ·Q_human + (1-σ)·Q with {comp} similarity σ={s:.3f}, "
                          f"the human survey's Q_human={q_h:.4g}, Q={m.value:.4g}"))
    survey = state["survey"]
    report = EvaluationReport(survey=survey.title, system=survey.system, topic=survey.topic,
                              metrics=results, warnings=list(state.get("warnings", [])))
    return {"report": report}


def plan_families(metrics: list[str] | None, *, human: bool, bench: bool, judges: bool) -> tuple[list[str], list[str]]:
    """The families to run and warnings for requested ones that lack their input."""
    needs = {"coverage": bench, "alignment": human, "sgsim": human}
    wanted = list(metrics) if metrics else ["structure", "integrity", "coverage", "alignment", "sgsim", "quality"]
    unknown = [m for m in wanted if m not in FAMILIES]
    if unknown:
        raise ValueError(f"unknown metric families: {', '.join(unknown)} (choose from {', '.join(FAMILIES[:-1])})")
    warnings = [f"{f}: skipped, needs {'a human survey' if f != 'coverage' else 'benchmark references'}"
                for f in wanted if metrics and not needs.get(f, True)]
    families = [f for f in wanted if needs.get(f, True) and f != "judges"]
    if judges:
        families.append("judges")
    return families, warnings


def evaluate_survey(
    survey: Survey,
    settings: Settings,
    *,
    human: Survey | None = None,
    bench_refs: Path | list[Reference] | None = None,
    judges: list[str] | None = None,
    metrics: list[str] | None = None,
    retrieved: list[Paper] | None = None,
    embed: EmbeddingMemo | None = None,
    human_judge_scores: dict[str, float] | None = None,
    on_judgment: Callable[[str], None] | None = None,
) -> EvaluationReport:
    """Evaluate one survey. Without ``human`` and ``bench_refs`` only structure and integrity
    run (no embeddings, fast). ``judges=None`` uses ``settings.evaluation.judges``;
    ``embed`` lets a batch share one embedding memo; ``retrieved`` adds input coverage;
    ``on_judgment(node)`` is called after every judge call sent to the model (progress)."""
    bench = load_bench_refs(bench_refs) if isinstance(bench_refs, (str, Path)) else bench_refs
    judge_names = settings.evaluation.judges if judges is None else judges
    families, warnings = plan_families(metrics, human=human is not None, bench=bench is not None,
                                       judges=bool(judge_names))
    needs_embeddings = ({"alignment", "sgsim", "quality"} & set(families)
                        or ("integrity" in families and retrieved))
    if embed is None and needs_embeddings:
        embed = embedding_memo(settings)
    state: dict[str, Any] = {"survey": survey, "human": human, "bench": bench, "retrieved": retrieved,
                             "families": families, "judges": list(judge_names),
                             "human_judge_scores": human_judge_scores,
                             "results": [], "warnings": warnings}
    config = {"configurable": {"settings": settings, "embed": embed, "on_judgment": on_judgment}}
    return run_families(state, config)["report"]


FAMILY_NODES: dict[str, Callable[..., dict]] = {
    "structure": lambda state, _config: structure_node(state), "integrity": integrity_node,
    "coverage": coverage_node, "alignment": alignment_node, "sgsim": sgsim_node,
    "quality": quality_node, "judges": judges_node}


def run_families(state: dict, config: dict) -> dict:
    """Run ``state["families"]`` side by side (the judges wait on a model; the rest are quick),
    fold their partial states in family order - the same report whatever finishes first - and
    combine. The same reduction as the LangGraph graph's ``operator.add`` channels."""
    families = [f for f in state["families"] if f in FAMILY_NODES]
    merged = {**state, "results": list(state.get("results", [])), "warnings": list(state.get("warnings", []))}
    with ThreadPoolExecutor(max_workers=max(1, len(families))) as pool:
        updates = list(pool.map(lambda f: FAMILY_NODES[f](state, config), families))
    for update in updates:
        merged["results"] += update.get("results", [])
        merged["warnings"] += update.get("warnings", [])
        merged.update({k: v for k, v in update.items() if k not in ("results", "warnings")})
    return {**merged, **combine_node(merged)}
