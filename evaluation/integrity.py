"""Citation integrity (dangling markers, uncited and duplicate references) and a claim-support proxy."""

from __future__ import annotations

import numpy as np

from ..models import MetricResult, Reference, Survey, normalize_title

FAMILY = "integrity"


def _marker_index(references: list[Reference]) -> dict[str, str]:
    index: dict[str, str] = {}
    for ref in references:
        for marker in [ref.key, *ref.aliases]:
            index.setdefault(marker, ref.key)
    return index


def _duplicate_groups(references: list[Reference]) -> list[list[str]]:
    """Keys of references sharing an arXiv id, a DOI or a normalised title (of 3+ words)."""
    groups: dict[tuple[str, str], list[str]] = {}
    for ref in references:
        ids = []
        if ref.arxiv_id:
            ids.append(("arxiv", ref.arxiv_id))
        if ref.doi:
            ids.append(("doi", ref.doi))
        title = normalize_title(ref.title or "")
        if len(title.split()) >= 3:
            ids.append(("title", title))
        for ident in ids:
            groups.setdefault(ident, []).append(ref.key)
    seen: set[frozenset] = set()
    result = []
    for keys in groups.values():
        unique = list(dict.fromkeys(keys))
        if len(unique) > 1 and frozenset(unique) not in seen:
            seen.add(frozenset(unique))
            result.append(unique)
    return result


def _rate(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def citation_integrity(survey: Survey) -> list[MetricResult]:
    """Counts and rates: dangling markers, references never cited, duplicate references."""
    index = _marker_index(survey.references)
    cited_markers = [k for c in survey.citations for k in c.ref_keys]
    distinct_cited = list(dict.fromkeys(cited_markers))
    dangling = [k for k in distinct_cited if k not in index]
    cited_refs = {index[k] for k in distinct_cited if k in index}
    uncited = [r.key for r in survey.references if r.key not in cited_refs]
    duplicates = _duplicate_groups(survey.references)
    n_dup = sum(len(g) - 1 for g in duplicates)
    n_refs, n_cited = len(survey.references), len(distinct_cited)
    no_refs = None if n_refs else "the survey has no reference entries"
    no_cites = None if n_cited else "the survey has no in-text citations"

    def metric(name, value, details=None, rationale=None):
        return MetricResult(name=f"integrity.{name}", family=FAMILY, value=value,
                            details=details or {}, rationale=rationale)

    return [
        metric("citations", float(len(cited_markers)), {"citing_sentences": len(survey.citations)}),
        metric("references", float(n_refs)),
        metric("dangling_markers", float(len(dangling)), {"keys": dangling[:200]}),
        metric("dangling_rate", _rate(len(dangling), n_cited), rationale=no_cites),
        metric("uncited_references", float(len(uncited)), {"keys": uncited[:200]}),
        metric("uncited_rate", _rate(len(uncited), n_refs), rationale=no_refs),
        metric("duplicate_references", float(n_dup), {"groups": duplicates[:100]}),
        metric("duplicate_rate", _rate(n_dup, n_refs), rationale=no_refs),
    ]


def claim_support(survey: Survey, embedder, abstracts: dict[str, str]) -> MetricResult:
    """Mean cosine between each citing sentence and the abstracts of the papers it cites (where
    an abstract is known). ``embedder.encode(list[str])`` must return L2-normalised rows."""
    index = _marker_index(survey.references)
    pairs: list[tuple[int, str]] = []
    sentences: list[str] = []
    for citation in survey.citations:
        keys = [index.get(k, k) for k in citation.ref_keys]
        known = [k for k in dict.fromkeys(keys) if abstracts.get(k)]
        if known:
            sentences.append(citation.sentence)
            pairs.extend((len(sentences) - 1, k) for k in known)
    if not pairs:
        return MetricResult(name="integrity.claim_support", family=FAMILY, value=None,
                            rationale="no citing sentence cites a reference with a known abstract")
    ref_keys = list(dict.fromkeys(k for _, k in pairs))
    sentence_vecs = np.asarray(embedder.encode(sentences), dtype=float)
    abstract_vecs = np.asarray(embedder.encode([abstracts[k] for k in ref_keys]), dtype=float)
    row = {k: i for i, k in enumerate(ref_keys)}
    cosines = np.array([float(sentence_vecs[s] @ abstract_vecs[row[k]]) for s, k in pairs])
    total_citing = len(survey.citations)
    return MetricResult(
        name="integrity.claim_support", family=FAMILY, value=float(cosines.mean()),
        details={"pairs": len(pairs), "sentences": len(sentences),
                 "sentence_coverage": len(sentences) / total_citing if total_citing else None,
                 "min": float(cosines.min()), "max": float(cosines.max())},
    )
