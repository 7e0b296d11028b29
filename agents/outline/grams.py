"""Which runs of words may be a concept phrase: 2-4 words, no stop, boilerplate, clause or verb word
at either end, ending on a noun, not the topic's words alone (the grammar concepts.PhraseIndex reads
the pool's titles and abstracts with; also the outline knowledge base, retrieval/outline_kb.py)."""

from __future__ import annotations

from collections import Counter

from ...evaluation.headings import stem_word
from .names import GENERIC_WORDS, STOP, _participle

MAX_WORDS = 4
# Words that may sit inside a phrase ('mixture of experts', 'chain of thought'), never at its ends.
INNER = {"of", "and", "for", "in", "to"}
# Words that never start or end a concept phrase although they are not boilerplate elsewhere.
EDGE_BAN = GENERIC_WORDS | {"like", "such", "high", "low", "better", "best", "good", "large", "small", "based",
                            "multiple", "single", "diverse", "complex", "simple", "real", "world", "wide", "range",
                            "level", "scale", "end", "long", "short", "fine", "grained", "step", "time", "paradigm",
                            "setting", "settings", "stage", "field", "domain", "domains", "area", "areas", "way",
                            "ways", "process", "form", "type", "types", "kind", "set", "sets", "number", "series",
                            "lack", "gap", "gaps", "need", "limited", "current", "prior", "previous", "future",
                            "potential", "critical", "crucial", "important", "promising", "remarkable", "impressive",
                            "strong", "robust", "efficient", "accurate", "reliable", "generalization", "ability",
                            "abilities", "limitation", "limitations", "potential", "direction", "directions",
                            "introduction", "overview", "survey", "review", "benchmark", "benchmarks", "dataset",
                            "datasets", "evaluation", "baseline", "baselines", "open", "source", "open-source",
                            "unified", "comprehensive", "systematic", "general", "novel", "simple", "generation",
                            # a verdict on results, no kind of method: "Superior Classification" headed a
                            # ViT subsection (c26f) from "superior classification performance"
                            "superior", "excellent", "outstanding", "favorable", "favourable", "substantial",
                            "considerable", "notable", "exceptional", "satisfactory", "great", "state-of-the-art",
                            # how a study frames its object, no concept of the field: "Application in
                            # Lymphoma Diagnosis" (c26l), "Impact of Translation" (c26d)
                            "application", "applications", "impact", "impacts", "role", "roles", "effect",
                            "effects", "usage", "influence", "importance"}


# Verbs that open a title or clause as gerunds ('Integrating External Knowledge'): never a concept's head.
GERUND_VERBS = set("""integrating enhancing improving leveraging incorporating combining using enabling providing
    addressing introducing achieving reducing generating retrieving bridging mitigating boosting exploring evaluating
    investigating rethinking revisiting understanding empowering unlocking unleashing advancing harnessing augmenting
    utilizing employing adapting aligning selecting optimizing ensuring maintaining capturing exploiting handling
    supporting guiding making building towards scaling teaching training making turning assessing benchmarking
    measuring analyzing characterizing quantifying detecting accelerating""".split())


# Gerunds that say by what means a title's work is done ("... Classification Using Deep Learning"):
# a phrase with one inside is a clause of the title.
MEANS_GERUNDS = {"using", "leveraging", "integrating", "incorporating", "combining", "employing", "utilizing",
                 "exploiting", "harnessing", "via"}


def stem_key(words: list[str]) -> str:
    return " ".join(stem_word(w) for w in words)


_ADJECTIVE_END = ("ive", "able", "ible", "ous", "ful", "less", "ly")
NOUNS_IN_AL = {"retrieval", "signal", "removal", "proposal", "interval", "arrival", "approval", "survival", "rehearsal",
               "trial", "material", "potential", "tutorial", "manual", "animal", "terminal", "journal", "hospital",
               "rival", "portal", "appraisal", "referral", "denial", "dismissal", "disposal", "renewal", "reversal"}
# Generic head nouns that open real concepts ('model compression', 'model merging', 'network pruning',
# 'system prompts') though they never end one ('language model', 'recommender system').
OPENING_HEADS = {"model", "network", "system"}
NOUNS_IN_IC = {"topic", "logic", "music", "traffic", "clinic", "arithmetic", "epidemic", "rhetoric", "metric",
               "graphic", "heuristic", "mechanic", "critic", "fabric", "mosaic", "relic", "tactic", "panic"}
