"""Markdown-ish survey text to LaTeX that compiles with pdflatex, lualatex and xelatex alike.

Everything we write is plain ASCII: Greek letters and math symbols become ``\\ensuremath{...}``
(math fonts have them in every engine), accented letters become accent commands, typographic
punctuation becomes TeX ligatures, and anything else falls back to its ASCII decomposition. So a
title with "Δ", "μ" or "≤" (about 0.2% of corpus papers, one survey in ten) cannot break a build,
whatever engine the reader has. ``$...$`` spans that look like real math and use only known
commands stay math; every other TeX special character is escaped.
"""

from __future__ import annotations

import re
import unicodedata

GREEK = {
    "α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "epsilon", "ϵ": "epsilon", "ζ": "zeta",
    "η": "eta", "θ": "theta", "ϑ": "vartheta", "ι": "iota", "κ": "kappa", "λ": "lambda", "μ": "mu", "µ": "mu",
    "ν": "nu", "ξ": "xi", "π": "pi", "ρ": "rho", "σ": "sigma", "ς": "varsigma", "τ": "tau", "υ": "upsilon",
    "φ": "phi", "ϕ": "phi", "χ": "chi", "ψ": "psi", "ω": "omega", "Γ": "Gamma", "Δ": "Delta", "Θ": "Theta",
    "Λ": "Lambda", "Ξ": "Xi", "Π": "Pi", "Σ": "Sigma", "Υ": "Upsilon", "Φ": "Phi", "Ψ": "Psi", "Ω": "Omega",
}
# Capital Greek letters that look like Latin ones have no TeX command.
GREEK_LATIN = {"Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N",
               "Ο": "O", "Ρ": "P", "Τ": "T", "Χ": "X", "ο": "o"}
MATH_SYMBOLS = {
    "≤": r"\leq", "≥": r"\geq", "≠": r"\neq", "≈": r"\approx", "≃": r"\simeq", "≡": r"\equiv", "∼": r"\sim",
    "×": r"\times", "÷": r"\div", "±": r"\pm", "∓": r"\mp", "·": r"\cdot", "∘": r"\circ", "∗": r"\ast",
    "→": r"\rightarrow", "←": r"\leftarrow", "↔": r"\leftrightarrow", "⇒": r"\Rightarrow", "⇐": r"\Leftarrow",
    "⇔": r"\Leftrightarrow", "↑": r"\uparrow", "↓": r"\downarrow", "↦": r"\mapsto", "∞": r"\infty",
    "∑": r"\sum", "∏": r"\prod", "∫": r"\int", "∂": r"\partial", "∇": r"\nabla", "√": r"\surd", "∈": r"\in",
    "∉": r"\notin", "⊂": r"\subset", "⊆": r"\subseteq", "⊃": r"\supset", "∪": r"\cup", "∩": r"\cap",
    "∀": r"\forall", "∃": r"\exists", "∅": r"\emptyset", "¬": r"\neg", "∧": r"\wedge", "∨": r"\vee",
    "⊕": r"\oplus", "⊗": r"\otimes", "⊥": r"\perp", "∝": r"\propto", "′": r"\prime", "ℓ": r"\ell",
    "ℝ": r"\mathbb{R}", "ℕ": r"\mathbb{N}", "ℤ": r"\mathbb{Z}", "ℂ": r"\mathbb{C}", "°": r"^\circ",
    "²": r"^{2}", "³": r"^{3}", "¹": r"^{1}", "⁻": r"^{-}", "₀": r"_{0}", "₁": r"_{1}", "₂": r"_{2}",
    "‖": r"\|", "⟨": r"\langle", "⟩": r"\rangle", "…": r"\ldots", "⋯": r"\cdots",
}
TEXT_SYMBOLS = {
    "\u2018": "`", "\u2019": "'", "\u201c": "``", "\u201d": "''", "\u201e": ",,", "\u2013": "--", "\u2014": "---",
    "\u2212": "-", "\u00a0": "~", "\u2009": r"\,", "\u202f": r"\,", "\u00ab": "<<", "\u00bb": ">>",
    "ß": r"\ss{}", "æ": r"\ae{}", "Æ": r"\AE{}", "œ": r"\oe{}", "Œ": r"\OE{}", "ø": r"\o{}", "Ø": r"\O{}",
    "ł": r"\l{}", "Ł": r"\L{}", "å": r"\aa{}", "Å": r"\AA{}", "ı": r"\i{}", "§": r"\S{}", "¶": r"\P{}",
    "©": r"\copyright{}", "®": r"\textregistered{}", "™": r"\texttrademark{}", "†": r"\dag{}", "‡": r"\ddag{}",
    "•": r"\textbullet{}", "€": "EUR", "£": r"\pounds{}", "¿": "?`", "¡": "!`",
}
# Combining accents (after NFD) -> LaTeX accent commands.
ACCENTS = {
    "\u0301": "'", "\u0300": "`", "\u0302": "^", "\u0303": "~", "\u0308": '"', "\u0327": "c", "\u030c": "v",
    "\u030a": "r", "\u0304": "=", "\u0306": "u", "\u0307": ".", "\u030b": "H", "\u0328": "k",
}
TEX_SPECIALS = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}"}

