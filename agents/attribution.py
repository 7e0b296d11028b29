"""Attributing an abstract's sentence to its paper, in the third person, inside the sentence.

Used by the extractive synthesis (agents/synthesis.py) and the comparison tables
(agents/illustrate.py). An abstract speaks for itself ("We propose ...", "This paper studies ...",
"Our results show ..."); in a survey the same sentence has to say whose claim it is:

- "We propose X."               -> "Smith et al. [3] propose X."
- "This paper studies X."       -> "The paper by Smith et al. [3] studies X."
- "Our results show X."         -> "Smith et al. [3] report that their results show X."
- "Experiments show X."         -> "Smith et al. [3] report that experiments show X."

Only the subject changes; the claim keeps the abstract's own words, so it stays faithful. Handles
are the first author's surname ("Smith et al.", "Smith and Lee", "Smith") or, without authors, a
short quoted title handle. Everything that comes from a paper passes through
``sanitize.untrusted`` first.
"""

from __future__ import annotations

import re

from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

from ..sanitize import untrusted

_PAPER_NOUNS = r"(?:paper|work|study|article|letter|survey|research|report|manuscript|thesis|note|position paper|document)"
# Leading discourse connectives that tie a sentence to the one before it in its abstract; removed so
# the sentence stands alone (its claim is unchanged).
_LEAD_CONNECTIVE = re.compile(
    r"^(?:however|moreover|furthermore|additionally|in addition|besides|also|thus|therefore|hence|"
    r"consequently|accordingly|specifically|in particular|in detail|concretely|notably|importantly|"
    r"finally|lastly|then|next|first|firstly|second|secondly|third|thirdly|meanwhile|nevertheless|"
    r"indeed|in fact|subsequently|afterwards|similarly|likewise|correspondingly|since|again|still|"
    r"nonetheless|instead|in contrast|by contrast|conversely|to this end|to that end|for this purpose|"
    r"as a result|overall|in summary|in short|in conclusion|to summari[sz]e|together|here|herein|"
    r"on the other hand|at the same time|in this context|in response|in this regard|to this aim|"
    r"on the contrary|to the contrary|more specifically|more precisely|more concretely|in other words|"
    r"more importantly|most importantly|to be (?:\w+ )?(?:specific|precise|striking|exact|concrete|clear|fair|honest)|"
    r"to the best of (?:our|their|the authors') knowledge|beyond this|building on this|motivated by this|"
    r"inspired by this|based on this|based on these (?:\w+ )?(?:findings|observations|insights)|"
    r"to (?:address|tackle|overcome|solve|mitigate|bridge|fill|close|alleviate|resolve|remedy|handle|fix)"
    r" (?:this|these|those|such|the above|both|that)\b[^,]{0,80})\s*,\s*", re.I)
_SELF_PREFIX = re.compile(
    rf"^(?:in|within|through|throughout|with)\s+(?:this|the present|our)\s+(?:\w+\s+)?{_PAPER_NOUNS}\s*,?\s*", re.I)
_SELF_SUBJECT = re.compile(rf"^(?:this|the present|our|the current)\s+((?:\w+\s+)?{_PAPER_NOUNS})\b\s*"
                           rf"|^the\s+((?:paper|survey|study|article))\s+(?=(?:\w+ly\s+|also\s+|further\s+|then\s+)?[a-z]+s\b)", re.I)
_WE_START = re.compile(r"^we\s+", re.I)
_SENTENCE_ADVERB = re.compile(r"^([A-Z][a-z]+ly|In practice|In theory|In contrast|In experiments|Overall|Empirically|"
                              r"Theoretically|Experimentally|Specifically)\s*,\s+")
_OUR_START = re.compile(r"^our\s+", re.I)
# When the field did something, not when the cited authors said it: "Recently, Wen et al. [6] note that
# LLMs have been widely employed in CRSs" (a c29 introduction). The claim stands without it.
_WHEN = re.compile(r"^(?:Recently|More recently|Most recently|Currently|Nowadays|Lately|Traditionally|Historically|Today|In recent years|"
                   r"Over the (?:past|last) (?:\w+ )?(?:years?|decades?))\s*,\s+(?=\S)")
# Discourse connectives point back at the abstract's previous sentence ("Further, they observed
# ..."); quoted alone, the sentence has no previous one, so the connective goes.
_CONNECTIVE = re.compile(r"^(?:Further|Furthermore|Moreover|In addition|Additionally|Besides|Also|However|Meanwhile|"
                         r"Thus|Therefore|Hence|Consequently|Finally|Lastly|Then|Next|Yet|But|Still|Nevertheless|"
                         r"Nonetheless|Instead|Accordingly|To this end|In this context|In particular|So|As a result|In turn|"
                         r"In doing so|By doing so)\s*,\s+(?=\S)")
