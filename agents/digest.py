"""What one work contributes, as a clause a comparison can use (no model).

A survey paragraph that compares works needs each work's contribution in a few words, not its
abstract: "Liang et al. [1] propose SentGraph, a sentence-level graph-based RAG framework", set
against "Zhu et al. [3] propose ConRAG, a consensus-driven multi-view RAG framework". This module
reads that clause from the abstract's own contribution sentence ("We propose X, a Y that Z", "This
paper introduces X", "X builds on ...") and shortens it only at clause boundaries (", which", ";",
":", ", while", ...), so what is left is the abstract's words, complete, and still true of the
work. When no such sentence exists, the title says what the work is about (surveys: "survey X").

It also reads a work's *traits*: design choices a comparison can split works by (training-free,
fine-tuned, reinforcement learning, internal model signals, black-box access, agents), each a
phrase the work's method sentences contain, so "only X describes a training-free method" is read
from the text, never guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..sanitize import untrusted
from .attribution import _LEAD_CONNECTIVE, _pronouns_to_third, paper_handle, third_person
from .text import sentences as split_sentences

MAX_CLAUSE_WORDS = 26  # longer contribution clauses are cut at a clause boundary, or not used
MIN_CLAUSE_WORDS = 5  # a shorter head ('a new SGIC' before ': Self-Guided ...') says too little
# Verbs that state what a work creates, then verbs that state what it examines: a work that
# "propose[s] X" is described by X before anything it "evaluate[s]".
CREATE_VERBS = ("propose introduce present develop design build construct devise formulate contribute release curate "
                "create offer establish unify extend adapt").split()
EXAMINE_VERBS = "study investigate examine analyze analyse explore evaluate benchmark survey review characterize revisit".split()
_BASE_VERBS = CREATE_VERBS + EXAMINE_VERBS


def _forms(base: str) -> set[str]:
    stem = base[:-1] if base.endswith("e") else base
    return {base, base + "s", base + "es", stem + "ed", base + "d"} | ({base[:-1] + "ies", base[:-1] + "ied"}
                                                                     if base.endswith("y") else set())


VERB_BASE = {form: base for base in _BASE_VERBS for form in _forms(base)}
_VERBS = "|".join(sorted(VERB_BASE, key=len, reverse=True))
# "In this paper, we propose X" / "This work introduces X" / "We further develop X".
_CONTRIBUTION = re.compile(
    r"^(?:(?:In|Within|Through) (?:this|the present|our) (?:\w+ )?(?:paper|work|study|article|letter|survey),?\s+)?"
    r"(?:[Hh]ere,?\s+)?(?:we|[Tt]his (?:paper|work|study|article|survey|letter)|[Tt]he present (?:paper|work|study)|"
    r"[Oo]ur (?:paper|work|study))\s+(?:(?:also|further|first|then|here|additionally|newly|systematically|"
    r"empirically|comprehensively)\s+)?(?P<verb>" + _VERBS + r")\s+(?P<object>\S.+)$", re.I)
# A purpose or participial clause before the subject ("To mitigate X, we propose Y", "Building on
# Z, we introduce W"): the contribution follows it.
_LEAD_CLAUSE = re.compile(r"^(?:To|In order to|[A-Z][a-z]+ing|Based on|Inspired by|Motivated by|Guided by|Grounded in)"
                          r"\b[^,;:]{2,90},\s+(?=(?:we|this|our)\b)", re.I)
# Where a long clause may be cut: the part before it is a complete phrase.
_CUT = re.compile(r"\s*(?:;|:|\s[-–—]\s|,\s+(?:which|where|while|whereby|thereby|thus|so that|tracing|highlighting|"
                  r"including|covering|focusing|spanning|providing|offering|using|leveraging|combining|integrating|"
                  r"enabling|allowing|achieving|leading|resulting|making|yielding|demonstrating|showing|revealing|"
                  r"addressing|requiring|reducing|improving|outperforming|surpassing|ensuring|capturing|aiming|"
                  r"exploiting|designed|based|built|tailored|aimed|trained|and (?:we|it|then|thereby|thus|further|"
                  r"also|finally))(?![\w-])|\s+(?:while|whereas|thereby)\s)")
_SURVEY_TITLE = re.compile(
    r"^(?:an?\s+|the\s+)?(?:(?:comprehensive|systematic|brief|concise|critical|structured|unified|short)\s+)*"
    r"(?:survey|review|overview|tutorial|primer)(?:\s+(?:of|on|for|about))?\s+(?P<focus>.+)$"
    r"|^(?P<focus2>.+?)\s*:\s*(?:an?\s+|the\s+)?(?:[\w-]+\s+){0,3}(?:survey|review|overview)\b.*$", re.I)
_NOT_A_FIELD = re.compile(r"\b(?:the|a|an|you|your|we|our|us|it)\b|^[A-Za-z]+ing\b|"
                          r"^(?:beyond|towards?|from|into|when|what|why|how|where)\b", re.I)
_SURVEYS_AFTER_COLON = re.compile(r":\s*(?:an?\s+|the\s+)?(?:[\w-]+\s+){0,3}(?:survey|review|overview)\s+(?:of|on|for|about)\s+"
                                  r"(?P<focus>.+)$", re.I)
# Design choices works are compared by; each needs its phrase in the work's method sentences.
TRAITS = {
    "training-free": re.compile(r"\btraining-free\b|\bplug-and-play\b|\bwithout (?:any |requiring |the need for )?"
                                r"(?:additional |extra |further |re-?|model )?(?:training|fine-tuning|retraining)\b", re.I),
    "fine-tuning": re.compile(r"\bfine-?tun\w*|\binstruction[- ]tun\w*|\bsupervised fine\b", re.I),
    "reinforcement learning": re.compile(r"\breinforcement learning\b|\bRL(?:VR|HF|AIF)?\b|\bGRPO\b|\bPPO\b|"
                                         r"\breward (?:model|signal)s?\b", re.I),
    "internal signals": re.compile(r"\b(?:hidden|internal) (?:states?|representations?|activations?|signals?)\b|"
                                   r"\battention (?:heads?|maps?|weights?)\b|\blogits?\b", re.I),
    "black-box access": re.compile(r"\bblack-box\b", re.I),
    "agents": re.compile(r"\bmulti-agent\b|\bagentic\b|\bagents?\b", re.I),
}
TRAIT_PHRASES = {  # how a group of works with the trait is described (each is a phrase of their text)
    "training-free": "describe training-free or plug-and-play methods",
    "fine-tuning": "fine-tune models",
    "reinforcement learning": "use reinforcement learning",
    "internal signals": "read internal model signals (hidden states, attention or logits)",
    "black-box access": "work with black-box access",
    "agents": "build on agents",
}


@dataclass
class Contribution:
    """``subject`` is "we" (the work's authors: rendered with its handle) or a system name."""
    subject: str
    predicate: str  # "propose SentGraph, a sentence-level graph-based RAG framework" (base form for "we")
    source: str  # the abstract sentence it was read from

    def render(self, handle: str, plural: bool, marker: str) -> str:
        """'Liang et al. [1] propose SentGraph, ...' / 'BEACON (Bera et al. [26]) extracts ...'."""
        if self.subject == "we":
            verb, _, rest = self.predicate.partition(" ")
            return f"{handle} {marker} {verb if plural else third_person(verb)} {rest}".rstrip()
        return f"{self.subject} ({handle} {marker}) {self.predicate}"


@dataclass
class Digest:
    key: int
    handle: str
    plural: bool
    contribution: Contribution | None
    traits: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)  # the system names the work gives itself
    # traits its abstract names anywhere (not only in its method sentences): a work that says "a
    # novel RL-based method" in its contribution is never the one "not" using RL
    mentions: list[str] = field(default_factory=list)

    @property
    def marker(self) -> str:
        return f"[{self.key}]"

    def cited(self) -> str:
        return f"{self.handle} {self.marker}"

    def contribution_text(self) -> str:
        return self.contribution.render(self.handle, self.plural, self.marker) if self.contribution else ""


