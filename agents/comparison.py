"""Comparative statements about a subsection's works, built from their facets (agents/facets.py).

Where the synthesis sets the works' contributions side by side (agents/lines.py), these sentences
say how they relate on evaluation (issue 17.3): what kind of contribution each is, who evaluates on
which data with which measure, which models they name. Each sentence cites exactly the works whose
facts it states, and each fact is a string found in those works' titles or abstracts, so the
comparison adds structure, not claims.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Sequence

from .attribution import paper_handle
from .facets import KINDS, Facets, data_key, recurring_data
from .text import and_list, count_words

MAX_NAMED = 3  # works named by handle in one list; more are cited by number only


@dataclass(frozen=True)
class Work:
    key: int  # local citation number
    handle: str
    plural: bool
    facets: Facets


def works(papers: Sequence[dict], facets: Sequence[Facets]) -> list[Work]:
    out = []
    for key, (paper, facet) in enumerate(zip(papers, facets), start=1):
        handle, plural = paper_handle(paper)
        out.append(Work(key, handle, plural, facet))
    return out


def cite_list(group: Sequence[Work]) -> str:
    """'Smith et al. [1] and Lee [4]'; more than MAX_NAMED works: 'five works [1, 3, 4, 6, 8]'."""
    if len(group) > MAX_NAMED:
        return f"{count_words(len(group))} works [{', '.join(str(w.key) for w in group)}]"
    return and_list([f"{w.handle} [{w.key}]" for w in group])


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


# What a work of each kind does, as a predicate: of several works, of one work with a singular
# handle ("Okafor [2]"), of one work with a plural handle ("Smith et al. [3]").
KIND_PREDICATES = {
    "survey": ("are surveys or reviews", "is a survey or review", "is a survey or review"),
    "benchmark": ("contribute benchmarks or datasets", "contributes a benchmark or dataset",
                  "contribute a benchmark or dataset"),
    "study": ("are empirical studies", "is an empirical study", "is an empirical study"),
    "method": ("propose new methods or systems", "proposes a new method or system", "propose a new method or system"),
}


def _predicate(kind: str, group: Sequence[Work]) -> str:
    several, singular, plural = KIND_PREDICATES[kind]
    return several if len(group) > 1 else plural if group[0].plural else singular


def uniform_kind(group: Sequence[Work]) -> str:
    """The predicate every work shares when all are of one known kind ('propose new methods or
    systems'), else ''."""
    kinds = {w.facets.kind for w in group}
    return KIND_PREDICATES[kinds.pop()][0] if len(group) >= 2 and len(kinds) == 1 and "" not in kinds else ""


def kind_sentence(group: Sequence[Work]) -> str:
    """What kind of contribution each work is ('Five of the eight propose new methods or systems;
    A [2] and B [3] are surveys or reviews')."""
    by_kind = {k: [w for w in group if w.facets.kind == k] for k in KINDS}
    present = [k for k in KINDS if by_kind[k]]
    if len(group) < 2 or not present:
        return ""
    known = sum(len(by_kind[k]) for k in present)
    if known < 2:
        return ""
    if len(present) == 1:
        lead = "Both" if known == 2 else f"All {count_words(known)}"
        return f"{lead}{'' if known == len(group) else ' whose abstracts say so'} {KIND_PREDICATES[present[0]][0]}."
    major = max(present, key=lambda k: (len(by_kind[k]), -KINDS.index(k)))
    parts = [f"{cite_list(by_kind[k])} {_predicate(k, by_kind[k])}" for k in present if k != major]
    if len(by_kind[major]) == 1:  # one work per kind: each named ("A [1] is a survey or review; B [2] ...")
        return _capital("; ".join(f"{cite_list(by_kind[k])} {_predicate(k, by_kind[k])}" for k in present)) + "."
    lead = f"{_capital(count_words(len(by_kind[major])))} of the {count_words(len(group))} {KIND_PREDICATES[major][0]}"
    unknown = len(group) - known  # counted against the subsection's works, as its first sentence counts them
    rest = f" (the abstract{'s' if unknown > 1 else ''} of {count_words(unknown)} do{'' if unknown > 1 else 'es'} not say)" \
        if unknown else ""
    return f"{lead}; {and_list(parts)}{rest}."


def _uses(work: Work, names: Sequence[str]) -> str:
    verb = "use" if work.plural else "uses"
    return f"{work.handle} [{work.key}] {verb} {and_list(list(names[:4]))}"


def data_sentences(group: Sequence[Work]) -> list[str]:
    """Which data each work evaluates on; data used by two or more works are named as shared."""
    if not any(work.facets.data for work in group):
        return []
    out = []
    by_key = {work.key: work for work in group}
    shared = recurring_data([(work.key, work.facets) for work in group])  # "ImageNet-1K" = "ImageNet-1k"
    if shared:
        parts = [f"{name} ({cite_list([by_key[k] for k in keys])})" for name, keys in shared[:3]]
        out.append(f"Evaluation data recur across works: {and_list(parts)}.")
    shared_keys = {data_key(name) for name, _ in shared}
    own = [w for w in group if w.facets.data and not any(data_key(n) in shared_keys for n in w.facets.data)][:4]
    if len(own) == 1:
        # "Only Xu et al. [4] use BFCLv3 as named evaluation data" read as counting to three readers
        # (c28a, c28b, c28n): said as what the work does
        work = own[0]
        out.append(f"{work.handle} [{work.key}] evaluate{'' if work.plural else 's'} on "
                   f"{and_list(list(work.facets.data[:4]))}.")
    elif own:
        parts = [_uses(w, w.facets.data) for w in own]
        out.append(f"The named evaluation data differ from work to work: {_capital('; '.join(parts))}.")
    return out


def _grouped(group: Sequence[Work], values: Callable[[Work], list[str]], lead: str) -> str:
    """'<lead> A and B (X [1]) and C (Y [2], Z [3])': values grouped by the works that name them;
    empty unless two works, or two groups of works, name something."""
    by_users: dict[tuple[int, ...], list[str]] = {}
    for value in sorted({v for w in group for v in values(w)}):
        keys = tuple(w.key for w in group if value in values(w))
        by_users.setdefault(keys, []).append(value)
    if len(by_users) < 2 and sum(1 for w in group if values(w)) < 2:
        return ""
    by_key = {w.key: w for w in group}
    ordered = sorted(by_users.items(), key=lambda item: (-len(item[0]), item[0]))[:4]
    parts = [f"{and_list(items[:4])} ({cite_list([by_key[k] for k in keys])})" for keys, items in ordered]
    return f"{lead} {and_list(parts)}."


def model_sentence(group: Sequence[Work]) -> str:
    """The foundation models the abstracts name (built on or compared with)."""
    return _grouped(group, lambda w: w.facets.models, "The models their abstracts name are")


def evaluation_sentences(group: Sequence[Work], banned: set[str]) -> list[str]:
    """What the works evaluate on and with: shared and separate data and named models.
    The topic's own words ("VLA") are not a dataset any work evaluates on, nor a model its works
    name ("The models their abstracts name are ViT ... and ViTs" in a survey of vision transformers)."""
    def own(name: str) -> bool:
        return name.lower() in banned or name.lower().rstrip("s") in banned

    group = [replace(w, facets=replace(w.facets, data=[d for d in w.facets.data if not own(d)],
                                       models=[m for m in w.facets.models if not own(m)])) for w in group]
    if len(group) < 2:
        return []
    # The measures are not listed here: an abstract's "accuracy" is as often a claim ("camera-control
    # accuracy") as a reported measure, and "Results are reported in accuracy (...)" in every
    # subsection was what blind readers quoted as template; the tables and the datasets-and-metrics
    # section give them per work.
    said = [*data_sentences(group), model_sentence(group)]
    return [s for s in said if s]
