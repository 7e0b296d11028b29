"""Encoder-specific alignment thresholds τ for RA-AlignF1 and τ-MaxSim.

SurveyLens fixes τ = 0.95 for Qwen3-Embedding-8B: "paraphrases fall at 0.93-0.97 cosine, so 0.95
admits only substantive matches". The number is a property of that encoder's similarity scale:
with MiniLM almost no pair of different section bodies reaches 0.95, so content RA-AlignF1 is 0
for every system and the metric cannot discriminate.

What τ = 0.95 *means* for the strong encoder is "an entry of an unrelated survey (virtually)
never passes". We carry that meaning, not the number, to our encoders, per component c:

    τ_c(encoder) = the (1 - α) quantile of D_c,   α = FALSE_MATCH_RATE = 0.01

where D_c is the distribution of *best-match* cosine similarities between a generated survey's
entries (section titles / section bodies / reference titles) and the entries of the human survey
of an *unrelated* topic (same position in another discipline's topic list; half-way round the
list when the folder has one discipline). So an entry matches its own topic's human entry only
if it is closer than 99% of entries get to an unrelated survey. Texts identical after lowercasing
are left out of both distributions (they match under any τ < 1 and say nothing about the scale).
The same-topic best-match distribution S_c is measured alongside and recorded: the hit rates of
S_c and D_c at τ_c (and at the paper's 0.95) show how well the threshold discriminates.

Nothing here looks at SurveyLens' scores; α is a convention fixed before measuring. The shipped
files (``data/calibration/<encoder>.json``) are re-derived with ``surveygraph calibrate-tau``.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path
from typing import Callable, Iterable

import numpy as np

from ..errors import UserError

CALIBRATION_DIR = Path(__file__).resolve().parent / "data" / "calibration"
COMPONENTS = ("outline", "content", "reference")
PAPER_TAU = 0.95
FALSE_MATCH_RATE = 0.01
QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95, 0.99)


def _file_stem(encoder: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", encoder).strip("_") or "encoder"


def calibration_path(encoder: str, folder: Path | None = None) -> Path:
    return (folder or CALIBRATION_DIR) / f"{_file_stem(encoder)}.json"


@lru_cache(maxsize=16)
def _load(path: str, mtime: float) -> dict | None:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    taus = data.get("tau", {})
    if not all(isinstance(taus.get(c), (int, float)) for c in COMPONENTS):
        raise UserError(f"calibration file {path} lacks a numeric tau for {', '.join(COMPONENTS)}")
    return data


def load_calibration(encoder: str, folder: Path | None = None) -> dict | None:
    """The shipped (or ``folder``'s) calibration of ``encoder``; None when there is none."""
    path = calibration_path(encoder, folder)
    if not path.is_file():
        return None
    return _load(str(path), path.stat().st_mtime)


def resolve_tau(cfg, component: str) -> tuple[float, str]:
    """(τ in the similarity space of ``cfg.sim_mode``, where it came from) for one component.

    ``cfg`` is an EvaluationSettings. ``tau_mode = "paper"`` uses ``cfg.tau`` as given (0.95 =
    SurveyLens). ``"calibrated"`` uses the encoder's shipped τ_c; an encoder without a
    calibration falls back to ``cfg.tau`` and says so in the source string.
    """
    tau, source = cfg.tau, "fixed (evaluation.tau)"
    if cfg.tau_mode == "calibrated":
        data = load_calibration(cfg.embedding_model)
        if data is None:
            source = f"fixed (evaluation.tau): no calibration for encoder {cfg.embedding_model!r}"
        else:
            tau, source = float(data["tau"][component]), f"calibrated for {cfg.embedding_model}"
            if cfg.sim_mode == "chroma_l2":  # 1 - ||a-b||^2 = 2 cos - 1 for unit vectors
                tau = 2.0 * tau - 1.0
    return tau, source


def tau_summary(cfg) -> dict[str, float]:
    """component -> τ actually used, for reports and leaderboard headers."""
    return {c: round(resolve_tau(cfg, c)[0], 4) for c in COMPONENTS}


# --- deriving τ from data -------------------------------------------------------------------
def _normalise(text: str) -> str:
    return " ".join(text.lower().split())


def best_match_similarities(gen_vecs: np.ndarray, human_vecs: np.ndarray,
                            gen_texts: list[str], human_texts: list[str]) -> np.ndarray:
    """Per generated entry, its highest cosine to a human entry, identical texts excluded."""
    from .alignment import similarity

    if len(gen_texts) == 0 or len(human_texts) == 0:
        return np.zeros(0)
    sim = similarity(gen_vecs, human_vecs, "cosine")
    human_norm = [_normalise(t) for t in human_texts]
    for i, text in enumerate(gen_texts):
        same = [j for j, h in enumerate(human_norm) if h == _normalise(text)]
        sim[i, same] = -np.inf
    best = sim.max(axis=1)
    return best[np.isfinite(best)]


def derive_tau(same_topic: np.ndarray, unrelated: np.ndarray,
               false_match_rate: float = FALSE_MATCH_RATE) -> dict:
    """τ = the (1 - α) quantile of the unrelated-topic best matches, with the evidence."""
    same, other = np.asarray(same_topic, float), np.asarray(unrelated, float)
    if other.size == 0 or same.size == 0:
        raise UserError("calibration needs entries on both the same-topic and the unrelated side")
    if not 0.0 < false_match_rate < 0.5:
        raise ValueError("false_match_rate must be in (0, 0.5)")
    tau = float(np.quantile(other, 1.0 - false_match_rate))
    return {
        "tau": round(tau, 4),
        "n_same_topic": int(same.size), "n_unrelated": int(other.size),
        "same_topic_quantiles": {str(q): round(float(np.quantile(same, q)), 4) for q in QUANTILES},
        "unrelated_quantiles": {str(q): round(float(np.quantile(other, q)), 4) for q in QUANTILES},
        "hit_rate_same_topic": round(float((same >= tau).mean()), 4),
        "hit_rate_unrelated": round(float((other >= tau).mean()), 4),
        "hit_rate_same_topic_at_paper_tau": round(float((same >= PAPER_TAU).mean()), 4),
        "hit_rate_unrelated_at_paper_tau": round(float((other >= PAPER_TAU).mean()), 4),
    }


def unrelated_partner(topics: list[str], discipline_of: Callable[[str], str]) -> dict[str, str]:
    """topic -> an unrelated topic: the same position in the next discipline's sorted topic list;
    with a single discipline, the topic half-way round the list."""
    by_disc: dict[str, list[str]] = {}
    for t in sorted(topics):
        by_disc.setdefault(discipline_of(t), []).append(t)
    discs = sorted(by_disc)
    partner = {}
    for k, d in enumerate(discs):
        for i, t in enumerate(by_disc[d]):
            if len(discs) > 1:
                other = by_disc[discs[(k + 1) % len(discs)]]
                partner[t] = other[i % len(other)]
            elif len(by_disc[d]) > 1:
                partner[t] = by_disc[d][(i + len(by_disc[d]) // 2) % len(by_disc[d])]
    return partner


def collect_similarities(pairs: Iterable[tuple[object, object, object]], embed) -> dict[str, dict[str, list]]:
    """``pairs`` yields (generated, same-topic human, unrelated human) Surveys; returns per
    component the same-topic and unrelated best-match similarities."""
    from .scoring import alignment_entries

    out = {c: {"same": [], "unrelated": []} for c in COMPONENTS}
    for generated, human, unrelated in pairs:
        gen, same, other = (alignment_entries(s) for s in (generated, human, unrelated))
        for c in COMPONENTS:
            if not gen[c]:
                continue
            g_vec = embed(gen[c])
            for key, entries in (("same", same[c]), ("unrelated", other[c])):
                if entries:
                    out[c][key].extend(best_match_similarities(g_vec, embed(entries), gen[c], entries).tolist())
    return out


def calibrate(inputs, settings, *, encoder: str, discipline_of: Callable[[str], str],
              false_match_rate: float = FALSE_MATCH_RATE, on_step: Callable[[str], None] | None = None,
              command: str = "") -> dict:
    """Derive τ_c for ``encoder`` from a leaderboard-style folder (``LeaderboardInputs``)."""
    from .scoring import EmbeddingMemo
    from ..retrieval.embeddings import get_embedder
    from .parsers import parse_survey

    step = on_step or (lambda _m: None)
    partner = unrelated_partner(inputs.topics, discipline_of)
    if not partner:
        raise UserError("calibration needs at least two topics (an unrelated topic for each)")
    embed = EmbeddingMemo(get_embedder(settings.with_embedding_model(encoder)).encode)
    humans = {t: parse_survey(p, system="human", topic=t) for t, p in inputs.human_files.items()}

    def pairs():
        for (system, topic), path in sorted(inputs.system_files.items()):
            step(f"{system} / {topic}")
            if topic in partner:
                yield parse_survey(path, system=system, topic=topic), humans[topic], humans[partner[topic]]

    sims = collect_similarities(pairs(), embed)
    components = {c: derive_tau(np.array(sims[c]["same"]), np.array(sims[c]["unrelated"]), false_match_rate)
                  for c in COMPONENTS}
    return {
        "encoder": encoder, "similarity": "cosine", "paper_tau": PAPER_TAU,
        "tau": {c: components[c]["tau"] for c in COMPONENTS},
        "rule": (f"tau_c = {1 - false_match_rate:.2f} quantile of the best-match cosine between a generated "
                 "survey's entries and the human survey of an unrelated topic (same position in another "
                 "discipline); identical texts excluded"),
        "false_match_rate": false_match_rate,
        "data": {"systems": inputs.systems, "topics": len(inputs.topics),
                 "surveys": len(inputs.system_files)},
        "components": components,
        "generated_by": command or "surveygraph calibrate-tau",
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }


def write_calibration(data: dict, path: Path, *, force: bool = False) -> Path:
    if path.exists() and not force:
        raise UserError(f"{path} exists; pass --force to replace it")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    _load.cache_clear()
    return path
