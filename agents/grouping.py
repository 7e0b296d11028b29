"""Lines of work: a set of texts grouped by the phrases they share (no model).

A survey paragraph is about a line of work, not a paper: "three works centre on query
decomposition", then how they differ. ``phrase_groups`` finds those lines in a subsection's works
(or, for the conclusion, in the limitation sentences of the whole survey): greedily, the phrase
(1-3 words, by the outline's key-phrase analyzer: no stop or boilerplate word at either end, not
the topic's own words) that the most not-yet-grouped texts use, preferring phrases that titles use
and multiword phrases, each text in one group only. A phrase every text uses (or more than
``MAX_SHARE`` of them) is the common theme, not a line, and is left out. The grouping is read from
the words the texts contain, so "these works centre on X" is true of every work it names.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

from .facets import _MODEL
from .outline.headings import is_name
from .outline.names import (STOP, bound_phrases, incomplete_phrases, initials, keyphrase_analyzer, phrase_positions,
                            stem, surface_forms)
from .text import in_sentence

MAX_SHARE = 0.6  # a phrase more than this share of the texts use names their common theme, not a line
# Phrases every field of computing uses for its tools: "Several works deal with neural networks" (a
# v11 reader) names no line of work in any survey.
FIELD_WIDE = frozenset({"neural network", "neural networks", "deep neural network", "deep neural networks",
                        "deep learning", "machine learning", "artificial intelligence", "training data",
                        "computational cost", "computational costs", "deep learning models", "large models",
                        # what every paper ends on, not what it does: "One group of works deals with
                        # future research [34, 35, 36]" (c36e)
                        "future research", "future work", "future directions", "future studies"})
MAX_GROUPS = 4
# Words that judge or describe results, not name what works do: "One group of works deals with strong
# reasoning", "... complex reasoning", a line named "consistently outperforms state-of-the-art"
# (c26 readers); the first word of a phrase, or any word for the verbs of a result.
_VERDICT_OPENERS = frozenset({"strong", "complex", "superior", "excellent", "outstanding", "remarkable", "impressive",
                              "significant", "substantial", "considerable", "notable", "exceptional", "promising",
                              "powerful", "advanced", "sophisticated", "challenging", "difficult", "consistently"})
_RESULT_VERBS = frozenset({"outperform", "outperforms", "outperforming", "surpass", "surpasses", "surpassing",
                           "achieve", "achieves", "achieving", "improves", "yields", "beats"})


# Linking verbs (a closed class): a phrase opening on one is a predicate, not a thing ("Several
# works deal with remains challenging [11, 12, 13]", c28g)
_LINKING_VERBS = frozenset({"remain", "remains", "become", "becomes", "seem", "seems", "appear", "appears", "stay",
                            "stays", "is", "are", "was", "were", "be", "being", "been"})


def names_a_line(phrase: str, form: str) -> bool:
    """Whether a phrase can name a line of work: not a verdict on results, not a predicate, not a
    foundation model the works use ("Qwen2": the models are the model sentence's, not a line)."""
    words = phrase.split()
    return not (words[0] in _VERDICT_OPENERS or words[-1] in _VERDICT_OPENERS or words[0] in _LINKING_VERBS
                or _RESULT_VERBS & set(words) or _MODEL.fullmatch(form))


@dataclass(frozen=True)
class Line:
    phrase: str  # as the texts spell it, inside a sentence ("query decomposition", "GraphRAG")
    members: tuple[int, ...]  # indices of the texts, in input order
    titled: int  # how many of the members' titles use the phrase


def cut_or_predicate(texts: list[str]) -> set[str]:
    """Phrases (1-3 words) used at least twice in these texts and nine times in ten either continued
    by a content word, so a modifier cut before its noun ("fine-grained visual" understanding /
    differences / tasks, "identify open" issues / challenges, "convolutional neural" networks), or
    after "to", so a verb and its object ("to enhance spatial reasoning"). c29 readers quoted lines
    named "fine-grained visual [3, 4]", "enhance spatial reasoning [81, 82]" and "identify open [3, 4,
    5]", and a conclusion's "convolutional neural (26 works)"; ``incomplete_phrases`` catches only a
    phrase with one constant follower. (Nine in ten: among dozens of uses one may end a sentence.)"""
    uses: Counter = Counter()
    continued: Counter = Counter()
    after_to: Counter = Counter()
    for phrase, low, i, n in phrase_positions(texts):
        uses[phrase] += 1
        continued[phrase] += i + n < len(low) and low[i + n] not in STOP
        after_to[phrase] += i > 0 and low[i - 1] == "to"
    return {p for p, c in uses.items() if c >= 2 and (continued[p] >= 0.9 * c or after_to[p] >= 0.9 * c)}


def headless_phrases(texts: list[str]) -> set[str]:
    """Phrases (1-3 words) seen at least twice and always preceded by the same word: the tail of a
    longer phrase ('answering dataset' of 'question answering dataset'), not a phrase of its own.
    The mirror of ``outline.names.incomplete_phrases``."""
    return bound_phrases(texts, before=True)


def phrase_users(texts: list[str], banned: set[str]) -> dict[str, set[int]]:
    """Which texts use each key phrase (phrases that are the head or the tail of a longer phrase
    in these texts left out, and the field-wide ones: ``FIELD_WIDE``)."""
    analyze = keyphrase_analyzer(banned, incomplete_phrases(texts) | headless_phrases(texts) | cut_or_predicate(texts))
    users: dict[str, set[int]] = {}
    for i, text in enumerate(texts):
        for phrase in set(analyze(text)) - FIELD_WIDE:
            users.setdefault(phrase, set()).add(i)
    return users


def phrase_groups(texts: list[str], banned: set[str], *, titles: list[str] | None = None,
                  max_groups: int = MAX_GROUPS, min_size: int = 2) -> list[Line]:
    """Groups of at least ``min_size`` texts sharing a phrase, largest and best-attested first.
    ``titles`` (same order as ``texts``) make a phrase in a title count more: a title names what
    its work is about, an abstract mentions much in passing. Without titles only multiword phrases
    (or names) used by at least three texts qualify, or two when nothing else does."""
    n = len(texts)
    if n < 2 * min_size - 1 or n < 3:
        return []
    users = phrase_users(texts, banned)
    forms = surface_forms(texts + (titles or []))
    analyze = keyphrase_analyzer(banned)
    in_title: dict[str, set[int]] = {}
    for i, title in enumerate(titles or []):
        for phrase in set(analyze(title)):
            in_title.setdefault(phrase, set()).add(i)
    limit = max(min_size, math.floor(MAX_SHARE * n)) if n >= 5 else n - 1
    # a name is used by the texts that write it as a name: "ABLE" (a method) is not the "able" of
    # "should be able to serve" ("Two works centre on ABLE [14, 15]", one of them LEXMA: c35f)
    users = {p: (u if " " in p or not is_name(forms.get(p, p)) else
                 {i for i in u if _writes_name(forms.get(p, p), texts[i] + " " + (titles[i] if titles else ""))})
             for p, u in users.items()}
    # a lone common word ('robust', 'scientific', 'survey') is usually an adjective or too broad to
    # name a line of work; names ('GraphRAG', 'KV') and multiword phrases are not
    eligible = {p: u for p, u in users.items() if min_size <= len(u) <= limit and (" " in p or is_name(forms.get(p, p)))
                and names_a_line(p, forms.get(p, p))}
    lines: list[Line] = []
    taken: set[int] = set()
    used_stems: set[str] = set()
    while len(lines) < max_groups and n - len(taken) >= min_size:
        best, best_key = None, None
        for phrase, who in eligible.items():
            free = who - taken
            if len(free) < min_size or concept_stems(phrase) & used_stems:
                continue
            titled = len(in_title.get(phrase, set()) & free)
            if titles is not None and not titled and len(free) < 3:
                continue  # two works sharing a phrase only in passing is not a line of work
            key = (len(free) * (1 + titled) * (1.5 if " " in phrase else 1.0), titled, len(phrase.split()), phrase)
            if best_key is None or key > best_key:
                best, best_key = phrase, key
        if best is None:
            break
        members = tuple(sorted(eligible[best] - taken))
        lines.append(Line(in_sentence(forms.get(best, best)), members, len(in_title.get(best, set()) & set(members))))
        taken |= set(members)
        # and its initials: "SFT" after "supervised fine-tuning" is the same line (c28n had both)
        used_stems |= concept_stems(best)
    return lines


def _writes_name(name: str, text: str) -> bool:
    """Whether ``text`` writes ``name`` in its own case (a plural 's' allowed)."""
    return re.search(rf"(?<![\w-]){re.escape(name)}s?(?![\w-])", text) is not None


def concept_stems(phrase: str) -> set[str]:
    """The stems of a phrase's words and of its initials: "convolutional neural networks" and "CNNs"
    share 'cnn', so a list of phrases names the concept once (a c29 draft's introduction named both)."""
    words = phrase.split()
    return {stem(w) for w in words} | ({stem(initials(phrase))} if len(words) > 1 or "-" in phrase else set())
