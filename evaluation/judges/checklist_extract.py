"""Extractive checklist construction (DeepSynth-Eval §1.4) and the grounding check for
LLM-written groups.

DeepSynth builds its constraint groups by *extracting* a survey's structure anchors — a
taxonomy's categories, a table's cells — and pairs each with a constraint question. This module
does that step without a model, and builds general groups the same way from a section's
subsections and the named methods each one discusses ("The article should mention GraphSAGE when
discussing spatial graph convolution operators"). It is the fallback when the judge model cannot
write a usable group (the bundled 270M model cannot) and a model-free mode of its own.

Generic names are left out of the items: a name that appears in the topic, or in more than half
of the survey's top-level sections (e.g. "GNNs" in a GNN survey), says nothing about a section.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from ...models import Survey

SKIP_SECTIONS = re.compile(r"reference|bibliograph|appendix|acknowledg|abstract|conclusion|introduction",
                           re.I)
# Named methods, models, datasets: a capitalised token with another capital or a digit inside
# (GraphSAGE, GCN, GPT-4, ChebNet, T5, MS-MARCO).
_ENTITY = re.compile(r"\b[A-Z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*\b")
_ROMAN = re.compile(r"^[IVXLC]+$")
# A heading glued to the next sentence by PDF conversion ("Markov Decision ProcessesThe ...").
_GLUED = re.compile(r"[a-z]{2}(?:The|An|A|In|We|This|It|These|Our|For|To|As|On|However|With)$")
_MATH = re.compile(r"\$\$.*?\$\$|\$[^$\n]*\$", re.S)
_CITE = re.compile(r"\[[\d,\s\-–]+\]")
# Too general to test anything on their own, whatever the topic.
_GENERIC = {"AI", "ML", "DL", "NLP", "CV", "LLM", "LLMs", "API", "APIs", "GPU", "GPUs", "CPU", "URL", "PDF",
            "SOTA", "TODO", "GitHub", "HuggingFace", "FIG", "Fig", "Eq", "II", "III", "IV", "VI", "VII", "VIII", "IX", "XI", "XII"}
_SMALL_WORDS = {"of", "for", "and", "in", "on", "the", "to", "a", "an", "with", "vs", "by", "from", "as", "at", "or"}
_CONTENT_WORD = re.compile(r"[a-z0-9][a-z0-9\-]{3,}")
_BOILERPLATE = {"article", "should", "explain", "mention", "describe", "discuss", "survey", "report", "include",
                "includes", "including", "context", "when", "that", "with", "which", "their", "this", "these",
                "from", "into", "about", "table", "category", "representative", "method", "methods"}


@dataclass
class Node:
    heading: str
    text: str  # the node's own text plus all its descendants' text
    children: list["Node"]


def clean_text(text: str) -> str:
    """Survey text without formulas, numeric citation brackets and hyphenation artefacts."""
    text = _MATH.sub(" ", text)
    text = _CITE.sub(" ", text)
    return re.sub(r"(\w)- (\w)", r"\1-\2", text)


def clean_heading(heading: str, body: str = "") -> str:
    """'3.1.2 Spatial Graph Convolution Operators.' → 'Spatial Graph Convolution Operators';
    all-caps headings are lower-cased except words that also appear in capitals in ``body``."""
    h = re.sub(r"^\s*(?:[IVX]+\.|\d+(?:\.\d+)*\.?|[A-Z]\.)\s+", "", heading.strip())
    h = re.sub(r"(\w)- (\w)", r"\1-\2", h).strip(" .:")
    if h.isupper() and len(h) > 4:
        words = [w if (len(w) <= 5 and w.lower() not in _SMALL_WORDS and re.search(rf"\b{re.escape(w)}\b", body))
                 else w.lower() for w in h.split()]
        h = " ".join(words)
        h = h[0].upper() + h[1:]
    return h


def section_tree(human: Survey) -> list[Node]:
    """Top-level sections (introduction, conclusion, references, appendices skipped) with their
    direct children; each node's text includes its descendants'."""
    top = min((s.level for s in human.sections if s.heading), default=1)
    roots: list[Node] = []
    for s in human.sections:
        if not s.heading and not roots:
            continue
        if s.level <= top or not roots:
            roots.append(Node(s.heading, s.text, []))
            continue
        root = roots[-1]
        root.text += f"\n\n{s.heading}\n{s.text}"
        if s.level == top + 1:
            root.children.append(Node(s.heading, s.text, []))
        elif root.children:
            root.children[-1].text += f"\n\n{s.heading}\n{s.text}"
    return [r for r in roots if r.heading and not SKIP_SECTIONS.search(r.heading)]


def _name_like(part: str) -> bool:
    """GCN, GraphSAGE, T5, DeiT: two or more characters with a capital or digit after the first."""
    return (len(part) >= 2 and not _ROMAN.match(part) and part not in _GENERIC
            and any(c.isupper() or c.isdigit() for c in part[1:]))


def is_entity(tok: str) -> bool:
    """A name, not a hyphenated phrase: 'GPT-4', 'Self-RAG', 'R-CNN' yes; 'Multi-Head',
    'LLM-generated', 'Section IV-B' no; nor a PDF join like 'ProcessesThe'."""
    if tok in _GENERIC or tok.isdigit() or _GLUED.search(tok):
        return False
    parts = tok.split("-")
    if len(parts) == 1:
        return _name_like(tok)
    if re.fullmatch(r"[a-z]{4,}", parts[-1]):  # RAG-based, VT-block
        return False
    return any(_name_like(p) for p in parts) and not all(len(p) == 1 or _ROMAN.match(p) for p in parts)


def _shouting(line: str) -> bool:
    """All-caps lines (table captions like 'TABLE I SUMMARY OF ...') are not prose."""
    letters = [c for c in line if c.isalpha()]
    return len(line.split()) >= 3 and len(letters) > 10 and sum(c.isupper() for c in letters) > 0.6 * len(letters)


def entity_counts(text: str) -> Counter:
    counts: Counter = Counter()
    prose = "\n".join(line for line in clean_text(text).splitlines() if not _shouting(line))
    for m in _ENTITY.finditer(prose):
        if is_entity(m.group(0)):
            counts[m.group(0)] += 1
    return counts


def generic_entities(human: Survey, topic: str, roots: list[Node]) -> set[str]:
    """Names in the topic/title or in more than half of the top-level sections."""
    spread: Counter = Counter()
    for r in roots:
        spread.update(set(entity_counts(r.text)))
    limit = max(2, len(roots) // 2 + 1)
    generic = {e for e, n in spread.items() if n >= limit}
    for phrase in (topic, human.title or ""):
        generic |= set(entity_counts(phrase))
    return generic | {e + "s" for e in generic} | {e[:-1] for e in generic if e.endswith("s")}


def top_entities(text: str, generic: set[str], n: int) -> list[str]:
    counts = entity_counts(text)
    ranked = [e for e, _ in counts.most_common() if e not in generic]
    out: list[str] = []
    for e in ranked:  # a plural and its singular are one entity
        if e.rstrip("s") not in {o.rstrip("s") for o in out}:
            out.append(e)
        if len(out) == n:
            break
    return out


def _group(name: str, subs: list[dict], strict: bool, prompt: str | None = None) -> dict | None:
    subs = [s for s in subs if s["requirements"]]
    if not subs:
        return None
    g = {"group_name": name, "strict": strict, "sub_groups": subs,
         "clip_factor": 0.8 if strict else 1.0, "weight": 1.0, "construction": "extractive"}
    if strict:
        g["detailed_prompt"] = prompt
    return g


def _req(text: str) -> dict:
    return {"content": text, "reward": 1.0}


def general_group(node: Node, body: str, generic: set[str], n_sub: int, n_req: int) -> dict | None:
    """Topic anchor → one general group: a subgroup per subsection (or the section itself), the
    subsection's topic plus its most-discussed named methods as requirements."""
    section = clean_heading(node.heading, body)
    parts = [c for c in node.children if not re.search(r"summary|overview", c.heading, re.I)] or [node]
    parts = sorted(parts, key=lambda c: -len(top_entities(c.text, generic, n_req)))[:n_sub]
    subs = []
    for part in parts:
        name = clean_heading(part.heading, body)
        reqs = [_req(f"The article should discuss {name}." if part is node
                     else f"The article should discuss {name} as part of {section}.")]
        reqs += [_req(f"The article should mention {e} when discussing {name}.")
                 for e in top_entities(part.text, generic, n_req - len(reqs))]
        subs.append({"sub_group_name": name, "requirements": reqs})
    return _group(section, subs, strict=False)


