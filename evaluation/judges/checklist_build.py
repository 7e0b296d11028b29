"""Checklist generation from a human survey (DeepSynth-Eval §1.4): general groups per topic
anchor (top-level section), constraint groups per structure anchor (taxonomy, tables).

Three construction modes (``evaluation.checklist_construction``, ``--construction``):

- ``llm``: the judge model writes every group; an anchor whose group is unusable is skipped;
- ``extractive``: no model; groups are extracted from the survey's structure
  (``checklist_extract``);
- ``auto`` (default): the judge model writes each group, its requirements are checked against
  the anchor's text, and an anchor whose group is unusable or ungrounded gets the extractive
  group instead. Each group records how it was built in ``construction``.
"""

from __future__ import annotations

import re
from typing import Callable, Literal

from pydantic import BaseModel, Field

from ...errors import UserError
from ...models import Survey, normalize_title
from .base import Judge, render_prompt, structured_error_types, trim_text
from .checklist_extract import (
    Node, clean_text, general_group, generic_entities, ground_group, section_tree, table_captions,
    table_group, taxonomy_group,
)

Construction = Literal["auto", "llm", "extractive"]
CONSTRUCTION_MODES = ("auto", "llm", "extractive")
_OUTLOOK = re.compile(r"future|discussion|challenge|open (?:problem|question|issue)|direction|prospect|outlook", re.I)


# Small caps on purpose: llama.cpp refuses JSON-schema grammars whose nested repetitions grow
# too large (lists of lists of long strings), which would break generation with the local model.
class GeneratedSubGroup(BaseModel):
    sub_group_name: str = Field(max_length=80)
    requirements: list[str] = Field(max_length=5)


class GeneratedGroup(BaseModel):
    group_name: str = Field(max_length=120)
    sub_groups: list[GeneratedSubGroup] = Field(max_length=6)


class GeneratedConstraintGroup(BaseModel):
    group_name: str = Field(max_length=120)
    detailed_prompt: str = Field(min_length=10, max_length=400)  # required: q_con
    sub_groups: list[GeneratedSubGroup] = Field(max_length=6)


def is_real_text(text: str, min_words: int = 1) -> bool:
    """False for empty, letter-less or template-copied text ("...", "1", "The article should ...")."""
    t = text.strip()
    return (bool(t) and "..." not in t and "…" not in t and len(t.split()) >= min_words
            and re.search(r"[A-Za-z]{2}", t) is not None)


def _group_dict(g: GeneratedGroup | GeneratedConstraintGroup, strict: bool, max_sub: int,
                max_req: int) -> dict | None:
    """The group in task format; requirements that are placeholders or under 4 words are dropped
    (small models copy the prompt's format text), and a group left empty is dropped."""
    if not is_real_text(g.group_name) or (strict and not is_real_text(g.detailed_prompt, 4)):
        return None
    subs = [{"sub_group_name": s.sub_group_name,
             "requirements": [{"content": r.strip(), "reward": 1.0}
                              for r in s.requirements[:max_req] if is_real_text(r, 4)]}
            for s in g.sub_groups[:max_sub] if is_real_text(s.sub_group_name)]
    subs = [s for s in subs if s["requirements"]]
    if not subs:
        return None
    group = {"group_name": g.group_name, "strict": strict, "sub_groups": subs,
             "clip_factor": 0.8 if strict else 1.0, "weight": 1.0}
    if strict:
        group["detailed_prompt"] = g.detailed_prompt
    return group


def _llm_group(judge: Judge, node: str, prompt: str, schema: type, strict: bool, max_sub: int,
               max_req: int, source: str) -> dict | None:
    try:
        g = _group_dict(judge.ask(node, prompt, schema), strict, max_sub, max_req)
    except structured_error_types():
        return None
    return ground_group(g, clean_text(source)) if g else None


