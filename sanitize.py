"""The one sanitizer for untrusted text: paper titles and abstracts, outlines, model output.

Untrusted text is data. Before it goes into a prompt or a survey file it becomes plain prose:

- Unicode NFKC, control / zero-width / bidi / private-use characters removed;
- HTML entities decoded (repeatedly: ``&amp;lt;script&amp;gt;``) and then every tag, comment and
  ``<script>``/``<style>`` body removed, look-alike angle brackets (‹ › ＜ ＞ 〈 〉 ⟨ ⟩ ...) included;
  the angle brackets that remain (``x < 5``) become words, so no tag and no prompt delimiter such
  as ``<<DATA-...>>`` can be typed from inside the text;
- Markdown images, links, headings, quotes and code fences reduced to their text;
- the source's own bracketed citation numbers ("[2]", "[1, 3]", "[4-6]") and our internal marker
  syntax ("[@id]") removed, and every other square bracket turned into a parenthesis, so the
  writer's citation regex can never match anything that came from the source;
- whitespace collapsed (paragraph breaks optionally kept), optional truncation at a word boundary.

``looks_like_injection`` flags sentences addressed to a model or reader ("ignore previous
instructions", "you are now ...", "print PWNED", "assistant:") so callers can drop them.

This module imports nothing from the package: every layer (agents, prompts, exporter, CLI) may use it.
"""

from __future__ import annotations

import html
import re
import unicodedata

__all__ = ["untrusted", "untrusted_paragraphs", "looks_like_injection", "without_injections",
           "markdown_safe", "markdown_inert", "LOOKALIKE_ANGLES"]

# Characters drawn like < or > that NFKC leaves alone (NFKC already folds ＜ ＞ ﹤ ﹥ and U+2329/232A).
LOOKALIKE_ANGLES = {
    **dict.fromkeys("‹〈⟨《❮❰⧼˂ᐸ⦉⦑⟪〈《⋖", "<"),
    **dict.fromkeys("›〉⟩》❯❱⧽˃ᐳ⦊⦒⟫〉》⋗", ">"),
}
# Square-bracket look-alikes that NFKC leaves alone (NFKC folds ［ ］).
LOOKALIKE_SQUARES = {**dict.fromkeys("【〔〖〘〚⟦⁅", "["), **dict.fromkeys("】〕〗〙〛⟧⁆", "]")}
_TRANSLATE = str.maketrans({**LOOKALIKE_ANGLES, **LOOKALIKE_SQUARES})

_DROP_CATEGORIES = {"Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"}  # control, format (zero-width, bidi), private, unassigned
_SPACE_CATEGORIES = {"Cc", "Zl", "Zp"}  # dropped characters that separated words: a space in their place
# A script or style element with its body (an unclosed one runs to the end, as in a browser).
_SCRIPT_BLOCK = re.compile(r"<\s*(script|style)\b.*?(?:<\s*/\s*\1\s*>|$)", re.I | re.S)
_DELIMITER = re.compile(r"<<[^<>]*>>")  # prompt delimiters (<<DATA-...>>) echoed or typed
_COMMENT = re.compile(r"<!--.*?(?:-->|$)", re.S)
# A tag: "<" + optional "/" + a letter, "!" or "?" ... up to ">" or, for a tag left open, the end.
_TAG = re.compile(r"<\s*/?\s*(?:[A-Za-z][\w:-]*(?:\s[^<>]*)?/?|[!?][^<>]*)>")
# A tag left open at the end of the text ("<img src=x onerror=alert(1)"): it has an attribute or is
# a known element; "x<y and z" is not one.
_OPEN_TAG = re.compile(r"<\s*/?\s*(?:[A-Za-z][\w:-]*\s[^<>]*=[^<>]*|(?:script|style|img|iframe|svg|a|object|"
                       r"embed|link|meta|body|html|form|input|paper|draft|outline|data)\b[^<>]*)$", re.I)
