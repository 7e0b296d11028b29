"""Heading checks (step 4 of outline learning): a heading, from the floor or from a model, is
used only when it is a concept phrase (not an echo, a paper title, cut off, generic or made only of
meta words), does not repeat the topic and is not a duplicate. Every check returns reasons (short
strings, empty = valid) for ``manifest.fallbacks``.
"""

from __future__ import annotations

import re

import snowballstemmer

from ...models import normalize_title

_STEMMER = snowballstemmer.stemmer("english")

# Frame headings are added by the pipeline itself; a planner must not propose them.
FRAME_HEADINGS = {
    "abstract", "introduction", "conclusion", "conclusions", "references", "bibliography",
    "acknowledgements", "acknowledgments", "appendix", "related work", "background and motivation",
    "future work", "future directions", "conclusion and future work", "summary", "outline",
    "table of contents", "contents", "overview",
}
# Words a heading never ends with unless it was cut ("... (RAG) and", "... in the Era of").
TRAILING_STOPWORDS = set(
    """a an and are as at be by for from in into is its of on or the their to via with without vs
    versus than that which whose toward towards between among under over through""".split()
)
# Prompt vocabulary that has no place in a survey heading: the model is echoing its instructions.
# (Words such as "query", "task" or "instruction" alone are not echoes: "Query Optimization" and
# "Instruction Tuning" are real headings of the human surveys in the shared data.)
_ECHO_HEADING = re.compile(
    r"search quer|\bpoints?\)|\(\s*\d+\s*(?:points?|pts|marks?)|\bsections?\s*\d|"
    r"^(?:chapter|part|section|subsection)\b|\bsubsections?\b|\bfirst[- ]level\b|\bdescription\b|"
    r"^(?:title|task|answer|note|question|example|output|json|heading|query)\s*:|"
    r"\bwrite (?:a|an|the|exactly)\b|^write\b|\bhere (?:is|are)\b|\bsure\b|\bas an ai\b|"
    r"\bsurvey topic\b|\bdo not\b|\bdata,? never\b|\bthis survey\b|\bn\.d\.",
    re.I,
)
_DEBRIS = re.compile(r"[{}\[\]<>|`*#_\\]|https?://|\"\s*:|:\s*\"|\.\.\.|…")
_SINGLE_LETTER_OK = {"i"}  # "Part I" is numbering, which the heading check rejects elsewhere


def _words(text: str) -> list[str]:
    return re.findall(r"[A-Za-z0-9][A-Za-z0-9'\-]*", text)


def _balanced(text: str) -> bool:
    for opening, closing in ("()", "[]", "{}"):
        depth = 0
        for ch in text:
            depth += (ch == opening) - (ch == closing)
            if depth < 0:
                return False
        if depth:
            return False
    return text.count('"') % 2 == 0 and text.count("“") == text.count("”")


def content_stems(text: str) -> set[str]:
    """content_words as Snowball stems (the comparison key for duplicate headings): "KV Caching" is
    "KV Cache" and "Knowledge Graphs" is "Knowledge Graph" (a plural cut alone let a draft head two
    sections "KV Cache" and "KV Caching")."""
    return {_STEMMER.stemWord(w) for w in content_words(_ACRONYM_PLURAL.sub(r"\1", _JOINED_PREFIX.sub(r"\1", text)))}


# "MLLMs" is "MLLM", "GNNs" is "GNN": an acronym's plural (Snowball keeps the "s" of "mllms"), read in
# an MLLM outline with both "MLLM Reasoning" and "Reasoning in MLLMs"
_ACRONYM_PLURAL = re.compile(r"\b([A-Z][A-Za-z0-9]*[A-Z0-9])s\b")


# "Pre-Trained" is "Pretrained", "Multi-Agent" is "Multiagent": a prefix joined by a hyphen is one
# word (two ViT subsections were "Pre-Trained Vision Transformers" and "Pretrained Vision Transformers")
_JOINED_PREFIX = re.compile(r"\b(pre|post|re|co|non|semi|sub|multi|un|inter|intra|over|under)[- ](?=[a-z])", re.I)


def own_stems(text: str, topic: str) -> set[str]:
    """What a heading names beyond the topic: its content stems minus the topic's, and minus the
    topic's initialism ("MLLM" in a survey of multimodal large language models)."""
    return content_stems(text) - content_stems(topic) - topic_initialisms(topic)


def topic_initialisms(topic: str) -> set[str]:
    """The lower-cased initials of every run of two or more consecutive words of the topic, hyphenated
    parts counted ("Retrieval-Augmented Generation" -> "rag", "Large Language Models" -> "llm"; the
    plural "s" goes, as content_stems drops it)."""
    initials = []  # per run of content words between connectors ("Safety in LLMs" -> "s", "llm")
    for part in re.split(r"\s+(?:for|in|of|on|with|via|and|the|a|an|to|by|from|using|towards?)\s+", topic, flags=re.I):
        words = [p for w in re.findall(r"[A-Za-z][\w-]*", part) for p in w.split("-") if p]
        initials.append("".join(w[0].lower() for w in words))
    return {run[i:j] for run in initials for i in range(len(run)) for j in range(i + 2, len(run) + 1)}