# Commands allowed inside a $...$ span we keep as math: defined by amsmath/amssymb, no arguments
# that could smuggle text-mode material. A span using anything else is escaped as text.
MATH_COMMANDS = set(GREEK.values()) | {
    "varepsilon", "varphi", "varrho", "mathcal", "mathbb", "mathrm", "mathbf", "mathit", "mathsf", "mathtt",
    "boldsymbol", "text", "textrm", "operatorname", "log", "ln", "exp", "sin", "cos", "tan", "max", "min",
    "arg", "sup", "inf", "lim", "det", "sqrt", "frac", "tfrac", "dfrac", "binom", "le", "leq", "ge", "geq",
    "neq", "ne", "approx", "sim", "simeq", "equiv", "times", "cdot", "cdots", "ldots", "dots", "pm", "mp",
    "infty", "sum", "prod", "int", "partial", "nabla", "in", "notin", "subset", "subseteq", "cup", "cap",
    "to", "rightarrow", "leftarrow", "Rightarrow", "mapsto", "ell", "hat", "tilde", "bar", "vec", "dot",
    "ddot", "widehat", "widetilde", "overline", "underline", "left", "right", "big", "Big", "lVert", "rVert",
    "lvert", "rvert", "langle", "rangle", "lceil", "rceil", "lfloor", "rfloor", "star", "ast", "circ",
    "prime", "forall", "exists", "emptyset", "mid", "vert", "Vert", "top", "perp", "propto", "oplus",
    "otimes", "quad", "qquad", "colon", "cdotp", "ll", "gg", "ell", "hbar", "imath", "jmath", "wp", "Re", "Im",
}
_MATH_SPAN = re.compile(r"(?<![\\$])\$([^$\n]{1,120})\$(?!\$)")
_MATH_CHARS = re.compile(r"^[A-Za-z0-9\s\\^_{}()\[\]+\-=<>,.;:|/!'*]+$")


def _char_to_tex(ch: str, in_math: bool = False) -> str:
    if ch in GREEK:
        return f"\\{GREEK[ch]} " if in_math else f"\\ensuremath{{\\{GREEK[ch]}}}"
    if ch in GREEK_LATIN:
        return GREEK_LATIN[ch]
    if ch in MATH_SYMBOLS:
        return MATH_SYMBOLS[ch] + " " if in_math else f"\\ensuremath{{{MATH_SYMBOLS[ch]}}}"
    if ch in TEXT_SYMBOLS:
        return TEXT_SYMBOLS[ch]
    decomposed = unicodedata.normalize("NFD", ch)
    base, marks = decomposed[0], decomposed[1:]
    if base.isascii() and marks and all(m in ACCENTS for m in marks):
        out = "\\i" if base == "i" else base
        for mark in marks:
            out = f"\\{ACCENTS[mark]}{{{out}}}"
        return out
    ascii_form = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode("ascii")
    if ascii_form.strip():
        return tex_escape_ascii(ascii_form)
    return "?" if unicodedata.category(ch)[0] in "LNS" else " "