_MD_TARGET = r"(?:\((?:[^()]|\([^()]*\))*\)|\[[^\[\]]*\])"  # (url), (url(with)parens) or [ref]
_MD_LABEL = r"\[((?:[^\[\]]|\[[^\[\]]*\])*)\]"  # [label], also with one level inside: [x [1]]
# No space between "]" and the target (a Markdown renderer needs none and allows none), and a
# bracketed number list is a citation, never a link label: "[1] [2]" and "[3] (2020)" stay text.
_CITATION_LABEL = r"(?!\[\s*\d[\d,;\s\-–]*\](?!\())"
_MD_IMAGE = re.compile(r"!" + _MD_LABEL + _MD_TARGET)
_MD_LINK = re.compile(_CITATION_LABEL + _MD_LABEL + _MD_TARGET)
_MD_FOOTNOTE = re.compile(r"\[\^[^\[\]]*\]")
_MD_LINE_START = re.compile(r"^[ \t]*(?:#{1,6}[ \t]*|>[ \t]*|[-*_=]{3,}[ \t]*$)", re.M)
_CODE_FENCE = re.compile(r"`{3,}|~{3,}")
_PAPER_MARKER = re.compile(r"\[\s*@[^\[\]]*\]")
_NUMERIC_BRACKET = re.compile(r"\[([\s\d.,;:\-–—−]*\d[\s\d.,;:\-–—−]*)\]")
_SPACES = re.compile(r"[ \t\r\f\v\u00a0]+")


def plain_text(text: str) -> str:
    """Text as stored at the boundary: no control characters (tab and newline kept), no bidi
    overrides, zero-width or other format characters. Nothing else changes: escaping is each
    exporter's job."""
    return _strip_invisible(text)


def _strip_invisible(text: str) -> str:
    # U+2028 / U+2029 (line and paragraph separators) become spaces: readers that split lines on
    # them (Python's str.splitlines, many editors) would otherwise see a title break into a new
    # line of survey.md, e.g. a fake "# heading".
    return "".join(ch if ch in "\n\t" or unicodedata.category(ch) not in _DROP_CATEGORIES else
                   (" " if unicodedata.category(ch) in _SPACE_CATEGORIES else "") for ch in text)


def _decode(text: str) -> str:
    """NFKC + entity decoding until stable (double-encoded entities included) + look-alikes folded."""
    for _ in range(4):
        before = text
        text = unicodedata.normalize("NFKC", html.unescape(text)).translate(_TRANSLATE)
        if text == before:
            break
    return _strip_invisible(text)


def _numeric_bracket(match: re.Match) -> str:
    """The source's citation numbers go; other numeric brackets (intervals like [0, 1]) stay as (0, 1)."""
    numbers = re.findall(r"[-–—−]?\d+(?:\.\d+)?", match.group(1))
    is_citation = all(n.isdigit() and int(n) >= 1 for n in numbers) or re.fullmatch(
        r"\s*\d+\s*[-–—−]\s*\d+\s*", match.group(1)) is not None
    return " " if is_citation else f"({match.group(1).strip()})"


_DOLLAR_SPAN = re.compile(r"(?<![\\$])\$[^$\n]{1,120}\$")


def _numeric_brackets(text: str) -> str:
    """``_numeric_bracket`` outside ``$...$``; inside one a bracket is mathematics ("$[23, 4, 14]$",
    a code's parameters in a corpus title), kept as "(23, 4, 14)", never a citation of ours."""
    spans = [m.span() for m in _DOLLAR_SPAN.finditer(text)] if "$" in text else []

    def replace(match: re.Match) -> str:
        if any(start < match.start() and match.end() < end for start, end in spans):
            return f"({match.group(1).strip()})"
        return _numeric_bracket(match)

    return _NUMERIC_BRACKET.sub(replace, text)


def _markup_free(text: str) -> str:
    text = text.replace("<=", "≤").replace(">=", "≥")  # comparisons first: "x >= 2" closes no tag
    for _ in range(4):  # removing one construct can form another ("[<b></b>2]" -> "[2]")
        before = text
        text = _DELIMITER.sub(" ", _SCRIPT_BLOCK.sub(" ", text))
        text = _COMMENT.sub(" ", text)
        text = _OPEN_TAG.sub(" ", _TAG.sub(" ", text))
        text = _MD_IMAGE.sub(r"\1", text)
        text = _MD_LINK.sub(r"\1", text)
        text = _MD_FOOTNOTE.sub(" ", text)
        text = _PAPER_MARKER.sub(" ", text)
        text = _numeric_brackets(text)
        text = re.sub(r"\[\s*\]", " ", text)
        if text == before:
            break
    text = _CODE_FENCE.sub(" ", text)
    text = _angles_as_words(_MD_LINE_START.sub("", text))
    return text.replace("[", "(").replace("]", ")")


def _angles_as_words(text: str) -> str:
    """What is left of < and > is arithmetic or noise: words, so nothing can open a tag or a delimiter."""
    text = text.replace("<=", "≤").replace(">=", "≥").replace("->", "→").replace("<-", "←")
    return re.sub(r">+", " greater than ", re.sub(r"<+", " less than ", text))