def _balanced(text: str) -> bool:
    return text.count("(") == text.count(")") and text.count("“") == text.count("”") and text.count('"') % 2 == 0


_DANGLING = re.compile(r"(?:\s+(?:that|which|who|whose|where|when|to|of|for|with|by|and|or|as|in|on|from|into|"
                       r"including|such as|namely|via))+$", re.I)


# A verb that reports what follows it: a cut right after it leaves the finding out
_REPORTING_END = re.compile(r"\b(?:find|found|show|showed|shown|demonstrate|reveal|observe|suggest|conclude|argue|"
                            r"note|report|confirm|indicate|prove|establish|discover|verify)(?:s|ed)?$", re.I)


def shorten(clause: str, limit: int = MAX_CLAUSE_WORDS) -> str:
    """The clause up to its first clause boundary when that leaves a complete phrase; '' when even
    that is longer than ``limit`` words or brackets do not balance (a cut inside a list)."""
    clause = clause.strip().rstrip(".")
    for match in _CUT.finditer(clause):
        # a word that opens what the cut took is no end of the phrase ("a discriminator-free video DPO
        # framework that: (1) uses ...": "... framework that; by contrast, ...", read in a draft)
        head = _DANGLING.sub("", clause[:match.start()].rstrip(" ,"))
        if _REPORTING_END.search(head):  # "... and find that while X, Y": "and find." says nothing (c33f)
            continue
        if len(head.split()) >= MIN_CLAUSE_WORDS and _balanced(head):
            clause = head
            break
    if len(clause.split()) > limit or not _balanced(clause) or re.search(r"\(\s*(?:i|1|a)\s*\)", clause):
        return ""
    return clause


