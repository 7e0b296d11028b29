"""British spellings read as the American ones the literature mostly uses.

"segmenting tumours in MRI scans" must find the papers that write "tumor"; "optimisation" and
"optimization" stem differently in Snowball ('optimi' / 'optim'), so the facet reading
(topic_facets.stem_text) would ask a paper for a word the field spells otherwise. The rules are
applied to the topic and to every paper text alike, so a rule that also rewrites a word it was not
meant for ("precise" -> "precize") only ever merges spellings, never words of different meaning;
the -our words are listed because a suffix rule would merge "four" with "for" and "tour" with "Tor".

No library here does this offline (the spelling packages on PyPI ship dictionaries for
correction, not variant mapping), so the rules are written out.
"""

from __future__ import annotations

import re
from functools import lru_cache

# -our words whose American form drops the u (tumour, behavioural, neighbourhood, ...)
_OUR_STEMS = ("tumour", "colour", "behaviour", "neighbour", "favour", "labour", "humour", "vapour", "odour",
              "harbour", "rumour", "honour", "vigour", "armour", "savour", "endeavour", "flavour", "rigour")
_WHOLE_WORDS = {"defence": "defense", "licence": "license", "offence": "offense", "programme": "program",
                "programmes": "programs", "grey": "gray", "artefact": "artifact", "artefacts": "artifacts",
                "aluminium": "aluminum", "sulphur": "sulfur", "mould": "mold", "ageing": "aging",
                "judgement": "judgment", "judgements": "judgments", "cheque": "check"}
_SUFFIX_RULES = (
    (re.compile(r"(?<=\w{2})is(e|es|ed|ing|er|ers|ation|ations|able)$"), r"iz\1"),  # optimise, summarisation
    (re.compile(r"(?<=\w)ys(e|es|ed|ing|er|ers)$"), r"yz\1"),  # analyse, catalyse
    (re.compile(r"(?<=\w{2})(t|b)re(s|d)?$"), r"\1er\2"),  # centre, fibre, metres
    (re.compile(r"ogue(s)?$"), r"og\1"),  # catalogue, dialogue, analogue
)
_INFIXES = (("anaesth", "anesth"), ("paed", "ped"), ("aem", "em"), ("oesoph", "esoph"), ("oedem", "edem"),
            ("oestr", "estr"), ("foet", "fet"), ("oea", "ea"))


@lru_cache(maxsize=200_000)
def american(word: str) -> str:
    """The American spelling of a lower-case word (the word itself when none applies)."""
    if len(word) < 4 or not word.isalpha():
        return word
    if word in _WHOLE_WORDS:
        return _WHOLE_WORDS[word]
    for stem in _OUR_STEMS:
        if word.startswith(stem):
            return stem[:-3] + "or" + word[len(stem):]
    for british, us in _INFIXES:
        if british in word:
            word = word.replace(british, us)
    for pattern, repl in _SUFFIX_RULES:
        word = pattern.sub(repl, word)
    return word


_WORD = re.compile(r"[A-Za-z]+")


def american_text(text: str) -> str:
    """``text`` with each word's American spelling (case kept only where nothing changed)."""
    def respell(match: re.Match) -> str:
        word = match.group(0)
        us = american(word.lower())
        return word if us == word.lower() else us
    return _WORD.sub(respell, text)