def _tidy(text: str) -> str:
    text = _SPACES.sub(" ", text)
    text = re.sub(r" +([.,;:!?)])", r"\1", text)
    text = re.sub(r"\( +", "(", text)
    return text.strip()


def _truncate(text: str, limit: int | None) -> str:
    if limit is None or len(text) <= limit:
        return text
    cut = text[: max(0, limit)].rsplit(" ", 1)[0].rstrip(" ,;:")
    return (cut + " ...") if cut else ""


def untrusted(text: str | None, limit: int | None = None) -> str:
    """Untrusted text as one line of plain, safe prose (see the module docstring), at most
    ``limit`` characters (cut at a word boundary, " ..." appended)."""
    if not text:
        return ""
    value = _tidy(_markup_free(_decode(str(text))).replace("\n", " ").replace("\t", " "))
    return _truncate(value, limit)


def untrusted_paragraphs(text: str | None, limit: int | None = None) -> str:
    """Like ``untrusted`` but keeps paragraph breaks (blank lines) of model-written prose."""
    if not text:
        return ""
    paragraphs = re.split(r"\n\s*\n", _markup_free(_decode(str(text))))
    value = "\n\n".join(p for p in (_tidy(p.replace("\n", " ").replace("\t", " ")) for p in paragraphs) if p)
    return _truncate(value, limit)


def markdown_safe(text: str | None) -> str:
    """Text written by our own pipeline (numbered citation markers already placed) made safe for
    Markdown: no HTML, no images/links, no headings or fences inside a paragraph. Unlike
    ``untrusted`` it keeps square-bracket citation markers, which by now are ours."""
    if not text:
        return ""
    value = _decode(str(text)).replace("<=", "≤").replace(">=", "≥")
    for _ in range(4):
        before = value
        value = _DELIMITER.sub(" ", _SCRIPT_BLOCK.sub(" ", value))
        value = _COMMENT.sub(" ", value)
        value = _OPEN_TAG.sub(" ", _TAG.sub(" ", value))
        value = _MD_IMAGE.sub(r"\1", value)
        value = _MD_LINK.sub(r"\1", value)
        if value == before:
            break
    value = _CODE_FENCE.sub(" ", value)
    value = _angles_as_words(_MD_LINE_START.sub("", value))
    paragraphs = re.split(r"\n\s*\n", value)
    return "\n\n".join(p for p in (_no_link_definition(_tidy(p.replace("\n", " "))) for p in paragraphs) if p)


# "[1]: //evil.example "Trusted source"" at the start of a block defines what every "[1]" in the
# document links to (CommonMark link reference definitions; "[^1]:" defines a GFM footnote). Our
# citation markers are such labels, so no block of model text may start one: the colon goes.
_LINK_DEFINITION = re.compile(r"^(\s{0,3}\[(?:[^\[\]\\]|\\.)+\])[ \t]*:")


def _no_link_definition(paragraph: str) -> str:
    return _LINK_DEFINITION.sub(r"\1", paragraph)


_MD_SPECIAL = re.compile(r"\\(?=[!-/:-@\[-`{-~])|[*`~]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")


def markdown_inert(text: str) -> str:
    """Sanitized text as it is written into survey.md: emphasis, code and strikethrough characters
    backslash-escaped (``*``, `````, ``~``; ``_`` unless inside a word, where CommonMark gives it no
    meaning), so "*b^2$ c*" from a title or "**bold**" from a model shows as typed, never as
    formatting. Citation markers and our own figure lines are left alone by the callers."""
    return _MD_SPECIAL.sub(lambda m: "\\" + m.group(0), text or "")


def markdown_cell(text: str | None) -> str:
    """A name from outside (a system folder, a topic file stem) shown as literal text in a Markdown
    table cell: no HTML, link, emphasis or code, and no "|" or line break to split the table.
    Angle brackets become entities and Markdown punctuation is backslash-escaped, so the reader sees
    the name exactly as it is spelled."""
    value = " ".join(plain_text(str(text or "")).split())
    value = value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return re.sub(r"([\\`*_\[\]{}()#+!|~])", r"\\\1", value)


def spreadsheet_cell(text: str | None) -> str:
    """A name from outside written to CSV: a leading =, +, - or @ would make a spreadsheet run it as
    a formula, so such a cell starts with an apostrophe (the usual CSV-injection guard)."""
    value = str(text or "")
    return "'" + value if value[:1] in ("=", "+", "-", "@", "\t", "\r") else value


# --- prompt injection ---------------------------------------------------------------------------