def own_subject(sentence: str, names: list[str]) -> tuple[str, str] | None:
    """'SentGraph builds ...' -> ('SentGraph', 'builds ...'): a sentence whose subject is the
    work's own system name followed by a present-tense verb."""
    for name in names:
        if re.search(r"-[a-z]+$", name):  # 'LLM-based', 'GPT-aided': an adjective, not a system's name
            continue
        match = re.match(rf"^(?:The proposed |Our )?{re.escape(name)}(?: framework| method| model| system)?\s+"
                         rf"(?P<rest>(?:first |also |then |further |effectively |explicitly |jointly )?"
                         rf"[a-z]+s\s+\S.+)$", sentence)
        # ... a verb, not a plural noun: "XGRAG explanations exhibit a strong correlation ..." gave
        # "XGRAG (Li et al. [30]) explanations exhibit ..." (a c29 draft)
        if match and not re.match(r"(?:is|was|has|does|achieves|outperforms|improves|reduces|surpasses|yields)\b|"
                                  r"\w+(?:ions|ments|nesses|ities|ers|ors|ings)\b", match.group("rest")):
            # "ProRL Agent (Zhang et al. [16]) also provides ...": the "also" points at a sentence not quoted (c29o)
            return name, re.sub(r"^(?:also|then|further) ", "", match.group("rest"))
    return None


# "FL continues to face key challenges": a name the abstract defines (often the field's acronym)
# whose predicate states a problem is no contribution of the work
_PLIGHT = re.compile(r"(?:(?:still|often|also|continues? to|remains?|is|are)\s+)*(?:fail|suffer|struggl|lack|fac|pose|"
                     r"remain|hinder)\w*\b", re.I)


def stated_contributions(abstract: str) -> list[str]:
    """The sentences in which an abstract's authors say what they create or examine ("To X, we
    propose Y", "This paper studies Z"): what the work is about, where its other sentences give
    background, baselines and results ("ViTs outperform CNNs")."""
    return [raw for raw in split_sentences(abstract or "") if _CONTRIBUTION.match(_clause_text(raw))]


def _clause_text(raw: str) -> str:
    """A sentence without its leading connectives and purpose clause ("However, to X, we ..."),
    capitalised, as _CONTRIBUTION reads it."""
    text = raw.strip()
    for _ in range(2):
        text = _LEAD_CONNECTIVE.sub("", text, count=1)
    text = _LEAD_CLAUSE.sub("", text, count=1)
    return text[:1].upper() + text[1:]


