"""Models and methods in use: the ones the surveyed works build on or compare against, read across
the survey, written without a model.

Blind readers fault our drafts, topic after topic, for leaving out the field's seminal works: "ViT,
DeiT, Swin, DETR, Mask2Former and MAE are never covered as works in their own right" (c32o), "no
PointPillars, BEVFusion or CenterPoint" (c32b). The corpus holds 2025-26 papers, so most of those
works cannot be cited; their names are in the cited works' abstracts all the same, with what the
works do with them ("we fine-tune SAM", "outperforms BEVFusion") and often what they are ("SAM, a
promptable segmentation foundation model"). The body says per subsection which models its works
name; this section reads across the survey, every statement a count of what the cited abstracts say,
cited to them:

- which names at least MIN_WORKS cited works use (a known backbone or foundation model's family,
  agents/facets.py, or a name the topic's candidates use as a tool, agents/name_roles.py), never the
  topic's own name, a field's generic abbreviation or a work's own system;
- whether each work builds on it or compares against it (the words right before the name);
- what the works say it is: its long form where the candidates define one (retrieval/acronyms.py),
  or the apposition a cited abstract gives it, quoted and cited.

Written only when MIN_NAMES names qualify; otherwise the body's per-subsection sentences stand alone.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from ..retrieval.acronyms import long_forms
from ..retrieval.topic_facets import stem_text
from .attribution import paper_handle
from .facets import _GENERIC_NAMES, _LOWER_CAMEL, _MODEL_ANY_CASE, _NAME, own_names
from .name_roles import _TOOL_AFTER, _TOOL_BEFORE
from .illustrate import pipe_table
from .text import and_list, count_words

SECTION_TITLE = "Models and Methods in Use"
MIN_WORKS = 3  # named by fewer cited works, a name is one line of work's tool, not the field's
MIN_NAMES = 3  # fewer shared names and there is nothing to read across
MAX_ROWS = 12
MAX_DESCRIBED = 6
MAX_CITED = 8

# A size or version after a family's name: "ViT-B/16", "ResNet-50", "DINOv2", "MobileNetV2", "Llama-3.1-8B",
# "GPT-4o".
_SUFFIX = re.compile(r"(?:[-\s]?[vV]?\d+(?:\.\d+)*o?[BMK]?(?:/\d+)?|-(?:B|L|S|H|G|T|Ti|Base|Large|Small|Huge|Tiny|"
                     r"Giant|Instruct|Chat|based|style|like|powered|driven|enhanced|enabled|aware|guided|assisted)(?:/\d+)?)+$")
# Right before a name: the work measures itself against it.
_COMPARED = re.compile(r"\b(?:outperform\w*|surpass\w*|than|compared (?:with|to)|against|beat\w*|versus|vs\.?|"
                       r"over)\s+(?:the\s+|a\s+|strong\s+|existing\s+|state-of-the-art\s+|baselines?\s+(?:such as|"
                       r"like|including)\s+)*(?:[\w.-]+(?:\s[\w.-]+)?(?:,|,? and|,? or)\s+){0,4}$", re.I)
# "SAM, a promptable segmentation foundation model," / "CLIP, which aligns images and text,"
_APPOSITION = r"(?:\s*\([^()]{1,60}\))?,\s+((?:an?|the)\s+[^,.;:()\[\]]{8,110}?)(?=\s*[,.;:)]|\s+(?:that|which|to|for|and)\s)"
# name_roles' tool cues read "built on"; a work says it in the present too ("we build on SAM")
_BUILDS_ON = re.compile(r"\b(?:build(?:s|ing)?|rel(?:y|ies|ying)) (?:up)?on\s+(?:the\s+|a\s+)?$", re.I)
_CONTEXT = 60
# facets' generic names are never evaluation data; of them, these name a method a work builds on or
# compares against ("we fine-tune with GRPO", "outperforms DPO"), so they stay in this section
_METHOD_ACRONYMS = {"SFT", "RLHF", "DPO", "PPO", "MoE", "LoRA", "PEFT", "GRPO", "RLVR", "CoT", "ICL", "RAG", "PRM",
                    "ORM", "BEV"}
_FIELD_WORDS = _GENERIC_NAMES - _METHOD_ACRONYMS


def family_key(name: str) -> str:
    """The family a name belongs to, in lower case ("ViT-B/16" -> "vit", "DINOv2" -> "dino").

    Wider than name_roles.family, which strips a version or size only: here sizes ("-B/16", "-Large"),
    a plural ("ViTs"), adjectives ("-based", "-powered") and hyphens ("U-Net") go too, as a row counts
    every mention of a family; family stays as it is, as the pool's role counts were fitted with it."""
    name = name[:-1] if len(name) > 2 and name.endswith("s") and name[-2].isupper() else name  # "ViTs"
    root = _SUFFIX.sub("", name)
    # "U-Net" and "UNet" are one family: two rows of one model were read in a c33r draft
    return (root if len(root) >= 2 else name).lower().replace("-", "")