_INJECTION_PATTERNS = [
    # "ignore all previous instructions", "disregard the above", "forget your rules"
    r"\b(?:ignore|disregard|forget|override|bypass)\s+(?:(?:all|any|the|your|my|these|those|of)\s+)*"
    r"(?:previous|prior|above|earlier|preceding|former|foregoing|original|initial|system|given)\s+(?:\w+\s+)?"
    r"(?:instructions?|prompts?|directions?|directives?|rules|guidelines|commands?|messages?)\b",
    r"\b(?:ignore|disregard|forget|override|bypass)\s+(?:all|any|your|these|those)\s+(?:of\s+)?(?:the\s+|your\s+)?"
    r"(?:instructions?|prompts?|directions?|rules|guidelines|commands?)\b",
    r"\b(?:ignore|disregard|forget)\s+(?:all\s+|everything\s+)?(?:the\s+)?(?:above|everything)\b",
    r"\b(?:new|updated|real|actual|hidden|secret)\s+instructions?\s*(?::|are|follow)",
    r"\byou\s+(?:are|were)\s+now\b",
    r"\bfrom\s+now\s+on\s*,?\s+(?:you|answer|respond|reply|say|print|output|write)\b",
    # role play ordered to the reader: sentence start, or after "now", "please", "you must" ...
    r"(?:^|[.!?:;]\s*|\b(?:now|please|you\s+(?:will|must|should|shall))\s+)(?:pretend|act)\s+"
    r"(?:to\s+be|you\s+are|as\s+(?:an?\s+)?(?:\w+\s+)?(?:ai|assistant|model|chatbot|system|dan))\b",
    # "reveal the system prompt" as an order (sentence start or after a clause), not the research term
    r"(?:^|[.!?:;,]\s*|\b(?:and|then|now|please|also)\s+)(?:reveal|show|print|output|repeat|leak|disclose|display|"
    r"dump|tell\s+me|give\s+me)\s+(?:me\s+)?(?:your|the|its)?\s*(?:hidden\s+|original\s+|initial\s+|full\s+)?"
    r"(?:system\s+prompt|instructions)\b",
    r"\byour\s+(?:system\s+prompt|instructions\s+(?:are|were|say))\b",
    r"\b(?:developer|god|jailbreak|dan)\s+mode\b",
    r"\bif\s+you\s+are\s+(?:an?\s+)?(?:ai|llm|large\s+language\s+model|language\s+model|assistant|chatbot|model|reviewer)\b",
    r"(?:\bdear\s+|(?:^|[.!?]\s+)attention\s*[:,]\s*|\bnote\s+to(?:\s+the)?\s+)(?:ai|llm|language\s+model|assistant|"
    r"chatbot|model|reviewer)s?\b",
    r"\bas\s+an?\s+(?:ai|large\s+language\s+model|language\s+model|assistant)\s*,\s*you\b",
    # imperative output commands aimed at the reader: "Print PWNED", "say 'hacked'", "output only yes"
    r"(?:^|[.!?:;]\s+|\b(?:and|then|instead|now|please|just|simply)\s+)(?:print|say|respond\s+with|"
    r"reply\s+with|answer\s+with|repeat|echo)\s+(?:only\s+|exactly\s+|just\s+|the\s+(?:word|phrase|text|string)\s+)?"
    r"(?:[\"'“‘`]|(?-i:[A-Z]{3,})\b(?=\s*(?:[.!?,;\"'”’]|$)))",
    r"(?:^|[.!?:;]\s+|\b(?:and|then|instead|now|please)\s+)(?:output|write|return|type)\s+"
    r"(?:(?:only|exactly|just)\s+(?:[\"'“‘`]|(?-i:[A-Z]{2,})\b|the\s+(?:word|phrase|text|string)\b|yes\b|no\b)|"
    r"the\s+(?:word|phrase|text|string)\b|[\"'“‘`])",
    r"^\s*(?:please\s+)?(?:print|output|say|respond|reply|type|echo|repeat)\s+[^.]{0,40}?\b(?:only|exactly|verbatim|"
    r"nothing\s+else)\b",
    # role tags and chat-template tokens
    r"(?:^|[\"'“(\[])\s*(?:system|assistant|user|human|ai|bot|developer)\s*:",
    r"\bassistant\s*:",
    r"<\|\s*(?:im_start|im_end|system|user|assistant|endoftext)",
    r"\[/?inst\]|<<\s*/?sys\s*>>|###\s*(?:instruction|system|response)\b",
]
_INJECTION = re.compile("|".join(f"(?:{p})" for p in _INJECTION_PATTERNS), re.I | re.M)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def looks_like_injection(sentence: str) -> bool:
    """True for a sentence addressed to a model or reader rather than describing research."""
    if not sentence:
        return False
    text = _strip_invisible(unicodedata.normalize("NFKC", html.unescape(sentence)).translate(_TRANSLATE))
    text = " ".join(text.split())
    return _INJECTION.search(text) is not None


