"""Content floor: a synthesis of one subsection's works, written without an LLM.

The floor a model draft must beat (agents/gate.py), and what the survey says when no model can
write. It is organised by lines of work, not by paper:

1. **Opening**: the theme, how many works and their years, what kinds of contribution they are
   (agents/comparison.py), and the lines of work they form, each with its works cited.
2. **One paragraph per line of work** (agents/lines.py): works grouped by a kind of contribution,
   a phrase their titles and abstracts share, or a design choice (agents/grouping.py,
   agents/digest.py). The paragraph names what they share, quotes the problem one of them states,
   sets their contributions side by side in the abstracts' own words, shortened only at clause
   boundaries ("A [1] propose X, whereas B [2] introduce Y"), says which design choices split them,
   and reports their findings. Works in no line follow together.
3. **Evaluation**: which data, measures and models the works name, shared or not.
4. **Limitations**: the limitations and open problems the works state about themselves or their
   field.

Every statement is read from the abstract of the work it cites, attributed in the sentence to that
work in the third person (agents/attribution.py) and cited with the writer's local key [n]; the
sentences that relate works state only what each cited work's text says. Candidate sentences,
their roles and their salience come from agents/candidates.py.
"""

from __future__ import annotations

import re
import zlib
from collections import defaultdict
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from ..sanitize import untrusted
from .attribution import attribute, paper_handle
from .candidates import (  # noqa: F401  (tag_role: re-exported for callers of the synthesis)
    REPORT_VERBS, RESULT_CUES, Candidate, Encoder, candidate_sentences, describes_prior_work, encode_texts, names_a_gap,
    salience, states_a_limitation, tag_role,
)
from .comparison import evaluation_sentences, kind_sentence, uniform_kind, works as compared_works
from .digest import Digest, digest, own_subject
from .facets import NO_KNOWN_NAMES, KnownNames, paper_facets
from .grouping import phrase_users
from .lines import (cites, contrast_sentences, kind_line_sentence, lead_sentence, similar_pairs, trait_sentence,
                    work_lines)
from .outline.headings import is_name
from .outline.parts import OTHER_WORK_PREFIX
from .outline.asked import acronym_words
from .outline.names import keyphrase_analyzer, surface_forms
from .outline.names import topic_words  # noqa: E402  (kept beside the names it completes)
from .text import and_list, count_words, in_sentence

def beyond_lead(lines) -> str:
    """The lead-in of the paragraph on works in no line."""
    if len(lines) == 1:
        return f"Beyond the {lines[0].label}, " if lines[0].kind == "kind" else "Beyond this line, "
    return "Beyond these lines, "


def theme_phrase(title: str) -> str:
    """A heading as a noun phrase inside a sentence: Title Case words lower-cased, acronyms kept."""
    return in_sentence(untrusted(title, 160).rstrip("."))


def _listing(papers: Sequence[dict], keys: Sequence[int]) -> str:
    return and_list([f"{paper_handle(papers[k - 1])[0]} [{k}]" for k in keys])


def opening_sentence(title: str, papers: Sequence[dict], *, list_works: bool) -> str:
    """Names the theme and how many works the subsection covers: facts only. With ``list_works``
    (nothing else to say) it also names and cites every work. The years are not repeated here: the
    introduction states the survey's span once, and blind readers quoted "published between 2025 and
    2026", said in every subsection, as the mark of a template."""
    noun = "work" if len(papers) == 1 else "works"
    listing = f": {_listing(papers, range(1, len(papers) + 1))}" if list_works else ""
    # "Other Work on X" holds a section's further works on X ("reviews eight works on other work on
    # harmful content" was read in a c27 draft)
    if title.startswith(OTHER_WORK_PREFIX):
        title, noun = title[len(OTHER_WORK_PREFIX):], f"further {noun}"
    return f"This subsection reviews {count_words(len(papers))} {noun} on {theme_phrase(title)}{listing}."


def uncovered_sentence(papers: Sequence[dict], keys: Sequence[int]) -> str:
    """Papers of the subsection none of whose abstract sentences was usable: named, not skipped."""
    verb = "was" if len(keys) == 1 else "were"
    return f"The work{'s' if len(keys) > 1 else ''} of {_listing(papers, keys)} {verb} also retrieved for this theme."