def tex_escape_ascii(text: str) -> str:
    return "".join(TEX_SPECIALS.get(ch, ch) for ch in text)


def tex_escape(text: str) -> str:
    """Plain text -> ASCII LaTeX: specials escaped, every non-ASCII character mapped."""
    return "".join(TEX_SPECIALS.get(ch, ch) if ch.isascii() else _char_to_tex(ch) for ch in text)


def _is_math(span: str) -> bool:
    """A ``$...$`` span that is real math: math-looking content, known commands, balanced braces."""
    ascii_span = "".join(ch if ch.isascii() else _char_to_tex(ch, in_math=True) for ch in span)
    # "^^5c" is TeX's character-code notation (a backslash): "$^^5cinput{/etc/passwd}$" would run
    # \input. No real formula needs it, so such a span is text, escaped.
    if "^^" in ascii_span:
        return False
    if not _MATH_CHARS.match(ascii_span) or ascii_span.count("{") != ascii_span.count("}"):
        return False
    depth = 0
    for ch in ascii_span:
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth < 0:
            return False
    if any(cmd not in MATH_COMMANDS for cmd in re.findall(r"\\([A-Za-z]+)", ascii_span)):
        return False
    if re.search(r"\\[^A-Za-z,;!| ]|\\$", ascii_span):
        return False
    # "$5 and $10" is prose: math has an operator, a command or is a single token.
    if not (re.search(r"[\\^_=<>{}]", ascii_span) or " " not in span.strip()):
        return False
    return math_compiles(ascii_span)


# Commands of MATH_COMMANDS that take arguments, and how many; TEXT_ARGUMENT's is read in text
# mode, where "_" or "^" stops TeX with "Missing $ inserted" ("$\text{subset_A}$", a corpus title).
ARGUMENTS = {"frac": 2, "tfrac": 2, "dfrac": 2, "binom": 2, "sqrt": 1, "mathcal": 1, "mathbb": 1, "mathrm": 1,
             "mathbf": 1, "mathit": 1, "mathsf": 1, "mathtt": 1, "boldsymbol": 1, "operatorname": 1, "hat": 1,
             "tilde": 1, "bar": 1, "vec": 1, "dot": 1, "ddot": 1, "widehat": 1, "widetilde": 1, "overline": 1,
             "underline": 1, "text": 1, "textrm": 1}
TEXT_ARGUMENT = {"text", "textrm"}
DELIMITED = {"left", "right", "big", "Big"}  # each needs a delimiter after it
_DELIMITER_CHARS = set("()[]|./<>")
_DELIMITER_COMMANDS = {"langle", "rangle", "lceil", "rceil", "lfloor", "rfloor", "vert", "Vert", "lvert", "rvert",
                       "lVert", "rVert", "|"}
_MATH_TOKEN = re.compile(r"\\[A-Za-z]+|\\.|\s+|.", re.S)


class _Malformed(Exception):
    pass


def math_compiles(span: str) -> bool:
    """True when a ``$...$`` body (ASCII, known commands, balanced braces) is also well formed as
    TeX reads it: not empty; every command has its arguments ("$\\frac$" has none); no second
    superscript or subscript on one atom ("$x^1^2$", "$x^2'$"); ``\\left`` / ``\\right`` paired in
    one group ("$\\left( x$"); text-mode arguments without math characters. Anything else is
    escaped as text (tex_inline), so that no title can stop a PDF build."""
    tokens = [t for t in _MATH_TOKEN.findall(span) if not t.isspace()]
    if not tokens:
        return False  # "$ $" would be written "$$", display math that never closes
    try:
        end = _math_group(tokens, 0, closing=False)
    except (_Malformed, IndexError):
        return False
    return end == len(tokens)