# Verbs that open a clause ('Mitigate Hallucinations', 'Fails to ...'): a phrase never starts with one.
CLAUSE_VERBS = {"mitigate", "mitigates", "reduce", "improve", "enhance", "enable", "fail", "fails", "use", "uses",
                "make", "makes", "achieve", "yield", "yields", "remain", "remains", "suffer", "suffers", "lead", "leads"}
IRREGULAR_PARTICIPLES = {"spoken", "written", "driven", "given", "hidden", "taken", "chosen", "known", "shown", "grown",
                         "drawn", "broken", "frozen", "proven", "unseen", "seen", "built", "made", "held", "led"}
BOILERPLATE_NOUNS = {"page", "project", "topic", "rate", "rates", "code", "github", "result", "paper", "manuscript",
                     "report", "reports"}


# Adjectives no ending gives away that only ever stand before their noun: a phrase ending on one was
# cut ("Classification Using Deep" headed a ViT subsection, c35a, from "... using deep learning").
PREMODIFIERS = {"deep", "shallow", "multi", "cross", "semi", "self", "pre", "non", "anti"}


def _noun_end(word: str) -> bool:
    """Not an adjective or adverb by its ending ('contrastive', 'generalizable', 'multimodal',
    'independently'): a phrase ending on one was cut before its noun."""
    last = word.split("-")[-1]
    if last in PREMODIFIERS or last.endswith(("'s", "'")) or last in IRREGULAR_PARTICIPLES or last.endswith(_ADJECTIVE_END) or (last.endswith("al") and last not in NOUNS_IN_AL) or \
            (last.endswith("ic") and last not in NOUNS_IN_IC):
        return False
    return last not in BOILERPLATE_NOUNS


def _ok_edge(word: str, banned: set[str]) -> bool:
    parts = [p for p in word.split("-") if p]
    if word in STOP or word in EDGE_BAN or not parts or word.isdigit() or len(word) < 2 or _participle(word):
        return False
    return any(p not in STOP and p not in EDGE_BAN and p not in banned and not p.isdigit() for p in parts) or \
        word not in banned


# The whole field's name: never a part of a topic, whatever the topic ("Explainable Artificial
# Intelligence" headed a c36p section of a survey of explainable AI methods for language models).
FIELD_NAMES = frozenset({"ai", "artificial", "intelligence"})


def _topic_word(word: str, banned: set[str]) -> bool:
    return all(p in banned or p in STOP for p in word.split("-") if p)


TASK_FOLLOWERS = {"task", "benchmark", "dataset", "setting", "scenario", "application", "domain", "problem"}
MIN_USES = 10  # uses of a phrase before the words around it say what kind of thing it is
# Words before a measure ('reduces memory usage', 'high computational costs', 'faster rendering speed').
MEASURE_CUES = {f"{stem}{end}" for stem in ("reduc", "lower", "decreas", "increas", "improv", "sav", "minimiz", "minimis",
                                             "maximiz", "maximis", "boost", "cut", "higher", "less", "fewer")
                for end in ("", "e", "es", "ed", "ing", "s")} | {
    "high", "low", "significant", "substantial", "considerable", "excessive", "prohibitive", "massive", "huge",
    "heavy", "additional", "extra", "lower", "higher", "faster", "greater", "better", "reduced", "increased",
    "overall", "total", "average", "peak", "limited", "minimal", "negligible", "marginal"}


# Words after which English puts a verb or a predicate ('to detect', 'we propose', 'are prone'):
# a word the pool mostly uses there is no concept's first or last word.
VERB_CUES = {"to", "we", "can", "may", "could", "will", "cannot", "should", "must", "might", "would", "is", "are",
             "be", "was", "were", "remain", "remains", "often", "also", "not"}
VERB_SHARE = 0.3  # 'detect' 0.81, 'prone' 0.79 after a cue in the hallucination pool; nouns 0.00-0.05
NOUNS_IN_LY = {"family", "anomaly", "assembly", "supply", "monopoly", "early", "rally", "italy", "poly"}


# Words English puts right after a verb, not after a noun ('transformers exhibit strong ...', 'models
# achieve the best ...'): "Transformers Exhibit" was a ViT heading a blind reader called malformed.
OBJECT_CUES = {"the", "a", "an", "strong", "remarkable", "impressive", "significant", "superior", "promising",
               "competitive", "excellent", "state-of-the-art", "substantial"}