def map_sentence(lines, rest: list[int]) -> str:
    """'Three lines of work run through them: A [1, 2], B [3, 4] and C [5, 6]; two further works [7, 8]
    follow.' Not for one kind of contribution alone (the kinds sentence already says it)."""
    if not lines or (len(lines) == 1 and lines[0].kind == "kind"):
        return ""
    parts = and_list([f"{line.label} {cites(line.keys)}" for line in lines])
    tail = (f"; {count_words(len(rest))} further work{'s' if len(rest) > 1 else ''} {cites(rest)} "
            f"follow{'s' if len(rest) == 1 else ''}" if rest else "")
    if len(lines) == 1:
        return f"One line of work runs through them, {parts}{tail}."
    return f"{count_words(len(lines)).capitalize()} lines of work run through them: {parts}{tail}."


def shared_phrase_finder(texts: list[str], titles: list[str], banned: set[str]):
    """``shared(a, b)``: the most specific phrase works ``a`` and ``b`` (local keys) both use and
    not every work of the subsection does (multiword, or a name), and whether both titles use it."""
    users = phrase_users(texts, banned)
    analyze = keyphrase_analyzer(banned)
    in_title = [set(analyze(t)) for t in titles]
    forms = surface_forms(texts + titles)
    n = len(texts)

    def shared(a: int, b: int, exclude: str = "") -> tuple[str, bool] | None:
        # a phrase no title of the pair uses ('future research directions') is abstract boilerplate;
        # one the line's own label says adds nothing ("Several works centre on RLVR training [11, 12,
        # 13]. Both involve RLVR: ...", which a c28i reader quoted as odd)
        said = set(exclude.lower().split())
        options = [p for p, who in users.items() if {a - 1, b - 1} <= who and len(who) < n
                   and (p in in_title[a - 1] or p in in_title[b - 1])
                   and (" " in p or is_name(forms.get(p, p)))
                   and not (said and set(in_sentence(forms.get(p, p)).lower().split()) <= said)]
        if not options:
            return None
        titled = {p: p in in_title[a - 1] and p in in_title[b - 1] for p in options}
        best = min(options, key=lambda p: (not titled[p], len(users[p]), -len(p.split()), p))
        return in_sentence(forms.get(best, best)), titled[best]

    return shared


def work_vectors(candidates: list[Candidate], vectors: np.ndarray, n: int) -> dict[int, np.ndarray]:
    """Each work's unit centroid of its candidate sentences (zeros for a work without any)."""
    out = {}
    for key in range(1, n + 1):
        rows = [i for i, c in enumerate(candidates) if c.key == key]
        mean = vectors[rows].mean(axis=0) if rows else np.zeros(vectors.shape[1] if vectors.size else 1)
        out[key] = mean / max(float(np.linalg.norm(mean)), 1e-12)
    return out


class Statements:
    """The sentences of each work the synthesis may quote, by role, chosen by salience."""

    def __init__(self, candidates: list[Candidate], scores: np.ndarray, digests: list[Digest], per_paper: int):
        by_key: dict[int, list[tuple[float, Candidate]]] = defaultdict(list)
        for cand, score in zip(candidates, scores):
            by_key[cand.key].append((float(score), cand))
        self.papers: dict[int, dict[str, Candidate]] = {}
        for work in digests:
            pool = sorted(by_key.get(work.key, []), key=lambda item: (-item[0], item[1].position))
            used = {work.contribution.source} if work.contribution else set()
            chosen: dict[str, Candidate] = {}

            def best(role: str, fits: Callable[[str], bool] | None = None, fallback: bool = False) -> Candidate | None:
                fitting = [c for _, c in pool if (role == "any" or c.role == role) and c.text not in used]
                cued = [c for c in fitting if fits(c.text)] if fits is not None else fitting
                return cued[0] if cued else (fitting[0] if fallback and fitting else None)

            if work.contribution is None:  # its most salient method sentence, else its most salient one
                method = best("method", fallback=True) or best("any", fallback=True)
                if method is not None:
                    chosen["method"] = method
                    used.add(method.text)
            for role, fits in (("finding", RESULT_CUES.search), ("limitation", states_a_limitation),
                               ("gap", names_a_gap)):
                if len(chosen) - ("method" in chosen) >= per_paper:
                    break
                cand = best("problem" if role == "gap" else role, fits)
                if cand is not None:
                    chosen[role] = cand
                    used.add(cand.text)
            self.papers[work.key] = chosen

    def get(self, key: int, role: str) -> Candidate | None:
        return self.papers.get(key, {}).get(role)

    def covered(self, key: int, digest_: Digest) -> bool:
        return bool(digest_.contribution or self.papers.get(key))


