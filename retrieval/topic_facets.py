"""A topic's facets, and how much of each a paper names.

"Fairness in Recommender Systems" has two facets, and a paper on the topic must be about both;
"Efficient Inference for Large Language Models" has "efficient inference" and "large language
models". A facet is read as *units*: a sub-phrase the literature abbreviates ("large language
models" -> LLM, "vision-language-action" -> VLA, mined from the candidates' own "(LLMs)"
definitions) or a single content word. Units are matched on Snowball stems, word by word, so
"efficiency of LLM inference" names both units of "efficient inference" and "recommendation"
names "recommender"; generic heads ("models", "systems") are not units when the facet has others.

This module reads words only. Whether a paper is *about* the topic is decided with meaning as well
(retrieval/topic_classifier.py learns the topic's vocabulary from its confident papers, and
retrieval/topic_judge.py combines both with a model fitted on the labelled set): a KV-cache paper
never writes "efficient inference", and the lexical facet score says so honestly.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate

import snowballstemmer

from .acronyms import long_forms
from .bm25_index import tokenize
from .kind_units import KIND_FORMS, is_kind_unit
from .spelling import american, singular

# Words that join the concepts of a topic ("X for Y", "X in Y", "LLM-based Y"); "and" is not
# one of them: "Integrated Sensing and Communication" is one concept.
CONNECTORS = re.compile(r"\s+(?:built\s+(?:on|upon|with)|for|in|of|on|with|without|via|using|towards?|across|under|from|by|"
                        # "LLM agents ... to act over many steps" made "over" a unit every paper had to say
                        r"over|between|through|within|beyond|against|among|during|"
                        r"that|which|who)\s+|-based\s+|\s+based\s+"
                        # "LLM-enhanced recommender systems" asked every paper to say "enhance" and kept
                        # LLM preference alignment that mentions recommendation (c31g)
                        r"|-driven\s+|-powered\s+|-enabled\s+|-enhanced\s+|-empowered\s+",
                        re.IGNORECASE)
# Head nouns that say what kind of thing a concept is, not what it is about. "AI" too, in a store of
# AI papers: "explainable AI methods for LLMs" asked every paper to say "AI" and kept AI-generated
# text and image detectors that explain their verdicts (c30f, read last of five).
GENERIC_HEADS = frozenset({"model", "network", "system", "method", "approach", "framework", "technique",
                           "architecture", "algorithm", "survey", "review", "overview", "study", "studies", "research",
                           "ai"})
# Facets (their units' stems, in order) naming the machine-learning method family at large, which a
# topic of other facets only situates ("... with deep learning", "machine learning for ...").
GENERIC_METHODS = frozenset({"neural", "deep learn", "deep neural", "machin learn", "ai", "artifici intellig",
                             "deep", "learn base", "data driven"})
# Nouns that say what kind of thing a concept is only when they end it: "time series data" is about
# time series (few of its papers say "data"), while "data augmentation" needs its "data".
TRAILING_HEADS = frozenset({"data", "dataset", "task", "problem", "application", "setting", "scenario"})
# What a model produces (tokens as the tokenizer gives them), and the words naming a model before it
MODEL_PRODUCTS = frozenset({"prediction", "output", "behavior", "behaviour", "decision", "response", "answer"})
_MODEL_WORDS = frozenset({"llm", "llms", "model", "models", "lm", "lms", "network", "networks", "classifier",
                          "classifiers", "transformer", "transformers", "vlm", "vlms", "mllm", "mllms", "agent", "agents"})
_ACRONYM = re.compile(r"\(([A-Za-z0-9][A-Za-z0-9\-]{1,11})\)")
_WORD = re.compile(r"[a-z0-9]+")
# Function words never make a unit (the bm25 tokenizer's stopwords plus question words a user may type).
_STOP = frozenset("a an and are as at be by for from has have in into is it its of on or our that the their this "
                  "these to was we were which with via using based towards toward can also than how what why "
                  "recent advances advance progress state art".split())
# Words of a question or a request, not of the topic ("how do transformers handle long documents",
# "LLMs that write code"): never a unit, or every paper would have to say "handle" to be on topic.
_REQUEST_WORDS = frozenset("how what why when where which who whom whose do does did doing done can could should would "
                           "will shall may might must is are was were be been being that this these those there here "
                           "you your we our us me my i use uses used make makes made making handle handles handled "
                           "handling write writes written writing help helps helping work works apply applies applied "
                           "applying get gets getting give gives need needs want wants way ways about really actually "
                           "latest compare compares compared comparing tell tells telling told gave given good "
                           # coordinators ("understand both images and text" asked every paper to say "both")
                           "both either neither whether many several various "
                           # a request's goal, not its subject ("how to stop LLMs from hallucinating",
                           # "making LLM inference faster and cheaper"): every on-topic paper would have
                           # to say "stop" or "cheaper"
                           "stop stops stopping prevent prevents preventing avoid avoids avoiding fix fixes "
                           "fixing keep keeps keeping improve improves improving speed speeds speeding faster cheaper better "
                           "quicker more less up "
                           # how new the user wants it, not what ("what's new in MoE LLMs?" asked every paper
                           # to say "new": 80 kept where the topic alone keeps 337)
                           "new newest recent recently advance advances advancement advancements emerging".split())
_STEMMER = snowballstemmer.stemmer("english")


def phrased_as_request(topic: str) -> bool:
    """Whether the topic opens as a question or a request ("how to stop LLMs from hallucinating",
    "making LLM inference faster"), not as the name of a field."""
    first = _WORD.findall(topic.lower())[:1]
    return bool(first) and first[0] in _REQUEST_WORDS


@lru_cache(maxsize=200_000)
def _stem(word: str) -> str:
    """Snowball's stem of the word's American spelling ("tumours" names "tumor"), with the plural
    's' of acronyms dropped too ("LLMs", "GNNs", "3DGS"), which Snowball keeps."""
    stem = _STEMMER.stemWord(american(word))
    if len(stem) > 3 and stem.endswith("s") and not stem.endswith("ss"):
        stem = stem[:-1]
    return stem


def stem_text(text: str) -> str:
    """Lower-case Snowball stems of the words of ``text``, space-joined, function words out."""
    return " ".join(_stem(w) for w in _WORD.findall(text.lower()) if w not in _STOP)


LONG_FACET = 3  # a facet of more units is a description, not a term (Facet.required)


@dataclass(frozen=True)
class Unit:
    phrase: str  # as read from the topic ("large language models", "fairness")
    forms: tuple[str, ...]  # stem strings, any of which names the unit ("larg languag model", "llm")
    # how much naming it counts towards a description's share (``weigh_by_rarity``); 1 in a term
    weight: float = 1.0
    # a description's unit most of the topic's nearest papers name ("detect" of "how do self-driving
    # cars detect other vehicles"): without it, no half of the description names the facet
    key: bool = False
    # asks for a kind of work ("benchmark"): named in the title or where the abstract introduces the
    # work's contribution, not wherever an abstract says it (retrieval/kind_units.py)
    kind: bool = False

    def to_dict(self) -> dict:
        return ({"phrase": self.phrase, "forms": list(self.forms), "weight": self.weight}
                | ({"key": True} if self.key else {}) | ({"kind": True} if self.kind else {}))


@dataclass(frozen=True)
class Facet:
    phrase: str
    units: tuple[Unit, ...]
    # words of the phrasing the topic's nearest papers do not use ("teaching", "act" of "teaching
    # robots to act"): read from the topic, not asked of its papers (see ``drop_phrasing_words``)
    phrasing: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        return {"phrase": self.phrase, "units": [u.to_dict() for u in self.units], "phrasing": list(self.phrasing)}

    @property
    def required(self) -> float:
        """The share of its units that names the facet: all of a short one ("efficient inference",
        "3D object detection"), half of a description a user typed ("automatically transcribing
        spoken audio into text": five units, "automatically" among them). Asking for every word of
        a long description kept 1-27 papers for three of the 48 phrasings of
        tests/data/topic_phrasings.json (topic_pool.md, session 20); no labelled topic has a facet
        of more than three units. Counted as typed, words of the phrasing included: a description
        thinned to three units ('automatically', 'audio', 'text') is still a description (asking
        for all three kept 8 papers where half of the five had kept 30)."""
        # words joined by "and" / "or" are one slot ("image classification and detection": the
        # image, the task, and transformers): counted as two, "applying transformers to image
        # classification and detection" was a description whose CNN papers named half of it, and
        # its blind reader found "many off-topic CNN-only papers" (session 22)
        return 1.0 if len(self.units) + len(self.phrasing) <= LONG_FACET else 0.5

    @classmethod
    def from_dict(cls, data: dict) -> "Facet":
        return cls(str(data["phrase"]),
                   tuple(Unit(str(u["phrase"]), tuple(u["forms"]), float(u.get("weight", 1.0)), bool(u.get("key")),
                              bool(u.get("kind")))
                         for u in data["units"]),
                   tuple(map(str, data.get("phrasing") or ())))


# "... and their variants", "... and its applications": the item names more of what precedes it, no
# concept of its own; "ViT models and their variants" asked every paper to say "variant" and listed
# "Their Variants" as a part of the survey (c31c).
_BACK_REFERENCE = re.compile(r"(?:,\s+(?:and\s+|or\s+)?|\s+(?:and|or|&)\s+)(?:their|its)(?:\s+[A-Za-z0-9\-]+){1,2}?"
                             r"(?=\s*$|\s*[,;:?.]|\s+(?:and|or|for|in|of|on|with|across|to)\s)", re.IGNORECASE)


def without_back_references(text: str) -> str:
    """"ViT models and their variants" -> "ViT models"; "GNNs and their applications in chemistry"
    -> "GNNs in chemistry"."""
    return _BACK_REFERENCE.sub("", " ".join(str(text).split())).strip() or text


def concept_phrases(topic: str) -> list[str]:
    """The topic split at its connectors: "Diffusion Models for Video Generation" ->
    ["Diffusion Models", "Video Generation"]."""
    parts = [p.strip(" ,:;-") for p in CONNECTORS.split(without_back_references(topic))]
    return [piece for p in parts if tokenize(p) for piece in _split_purpose(p)]


_TO = re.compile(r"\s+to\s+", re.IGNORECASE)
MIN_PURPOSE_WORDS = 2  # content words on each side of "to" for "X to Y" to be a tool and a task


def _split_purpose(phrase: str) -> list[str]:
    """ "large language models to forecast time series data" -> the tool and the task, two facets:
    read as one description, half of its words named it, and "LLM" + "data" kept LLM-data-curation
    papers (session 21, read last of five). Split only when each side has MIN_PURPOSE_WORDS content
    words, so "text to speech", "sequence to sequence" and "robots to act" (whose "act" no paper
    needs to say) stay whole."""
    pieces = _TO.split(phrase)
    if len(pieces) != 2:
        return [phrase]
    content = [[t for t in tokenize(p) if t not in _REQUEST_WORDS and t not in GENERIC_HEADS and t not in TRAILING_HEADS]
               for p in pieces]  # "to solve tasks" is one word of a task: "solve"
    return pieces if all(len(c) >= MIN_PURPOSE_WORDS for c in content) else [phrase]


def mine_acronyms(phrase_tokens: Sequence[str], texts: Sequence[str], *, min_count: int = 2,
                  joined: bool = False) -> list[str]:
    """Acronyms the texts define for a phrase: "... large language models (LLMs)" -> "llm".

    The phrase (or the phrase without its generic head: "vision-language-action (VLA) models")
    must end right before the parenthesis; an acronym must be seen ``min_count`` times and its
    letters must start like the phrase (so "(GPT-4)" after "large language models" is not one)."""
    full = list(phrase_tokens)
    if not full:
        return []
    headless = full[:-1] if len(full) > 1 and full[-1] in GENERIC_HEADS else None
    counts: dict[str, int] = {}
    for text in texts:
        for match in _ACRONYM.finditer(text):
            acronym = "".join(tokenize(match.group(1)))
            if not acronym or acronym[0] != full[0][0]:
                continue
            raw = text[max(0, match.start() - 160):match.start()]
            before = tokenize(raw)
            # a phrase the user joined with "and" is abbreviated only where the text joins it too:
            # "images and videos" is not "image-to-video (I2V)", whose "to" the tokenizer drops
            if joined and not re.search(r"\b(?:and|or)\b|&|,", raw[raw.lower().rfind(full[0][:4]):], re.I):
                continue
            if before[-len(full):] == full or (headless and before[-len(headless):] == headless):
                counts[acronym] = counts.get(acronym, 0) + 1
    return sorted(a for a, n in counts.items() if n >= min_count and len(a) >= 2)


_WORD_OR_COMMA = re.compile(r"[a-z0-9]+|,")


# Words before examples of the word ahead of them ("chatbots like ChatGPT", "models such as GPT-4",
# "graphs including molecules"); "like" as a unit of its own made every paper say "like".
_EXAMPLE_CUES = frozenset({"like", "such", "including", "especially", "particularly"})


# Where a list of phrases splits: commas (", and" too), "and", "or", "&" (facet_feedback's listed
# phrases, agents/outline/asked.py's listed parts).
LIST_JOINS = re.compile(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or|&)\s+", re.IGNORECASE)


def _words_with_joins(phrase: str) -> list[tuple[str, bool]]:
    """The phrase's words (those that make a token), each with whether "and", "or" or a comma
    joins it to the word before: the words so joined are alternatives of one unit. A survey of
    "organs and tumours in CT and MRI scans" covers a paper on CT scans of tumours; asking every
    word of "CT and MRI scans" of each paper kept registration and motion-prediction papers that
    the facet words could not tell apart (session 21). A joined phrase the literature abbreviates
    ("integrated sensing and communication (ISAC)") is one unit first (``mine_acronyms``)."""
    out: list[tuple[str, bool]] = []
    joined = False
    for word in _WORD_OR_COMMA.findall(phrase.lower()):
        # "graph neural networks vs transformers"; "chatbots like ChatGPT": an example is an
        # alternative, not a unit
        if word in (",", "and", "or", "vs", "versus") or word in _EXAMPLE_CUES:
            joined = bool(out)
        elif tokenize(word):
            out.append((word, joined))
            joined = False
    return out


def _units(phrase: str, texts: Sequence[str]) -> tuple[Unit, ...]:
    """Longest sub-phrases that the texts abbreviate become one unit each; the other content words
    are units of their own (generic heads only when nothing else is left)."""
    # Each token beside the word it came from: units are stemmed from the words, as paper texts
    # are (stem_text); the tokenizer's plural cut would make "autonomous" 'autonomou', which no
    # text's stem ('autonom') ever matches.
    pairs = [(token, word, joined) for word, joined in _words_with_joins(phrase) for token in tokenize(word)]
    # the word as typed and its token: the tokenizer cuts a plural "s" first ("does" -> 'doe')
    # a request's verb that opens the part and "and" / "or" joins to others makes the whole slot ask
    # nothing: "LLMs that write and repair code" is about writing code or repairing it, and read as
    # "repair" + "code" the pool kept 130 program-repair papers; read as "code", 300 (of about 1,700
    # estimated on topic; session 33). Only the opening slot: "tool use and web tasks", "LLMs and how
    # to defend" join a noun
    def requested(pair: tuple[str, str, bool]) -> bool:
        return pair[0] in _REQUEST_WORDS or pair[1] in _REQUEST_WORDS

    slots = list(accumulate((0 if joined else 1) for _token, _word, joined in pairs))
    asked_nothing = {slots[0]} if pairs and requested(pairs[0]) and slots.count(slots[0]) > 1 else set()
    kept = [p for slot, p in zip(slots, pairs) if not requested(p) and slot not in asked_nothing]
    if not kept:  # "... that work on graphs": a part of request words only asks nothing of a paper
        return ()
    if len(kept) > 1 and kept[-1][0] in TRAILING_HEADS:  # "time series data": what the words are about is "time series"
        kept = kept[:-1]
    # what a model produces, right after the model's name: "explaining LLM predictions" is about
    # explaining LLMs, and asking every paper to say "prediction" kept 120 papers (c33o); "link
    # prediction" keeps its word (no model name before it), "a model gave an answer" its answer (not
    # right after the name)
    if len(kept) > 1 and kept[-1][0] in MODEL_PRODUCTS and kept[-2][1] in _MODEL_WORDS \
            and pairs.index(kept[-1]) == pairs.index(kept[-2]) + 1:
        kept = kept[:-1]
    tokens, words, joins = [p[0] for p in kept], [p[1] for p in kept], [p[2] for p in kept]
    phrase_joins = [i for i in range(len(tokens)) if _joins_two_phrases(joins, i)]
    if phrase_joins and _said_as_phrases(tokens, words, joins, texts):
        joins = [j and i not in phrase_joins for i, j in enumerate(joins)]
    taken = [False] * len(tokens)
    units: list[Unit] = []
    spans: dict[int, int] = {}  # first and last token of an abbreviated phrase -> its unit
    for size in range(len(tokens), 1, -1):
        for start in range(len(tokens) - size + 1):
            if any(taken[start:start + size]):
                continue
            window = tokens[start:start + size]
            acronyms = mine_acronyms(window, texts, joined=any(joins[start + 1:start + size]))
            if acronyms:
                said = words[start:start + size]
                forms = [stem_text(" ".join(said)), *(stem_text(a) for a in acronyms)]
                if window[-1] in GENERIC_HEADS:  # "graph neural (GNN) ..." said without its head
                    forms.append(stem_text(" ".join(said[:-1])))
                units.append(Unit(" ".join(window), tuple(dict.fromkeys(forms))))
                spans[start + size - 1] = spans[start] = len(units) - 1
                taken[start:start + size] = [True] * size
    rest = [i for i, t in enumerate(tokens) if not taken[i]]
    content = [i for i in rest if tokens[i] not in GENERIC_HEADS]
    groups: list[list[int]] = []
    for i in (content if (content or units) else rest):
        if groups and joins[i] and groups[-1][-1] == i - 1:  # "CT and MRI scans": CT or MRI, and scans
            groups[-1].append(i)
        else:
            groups.append([i])
    typed = {w.lower(): w for w in re.findall(r"[A-Za-z0-9]+", phrase)}

    def forms(i: int) -> list[str]:
        # an acronym the user typed is also what the papers define it as ("GNNs": "graph neural
        # networks", which many titles say without the letters)
        return [_stem(words[i]), *(stem_text(f) for f in long_forms(typed.get(words[i], ""), texts, key=stem_text))]

    groups = _join_alternatives(units, spans, groups, joins, tokens, forms)
    for group in groups:
        if len(group) == 2 and group[-1] + 1 < len(tokens) and _said_together(words[group[0]], words[group[1]],
                                                                              words[group[-1] + 1], texts):
            units += [Unit(tokens[i], tuple(dict.fromkeys(forms(i)))) for i in group]  # both asked, not either
            continue
        units.append(Unit(" or ".join(tokens[i] for i in group), tuple(dict.fromkeys(f for i in group for f in forms(i)))))
    units = [Unit(u.phrase, KIND_FORMS, kind=True) if is_kind_unit(u.phrase.split(" or ")) else u for u in units]
    order = {u.phrase: min((i for i, t in enumerate(tokens) if u.phrase.split()[0] == t), default=0) for u in units}
    return tuple(sorted(units, key=lambda u: order[u.phrase]))


def _join_alternatives(units: list[Unit], spans: dict[int, int], groups: list[list[int]], joins: Sequence[bool],
                       tokens: Sequence[str], forms) -> list[list[int]]:
    """A word "and" / "or" joins to an abbreviated phrase is its alternative, one unit with it
    (``units`` rewritten in place; the groups left to make units of their own are returned):
    "knowledge distillation and pruning" asks for either; read as both, 26 papers were kept of the
    hundreds on compressing LLMs (c36o, session 36). A word after the phrase only when it ends the
    list: "KV" of "speculative decoding and KV cache" opens a phrase of its own."""
    merged: set[int] = set()
    absorbed: list[int] = []
    for index, group in enumerate(groups):
        after = spans.get(group[0] - 1) if joins[group[0]] and group[-1] == len(tokens) - 1 else None
        before = spans.get(group[-1] + 1) if group[-1] + 1 < len(tokens) and joins[group[-1] + 1] else None
        beside = after if after is not None else before
        if beside is None or beside in merged or len(units[beside].phrase.split()) < 2:
            continue
        unit = units[beside]
        units[beside] = Unit(" or ".join([unit.phrase, *(tokens[i] for i in group)]),
                             tuple(dict.fromkeys([*unit.forms, *(f for i in group for f in forms(i))])))
        merged.add(beside)
        absorbed.append(index)
    return [g for index, g in enumerate(groups) if index not in absorbed]


def _said_together(first: str, second: str, head: str, texts: Sequence[str]) -> bool:
    """Whether the texts say two words "and" joins before their head as one compound ("camera-LiDAR
    fusion", "LiDAR and camera fusion") at least as often as the first alone with the head ("camera
    fusion"): then the topic asks for both, not either. Read as "camera or LiDAR" and "fusion", the
    pool of "camera and LiDAR fusion for 3D object detection" kept radar-camera fusion, which its
    reader counted off topic (c28d). "CT and MRI scans" stays either: papers say "CT scans" alone.
    The same test heads the outline's parts (agents/outline/asked.py part_headings)."""
    a, b, h = (re.escape(w.lower().rstrip("s")) for w in (first, second, head))
    joint = re.compile(rf"\b(?:{a}s?(?:-| and | ){b}s?|{b}s?(?:-| and | ){a}s?) {h}", re.I)
    alone = re.compile(rf"(?<![\w-]){a}s? {h}", re.I)
    together = sum(1 for t in texts if joint.search(t))
    return together >= MIN_TERM_USES and together >= sum(1 for t in texts if alone.search(t))


def _joins_two_phrases(joins: Sequence[bool], i: int) -> bool:
    """Whether the "and" before word ``i`` joins two phrases of several words each ("image
    recognition and computer vision"), not words sharing a head ("CT and MRI scans") or a modifier
    ("human values and preferences")."""
    return joins[i] and i >= 2 and not joins[i - 1] and i + 1 < len(joins) and not joins[i + 1]


def lists_phrases(phrase: str) -> bool:
    """Whether "and" / "or" in ``phrase`` joins two phrases of several words each ("speculative
    decoding and KV cache compression"), not words sharing a head ("vehicles and pedestrians")."""
    joins = [joined for _, joined in _words_with_joins(phrase)]
    return any(_joins_two_phrases(joins, i) for i in range(len(joins)))


def _said_as_phrases(tokens: Sequence[str], words: Sequence[str], joins: Sequence[bool], texts: Sequence[str]) -> bool:
    """Whether MIN_TERM_USES of ``texts`` say each of the phrases "and" joins ("image recognition",
    "computer vision"; "graph representation learning", "message passing networks"): then its words
    are units of their own, as a description's are ("recognition or computer" would name nothing).
    "producing harmful or dangerous outputs" has the same shape, and "dangerous outputs" is no
    phrase the papers say: there "harmful or dangerous" is one unit. (Read as either phrase said
    verbatim, "preference tuning and value alignment of foundation language models" kept 54 papers
    where its words, weighed as a description, keep about 450: session 22.)"""
    starts = [0] + [i for i in range(1, len(tokens)) if joins[i]]
    stems = [stem_text(t) for t in texts]
    for start, end in zip(starts, starts[1:] + [len(tokens)]):
        form = stem_text(" ".join(words[i] for i in range(start, end) if tokens[i] not in GENERIC_HEADS))
        if not form or sum(bool(_form_pattern(form).search(s)) for s in stems) < MIN_TERM_USES:
            return False
    return True


# "the predictions of large language models": what a model produces, said after the model's name
_PRODUCT_OF_MODEL = re.compile(r"\b(?:the\s+|their\s+|its\s+)?((?:" + "|".join(sorted(MODEL_PRODUCTS)) + r")s?)\s+of\s+(?:the\s+)?"
                               r"((?:[\w-]+\s+){0,3}?(?:" + "|".join(sorted(_MODEL_WORDS)) + r"))\b", re.I)


def products_after_model(topic: str) -> str:
    """"explaining the predictions of large language models" -> "explaining large language model
    predictions", the task as a heading reads it (agents/outline/roles.py). The facets drop the
    product ("explaining" of "large language models", two facets, as for "explaining LLM
    predictions"): read as typed, "the predictions" was a facet of its own, and the pool's sections
    were "Next-Token Prediction" and "Explaining the Predictions" (c35f, read last of five)."""
    # a modifier takes the singular: "large language model predictions"
    return _PRODUCT_OF_MODEL.sub(lambda m: f"{singular(m.group(2))} {m.group(1)}", topic)


def without_model_products(topic: str) -> str:
    """"explaining the predictions of large language models" -> "explaining of large language
    models": what the facets read (see ``products_after_model``)."""
    return _PRODUCT_OF_MODEL.sub(r"of \2", topic)


def topic_facets(topic: str, texts: Sequence[str]) -> list[Facet]:
    """The topic's facets; ``texts`` (titles and abstracts of the first candidates) give the
    acronyms the literature uses."""
    facets = [f for f in (Facet(p, _units(p, texts)) for p in concept_phrases(without_model_products(topic))) if f.units]
    # "a survey of federated learning", "what are the latest methods for 3D reconstruction": a
    # facet of generic heads only says what kind of text the user wants, and no paper needs to say it
    named = [f for f in facets if not all(u.phrase in GENERIC_HEADS for u in f.units)]
    # "neural networks for protein structure prediction": in a corpus of machine-learning papers the
    # method family every paper uses says nothing of the topic, and few say it (7 papers were kept,
    # session 22; "... with deep learning" 37, "machine learning for weather ..." kept cattle weights)
    # ... unless the literature names the family by the topic's other words: "neural networks that
    # work on graph data" is about graph neural networks (dropped, the pool was knowledge graphs)
    others = [f for f in named if _family_key(f) not in GENERIC_METHODS]
    specific = []
    for facet in named:
        term = facet if facet in others else _family_term(facet, others, texts)
        if facet in others or term is not facet:
            specific.append(term)
    return specific or named or facets or [Facet(topic, (Unit(topic, (stem_text(topic),)),))]


def _family_key(facet: Facet) -> str:
    return " ".join(form for u in facet.units for form in u.forms[:1])


def _family_term(family: Facet, others: Sequence[Facet], texts: Sequence[str]) -> Facet:
    """The method family as the field names it with a word of the other facets ("graph neural",
    said by MIN_TERM_USES of the candidates, with its acronyms), or ``family`` itself when the
    candidates use no such term ("protein neural networks" is none)."""
    key = _family_key(family)
    stems = [stem_text(t) for t in texts]
    for word in dict.fromkeys(form for f in others for u in f.units for form in u.forms[:1] if " " not in form):
        term = f"{word} {key}"
        if sum(bool(_form_pattern(term).search(s)) for s in stems) >= MIN_TERM_USES:
            tokens = [*word.split(), *(tokenize(w)[0] for w in family.phrase.split() if tokenize(w))]
            forms = (term, *(stem_text(a) for a in mine_acronyms(tokens, texts)))
            return Facet(f"{word} {family.phrase}", (Unit(" ".join(tokens), tuple(dict.fromkeys(forms))),))
    return family


# A facet that this many of the topic's word-retrieved candidates say verbatim is a term of the
# field, whole: "privacy attacks" of "privacy attacks on federated learning", whose 100 nearest
# papers are mostly privacy-preserving FL (fewer than 0.2 say "attack"); thinning it kept 220 papers
# at labelled precision 0.05 where the whole facet kept 23 at 0.47 (topic_pool.md, session 21).
MIN_TERM_USES = 5


@lru_cache(maxsize=8192)
def _form_pattern(form: str) -> re.Pattern:
    return re.compile(r"(?<!\S)" + re.escape(form) + r"(?!\S)")