# Words that start a sentence as a determiner or adjective before a capitalised term ("Existing
# Reinforcement Learning from Human Feedback methods ..."): lower-cased after "that" even so.
_SENTENCE_OPENERS = {"existing", "current", "recent", "most", "many", "modern", "prior", "previous", "conventional",
                     "traditional", "standard", "typical", "contemporary", "popular", "mainstream", "several",
                     "emerging", "leading", "advanced", "state-of-the-art",
                     # subordinators before a capitalised term ("... point out that Despite Sparse
                     # Autoencoders (SAEs) have emerged ...", a c25 draft)
                     "despite", "unlike", "given", "following", "building"}
# "Experiments on three QA datasets show that X": the evidence and its scope lead, the claim follows
# ("On three QA datasets, Smith et al. [3] show that X", not "... report that experiments on ... show that X").
_EVIDENCE = re.compile(
    r"^(?:(?:extensive|comprehensive|our|their|the|experimental|empirical)\s+)*"
    r"(?:results?|experiments?|evaluations?|analys[ie]s)"
    r"(?:\s+(?P<prep>on|across|over)\s+(?P<scope>[^,;]{3,90}?))?"
    r"\s+(?P<verb>show|demonstrate|indicate|reveal|confirm|suggest)s?\s+that\s+(?P<rest>\S.*)$", re.I)
# A sentence opening on a pronoun or demonstrative refers back to text we do not quote.
_DANGLING = re.compile(r"^(?:this|these|those|that|such|it|its|they|them|their|both|the former|the latter|"
                       r"the (?:above|aforementioned|proposed|resulting|same)|said|he|she|his|her)\b", re.I)
_PRONOUNS = {"we": "they", "our": "their", "us": "them", "ours": "theirs", "ourselves": "themselves"}
_PRONOUN = re.compile(r"\b(we|our|us|ours|ourselves)\b", re.I)
# Words between "We" and its verb that are not the verb ("We also propose", "We further show").
_ADVERBS = {"also", "further", "first", "then", "here", "additionally", "finally", "now", "next", "thus",
            "therefore", "hence", "instead", "subsequently", "similarly", "likewise", "moreover", "still",
            "newly", "jointly", "not", "systematically", "empirically", "theoretically", "extensively",
            "thoroughly", "carefully", "comprehensively", "formally", "rigorously", "experimentally"}
# Adverbs after "We" that point back to the sentence before it.
_BACK_REFERRING = re.compile(r"^(?:therefore|thus|hence|consequently|accordingly),?\s+", re.I)
_MODALS = {"can", "could", "will", "would", "may", "might", "must", "should", "shall", "did", "do"}
_IRREGULAR = {"are": "is", "have": "has", "do": "does", "were": "was", "go": "goes"}
_ES_ENDINGS = ("s", "sh", "ch", "x", "z", "o")


# The most common Chinese surnames in romanisation. arXiv metadata is mostly given-name first, but
# some records put the surname first ("Yin Xiaolong"): a two-part name whose first part is one of
# these and whose last part is a two-syllable pinyin given name is read surname-first. ("Wei Li": both
# are surnames, the usual order wins; "Zheng Hui", "Lei Hsiung": a one-syllable last part is as often
# a surname missing from this list, and three readers found "Zheng et al." for Zheng Hui's paper.)
_SURNAME_FIRST = frozenset("""wang li zhang liu chen yang huang zhao wu zhou xu sun ma zhu hu guo he lin gao luo
    zheng liang xie song tang han feng deng cao peng zeng xiao tian dong pan yuan cai jiang yu du ye cheng wei su
    lu ding ren shen yao yin lu jiang fu zhong qian tan jin dai qin shi xiong meng hou bai kong mao qiu hao gu
    duan lei long tao wan xia yan fan""".split())


