"""Which names the topic's literature uses as tools (models, methods, systems), not as evaluation data.

One abstract seldom says what a name is: "speedups on LongLive and Self Forcing", "outperforms
baselines on VideoPhy using CogVideoX" read alike to facets.py's patterns, and blind readers caught
the mistakes in our tables ("use CogVideoX as evaluation data", "use SUPO", "use SearchPlanner").
The literature around the topic does say it, many times over: "we fine-tune CogVideoX", "the
CogVideoX-5B backbone", "LongLive: real-time interactive long video generation" (a method paper's
own name) against "results on VBench", "the UCF-101 dataset". ``tool_names`` reads every mention of
every name in the pool's candidates (thousands of titles and abstracts near the topic) and returns
the names read as a tool more often than as data, and at least twice: those never count as a work's
evaluation data. A name the candidates mention too rarely to tell keeps its reading in its own
abstract (facets.py): evidence missing is not evidence of a tool.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from .facets import _BENCHMARK_TITLE, _LOWER_CAMEL, _NAME

MIN_TOOL_MENTIONS = 2  # one "we fine-tune X" is an accident of phrasing; two are a usage

# Right after a name: a model size ("-5B", " 7B"), "-based", or a noun that makes it a tool.
_TOOL_AFTER = re.compile(r"^(?:[\s-]?\d+(?:\.\d+)?B\b|-based\b|-style\b|\s+(?:framework|method|model|retriever|encoder|"
                         r"decoder|embeddings?|pipeline|agent|approach|architecture|backbone|algorithm|module|baseline|"
                         r"detector|tokenizer|policy|optimizer|variant|family|series|checkpoint|weights|generator|"
                         r"planner|solver|network|loss|objective|technique|paradigm)s?\b)", re.I)
# Right before a name: using, adapting or proposing it.
_TOOL_BEFORE = re.compile(r"(?:\bfine-?tun\w*|\bbuilt (?:up)?on|\bbased on|\bon top of|\binitiali[sz]\w* (?:from|with)|"
                          r"\bdistill\w*(?: (?:from|into))?|\b(?:models?|backbones?|baselines?|methods?|architectures?|"
                          r"LLMs?|VLMs?|MLLMs?|generators?|algorithms?|approaches|frameworks?) (?:such as|like|including)|"
                          r"\bwe (?:propose|introduce|present|develop|design|adopt)|\bcalled|\bnamed|\bdubbed|\btermed|"
                          r"\b(?:adapt|extend|prompt|deploy|replac)\w*|\bcompared (?:with|to)|\bover|\bthan|\bagainst|"
                          r"\boutperform\w*|\bsurpass\w*|\bapplied to|\bintegrated into|\bplugged into)\s+(?:the\s+|a\s+|an\s+)?"
                          r"(?:pre-?trained\s+|open-source\s+|state-of-the-art\s+|strong\s+)?"
                          # the later items of a list the cue heads ("models like Sora, CogVideoX and Wan")
                          r"(?:[\w.-]+(?:\s[\w.-]+)?(?:,|,? and|,? or)\s+){0,4}$", re.I)
# Right after / before a name: it is data.
_DATA_AFTER = re.compile(r"^(?:\s+(?:benchmarks?|datasets?|suite|test ?sets?|corpus|corpora|split|leaderboard|"
                         r"challenge|tasks?|scores?)\b|-?bench\b)", re.I)
_DATA_BEFORE = re.compile(r"\b(?:on|across)\s+(?:the\s+)?(?:challenging\s+|popular\s+|public\s+|standard\s+|"
                          r"widely[- ]used\s+|large-scale\s+|real-world\s+)?(?:[\w.-]+(?:,|,? and|,? or)\s+){0,4}$",
                          re.I)
_CONTEXT = 60


# A version or size after a family's name: "CogVideoX-5B", "HunyuanVideo-1.5", "Wan2.1", "Qwen2.5-7B".
_VERSION = re.compile(r"(?:[-\s]?v?\d+(?:\.\d+)*[BM]?)+$")


def family(name: str) -> str:
    """The name without its trailing version or size ("CogVideoX-5B" -> "CogVideoX"); the name
    itself when little would be left."""
    root = _VERSION.sub("", name)
    return root if len(root) >= 3 and root != name else name


def name_mentions(texts: Iterable[tuple[str, str]]) -> dict[str, Counter]:
    """Per name: how often the texts use it as a tool and as data (Counter with keys "tool", "data").
    A versioned name's mentions count for its family too: "we fine-tune CogVideoX-5B" is evidence
    about CogVideoX."""
    roles: dict[str, Counter] = {}

    def count(name: str, role: str) -> None:
        for key in {name, family(name)}:
            roles.setdefault(key, Counter())[role] += 1

    for title, abstract in texts:
        title, abstract = title or "", abstract or ""
        head = title.split(":", 1)[0].strip() if ":" in title else ""
        if head and len(head.split()) <= 2 and _NAME.fullmatch(head):
            # a paper's own name: data when the paper is a benchmark or a dataset, else a tool
            count(head, "data" if _BENCHMARK_TITLE.search(title) else "tool")
        for pattern in (_NAME, _LOWER_CAMEL):
            for match in pattern.finditer(abstract):
                name = match.group(0).rstrip(".-")
                before = abstract[max(0, match.start() - _CONTEXT):match.start()]
                after = abstract[match.start() + len(name):match.start() + len(name) + _CONTEXT]
                if _TOOL_AFTER.match(after) or _TOOL_BEFORE.search(before):
                    count(name, "tool")
                elif _DATA_AFTER.match(after) or _DATA_BEFORE.search(before):
                    count(name, "data")
    return roles


def is_tool(name: str, roles: dict[str, Counter]) -> bool:
    """Used as a tool more often than as data, at least ``MIN_TOOL_MENTIONS`` times; a versioned name
    never read in either role is read by its family ("CogVideoX1.5" by "CogVideoX")."""
    seen = roles.get(name) or Counter()
    if not seen and family(name) != name:
        seen = roles.get(family(name)) or Counter()
    return seen["tool"] >= MIN_TOOL_MENTIONS and seen["tool"] > seen["data"]


def is_data(name: str, roles: dict[str, Counter]) -> bool:
    """Used as data more often than as a tool, at least ``MIN_TOOL_MENTIONS`` times ("results on
    GSM8K"): not the name of a work's own system, whatever one abstract's brackets suggest."""
    seen = roles.get(name) or Counter()
    return seen["data"] >= MIN_TOOL_MENTIONS and seen["data"] > seen["tool"]


# Papers of the topic's candidates that mention a name before it is no single work's own system:
# "DeepFakes", "AIGC", "SAE" (sparse autoencoders), "LBP" (local binary patterns) read in a
# deepfake survey's tables as four works' systems because a title or an abstract's brackets named them.
MIN_COMMON_PAPERS = 4


def common_names(texts: Iterable[tuple[str, str]]) -> set[str]:
    """Names (and their families) at least ``MIN_COMMON_PAPERS`` of the texts mention, in title or
    abstract: the field's shared terms and tools, not one paper's system."""
    papers: Counter = Counter()
    for title, abstract in texts:
        text = f"{title or ''} {abstract or ''}"
        found = {m.group(0).rstrip(".-") for pattern in (_NAME, _LOWER_CAMEL) for m in pattern.finditer(text)}
        papers.update(found | {family(name) for name in found})
    return {name for name, n in papers.items() if n >= MIN_COMMON_PAPERS}


def tool_names(texts: Iterable[tuple[str, str]]) -> set[str]:
    """Names the texts use as a tool more often than as data (``is_tool``)."""
    roles = name_mentions(texts)
    return {name for name in roles if is_tool(name, roles)}
