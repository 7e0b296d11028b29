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


# -ing words that name a field or a method ("federated learning", "reasoning models", "ray tracing"),
# not a verb a user put the task in ("segmenting organs", "predicting protein-ligand binding").
FIELD_ING_NOUNS = frozenset({
    "learning", "reasoning", "computing", "processing", "engineering", "modeling", "modelling", "programming",
    "planning", "mining", "imaging", "sensing", "ranking", "rendering", "hashing", "clustering", "networking",
    "testing", "pretraining", "training", "prompting", "routing", "scheduling", "captioning", "grounding", "matching",
    "tracking", "forecasting", "fingerprinting", "watermarking", "building", "manufacturing", "hearing", "tracing",
    "encoding", "decoding", "embedding", "fine-tuning", "finetuning", "tuning", "sampling", "pooling", "parsing"})


def is_task_verb(word: str) -> bool:
    """A gerund before its object, as a user types a task ("predicting", "segmenting"), not an -ing
    noun the field names itself by ("learning", "decoding")."""
    word = word.lower()
    return len(word) > 5 and word.endswith("ing") and word not in FIELD_ING_NOUNS


MIN_SHARED = 5  # letters two forms of one word share ('segment-ation', 'detect-ors')
MAX_ENDING = 5  # letters of ending after the shared part ('-ation' is the longest English keeps)
_E_ENDINGS = {"ing", "ings", "ed", "er", "ers", "ion", "ions", "ation", "ations", "ive", "or", "ors"}


@lru_cache(maxsize=200_000)
def same_family(a: str, b: str) -> bool:
    """Two lower-case words are forms of one word: 'detecting' / 'detection' / 'detectors',
    'segmenting' / 'segmentation', 'image' / 'imaging', 'tumours' / 'tumor'. After American
    spelling they share MIN_SHARED letters or more (or all of the shorter but a final 'e') and
    each keeps at most MAX_ENDING letters after them, so 'media' / 'medical' and 'transformer' /
    'translation' stay apart. A suffix stemmer (Snowball) would part 'generation' ('gener') from
    'generating' ('generat'); the shared-prefix reading keeps them one family."""
    a, b = american(a), american(b)
    if a == b:
        return True
    shared = 0
    for x, y in zip(a, b):
        if x != y:
            break
        shared += 1
    shorter, longer = sorted((a, b), key=len)
    # 'image' / 'imaging', 'generate' / 'generation' (not 'scene' / 'scenario')
    silent_e = shorter.endswith("e") and shared == len(shorter) - 1 >= 4 and longer[shared:] in _E_ENDINGS
    if shared < MIN_SHARED and not silent_e:
        return False
    return len(a) - shared <= MAX_ENDING and len(b) - shared <= MAX_ENDING


class WordFamilies(set):
    """A set of words whose membership test also admits any other form of a member
    (``same_family``): 'detection' is in WordFamilies({'detecting'}). Used for the topic's words, so
    a heading made of the topic's words in other forms ('Deepfake Detectors' of "detecting deepfake
    videos") reads as the topic restated, as the exact words do."""

    def __init__(self, words=()):
        super().__init__(words)
        self._seen: dict[str, bool] = {}

    def __contains__(self, word: object) -> bool:
        if super().__contains__(word):
            return True
        if not isinstance(word, str) or len(word) < 4:
            return False
        found = self._seen.get(word)
        if found is None:
            found = self._seen[word] = any(len(w) >= 4 and same_family(word, w) for w in self)
        return found


def singular(noun: str) -> str:
    """A plural noun's singular by the regular English endings ("vehicles" -> "vehicle", "queries"
    -> "query", "boxes" -> "box"); a noun in -ss, -us or -is is left as it is."""
    if re.search(r"[^aeiou]ies$", noun):
        return noun[:-3] + "y"
    if re.search(r"(?:ss|x|ch|sh)es$", noun):
        return noun[:-2]
    return noun[:-1] if noun.endswith("s") and not noun.endswith(("ss", "us", "is")) else noun
