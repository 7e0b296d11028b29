"""What an acronym the user typed stands for, as the store's papers define it.

"MLLMs", "GNNs", "FL", "RLVR": a user types the short form, and a paper titled "Graph Neural
Networks for ..." or "Federated Learning under ..." does not say it. Read as the acronym only, a
topic asked every paper to write the letters (every LLM topic typed "LLMs" did, session 32). The
long forms come from the definitions the candidates themselves give, "federated learning (FL)",
with Schwartz and Hearst's matching of the short form's letters to the words before the
parenthesis (A Simple Algorithm for Identifying Abbreviation Definitions in Biomedical Text, 2003).
Written out (about 30 lines): the PyPI ports (``abbreviations``, last released 2019;
``abbreviation-extractor-rs``, a compiled extension) return every pair of one text, where this needs
one typed short form's definitions, plural forms included, counted across a few hundred texts.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence

# A word typed as an acronym: two capitals or more ("FL", "GNNs", "ViT", "3DGS", "RLVR").
TYPED_ACRONYM = re.compile(r"^[A-Za-z0-9]*[A-Z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*$")
# A long form seen in fewer papers than this share of its most defined rival's is another sense of
# the letters in the same store ("attack success rate (ASR)" beside "automatic speech recognition").
RIVAL_SHARE = 0.5
MIN_DEFINITIONS = 2  # papers defining a long form, for it to count
_PARENTHESIS = re.compile(r"\(\s*([A-Za-z0-9][A-Za-z0-9\-]{0,14})\s*[;,)]")
_CLAUSE_END = re.compile(r"[.;:!?()\[\]]")


def short_form(word: str) -> str | None:
    """The acronym a typed word is, without its plural "s" ("GNNs" -> "GNN"), or None."""
    if not TYPED_ACRONYM.match(word):
        return None
    return word[:-1] if len(word) > 2 and word.endswith("s") and word[-2].isupper() else word


def _best_long_form(short: str, before: str) -> str | None:
    """Schwartz-Hearst: match the short form's letters right to left to the text before its
    parenthesis, the first letter at the start of a word; the long form runs from there. A word
    start after a space is tried first: after a hyphen, "self-supervised learning (SSL)" gave
    "supervised learning" (a c34k reader: "SSL is glossed as 'supervised learning'")."""
    return _long_form(short, before, whole_words=True) or _long_form(short, before, whole_words=False)


def _long_form(short: str, before: str, *, whole_words: bool) -> str | None:
    letters = [c.lower() for c in short if c.isalnum()]
    text = before.lower()
    position = len(text) - 1

    def inside_word(at: int) -> bool:
        return at > 0 and (text[at - 1].isalnum() or (whole_words and text[at - 1] == "-"))

    for index in range(len(letters) - 1, -1, -1):
        char = letters[index]
        while position >= 0 and (text[position] != char or (index == 0 and inside_word(position))):
            position -= 1
        if position < 0:
            return None
        position -= 1
    long_form = before[position + 1:].strip(" -")
    words = long_form.split()
    # a long form is a phrase of words, not the short form again or a sentence
    if len(words) < 2 and "-" not in long_form or len(words) > min(len(letters) + 5, 2 * len(letters)):
        return None
    return long_form


def long_forms(word: str, texts: Sequence[str], key: Callable[[str], str] = str.lower, *,
               min_definitions: int = MIN_DEFINITIONS) -> list[str]:
    """The long forms ``texts`` define for the acronym ``word`` ("FL" -> ["federated learning"]),
    most defined first: each defined by ``min_definitions`` texts and by RIVAL_SHARE of the texts
    defining the most common one. ``key`` says which long forms are one (case aside; "large
    language model" and "... models" under a stemmer); each is given as the texts write it most."""
    short = short_form(word)
    if short is None:
        return []
    wanted = short.lower()
    counts: Counter[str] = Counter()
    said: dict[str, Counter[str]] = {}
    for text in texts:
        found: set[str] = set()
        for match in _PARENTHESIS.finditer(text):
            inside = match.group(1)
            if inside.lower() not in (wanted, wanted + "s"):
                continue
            before = _CLAUSE_END.split(text[max(0, match.start() - 200):match.start()])[-1]
            long_form = _best_long_form(short, before)
            if long_form:
                long_form = " ".join(long_form.split())
                found.add(key(long_form))
                said.setdefault(key(long_form), Counter())[long_form] += 1
        counts.update(found)
    if not counts:
        return []
    top = counts.most_common(1)[0][1]
    return [said[k].most_common(1)[0][0] for k, n in counts.most_common()
            if n >= min_definitions and n >= RIVAL_SHARE * top]