def verb_like(texts: list[list[list[str]]]) -> set[str]:
    """Words of these token runs used mostly as verbs or predicates (``VERB_SHARE`` of their uses
    after a VERB_CUES word or before an OBJECT_CUES word, at least three uses), and the -s forms of
    such verbs ('accelerates')."""
    uses: Counter = Counter()
    cued: Counter = Counter()
    for runs in texts:
        for run in runs:
            before = ""
            lows = [word.lower() for word in run]
            for k, low in enumerate(lows):
                uses[low] += 1
                cued[low] += before in VERB_CUES or (k + 1 < len(lows) and lows[k + 1] in OBJECT_CUES)
                before = low
    verbs = {w for w, n in uses.items() if n >= 3 and cued[w] >= VERB_SHARE * n}
    return verbs | {w for w in uses if w.endswith("s") and (w[:-1] in verbs or (w.endswith("es") and w[:-2] in verbs))}


class _WordFacts:
    """What the n-gram filter asks of one lower-cased word, computed once per word (a 1,500-paper
    pool has ~2 million n-gram positions but only ~30,000 distinct words)."""

    def __init__(self, banned: set[str], verbs: set[str] | frozenset = frozenset()):
        self.banned = banned
        self.verbs = verbs
        self.cache: dict[str, tuple[str, bool, bool, bool, bool]] = {}

    def __call__(self, word: str) -> tuple[str, bool, bool, bool, bool]:
        """(stem, may start a phrase, may end one, may stand inside one, is only topic/stop words).
        A topic word may stand at one end of a phrase ('adaptive retrieval', 'inference engines' of
        their topics), never at both (_gram_spans): the topic's own phrases name no part of it."""
        found = self.cache.get(word)
        if found is None:
            topic = _topic_word(word, self.banned)
            edge = _ok_edge(word, set() if topic else self.banned) and len(word) >= 2 and word not in self.verbs
            # a participle opens concepts ('structured pruning', 'distributed training') but ends none
            opens = edge or (word not in self.verbs and (
                word in OPENING_HEADS or (_participle(word) and word not in EDGE_BAN and _ok_edge(word[:-2] + "e", set()))))
            adverb = len(word) > 4 and word.endswith("ly") and word not in NOUNS_IN_LY  # 'factually incorrect'
            found = self.cache[word] = (
                stem_word(word),
                opens and word not in GERUND_VERBS and word not in CLAUSE_VERBS and not adverb,
                edge and _noun_end(word),
                # a gerund of means inside makes a clause of a title, no concept ("classification
                # using deep"); a gerund that names a process stays ("language understanding tasks")
                len(word) >= 2 and (word not in STOP or word in INNER) and word not in MEANS_GERUNDS,
                # the field's own name beside a topic word restates the topic: "Explainable AI" headed a
                # section of a survey of explainability techniques (c36f: "inside an explainability survey")
                all(p in self.banned or p in STOP or p in FIELD_NAMES for p in word.split("-") if p))
        return found


def _gram_spans(facts: list[tuple], n_max: int = MAX_WORDS):
    """(start, n) of the candidate n-grams (2..n_max) of one token run, from its words' facts."""
    for i, first in enumerate(facts):
        if not first[1]:
            continue
        for n in range(2, min(n_max, len(facts) - i) + 1):
            last = facts[i + n - 1]
            if n > 2 and not facts[i + n - 2][3]:
                break  # a stop word inside: every longer gram from i has it too
            if last[2] and not (first[4] and last[4]) and not all(f[4] for f in facts[i:i + n]):
                yield i, n


def phrase_grams(words: list[str], banned: set[str], facts: _WordFacts | None = None) -> list[tuple[str, ...]]:
    """Candidate n-grams (2..MAX_WORDS) of one token run, lower-cased words kept: no stop,
    boilerplate or clause word at either end, no stop word inside but 'of', 'and', 'for', 'in', 'to',
    ending on a noun, not made only of the topic's words."""
    facts = facts or _WordFacts(banned)
    low = [w.lower() for w in words]
    known = [facts(w) for w in low]
    return [tuple(low[i:i + n]) for i, n in _gram_spans(known)]