@dataclass
class NameUse:
    """One family of names across the cited works."""
    spellings: Counter = field(default_factory=Counter)
    works: list[str] = field(default_factory=list)  # works that name it
    builders: list[str] = field(default_factory=list)  # works that say they use or build on it
    comparers: list[str] = field(default_factory=list)  # works that measure themselves against it

    @property
    def name(self) -> str:
        """The family's own name where the works write it ("Swin" beside "Swin-B"), else its spellings
        most written ("DeepSeek-R1", not the stem "DeepSeek-R"; "GPT-4o, GPT-4")."""
        key = family_key(self.spellings.most_common(1)[0][0])
        roots = [s for s in self.spellings if s.lower().replace("-", "") == key]
        if roots:
            return max(roots, key=lambda s: (self.spellings[s], -len(s)))
        return ", ".join(s for s, _ in self.spellings.most_common(2))


def _excluded(name: str, topic_words: set[str]) -> bool:
    key = family_key(name)
    plain = name.rstrip("s") if name.endswith("s") and name[-2:-1].isupper() else name
    return (name in _FIELD_WORDS or plain in _FIELD_WORDS or _SUFFIX.sub("", name) in _FIELD_WORDS
            or key in topic_words or plain.lower() in topic_words or len(key) < 2
            or re.fullmatch(r"\d+d?", key) is not None  # "2D", "3D": a dimension, not a model
            # a kind of AI, no model: "XAI" listed as a shared method of a post-hoc explanation survey (c33o)
            or re.fullmatch(r"[A-Z][A-Za-z]{0,4}AI|AI[A-Z]{1,3}", name) is not None)


def _mentions(text: str, tools: set[str]) -> list[re.Match]:
    """The model and tool names in ``text``: a known backbone's family in any case, or a name the
    topic's candidates use as a tool."""
    found = {m.span(): m for m in _MODEL_ANY_CASE.finditer(text)}
    for pattern in (_NAME, _LOWER_CAMEL):  # a span both patterns read is one mention
        found.update({m.span(): m for m in pattern.finditer(text)
                      if m.group(0).rstrip(".-") in tools and m.span() not in found})
    return [found[span] for span in sorted(found)]


def name_uses(ids: list[str], papers: dict, tools: set[str], topic_words: set[str]) -> dict[str, NameUse]:
    """Per family key: the works that use or compare against a name of it (a work's own system aside)."""
    uses: dict[str, NameUse] = {}
    for pid in ids:
        paper = papers[pid]
        title, abstract = paper.get("title") or "", paper.get("abstract") or ""
        mine = {family_key(n) for n in own_names(title, abstract)}
        roles: dict[str, set[str]] = {}
        for text in (title, abstract):
            for match in _mentions(text, tools):
                name = match.group(0).rstrip(".-")
                key = family_key(name)
                if key in mine or _excluded(name, topic_words):
                    continue
                before = text[max(0, match.start() - _CONTEXT):match.start()]
                after = text[match.end():match.end() + _CONTEXT]
                role = ("compare" if _COMPARED.search(before) else
                        "build" if _TOOL_BEFORE.search(before) or _BUILDS_ON.search(before) or _TOOL_AFTER.match(after)
                        else "name")
                uses.setdefault(key, NameUse()).spellings[name] += 1
                roles.setdefault(key, set()).add(role)
        for key, said in roles.items():
            uses[key].works.append(pid)
            if "build" in said:  # a work that builds on a model and also beats it builds on it
                uses[key].builders.append(pid)
            elif "compare" in said:
                uses[key].comparers.append(pid)
    return {k: u for k, u in uses.items() if len(u.works) >= MIN_WORKS}


def description(name: str, ids: list[str], papers: dict) -> tuple[str, str] | None:
    """(what a cited abstract says the name is, the work saying it), the phrase most works give first."""
    pattern = re.compile(rf"(?<![\w-]){re.escape(name)}(?:[-\s]?[\w/.]*\d[\w/.]*)?{_APPOSITION}")
    said: dict[str, list[tuple[str, str]]] = {}
    for pid in ids:
        for match in pattern.finditer(papers[pid].get("abstract") or ""):
            phrase = " ".join(match.group(1).split())
            words = phrase.split()
            # a phrase about the citing work ("SAM, a novel approach") or a clause ("MAE, a large share of
            # image patches is masked"), not what the name is
            if not 3 <= len(words) <= 16 or re.search(r"\b(?:we|our|us|this|these|novel|new|proposed|first|"
                                                       r"is|are|was|were|be|been)\b", phrase, re.I):
                continue
            said.setdefault(phrase.lower(), []).append((phrase, pid))
    if not said:
        return None
    best = max(said.values(), key=lambda found: (len({p for _, p in found}), -len(found[0][0])))
    return best[0]