def _math_group(tokens: list[str], i: int, *, closing: bool) -> int:
    """Read atoms up to the end (or the "}" closing this group); returns the index after it."""
    sup, sub, lefts = "", False, 0  # sup: "" | "prime" | "sup" for the current atom
    while i < len(tokens):
        token = tokens[i]
        if token == "}":
            if not closing or lefts:
                raise _Malformed
            return i + 1
        if token in ("^", "_"):
            if (token == "^" and sup == "sup") or (token == "_" and sub):
                raise _Malformed  # "Double superscript" / "Double subscript"
            sup, sub = ("sup", sub) if token == "^" else (sup, True)
            i = _math_argument(tokens, i + 1, script=True)
            continue
        if token == "'":
            if sup == "sup":
                raise _Malformed  # "$x^2'$": a prime after a superscript is a second one
            sup, i = "prime", i + 1
            continue
        sup, sub = "", False  # a new atom
        if token == "{":
            i = _math_group(tokens, i + 1, closing=True)
        elif token.startswith("\\") and token[1:] in DELIMITED:
            if token == "\\left":
                lefts += 1
            elif token == "\\right":
                lefts -= 1
                if lefts < 0:
                    raise _Malformed  # "Extra \\right"
            delimiter = tokens[i + 1]
            if delimiter not in _DELIMITER_CHARS and delimiter[1:] not in _DELIMITER_COMMANDS:
                raise _Malformed
            i += 2
        elif token.startswith("\\") and token[1:] in ARGUMENTS:
            i += 1
            if token == "\\operatorname" and tokens[i] == "*":
                i += 1
            if token == "\\sqrt" and tokens[i] == "[":
                i = _optional_argument(tokens, i + 1)
            for _ in range(ARGUMENTS[token[1:]]):
                i = _math_argument(tokens, i, text=token[1:] in TEXT_ARGUMENT)
        else:
            i += 1
    if closing or lefts:
        raise _Malformed  # a group or a \\left left open
    return i


def _math_argument(tokens: list[str], i: int, *, script: bool = False, text: bool = False) -> int:
    """One argument: a {group} or a single symbol (a command taking arguments is not one)."""
    token = tokens[i]
    if token == "{":
        if text:
            j = i + 1
            while tokens[j] != "}":
                if tokens[j] in ("{", "^", "_") or tokens[j].startswith("\\"):
                    raise _Malformed
                j += 1
            return j + 1
        return _math_group(tokens, i + 1, closing=True)
    if token in ("}", "^", "_", "'") or (token.startswith("\\") and token[1:] in ARGUMENTS.keys() | DELIMITED):
        raise _Malformed
    if text and token.startswith("\\"):
        raise _Malformed
    return i + 1


def _optional_argument(tokens: list[str], i: int) -> int:
    """``\\sqrt[n]``'s index, up to its "]" (math inside, no nested brackets)."""
    j = i
    while tokens[j] != "]":
        if tokens[j] in ("[", "{", "}"):
            raise _Malformed
        j += 1
    if j == i or not math_compiles(" ".join(tokens[i:j])):
        raise _Malformed
    return j + 1


def tex_inline(text: str) -> str:
    """Text that may hold ``$...$`` math: real math kept (made ASCII), everything else escaped."""
    out, pos = [], 0
    for match in _MATH_SPAN.finditer(text):
        span = match.group(1)
        if not _is_math(span):
            continue
        out.append(tex_escape(text[pos:match.start()]))
        out.append("$" + "".join(ch if ch.isascii() else _char_to_tex(ch, in_math=True) for ch in span).strip() + "$")
        pos = match.end()
    out.append(tex_escape(text[pos:]))
    return "".join(out)


def bib_value(tex: str) -> str:
    """LaTeX text as the value of a braced BibTeX field: BibTeX ends a field at the brace that
    balances its opening one and honours no escape, so "x\\}\\}, note = ..." would close the title
    and start a field of its own. Escaped braces become \\textbraceleft{} / \\textbraceright{}, and
    any brace still unbalanced (none is expected: math spans are balanced) is dropped."""
    text = tex.replace("\\{", "\\textbraceleft{}").replace("\\}", "\\textbraceright{}")
    out, depth = [], 0
    for ch in text:
        if ch == "{":
            depth += 1
        elif ch == "}":
            if depth == 0:
                continue
            depth -= 1
        out.append(ch)
    kept = "".join(out)
    while depth:  # drop the last unmatched "{" (scanning from the end)
        cut = kept.rfind("{")
        kept, depth = kept[:cut] + kept[cut + 1:], depth - 1
    return kept