def contribution(sentences: list[str], names: list[str]) -> Contribution | None:
    """The work's contribution clause from its first sentence that states what it creates, else
    what it examines (abstract order)."""
    return _contribution(sentences, names, set(CREATE_VERBS)) or _contribution(sentences, names, set(_BASE_VERBS))


def _contribution(sentences: list[str], names: list[str], verbs: set[str]) -> Contribution | None:
    for raw in sentences:
        text = _clause_text(raw)
        match = _CONTRIBUTION.match(text)
        if match and VERB_BASE[match.group("verb").lower()] not in verbs:
            continue
        if match:
            verb = VERB_BASE[match.group("verb").lower()]
            # each pronoun by its own: "ClustViT, where we expand ..." read "where their expand" (a session-30 draft)
            obj = shorten(_pronouns_to_third(match.group("object")))
            # "evaluate their approach on ..." says where, not what: the work's contribution is elsewhere
            if obj and not re.match(r"(?:that|how|whether|what|why|to|their (?:\w+ )?(?:approach|method|model|"
                                    r"framework|system|technique|pipeline|algorithm)s?)\b", obj, re.I):
                return Contribution("we", f"{verb} {obj}", raw)
            continue
        own = own_subject(text, names)
        if own and not re.search(r"\b(?:we|our|us)\b", own[1], re.I) and not _PLIGHT.match(own[1]):
            rest = shorten(own[1])
            if rest:
                return Contribution(own[0], rest, raw)
    return None


def survey_focus(title: str) -> str:
    """What a survey's title says it surveys ('A Survey of Multimodal Hallucination Evaluation'
    -> 'multimodal hallucination evaluation'); '' for other titles."""
    clean = untrusted(title, 300).strip().rstrip(".")
    match = _SURVEY_TITLE.match(clean)
    if not match:
        return ""
    focus = (match.group("focus") or match.group("focus2") or "").strip()
    # "Sailing AI by the Stars: A Survey of Learning from Rewards in Post-Training ...": a name before
    # the colon, what it surveys after it ("Wu [2] surveys sailing AI by the stars" was written of it)
    # (a field's name before the colon stays: "Retrieval-Augmented Generation: A Comprehensive Survey of
    # Architectures, ..." surveys retrieval-augmented generation; a phrase with an article or a pronoun,
    # or opening on a gerund or a preposition ("Beyond Pipelines", c29o), names no field)
    named = _SURVEYS_AFTER_COLON.search(clean) if match.group("focus2") and _NOT_A_FIELD.search(focus) else None
    focus = named.group("focus").strip() if named else re.split(r"\s*:\s*", focus)[0]
    words = focus.split()
    if not (2 <= len(words) <= 14):
        return ""
    from .text import in_sentence

    return in_sentence(focus)


def traits(method_sentences: list[str]) -> list[str]:
    text = " ".join(method_sentences)
    found = [name for name, cue in TRAITS.items() if cue.search(text)]
    if "training-free" in found and "fine-tuning" in found:  # "without fine-tuning" names both: not trained
        found.remove("fine-tuning")
    return found


def digest(key: int, paper: dict, abstract_sentences: list[str], method_sentences: list[str],
           names: list[str], kind: str) -> Digest:
    """One work's digest; ``abstract_sentences`` in abstract order (sanitized), ``method_sentences``
    the ones tagged as method."""
    handle, plural = paper_handle(paper)
    # a survey's title says what it covers more plainly than its abstract's "we explore ..."
    focus = survey_focus(paper.get("title") or "") if kind == "survey" else ""
    found = Contribution("we", f"survey {focus}", paper.get("title") or "") if focus else \
        contribution(abstract_sentences, names)
    # A survey's design choices are the surveyed works': "Of these, only [survey] use reinforcement
    # learning" (read in a v4 panel draft) credits it with what it reviews.
    return Digest(key, handle, plural, found, [] if kind == "survey" else traits(method_sentences), list(names),
                  traits(abstract_sentences))
