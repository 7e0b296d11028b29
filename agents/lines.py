"""Paragraphs about lines of work: what a group of works shares, then how its works differ.

A subsection's works are grouped (``work_lines``) by what their own text says they are or use:
the kind of contribution (surveys, benchmarks, empirical studies: agents/facets.py), a phrase
their titles and abstracts share (agents/grouping.py), or a design choice their method sentences
name (training-free, fine-tuning, reinforcement learning, ...: agents/digest.py). Each line gets
one paragraph (``line_paragraph``): a lead that names the line and cites all its works, the
problem one of them states, their contributions set side by side ("A [1] propose X, whereas B [2]
introduce Y"), the design choices that split them, and what they report. Works in no line are
discussed together after the lines. Every clause comes from the work it cites.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .attribution import third_person
from .digest import TRAIT_PHRASES, TRAITS, Digest
from .facets import METRICS
from .grouping import initials, phrase_groups
from .outline.names import stem
from .text import and_list, count_words

KIND_LINES = {"survey": "surveys and reviews", "benchmark": "benchmarks and datasets", "study": "empirical studies"}
KIND_LEADS = {"survey": "Among the surveys and reviews {cites}, ", "benchmark": "Among the benchmarks and datasets {cites}, ",
              "study": "Among the empirical studies {cites}, "}
# The same line said as a sentence of its own, when no contrast follows the lead-in: "Among the
# empirical studies [59, 60]." stood alone in a c27q draft.
KIND_SENTENCES = {"survey": "{Several} works {cites} are surveys or reviews.",
                  "benchmark": "{Several} works {cites} contribute benchmarks or datasets.",
                  "study": "{Several} works {cites} are empirical studies."}
# Rotated so that a subsection with several lines does not repeat one frame. A count is said for two
# works only: "Four works all deal with X [1, 2, 3, 4]" restates the citation list, and blind readers
# quoted such tallies as the mark of a machine-assembled text.
# The phrase is never the subject: "Jailbreak attacks is ..." would need its number.
PHRASE_LEADS = ("{Several} works centre on {phrase} {cites}", "Another line of work focuses on {phrase} {cites}",
                "The common thread of {cites} is {phrase}", "{Several} works turn to {phrase} {cites}")
MENTION_LEADS = ("{Several} works deal with {phrase} {cites}", "Another group of works deals with {phrase} {cites}")
CONTRASTS = (", whereas ", ", while ", "; by contrast, ")
# Design choices that exclude each other: works on both sides are contrasted explicitly.
SharedPhrase = Callable[[int, int], "tuple[str, bool] | None"]
OPPOSED = (("training-free", "fine-tuning"), ("training-free", "reinforcement learning"),
           ("internal signals", "black-box access"))


@dataclass
class WorkLine:
    kind: str  # "kind", "phrase" or "trait"
    label: str  # "surveys and reviews", "query decomposition", "reinforcement learning"
    keys: list[int]  # local citation keys, in subsection order
    titled: bool = True  # phrase lines: the phrase is in at least half of the members' titles
    lead_kind: str = ""  # the contribution kind or trait the line is named after
    extra: dict = field(default_factory=dict)


def cites(keys) -> str:
    return "[" + ", ".join(str(k) for k in sorted(keys)) + "]"


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


# A measure in any of its written forms ("mIoU" of the measure "IoU").
_MEASURE_FORM = re.compile("|".join(f"(?:{pattern})" for pattern in METRICS.values()))


def work_lines(texts: list[str], titles: list[str], kinds: list[str], digests: list[Digest],
               banned: set[str], theme: str = "", data: Sequence[str] = ()) -> tuple[list[WorkLine], list[int]]:
    """Lines of work among the works (local keys 1..n) and the keys in none, in key order. A design
    trait the ``theme`` (topic and heading) itself names ('agents' in a survey of multi-agent
    systems) is the theme, not a line; nor is the evaluation data the works name (``data``: a line
    "LIBERO" was works tested on it, a c23 reader)."""
    data_words = {w.lower() for name in data for w in name.split()}
    n = len(texts)
    lines: list[WorkLine] = []
    free = list(range(1, n + 1))
    for kind, label in KIND_LINES.items():  # a kind every work shares is the subsection's theme, not a line
        members = [k for k in free if kinds[k - 1] == kind]
        if 2 <= len(members) < n:
            lines.append(WorkLine("kind", label, members, lead_kind=kind))
            free = [k for k in free if k not in members]
    if len(free) >= 3:
        # a measure ('PSNR', 'accuracy') is how works are scored, not what a line of work is about
        measures = {m.lower() for m in METRICS} | {w.lower() for m in METRICS for w in m.split()}
        measures |= {f"{w}s" for w in measures}  # "success rates" (a c23 reader: a line named so)
        # ... in any of its written forms: a line "mIoU [46, 47, 48]" (c28a; the measure's key is "IoU")
        measures |= {w.lower() for t in texts for w in re.findall(r"[\w@-]+", t) if _MEASURE_FORM.fullmatch(w)}
        found = phrase_groups([texts[k - 1] for k in free], banned | measures | data_words,
                              titles=[titles[k - 1] for k in free])
        for group in found:
            members = [free[i] for i in group.members]
            lines.append(WorkLine("phrase", group.phrase, members, titled=2 * group.titled >= len(members)))
        grouped = {k for line in lines for k in line.keys}
        free = [k for k in free if k not in grouped]
    for trait, cue in TRAITS.items():
        if cue.search(theme):
            continue
        members = [k for k in free if trait in digests[k - 1].traits]
        # a trait a phrase line already names is that line: "reinforcement learning [20, 21, 22] and
        # reinforcement learning [19, 23, 24]" (c28f) were a phrase line and a trait line
        same = next((line for line in lines if line.kind == "phrase" and names_trait(line.label, trait)), None)
        if same is not None:
            same.keys = sorted(same.keys + members)
            free = [k for k in free if k not in members]
            continue
        if len(members) >= 2:
            lines.append(WorkLine("trait", trait, members, lead_kind=trait))
            free = [k for k in free if k not in members]
    return lines, free


def names_trait(label: str, trait: str) -> bool:
    """Whether a phrase line's label names the trait: it holds the trait's words ("supervised
    fine-tuning" / "fine-tuning") or is their initials ("RL" / "reinforcement learning")."""
    words = {stem(w) for w in re.split(r"[\s-]+", label.lower()) if w}
    return {stem(w) for w in re.split(r"[\s-]+", trait) if w} <= words or label.lower() == initials(trait)


def lead_sentence(line: WorkLine, turn: int, first: bool = False) -> str:
    """The sentence that opens a line's paragraph; for a kind of contribution, the lead-in of the
    paragraph's first sentence ("Among the surveys and reviews [2, 3], ..."). The ``first`` line's
    frame says "one line", not "another" (no line came before it)."""
    several = "Two" if len(line.keys) == 2 else "Several"
    if line.kind == "kind":
        return KIND_LEADS[line.lead_kind].format(cites=cites(line.keys))
    if line.kind == "trait":
        return f"{several} works {cites(line.keys)} {TRAIT_PHRASES[line.lead_kind]}."
    frames = PHRASE_LEADS if line.titled else MENTION_LEADS
    text = frames[turn % len(frames)].format(Several=several, phrase=line.label, cites=cites(line.keys))
    if first:
        text = text.replace("Another line of work", "One line of work").replace("Another group", "One group")
    return text + "."


def kind_line_sentence(line: WorkLine) -> str:
    """A kind-of-contribution line as a whole sentence ("Two works [59, 60] are empirical studies.")."""
    several = "Two" if len(line.keys) == 2 else "Several"
    return KIND_SENTENCES[line.lead_kind].format(Several=several, cites=cites(line.keys))


def similar_pairs(works: list[Digest], vectors: dict[int, np.ndarray]) -> list[Digest]:
    """The works reordered so that each consecutive pair is the most similar pair left (cosine of
    their sentence centroids): a contrast is worth drawing between neighbours, not strangers."""
    left, out = list(works), []
    while len(left) > 1:
        a, b = max(((x, y) for i, x in enumerate(left) for y in left[i + 1:]),
                   key=lambda xy: (round(float(vectors[xy[0].key] @ vectors[xy[1].key]), 4), -xy[0].key, -xy[1].key))
        out += [a, b]
        left = [w for w in left if w.key not in (a.key, b.key)]
    return out + left


def contrast_sentences(works: list[Digest], turn: int = 0, shared: SharedPhrase | None = None,
                       related: bool = True) -> list[str]:
    """Contributions two by two: '[Both address X:] A [1] propose X, whereas B [2] introduce Y.'
    ``shared(a, b)`` gives a phrase both works use (and whether both titles do), or None. Works
    not known to be ``related`` (no common line) are contrasted only when they share a phrase,
    else joined by "and". A work without a contribution clause is left to the caller."""
    with_clause = [w for w in works if w.contribution]
    out = []
    said: set[str] = set()  # "Both address KV cache compression: ... Both address KV cache compression: ..." (c23)
    for i in range(0, len(with_clause) - 1, 2):
        a, b = with_clause[i], with_clause[i + 1]
        both = shared(a.key, b.key) if shared else None
        if both and both[0].lower() in said:
            both = None
        elif both:
            said.add(both[0].lower())
        joint = CONTRASTS[(turn + i // 2) % len(CONTRASTS)] if (related or both) else ", and "
        lead = f"Both {'address' if both[1] else 'involve'} {both[0]}: " if both else ""
        first = a.contribution_text()
        out.append(f"{lead}{first if lead else _capital(first)}{joint}{b.contribution_text()}.")
    if len(with_clause) % 2:
        out.append(_capital(with_clause[-1].contribution_text()) + ".")
    return out


def trait_sentence(works: list[Digest], skip: str = "", theme: str = "") -> str:
    """Design choices that split a line: opposed choices both held ('A [1] describe training-free
    methods, whereas B [2] fine-tune models')."""
    if len(works) < 2:
        return ""
    holders = {t: [w for w in works if t in w.traits] for t, cue in TRAITS.items() if t != skip and not cue.search(theme)}
    for left, right in OPPOSED:
        a, b = holders.get(left, []), holders.get(right, [])
        if a and b and not {w.key for w in a} & {w.key for w in b}:
            return (f"They differ in design: {_handles(a)} {_agree(TRAIT_PHRASES[left], a)}, whereas "
                    f"{_handles(b)} {_agree(TRAIT_PHRASES[right], b)}.")
    # One choice only some works name ("Of these, only Wen et al. [1] use reinforcement learning") is no
    # contrast: three readers quoted it as counting in place of synthesis (c27k, c28c, c28h)
    return ""


def _agree(predicate: str, works: list[Digest]) -> str:
    """The predicate's verb in the third person singular after one single-author work."""
    if len(works) == 1 and not works[0].plural:
        verb, _, rest = predicate.partition(" ")
        return f"{third_person(verb)} {rest}"
    return predicate


def _handles(works: list[Digest]) -> str:
    if len(works) > 3:
        return f"{count_words(len(works))} works {cites(w.key for w in works)}"
    return and_list([w.cited() for w in works])