def taxonomy_group(node: Node, topic: str, body: str, generic: set[str], n_sub: int, n_req: int) -> dict | None:
    """Taxonomy anchor → constraint group. The question names the categories; the items are the
    members of each category, which the question does not give away (DeepSynth's filter against
    over-specification)."""
    name = clean_heading(node.heading, body)
    cats = [(clean_heading(c.heading, body), c) for c in node.children
            if not re.search(r"summary", c.heading, re.I)]
    subs = [{"sub_group_name": cat,
             "requirements": [_req(f"In the categorisation of {name.lower()}, {cat} should include {e} "
                                   "as a representative work.") for e in top_entities(c.text, generic, n_req)]}
            for cat, c in cats[:n_sub]]
    names = [c for c, _ in cats[:n_sub]]
    listed = ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else (names[0] if names else "")
    prompt = (f"Survey {name.lower()} in {topic} by categorizing them into {listed}, explaining each "
              "category and its representative works.")
    return _group(f"Taxonomy: {name}", subs, strict=True, prompt=prompt)


def parse_table(table: str) -> tuple[list[str], list[list[str]]]:
    rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in table.splitlines()]
    rows = [r for r in rows if not all(re.fullmatch(r":?-{2,}:?", c) or not c for c in r)]
    return (rows[0], rows[1:]) if rows else ([], [])