def models_section(ids: list[str], papers: dict, sections: list[dict], cite, tools: set[str], topic: str,
                   topic_words: set[str], pool_texts: list[str], table_number: int) -> dict | None:
    """{"id", "title", "text", "table", "subsections"} or None when fewer than MIN_NAMES names are
    shared by MIN_WORKS cited works. ``pool_texts``: the candidates' abstracts, where long forms are read."""
    uses = name_uses(ids, papers, tools, {w.lower() for w in topic_words})
    spelled = {key: long_forms(use.name.split(",")[0], pool_texts) for key, use in uses.items()}
    # the topic's own name, abbreviated: "ViT" in a survey of vision transformer backbones
    asked = stem_text(topic)
    uses = {key: use for key, use in uses.items() if not any(stem_text(form) in asked for form in spelled[key])}
    if len(uses) < MIN_NAMES:
        return None
    ranked = sorted(uses.items(), key=lambda item: (-len(item[1].works), item[1].name))[:MAX_ROWS]
    rows, described = [], []
    for key, use in ranked:
        said = description(use.name, ids, papers)
        what = spelled[key][0] if spelled[key] else (f"“{said[0]}” {cite(said[1])}" if said else "–")
        if said and len(described) < MAX_DESCRIBED:
            described.append((use.name, said))
        numbers = sorted({str(n + 2) for n, s in enumerate(sections) if set(use.works) & set(s["papers"])}, key=int)
        rows.append([use.name, what, _works(use.works, cite), str(len(use.builders)) if use.builders else "–",
                     str(len(use.comparers)) if use.comparers else "–", ", ".join(numbers) or "–"])
    caption = (f"Table {table_number}: Models and methods named by at least {count_words(MIN_WORKS)} of the surveyed "
               "works' abstracts: what the works call them (a long form the literature defines, or an abstract's "
               "own description), the works that name them (count and citations), how many of those say they build "
               "on them or compare against them, and the sections that discuss those works.")
    header = ("Name", "What the works call it", "Named by", "Built on by", "Compared against by", "Sections")
    table = {"section_id": "models-in-use", "caption": caption, "header": header, "rows": rows}
    text = (f"Table {table_number} lists the models and methods the surveyed works share. They are named here, "
            "not reviewed: the works that introduced them are not among this survey's references unless they "
            f"are cited in it.\n\n{caption}\n\n{pipe_table(header, rows)}\n\n"
            + _prose([use for _, use in ranked], described, len(ids), papers, cite))
    # one part, no subsections: a section with a single subsection is no division (v7 readers)
    return {"id": "models-in-use", "title": SECTION_TITLE, "text": text, "table": table, "subsections": []}


def _works(pids: list[str], cite) -> str:
    return f"{len(pids)} {cite.many(pids[:MAX_CITED])}" if pids else "–"


def _prose(ranked: list[NameUse], described: list[tuple[str, tuple[str, str]]], n_works: int,
          papers: dict, cite) -> str:
    named = ranked[:4]
    built = sorted((u for u in ranked if len(u.builders) >= 2), key=lambda u: -len(u.builders))[:3]
    compared = sorted((u for u in ranked if len(u.comparers) >= 2), key=lambda u: -len(u.comparers))[:3]
    lines = [f"Of the {n_works} works, the most name " + and_list(
        [f"{u.name} ({count_words(len(u.works))} works {cite.many(u.works[:MAX_CITED])})" for u in named]) + "."]
    if built:
        lines.append("The models they most often say they build on are " + and_list(
            [f"{u.name} ({count_words(len(u.builders))} works {cite.many(u.builders[:MAX_CITED])})" for u in built])
            + ".")
    if compared:
        lines.append("The models they most often report results against are " + and_list(
            [f"{u.name} ({count_words(len(u.comparers))} works {cite.many(u.comparers[:MAX_CITED])})"
             for u in compared]) + ".")
    for name, (phrase, pid) in described:
        handle, plural = paper_handle(papers[pid])
        handle = handle[:1].upper() + handle[1:]
        lines.append(f"{handle} {'describe' if plural else 'describes'} {name} as {phrase} {cite(pid)}.")
    return " ".join(lines)
