"""How much of a survey's cited text is copied from the abstracts of the works it cites.

A sentence that repeats its source's abstract is grounded, but it is the source's writing, not the
survey's. Where the cited works' abstracts are known (a run's own retrieved papers, or a corpus
lookup), each citing sentence gets the share of its word 5-grams that occur in the abstracts of the
works it cites (containment, citation markers and case removed), and its *own* words: those outside
every copied 5-gram. The quality model's substance counts such a sentence by what is not copied
(1 - share) and reads its vocabulary from its own words only: a survey pasted together from its
sources' abstracts keeps its citations but loses its substance, and the lead-ins stitched around
the pasted text ("X et al. note that ...") are all that is left of its language. With no abstracts nothing changes,
so external drafts (and the training drafts, which carry no abstracts) are scored as before.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..models import Survey, normalize_title

N = 5  # five consecutive words: long enough to be a copied phrase, short enough to survive edits
_WORDS = re.compile(r"[a-z0-9]+")
_MARKER = re.compile(r"\[[^\]]{0,40}\]|\([A-Z][^()]{0,80}?\d{4}[a-z]?\)")


def _words(text: str) -> list[str]:
    return _WORDS.findall(_MARKER.sub(" ", text).lower())


def _grams(words: list[str]) -> set[tuple[str, ...]]:
    return {tuple(words[i:i + N]) for i in range(len(words) - N + 1)}


def copied_share(sentence: str, sources: list[str]) -> float:
    """Share of the sentence's word 5-grams found in ``sources`` (0 when it has none)."""
    return copy_reading(sentence, sources)[0]


def copy_reading(sentence: str, sources: list[str]) -> tuple[float, str]:
    """(share of the sentence's word 5-grams found in ``sources``, the sentence's own words: those
    not inside any copied 5-gram, in order). A lead-in such as "Wang et al. note that" stays own."""
    words = _words(sentence)
    grams = [tuple(words[i:i + N]) for i in range(len(words) - N + 1)]
    if not grams:
        return 0.0, " ".join(words)
    source = set().union(*(_grams(_words(s)) for s in sources)) if sources else set()
    hits = [g in source for g in grams]
    covered = [False] * len(words)
    for i, hit in enumerate(hits):
        if hit:
            covered[i:i + N] = [True] * N
    return sum(hits) / len(grams), " ".join(w for w, c in zip(words, covered) if not c)


def sentence_key(sentence: str) -> str:
    """The key the quality model's substance uses for a sentence (markers and case removed)."""
    from .quality.features import _sentence_key

    return _sentence_key(sentence)


def copied_shares(survey: Survey, abstracts: dict[str, str]) -> dict[str, tuple[float, str]]:
    """Sentence key -> (copied share, own words), for every citing sentence that cites a work with
    a known abstract (``abstracts``: reference key -> abstract)."""
    from .integrity import _marker_index

    if not abstracts:
        return {}
    index = _marker_index(survey.references)
    out: dict[str, tuple[float, str]] = {}
    for citation in survey.citations:
        keys = [index.get(k, k) for k in citation.ref_keys]
        sources = [abstracts[k] for k in dict.fromkeys(keys) if abstracts.get(k)]
        if sources:
            key = sentence_key(citation.sentence)
            reading = copy_reading(citation.sentence, sources)
            if key not in out or reading[0] > out[key][0]:
                out[key] = reading
    return out


def known_abstracts(survey: Survey, papers) -> dict[str, str]:
    """Reference key -> abstract for references that are given papers (by id, else by title)."""
    from .coverage import reference_title

    by_id = {p.paper_id: p.abstract for p in papers if p.abstract}
    by_title = {normalize_title(p.title): p.abstract for p in papers if p.abstract}
    found = {}
    for ref in survey.references:
        abstract = by_id.get(ref.paper_id or "") or by_title.get(normalize_title(reference_title(ref)))
        if abstract:
            found[ref.key] = abstract
    return found


def stored_abstracts(survey: Survey, store_dir: Path) -> dict[str, str]:
    """Reference key -> abstract for the cited works the local paper store holds (by the paper id a
    reference carries, else its arXiv id), for the quality score. Any draft's copying is then read
    where its sources are known, not only our own runs' (which pass the papers they retrieved): on
    the 72 reader panels the score's agreement with the readers rose from 0.08 to 0.26 and the cases
    of our draft above one its reader rated >= 1.0 higher fell from 20 to 7 (BENCHMARKS.md).
    Read-only; no store, no abstracts."""
    from ..retrieval.paper_table import PaperTable

    path = store_dir / "papers.sqlite"
    wanted = {ref.key: ref.paper_id or (f"arxiv:{ref.arxiv_id}" if ref.arxiv_id else "") for ref in survey.references}
    wanted = {k: v for k, v in wanted.items() if v}
    if not wanted or not path.is_file():
        return {}
    found = PaperTable(path, read_only=True).get(list(dict.fromkeys(wanted.values())))
    return {key: found[pid].abstract for key, pid in wanted.items() if pid in found and found[pid].abstract}