def _anchors(roots: list[Node], human: Survey) -> list[tuple[str, object]]:
    """Structure anchors, best first: the section with the most subsections (taxonomy), then tables."""
    anchors: list[tuple[str, object]] = []
    # Outlook sections ("Challenges and Future Directions") list open problems, not a taxonomy.
    taxonomy = max((r for r in roots if len(r.children) >= 2), default=None,
                   key=lambda r: (not _OUTLOOK.search(r.heading), len(r.children)))
    if taxonomy is not None:
        anchors.append(("taxonomy", taxonomy))
    anchors += [("table", tc) for tc in table_captions(human.text)]
    return anchors


def _anchor_text(kind: str, anchor) -> str:
    if kind == "taxonomy":
        return f"Taxonomy: {anchor.heading}\n" + "\n".join(f"- {c.heading}" for c in anchor.children)
    table, caption = anchor
    return f"{caption}\n{table}".strip()


def generate_task(human: Survey, topic: str, judge: Judge | None, *, construction: Construction = "auto",
                  max_general: int = 4, max_constraint: int = 1, n_sub: int = 2, n_req: int = 4,
                  progress: Callable[[str], None] | None = None) -> dict:
    """One task (general groups per topic anchor + constraint groups per table/taxonomy anchor)."""
    if construction not in CONSTRUCTION_MODES:
        raise UserError(f"unknown checklist construction {construction!r}; choose one of {', '.join(CONSTRUCTION_MODES)}")
    if construction != "extractive" and judge is None:
        raise UserError(f"checklist construction {construction!r} needs a judge model")
    roots = section_tree(human)
    body = clean_text("\n".join(s.text for s in human.sections))
    generic = generic_entities(human, topic, roots)
    use_llm, fallback = construction != "extractive", construction != "llm"
    budget = judge.budget if judge is not None else 0
    groups = []
    for node in roots[:max_general]:
        g = None
        if use_llm:
            prompt = render_prompt("checklist_general", topic=topic, heading=node.heading, n_sub=n_sub,
                                   n_req=n_req, section_text=trim_text(node.text, budget))
            g = _llm_group(judge, "judge.checklist.general", prompt, GeneratedGroup, False, n_sub, n_req, node.text)
        if g is None and fallback:
            g = general_group(node, body, generic, n_sub, n_req)
        if g:
            groups.append(g)
        if progress:
            progress(f"general group: {node.heading}")
    for kind, anchor in _anchors(roots, human)[:max_constraint]:
        g = None
        anchor_text = _anchor_text(kind, anchor)
        if use_llm:
            prompt = render_prompt("checklist_constraint", topic=topic, kind=kind, n_sub=n_sub * 2,
                                   n_req=n_req, anchor=trim_text(anchor_text, budget))
            source = f"{anchor.text}\n{anchor_text}" if kind == "taxonomy" else anchor_text
            g = _llm_group(judge, "judge.checklist.constraint", prompt, GeneratedConstraintGroup, True,
                           n_sub * 2, n_req, source)
        if g is None and fallback:
            g = (taxonomy_group(anchor, topic, body, generic, n_sub * 2, n_req) if kind == "taxonomy"
                 else table_group(anchor[0], anchor[1], n_sub * 2, n_req))
        if g and g.get("detailed_prompt"):
            groups.append(g)
        if progress:
            progress(f"constraint group ({kind})")
    if not groups:
        raise UserError("no checklist group could be generated from the human survey "
                        "(it needs top-level sections other than introduction/conclusion)")
    built = [g.get("construction", "llm") for g in groups]
    return {"task_id": normalize_title(human.title or topic).replace(" ", "_")[:80],
            "survey_id": human.title or topic,
            "general_prompt": f"Please write a comprehensive survey paper on {topic} based on the provided papers.",
            "survey_result": "", "checklist": groups,
            "construction": {"mode": construction, "llm_groups": built.count("llm"),
                             "extractive_groups": built.count("extractive")}}