def _said(cand: Candidate, papers: Sequence[dict], role: str, names: Sequence[str] = ()) -> str:
    """The candidate attributed to its work; a finding whose subject is the work's own system
    ("ConRAG consistently outperforms ...") keeps it, cited: "ConRAG [3] consistently outperforms"."""
    own = own_subject(cand.text, list(names)) if role == "finding" else None
    if own and not re.search(r"\b(?:we|our|us)\b", own[1], re.I):
        return f"{own[0]} [{cand.key}] {own[1]}"
    handle, plural = paper_handle(papers[cand.key - 1])
    # a work's fallback sentence ("method") may be any role: it is introduced as what it is
    kind = cand.role if role == "method" else role
    if role == "method" and kind == "limitation" and not states_a_limitation(cand.text):
        kind = "method"  # its cue word named no limitation: "In X [3], AutoAdv combines ...", not "X point out"
    verb = "note" if role == "gap" else REPORT_VERBS.get(kind)
    if verb is None and describes_prior_work(cand.text):
        verb = "note"
    return attribute(cand.text, handle, plural, f"[{cand.key}]", verb)


@dataclass
class Reading:
    """What the paragraphs of one subsection are written from."""
    papers: Sequence[dict]
    digests: list[Digest]
    statements: Statements
    vectors: dict[int, np.ndarray]
    shared: Callable
    theme: str  # topic and heading: a design trait they name is no contrast between the works
    turn: int  # offsets the rotation of sentence frames, so subsections do not open lines alike

    def quoted(self, works: list[Digest], role: str) -> list[str]:
        """The role's statement of each work that has one (methods only for works without a
        contribution clause)."""
        out = []
        for work in works:
            cand = self.statements.get(work.key, role)
            if cand is not None and (role != "method" or not work.contribution):
                out.append(_said(cand, self.papers, role, work.names))
        return out


def _line_paragraph(line, turn: int, reading: Reading) -> list[str]:
    members = similar_pairs([reading.digests[k - 1] for k in line.keys], reading.vectors)
    lead = lead_sentence(line, turn + reading.turn, first=turn == 0)
    contrasts = contrast_sentences(members, turn, lambda a, b: reading.shared(a, b, exclude=line.label))
    if line.kind == "kind" and contrasts:  # "Among the surveys [2, 3], A [2] survey X, whereas ..."
        first = contrasts[0]  # "..., Both involve X:" -> "..., two involve X:"
        out, contrasts = [lead + ("two " + first[5:] if first.startswith("Both ") else first)], contrasts[1:]
    else:
        out = [kind_line_sentence(line) if line.kind == "kind" else lead]
        gaps = [g for g in (reading.statements.get(w.key, "gap") for w in members) if g is not None]
        if gaps:
            out.append(_said(gaps[0], reading.papers, "gap"))
    out += contrasts + reading.quoted(members, "method")
    differ = trait_sentence(members, skip=line.lead_kind, theme=reading.theme)
    return out + ([differ] if differ else []) + reading.quoted(members, "finding")


def _rest_paragraph(keys: list[int], reading: Reading, lines: list) -> list[str]:
    members = similar_pairs([reading.digests[k - 1] for k in keys], reading.vectors)
    out = contrast_sentences(members, shared=reading.shared, related=False)
    if out and out[0].startswith("Both "):
        # no line named before it: "Both involve direct preference optimization:" opening a paragraph of
        # seven works read as if it introduced all seven (a c29r reader)
        out[0] = "Two works " + out[0][len("Both "):]
    if out and lines:
        lead = beyond_lead(lines)
        out[0] = lead + (out[0][:1].lower() + out[0][1:] if out[0].startswith("Two works ") else out[0])
    out += reading.quoted(members, "method")
    differ = trait_sentence(members, theme=reading.theme) if not lines else ""
    return out + ([differ] if differ else []) + reading.quoted(members, "finding")