_PINYIN_FINAL = "iang|iong|uang|ang|eng|ing|ong|ian|iao|uai|uan|ai|ei|ao|ou|an|en|er|in|un|ia|ie|iu|ua|uo|ue|ui|a|o|e|i|u"
_PINYIN_INITIAL = "zh|ch|sh|[bpmfdtnlgkhjqxrzcsyw]"
# a given name of two pinyin syllables ('Xiaolong' = xiao-long, 'Shurui'), each read longest-first
# without backtracking, so 'Guan' or 'Zhuang' is one syllable, never gu-an / zhu-ang; the second
# syllable has an initial ('Hana' passes, 'Shee' does not). Three syllables ('Tanaka') are no Chinese
# given name.
_TWO_SYLLABLE_GIVEN = re.compile(
    f"(?>(?:{_PINYIN_INITIAL})(?:{_PINYIN_FINAL})|(?:ang|eng|ai|ei|ao|ou|an|en|er|a|o|e))"
    f"(?>(?:{_PINYIN_INITIAL})(?:{_PINYIN_FINAL}))")


def surname(name: str) -> str:
    """'Jane Q. Smith' -> 'Smith'; 'Smith, Jane' -> 'Smith'; 'Yin Xiaolong' -> 'Yin' (surname-first
    romanised Chinese name); suffixes (Jr., III) skipped."""
    name = untrusted(name, 80)
    if "," in name:
        return name.split(",")[0].strip()
    parts = [p for p in name.split() if p.strip(".").lower() not in {"jr", "sr", "ii", "iii", "iv", "phd"}]
    if len(parts) == 2 and parts[0].lower() in _SURNAME_FIRST and parts[1].lower() not in _SURNAME_FIRST \
            and _TWO_SYLLABLE_GIVEN.fullmatch(parts[1].lower()):
        return parts[0]
    return parts[-1].strip(",") if parts else ""


def title_handle(title: str) -> str:
    """A short name for a paper without authors: the system name before a colon ("RAGChecker:
    A Fine-grained ...") or the title's first words, quoted."""
    clean = untrusted(title, 300).strip().rstrip(".")
    head = clean.split(":", 1)[0].strip()
    if ":" in clean and 0 < len(head.split()) <= 4:
        return f"“{head}”"
    words = clean.split()
    return "“" + " ".join(words[:6]) + (" ...”" if len(words) > 6 else "”") if words else "an unnamed work"


def paper_handle(paper: dict) -> tuple[str, bool]:
    """The in-sentence name of a paper and whether it is grammatically plural.

    Two or more authors: "Smith et al." / "Smith and Lee" (plural); one author: "Smith"
    (singular); none: a quoted title handle (singular, used as "the work “...”").
    """
    names = [surname(a) for a in (paper.get("authors") or [])]
    # "kurra" in the metadata is still a name: capitalised, it reads as one in a sentence
    names = [n[:1].upper() + n[1:] for n in names if re.search(r"[^\W\d_]", n)]
    if len(names) >= 3:
        return f"{names[0]} et al.", True
    if len(names) == 2:
        return f"{names[0]} and {names[1]}", True
    if len(names) == 1:
        return names[0], False
    return f"the work {title_handle(paper.get('title') or '')}", False


def third_person(verb: str) -> str:
    """'propose' -> 'proposes', 'study' -> 'studies', 'address' -> 'addresses', 'are' -> 'is'."""
    if " " in verb:  # "point out" -> "points out"
        head, rest = verb.split(" ", 1)
        return f"{third_person(head)} {rest}"
    lower = verb.lower()
    if lower in _IRREGULAR:
        return _IRREGULAR[lower]
    past = lower.endswith("ed") and not lower.endswith("eed") and lower not in {"embed", "shed", "bed"}
    if lower in _MODALS or not lower.isalpha() or (past and len(lower) > 4):
        return verb  # past tense ("integrated") agrees with any subject: never "integrateds"
    if lower.endswith("y") and len(lower) > 2 and lower[-2] not in "aeiou":
        return verb[:-1] + "ies"
    if lower.endswith(_ES_ENDINGS):
        return verb + "es"
    return verb + "s"


def _conjugate_after_subject(rest: str, plural: bool) -> str:
    """Make the verb that follows a new subject agree with it (only a singular subject changes
    anything: 'we' and every plural handle take the same verb form)."""
    if plural:
        return rest
    words = rest.split(" ")
    for i, word in enumerate(words):
        bare = word.lower().strip(",")
        if bare in _ADVERBS or (bare.endswith("ly") and len(bare) > 4):
            continue
        if word.isalpha() and word.islower():
            words[i] = third_person(word)
            # a verb coordinated right after it: "evaluate and compare" -> "evaluates and compares"
            if i + 2 < len(words) and words[i + 1] in ("and", "or") and words[i + 2].isalpha() and words[i + 2].islower():
                words[i + 2] = third_person(words[i + 2])
        break
    return " ".join(words)