def without_injections(text: str) -> tuple[str, int]:
    """``text`` without its injection-like sentences; returns the text and how many were dropped."""
    kept, dropped = [], 0
    for sentence in _SENTENCE_END.split(text or ""):
        if looks_like_injection(sentence):
            dropped += 1
        elif sentence.strip():
            kept.append(sentence.strip())
    return " ".join(kept), dropped


# --- secrets --------------------------------------------------------------------------------------

REDACTED = "***"
# Keys whose values are secrets wherever they appear (settings dumps, journals, records).
_SECRET_KEY = re.compile(r"(?:^|_)(?:api_?key|apikey|password|passwd|secret|token|auth|authorization|credentials?)$", re.I)
_URL_USERINFO = re.compile(r"(?P<scheme>[a-z][a-z0-9+.-]*://)(?P<user>[^/@:\s]*)(?::(?P<pw>[^/@\s]*))?@", re.I)
_URL_SECRET_PARAM = re.compile(r"(?P<k>[?&;](?:api[_-]?key|key|token|access_token|password|secret|sig|signature)=)[^&#\s]+", re.I)
_KEY_SHAPES = re.compile(
    r"\b(?:sk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}|hf_[A-Za-z0-9]{20,}|gh[pousr]_[A-Za-z0-9]{20,}|"
    r"AKIA[0-9A-Z]{16}|xox[abpr]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{30,})\b")
_BEARER = re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}")


def redact_text(text: str) -> str:
    """A string with credentials masked: URL passwords (and user names that carry one), secret
    query parameters, bearer tokens and API keys of the usual shapes."""
    def userinfo(match: re.Match) -> str:
        if match.group("pw") is None:  # "user@host" alone may itself be a token (https://TOKEN@host)
            return f"{match.group('scheme')}{REDACTED}@" if len(match.group("user")) >= 20 else match.group(0)
        return f"{match.group('scheme')}{match.group('user')}:{REDACTED}@"

    text = _URL_USERINFO.sub(userinfo, text)
    text = _URL_SECRET_PARAM.sub(lambda m: m.group("k") + REDACTED, text)
    text = _BEARER.sub(lambda m: f"{m.group(1)} {REDACTED}", text)
    return _KEY_SHAPES.sub(REDACTED, text)


def redact(value):
    """A copy of a JSON-like value with every secret masked: values under secret-named keys
    (``api_key``, ``password``, ``*_token`` ...; not ``max_tokens``) and secrets inside strings
    (``redact_text``). Every writer of run.json, manifest.json and llm_calls.jsonl uses this."""
    if isinstance(value, dict):
        return {k: (REDACTED if isinstance(k, str) and _SECRET_KEY.search(k) and v not in (None, "")
                    and not isinstance(v, (bool, int, float, dict, list)) else redact(v))
                for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact(v) for v in value]
    if isinstance(value, str):
        return redact_text(value)
    return value


def is_redacted(value) -> bool:
    return isinstance(value, str) and REDACTED in value


# --- input limits ---------------------------------------------------------------------------------

# A topic is a survey title ("Retrieval-Augmented Generation for LLMs"): the longest of the 20
# human survey titles is ~120 characters; 300 leaves room while refusing a pasted abstract.
MAX_TOPIC_CHARS = 300
MIN_TOPIC_LETTERS = 2


def check_topic(topic: str | None) -> str:
    """The topic as used by the run (sanitized, one line), or UserError saying what is wrong."""
    from .errors import UserError  # errors.py imports nothing: no cycle

    raw = (topic or "").strip()
    if not raw:
        raise UserError("the topic is empty: give a survey topic such as \"Graph Neural Networks\"")
    if len(raw) > MAX_TOPIC_CHARS:
        raise UserError(f"the topic is {len(raw):,} characters long (at most {MAX_TOPIC_CHARS}): give a short "
                        "survey title, not a pasted text")
    clean = untrusted(raw)
    if sum(ch.isalpha() for ch in clean) < MIN_TOPIC_LETTERS:
        shown = raw if len(raw) <= 40 else raw[:40] + "..."
        raise UserError(f"the topic {shown!r} has no words to search for: give a survey topic such as "
                        "\"Graph Neural Networks\"")
    return clean