def _limitations(digests: list[Digest], statements: Statements, papers: Sequence[dict]) -> list[str]:
    stated = [statements.get(w.key, "limitation") for w in digests]
    stated = [s for s in stated if s is not None]
    if not stated:
        return []
    keys = sorted({s.key for s in stated})
    said = [_said(s, papers, "limitation") for s in stated]
    if len(keys) == 1:
        return [f"One limitation is stated: {said[0]}"]
    return [f"{count_words(len(keys)).capitalize()} of the {count_words(len(digests))} works {cites(keys)} state "
            "limitations or open problems.", *said]


def synthesize(title: str, papers: Sequence[dict], *, description: str = "", encode: Encoder | None = None,
               per_paper: int = 2, topic: str = "", topic_terms: set[str] | frozenset = frozenset(),
               known: KnownNames = NO_KNOWN_NAMES) -> str:
    """The synthesis of one subsection (local citation keys [1]..[K] = ``papers`` order).
    ``topic_terms``: the topic's mined variants ("vit"), banned from lines as its words are;
    ``known``: what the topic's literature says names are (models are no evaluation data)."""
    if not papers:
        return ""
    facets = [paper_facets(p, known) for p in papers]
    # the topic's words in either number: "vision transformer" and "ViTs" are the topic too
    texts = [f"{untrusted(p.get('title') or '', 300)}. {untrusted(p.get('abstract') or '')}" for p in papers]
    banned = topic_words(topic) | topic_words(title) | set(topic_terms) | acronym_words(topic, texts)
    banned |= {w[:-1] for w in banned if w.endswith("s") and len(w) > 3} | {f"{w}s" for w in banned}
    group = compared_works(papers, facets)
    candidates = candidate_sentences(papers)
    by_key: dict[int, list[Candidate]] = defaultdict(list)
    for cand in candidates:
        by_key[cand.key].append(cand)
    digests = [digest(k, p, [c.text for c in by_key[k]], [c.text for c in by_key[k] if c.role == "method"],
                      facets[k - 1].own_names, facets[k - 1].kind) for k, p in enumerate(papers, start=1)]
    evaluation = evaluation_sentences(group, banned)
    if not candidates and not any(d.contribution for d in digests):
        return " ".join([opening_sentence(title, papers, list_works=True), *evaluation])
    query = " ".join(untrusted(t, 300) for t in (title, description) if t) or untrusted(title, 300)
    scores, vectors = np.zeros(0), np.zeros((1, 1))
    if candidates:
        vectors = encode_texts([c.text for c in candidates] + [query], encode)
        scores, _ = salience(candidates, vectors[:-1], vectors[-1])
    titles = [untrusted(p.get("title") or "", 300) for p in papers]
    reading = Reading(papers, digests, Statements(candidates, scores, digests, per_paper),
                      work_vectors(candidates, vectors[:-1] if candidates else np.zeros((0, 1)), len(papers)),
                      shared_phrase_finder(texts, titles, banned), f"{topic} {title}", zlib.crc32(title.encode()))
    theme = f"{topic} {title}"
    lines, rest = work_lines(texts, titles, [f.kind for f in facets], digests, banned, theme,
                             data=[name for f in facets for name in f.data])
    # one kind for all: said in the opening sentence, which names the theme (a sentence "All eight
    # propose new methods" would be the same in every subsection)
    same = uniform_kind(group)
    first = opening_sentence(title, papers, list_works=False)
    opening = ([first[:-1] + f", {'both' if len(papers) == 2 else 'all'} of which {same}."] if same
               else [first, kind_sentence(group)]) + [map_sentence(lines, rest)]
    paragraphs = [[s for s in opening if s]]
    for turn, line in enumerate(lines):
        paragraphs.append(_line_paragraph(line, turn, reading))
    covered_rest = [k for k in rest if reading.statements.covered(k, digests[k - 1])]
    if covered_rest:
        paragraphs.append(_rest_paragraph(covered_rest, reading, lines))
    if evaluation:
        paragraphs.append(evaluation)
    limits = _limitations(digests, reading.statements, papers)
    if limits:
        paragraphs.append(limits)
    uncovered = [k for k in range(1, len(papers) + 1) if not reading.statements.covered(k, digests[k - 1])]
    if uncovered:
        paragraphs[-1].append(uncovered_sentence(papers, uncovered))
    return "\n\n".join(" ".join(p) for p in paragraphs if p)