def _lower_first(text: str) -> str:
    """Lower-case the first word for use after "that", unless it is an acronym or a name with
    internal capitals or digits ("RAG", "GPT-4", "LLaMA")."""
    words = text.split(" ", 2)
    first = words[0]
    # "Electronic Health Records (EHRs) provide ...": a capitalised term, not a sentence-initial
    # capital. A name after the first word is not ("Existing MMRAG methods", "Using CFVBench"), and a
    # function word never starts a term ("While Large Language Models ...").
    parts = words[1].strip(",;:").split("-") if len(words) > 1 else [""]
    term = (all(p[:1].isupper() and p[1:].islower() for p in parts) and first.lower() not in ENGLISH_STOP_WORDS
            and first.lower() not in _SENTENCE_OPENERS)
    if first in ("A", "An") or (not term and len(first) > 1 and first[0].isupper()
                                 and first[1:].replace("-", "").isalpha() and first[1:].islower()):
        return first[0].lower() + text[1:]
    return text


def _pronouns_to_third(text: str) -> str:
    def swap(match: re.Match) -> str:
        word = match.group(1)
        new = _PRONOUNS[word.lower()]
        return new.capitalize() if word[0].isupper() else new

    return _PRONOUN.sub(swap, text)


def standalone(sentence: str) -> str | None:
    """The sentence without the connective tying it to its neighbour; None when it still opens on a
    pronoun or demonstrative that points at text we do not quote (it would be misread)."""
    text = sentence.strip()
    for _ in range(2):
        text = _LEAD_CONNECTIVE.sub("", text, count=1)
    text = text[:1].upper() + text[1:] if text else text
    if _SELF_PREFIX.match(text):
        return text
    if _SELF_SUBJECT.match(text):
        return text
    return None if _DANGLING.match(text) else text


def attribute(sentence: str, handle: str, plural: bool, marker: str, report_verb: str | None) -> str:
    """``sentence`` (already standalone) with its source named inside it, in the third person.

    ``marker`` is the citation marker ("[3]"); ``report_verb`` the verb that introduces a sentence
    with no subject of its own to replace ("report" -> "Smith et al. [3] report that ..."), or None
    for "In Smith et al. [3], ...".
    """
    text = _SELF_PREFIX.sub("", _CONNECTIVE.sub("", _WHEN.sub("", sentence.strip(), count=1), count=1), count=1)
    text = text[:1].upper() + text[1:]
    cited = f"{handle} {marker}"
    capital = cited[:1].upper() + cited[1:]
    # A sentence adverb ("Theoretically, we show ...") leads the attributed sentence too, instead of
    # landing after "report that" as "report that Theoretically, ...".
    lead = _SENTENCE_ADVERB.match(text)
    if lead and len(text) > lead.end():
        rest = text[lead.end():]
        inner = attribute(rest[:1].upper() + rest[1:], handle, plural, marker, report_verb)
        if inner.startswith(("In ", "The ")):  # "In Smith [3], ..." / "The survey by ..."; names keep their case
            inner = inner[:1].lower() + inner[1:]
        return f"{lead.group(1)}, {inner}"
    if _WE_START.match(text):
        # "We therefore propose": the reason is in a sentence not quoted ("Jia et al. [26] therefore
        # propose ...", quoted by a c28i reader)
        rest = _BACK_REFERRING.sub("", _WE_START.sub("", text, count=1), count=1)
        rest = _conjugate_after_subject(rest, plural)
        return f"{capital} {_pronouns_to_third(rest)}"
    subject = _SELF_SUBJECT.match(text)
    if subject:
        rest = text[subject.end():]
        noun = (subject.group(1) or subject.group(2)).lower()
        return f"The {noun} by {cited} {_pronouns_to_third(rest)}"
    evidence = _EVIDENCE.match(text) if report_verb is not None else None
    if evidence:
        verb = evidence.group("verb").lower()
        claim = f"{cited} {verb if plural else third_person(verb)} that {_pronouns_to_third(evidence.group('rest'))}"
        if evidence.group("scope"):
            return f"{evidence.group('prep').capitalize()} {_pronouns_to_third(evidence.group('scope'))}, {claim}"
        return claim[:1].upper() + claim[1:]
    if _OUR_START.match(text):
        text = "Their " + _OUR_START.sub("", text, count=1)
    if report_verb is None:  # "In Smith et al. [3], the retriever is trained ..."
        return f"In {cited}, {_lower_first(_pronouns_to_third(text))}"
    verb = report_verb if plural else third_person(report_verb)
    return f"{capital} {verb} that {_lower_first(_pronouns_to_third(text))}"
