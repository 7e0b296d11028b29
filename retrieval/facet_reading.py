"""How much of a topic's facets a paper's words name (the facets themselves: topic_facets.py).

A unit is named when the paper's stems say one of its forms; a kind unit ("benchmark") only where the
paper says what kind of work it is (kind_units.py). The pool's judge reads these shares beside its
learned vocabulary (topic_judge.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .kind_units import kind_named, kind_text
from .topic_facets import Facet, Unit, _form_pattern, stem_text


def unit_named(unit: Unit, stems: str) -> bool:
    if unit.kind:
        return kind_named(stems)
    return any(_form_pattern(f).search(stems) for f in unit.forms)


def facet_shares(facets: Sequence[Facet], stems: str, kind_stems: str | None = None) -> list[float]:
    """Per facet, how much of it ``stems`` (a stem_text) names: the (weighted) share of its units, over the
    share that names it (``Facet.required``), at most 1 (1 = named). A kind unit reads ``kind_stems``
    (the stems of ``kind_text``) when given."""
    shares = []
    for f in facets:
        named = [unit_named(u, kind_stems if u.kind and kind_stems is not None else stems) for u in f.units]
        share = sum(u.weight for u, n in zip(f.units, named) if n) / sum(u.weight for u in f.units)
        # a description's key unit unnamed: the half it names is not enough (the share as of a term)
        required = 1.0 if any(u.key and not n for u, n in zip(f.units, named)) else f.required
        shares.append(min(1.0, share / required))
    return shares


@dataclass(frozen=True)
class FacetReading:
    """How much of the topic's facets a paper names: the weakest facet in the title and in title +
    abstract, the facets' mean share in title + abstract, and each facet's share there."""

    title_min: float
    text_min: float
    text_mean: float
    text_shares: tuple[float, ...] = ()
    # per facet: whether the kind of work it asks for (its kind units) is named, True without one
    kinds: tuple[bool, ...] = ()


def read_facets(facets: Sequence[Facet], title: str, abstract: str) -> FacetReading:
    title_stems = stem_text(title)
    text_stems = f"{title_stems} {stem_text(abstract)}"
    kind_stems = stem_text(kind_text(title, abstract)) if any(u.kind for f in facets for u in f.units) else None
    in_title, in_text = facet_shares(facets, title_stems), facet_shares(facets, text_stems, kind_stems)
    kinds = tuple(all(unit_named(u, kind_stems) for u in f.units if u.kind) for f in facets)
    return FacetReading(min(in_title), min(in_text), sum(in_text) / len(in_text), tuple(in_text), kinds)