def table_group(table: str, caption: str, n_sub: int, n_req: int) -> dict | None:
    """Table anchor → constraint group: one subgroup per row, one item per informative cell
    (bare ✓/× cells are left out: too ambiguous to check, as DeepSynth's reviewers found)."""
    header, rows = parse_table(table)
    if len(header) < 2 or not rows:
        return None
    caption = caption or f"{header[0]} comparison"
    subs = []
    for row in rows[:n_sub]:
        entity = row[0]
        reqs = [_req(f'In the table "{caption}", report that {entity} has {col}: {val}.')
                for col, val in zip(header[1:], row[1:])
                if val and re.search(r"[A-Za-z0-9]", val) and val not in {"-", "N/A", "n/a"}][:n_req]
        if entity:
            subs.append({"sub_group_name": entity, "requirements": reqs})
    attrs = ", ".join(header[1:])
    prompt = (f'Construct a comprehensive table titled "{caption}" that systematically compares '
              f"{header[0]} based on {attrs} using the provided papers.")
    return _group(f"Table: {caption}", subs, strict=True, prompt=prompt)


def table_captions(text: str) -> list[tuple[str, str]]:
    """(table, caption) pairs; the caption is the nearest preceding 'Table ...' line, if any."""
    out, current, caption, last_line = [], [], "", ""
    for line in text.splitlines() + [""]:
        if line.strip().startswith("|"):
            if not current:
                caption = last_line if re.match(r"\s*\**table\b", last_line, re.I) else ""
            current.append(line.strip())
            continue
        if len(current) >= 3:
            out.append(("\n".join(current), re.sub(r"[*_]", "", caption).strip()))
        current = []
        if line.strip():
            last_line = line.strip()
    return out


def grounded(requirement: str, source: str, min_share: float = 0.6) -> bool:
    """True when at least ``min_share`` of the requirement's content words occur in ``source``:
    an item the source cannot confirm is not a checklist item (hallucinated or copied format)."""
    words = {w for w in _CONTENT_WORD.findall(requirement.lower()) if w not in _BOILERPLATE}
    if not words:
        return False
    src = source.lower()
    return sum(w in src for w in words) / len(words) >= min_share


def ground_group(group: dict, source: str) -> dict | None:
    """Keep only the grounded requirements of an LLM-written group; None when under two remain."""
    subs = []
    for sg in group["sub_groups"]:
        reqs = [r for r in sg["requirements"] if grounded(r["content"], source)]
        if reqs:
            subs.append({**sg, "requirements": reqs})
    if sum(len(s["requirements"]) for s in subs) < 2:
        return None
    return {**group, "sub_groups": subs, "construction": "llm"}