# Words that say what kind of text something is, not what it is about: a heading made only of them
# ("Comprehensive Survey", "Systematic Overview") names no concept of the topic.
META_WORDS = {"survey", "surveys", "review", "reviews", "overview", "comprehensive", "systematic", "study",
              "studies", "analysis", "approaches", "approach", "methods", "method", "paper", "papers", "work",
              "works", "general", "various", "topics", "issues", "part"}


def is_name(word: str) -> bool:
    """'GraphRAG', 'LLaMA', 'RAG', 'GPT-4': a word that names one thing (inner capitals, capitals
    only, digits); 'Context', 'Long-Context' and 'Optimization' are common words."""
    parts = [p for p in word.split("-") if p]
    return any(any(ch.isdigit() for ch in p) or (len(p) > 1 and any(ch.isupper() for ch in p[1:])) for p in parts)


def content_words(text: str) -> set[str]:
    """Lower-cased words of a heading that carry meaning (no stop words, no 1-2 letter tokens)."""
    return {w for w in normalize_title(text).split() if len(w) > 2 and w not in TRAILING_STOPWORDS}


def truncation_reasons(title: str, *, cap: int | None = None) -> list[str]:
    """Why ``title`` looks cut short: at the output cap, mid-word, on a stop word, unbalanced."""
    reasons = []
    words = _words(title)
    stripped = title.rstrip()
    if cap is not None and len(stripped) >= cap:
        reasons.append(f"heading reaches the {cap}-character output cap (likely cut)")
    if words:
        last = words[-1]
        if last.lower() in TRAILING_STOPWORDS:
            reasons.append(f"heading ends on the stop word '{last}' (cut short)")
        elif len(last) == 1 and last.isalpha() and last.lower() not in _SINGLE_LETTER_OK:
            reasons.append(f"heading ends on the single letter '{last}' (cut mid-word)")
    if len(words) >= 2 and re.fullmatch(r"[A-Z]{2,}s?", words[-1]) and words[-2][:1].upper() == words[-1][0] \
            and words[-2][1:].islower():
        # "... in the Era of Large LLM": the acronym restates the word before it, the trace of a
        # cut "Large Language Models" that a model closed with the acronym.
        reasons.append(f"heading ends on '{words[-2]} {words[-1]}' (a cut phrase closed by its acronym)")
    if stripped.endswith(("-", ",", ";", ":", "&", "/", "(")):
        reasons.append("heading ends on a dangling punctuation mark")
    if not _balanced(title):
        reasons.append("unbalanced parentheses or quotes")
    return reasons


def validate_heading(title: str, *, topic: str, taken: set[str], cap: int | None = None,
                     copied_titles: set[str] | frozenset = frozenset()) -> list[str]:
    """Reasons why a model-written heading cannot be used (empty list = valid).

    ``taken``: normalised headings already in the outline (duplicates are rejected; the caller adds
    accepted headings). ``cap``: the output length cap the heading was generated under, if any.
    ``copied_titles``: normalised titles of papers shown in the prompt (a heading that is a
    paper's title was copied, not written).
    """
    text = " ".join(str(title or "").split())
    key = normalize_title(text)
    reasons: list[str] = []
    if len(re.findall(r"[A-Za-z]", text)) < 3:
        return ["empty or no letters"]
    if _ECHO_HEADING.search(text):
        reasons.append("instruction echo or prompt leakage")
    if "?" in text or "!" in text:
        reasons.append("a question or exclamation, not a heading")
    if _DEBRIS.search(text):
        reasons.append("markup, JSON or ellipsis debris")
    if re.match(r"^\s*(?:\d+(?:\.\d+)*\.?|[IVX]+\.)\s", text):
        reasons.append("numbered (the outline numbers headings itself)")
    if len(_words(text)) > 14:
        reasons.append("too long for a heading (more than 14 words)")
    if content_words(text) and content_words(text) <= META_WORDS:
        reasons.append("names no concept (only words such as survey, comprehensive, overview)")
    reasons += truncation_reasons(text, cap=cap)
    if key in FRAME_HEADINGS:
        reasons.append("a frame heading (added by the pipeline)")
    # The topic with nothing but an acronym added ("... Models (RAG)") still repeats it; a heading
    # that adds a real word ("Applications of <topic>") is how human surveys name parts.
    bare = normalize_title(re.sub(r"\(\s*[A-Za-z0-9-]{1,8}\s*\)", " ", text))
    if normalize_title(topic) and (bare == normalize_title(topic) or content_words(bare) == content_words(topic)):
        reasons.append("repeats the topic verbatim")
    # the same words up to a plural ("Knowledge Graph" / "Knowledge Graphs") are the same heading, and
    # so are two that differ only by the topic's own words ("Multimodal" / "Multimodal <topic>")
    own = own_stems(text, topic)
    if key in taken or any(content_words(text) and (content_stems(text) == content_stems(t) or
                                                     (own and own == content_stems(t) - content_stems(topic)))
                           for t in taken if t):
        reasons.append("duplicate of another heading")
    if key in copied_titles:
        reasons.append("copies a paper title from the prompt")
    letters = sum(ch.isalpha() for ch in text)
    if letters < 0.6 * len(text.replace(" ", "")):
        reasons.append("mostly digits or symbols")
    return reasons
