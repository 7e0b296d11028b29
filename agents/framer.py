"""Abstract, introduction and conclusion around the polished body (part of polish).

The frame floor is written without a model from the outline and corpus statistics: how many
papers the survey cites and from which years, how the retrieved literature was gathered, each
section's size and most central papers (embedding centrality within its cluster; the offline
corpus has no citation counts), each section's share of the latest year, and, for the
conclusion, a limitation stated by a central paper of each section. Its citations are numbers of
``survey["references"]`` (papers the body already cites keep their number; others are appended),
so every one resolves. Figures placed in the introduction (``survey["figures"]``) end it.

The model writes each part too; its text replaces the floor only through the gate
(agents/gate.py): valid prose (agents/validators.py) that covers the outline at least as well.
"""

from __future__ import annotations

from collections import Counter

from ..models import normalize_title
from ..prompts import render_prompt
from .attribution import attribute, paper_handle
from .deps import GenerationDeps, drafts_enabled, guarded_call
from .gate import choose
from .synthesis import candidate_sentences
from .text import (
    CITATION_MARKER, PAPER_MARKER, and_list, clean_generated, collapse_loops, degenerate_repetition,
    drop_repeated_sentences, marker_numbers, sentence_key, sentences, strip_citation_markers,
)
from .outline.headings import content_words
from .validators import trim_incomplete

PART_MAX_TOKENS = {"abstract": 220, "introduction": 380, "conclusion": 220}
PART_MIN_WORDS = {"abstract": 40, "introduction": 60, "conclusion": 40}
PARTS = {
    "abstract": "Write a one-paragraph abstract (about 120 words) of this survey.",
    "introduction": "Write a two-paragraph introduction: why the topic matters and how the survey is organised.",
    "conclusion": "Write a one-paragraph conclusion: the main trends and open challenges.",
}
CENTRAL_PER_SECTION = 2  # papers named per section in the introduction
# Rotated so that eight sections do not repeat one sentence frame (the repetition check would
# rightly call that a loop).
SECTION_SENTENCES = (
    "Section {n}, {title}, discusses {papers} papers in {parts} parts ({listing})",
    "{title} (Section {n}) gathers {papers} papers, divided into {listing}",
    "Section {n} turns to {title}: {papers} papers on {listing}",
    "The {papers} papers of Section {n}, {title}, fall into {listing}",
)
CENTRAL_CLAUSES = ("; among its most representative works are {named}", ", with {named} as central examples",
                   "; {named} are the works closest to its centre", ", represented best by {named}")


def _outline_lines(body: list[dict]) -> list[str]:
    return [f"{s['title']}: " + "; ".join(sub["title"] for sub in s["subsections"]) for s in body]


def _excerpt(body: list[dict], per_section: int = 1, limit: int = 1500) -> str:
    lines = []
    for section in body:
        for sub in section["subsections"]:
            first = sentences(CITATION_MARKER.sub("", PAPER_MARKER.sub("", sub["text"])))[:per_section]
            lines.extend(first)
    return " ".join(lines)[:limit].replace("<", "‹").replace(">", "›")


def _section_papers(section: dict, plan: dict, references: list[str]) -> list[str]:
    """Paper ids a section discusses: those its text cites, in the order of its cluster (most
    central first) when the plan has one, else in citation order."""
    numbers = {n for sub in section["subsections"] for m in CITATION_MARKER.finditer(sub.get("text", ""))
               for n in marker_numbers(m.group(1))}
    cited = [references[n - 1] for n in sorted(numbers) if 1 <= n <= len(references)]
    ranked = plan.get("paper_ids") or [pid for sub in plan.get("subsections", []) for pid in sub.get("paper_ids", [])]
    order = {pid: i for i, pid in enumerate(ranked)}
    return sorted(cited, key=lambda pid: (order.get(pid, len(order)), cited.index(pid)))


class Citer:
    """Numbers for frame citations: a paper's existing reference number, else a new one."""

    def __init__(self, references: list[str]):
        self.references = list(references)

    def __call__(self, paper_id: str) -> str:
        if paper_id not in self.references:
            self.references.append(paper_id)
        return f"[{self.references.index(paper_id) + 1}]"


def frame_facts(state: dict) -> dict:
    """The numbers the floor states, all computed from the run's own data."""
    survey, papers = state["survey"], state.get("papers") or {}
    references = survey.get("references", [])
    plans = {s["id"]: s for s in state.get("outline") or []}
    years = [papers[pid].get("year") for pid in references if pid in papers and papers[pid].get("year")]
    latest = max(years) if years else None
    sections = []
    for section in survey["body"]:
        ids = _section_papers(section, plans.get(section["id"], {}), references)
        section_years = [papers[p].get("year") for p in ids if p in papers and papers[p].get("year")]
        sections.append({"title": section["title"], "papers": ids,
                         "subsections": [sub["title"] for sub in section["subsections"]],
                         "recent_share": (sum(y == latest for y in section_years) / len(section_years))
                         if section_years else 0.0})
    relevance = state.get("relevance") or {}
    outline = state.get("outline") or []
    structure = {"demos": len(state.get("demos") or []),
                 "roles": [s["title"] for s in outline if str(s.get("source", "")).startswith("role:")],
                 "clusters": [s["title"] for s in outline if s.get("source") == "clusters"],
                 "concepts": [s["title"] for s in outline if s.get("source") == "concepts"],
                 "model": [s["title"] for s in outline if s.get("source") == "model"]}
    return {"topic": state["topic"], "cited": len(references), "years": Counter(years),
            "memory": len(state.get("memory") or []), "sections": sections, "latest": latest,
            "tables": bool(survey.get("tables")), "candidates": relevance.get("candidates"),
            "relevance": bool(relevance.get("enabled")), "corpus": relevance.get("corpus") or {},
            "on_topic": relevance.get("kept"), "rounds": len(relevance.get("rounds") or []),
            "estimate": (relevance.get("estimated_on_topic") or {}).get("on_topic"),
            "structure": structure}


def selection_sentence(facts: dict) -> str:
    """How the papers were chosen, as it happened: the corpus window, the candidates, the judge."""
    corpus = facts.get("corpus") or {}
    years = corpus.get("years")
    window = f" (an arXiv corpus of {corpus['papers']:,} papers from {years[0]}-{years[1]})" \
        if years and corpus.get("papers") else ""
    if facts.get("relevance") and facts.get("candidates") and facts.get("rounds"):
        estimate = facts.get("estimate")
        total = (f" (the relevance model estimates about {estimate:,.0f} such papers in the whole corpus)"
                 if estimate else "")
        return (f"They were drawn from {facts['on_topic']:,} papers judged to be about the topic{total}, found among "
                f"{facts['candidates']:,} candidates{window} in {facts['rounds']} rounds of search, each round "
                "searching for the key phrases of the papers already found; papers judged off topic were left "
                "out, not padded in.")
    if facts.get("relevance") and facts.get("candidates"):
        return (f"They were drawn from the {facts['memory']} of {facts['candidates']} candidates{window} that the "
                "hybrid lexical and semantic search returned and the relevance model judged to be about the "
                "topic; papers judged off topic were left out, not padded in.")
    return f"They were drawn from the {facts['memory']} candidates{window} that a hybrid lexical and semantic search returned."


def structure_sentence(facts: dict) -> str:
    """How the outline was obtained (never 'found by clustering' when it was not)."""
    structure = facts.get("structure") or {}
    if structure.get("model"):
        return f"The outline was drafted by the language model: {and_list(structure['model'])}."
    parts = []
    if structure.get("roles"):
        source = (f"the section roles of {structure['demos']} related human-written surveys" if structure.get("demos")
                  else "the section roles human-written surveys usually have")
        parts.append(f"The structure follows {source} ({and_list(structure['roles'])})")
    if structure.get("clusters"):
        families = and_list(structure["clusters"])
        parts.append(f"{'with' if parts else 'The structure groups'} the method families found by clustering the "
                     f"on-topic papers ({families})")
    if structure.get("concepts"):
        families = and_list(structure["concepts"])
        parts.append(f"{'with' if parts else 'The structure groups'} the method families named by the concept phrases "
                     f"that organise the most on-topic papers ({families})")
    return (" ".join(parts) + ".") if parts else ""


def _span(years: Counter) -> str:
    if not years:
        return ""
    low, high = min(years), max(years)
    return f" published in {low}" if low == high else f" published between {low} and {high}"


def _name(paper: dict) -> str:
    handle, _plural = paper_handle(paper)
    return handle


def floor_abstract(facts: dict, limitations: bool) -> str:
    titles = [s["title"] for s in facts["sections"]]
    largest = max(facts["sections"], key=lambda s: len(s["papers"]), default=None)
    text = (f"This survey reviews recent research on {facts['topic']} through {facts['cited']} papers"
            f"{_span(facts['years'])}. {selection_sentence(facts)} {structure_sentence(facts)} "
            f"For each of its {len(titles)} sections it sets out the problems the papers address, the methods "
            "they propose and the findings and limitations they report, attributing every statement to its source.")
    if largest and largest["papers"]:
        text += (f" The largest section, {largest['title']}, accounts for {len(largest['papers'])} of the "
                 "cited papers.")
    closing = " and the limitations the papers acknowledge" if limitations else ""
    return text + f" A closing section summarises where activity concentrates{closing}."


def floor_introduction(facts: dict, papers: dict, cite: Citer) -> str:
    years = facts["years"]
    peak = max(sorted(years), key=lambda y: years[y]) if years else None
    first = (f"Research on {facts['topic']} is moving quickly: this survey draws on {facts['cited']} papers"
             f"{_span(years)}" + (f", with the largest number ({years[peak]}) from {peak}" if peak else "") +
             ". " + ("Only papers the relevance model judged to be about the topic were kept, and the sections "
                     "follow the roles that related human-written surveys give their sections, filled with this "
                     "topic's own papers." if facts.get("relevance") else
                     "They were retrieved by combining lexical (BM25) and dense retrieval."))
    parts = []
    for number, section in enumerate(facts["sections"], start=1):
        central = [pid for pid in section["papers"] if pid in papers][:CENTRAL_PER_SECTION]
        named = and_list([f"{_name(papers[pid])} {cite(pid)}" for pid in central])
        template = SECTION_SENTENCES[(number - 1) % len(SECTION_SENTENCES)]
        sentence = template.format(n=number + 1, title=section["title"], papers=len(section["papers"]),
                                   parts=len(section["subsections"]), listing=and_list(section["subsections"]))
        if named:
            sentence += CENTRAL_CLAUSES[(number - 1) % len(CENTRAL_CLAUSES)].format(named=named)
        parts.append(sentence + ".")
    last = len(facts["sections"]) + 2
    tables = "Each section compares its papers in a table, and " if facts["tables"] else ""
    closing = f"{tables}Section {last} concludes with the trends and open problems the collection shows."
    closing = closing[:1].upper() + closing[1:]
    return "\n\n".join([first, " ".join(parts) + " " + closing])


def floor_conclusion(facts: dict, papers: dict, cite: Citer, said: set[str]) -> tuple[str, bool]:
    """The conclusion, and whether it names limitations (the abstract announces them only then)."""
    ranked = sorted(facts["sections"], key=lambda s: -len(s["papers"]))
    text = (f"This survey organised {facts['cited']} recent papers on {facts['topic']} into "
            f"{len(facts['sections'])} themes. The most populated are {and_list([s['title'] for s in ranked[:2]])}")
    if facts["latest"] is not None and len(facts["sections"]) > 1:
        newest = max(facts["sections"], key=lambda s: (s["recent_share"], len(s["papers"])))
        if newest["recent_share"] > 0:
            text += (f", while {newest['title']} has the largest share of {facts['latest']} papers "
                     f"({newest['recent_share']:.0%}), a sign of where current activity is heading")
    text += "."
    limits = []
    for section in facts["sections"]:
        for pid in section["papers"][:4]:
            found = [c for c in candidate_sentences([papers[pid]]) if c.role == "limitation"
                     and sentence_key(c.text) not in said] if pid in papers else []
            if found:
                handle, plural = paper_handle(papers[pid])
                limits.append(attribute(found[0].text, handle, plural, cite(pid), "point out"))
                said.add(sentence_key(found[0].text))
                break
    if limits:
        text += " The papers themselves name open problems. " + " ".join(limits)
    return text, bool(limits)


def _figure_lines(figures: list[dict], section_id: str) -> list[str]:
    lines = []
    for number, figure in enumerate(figures, start=1):
        if figure.get("section_id") == section_id and figure.get("path"):
            caption = " ".join(str(figure.get("caption") or "").split()).replace("]", ")")
            lines.append(f"![Figure {number}: {caption}]({figure['path']})")
    return lines


def coverage_score(body: list[dict], topic: str):
    """Frame content score for the gate: share of section headings the text covers (at least half
    of a heading's words that are not topic words), times its non-redundancy. The floor names
    every section, so a model text wins when it covers the outline as fully and does not loop."""
    banned = content_words(topic)
    headings = [h for h in (content_words(s["title"]) - banned for s in body) if h]

    def score(text: str) -> float:
        words = set(normalize_title(text).split())
        covered = sum(2 * len(h & words) >= len(h) for h in headings) / max(len(headings), 1)
        return covered * (1.0 - min(1.0, degenerate_repetition(text)))

    return score


def _model_part(part: str, state: dict, deps: GenerationDeps, body: list[dict], update: dict) -> str:
    if state.get("budget_exhausted") or update["budget_exhausted"] or not drafts_enabled(deps, "writer"):
        return ""
    prompt = render_prompt("gen_frame", part=part, topic=state["topic"], outline=_outline_lines(body),
                           excerpt=_excerpt(body) if part != "introduction" else "", instruction=PARTS[part])
    outcome = guarded_call("write_frame", lambda: deps.clients.writer.complete(
        prompt, node="write_frame", max_tokens=PART_MAX_TOKENS[part]), item=part)
    update["budget_exhausted"] |= outcome.budget_exhausted
    update["failures"] += [outcome.failure] if outcome.failure else []
    if not outcome.ok:
        return ""
    text, _ = collapse_loops(clean_generated(str(outcome.value)))
    text, stripped = strip_citation_markers(text)  # the model saw no sources: its markers mean nothing
    update["integrity_removed"] += stripped
    return trim_incomplete(text)


def write_frame(state: dict, deps: GenerationDeps) -> dict:
    """Abstract, introduction and conclusion (only when polishing is on)."""
    if not deps.settings.generation.polish:
        return {}
    survey = dict(state["survey"])
    body, papers = survey["body"], state.get("papers") or {}
    said: set[str] = set()
    drop_repeated_sentences([sub["text"] for s in body for sub in s["subsections"]], said)
    facts = frame_facts(state)
    cite = Citer(survey.get("references", []))
    floors = {"introduction": floor_introduction(facts, papers, cite)}
    floors["conclusion"], has_limits = floor_conclusion(facts, papers, cite, said)
    floors["abstract"] = floor_abstract(facts, limitations=has_limits)
    update: dict = {"fallbacks": [], "failures": [], "budget_exhausted": False, "integrity_removed": 0}
    decisions = {}
    for part in PARTS:
        model_text = _model_part(part, state, deps, body, update)
        if model_text:
            (model_text,), _ = drop_repeated_sentences([model_text], set(said))
        text, decision = choose("write_frame", part, model_text, floors[part], score=coverage_score(body, state["topic"]),
                                min_words=PART_MIN_WORDS[part], no_model_reason="no model text")
        decisions[f"write_frame:{part}"] = decision.record()
        if decision.winner == "floor":
            update["fallbacks"].append(decision.fallback())
        survey[part] = text
    figures = _figure_lines(survey.get("figures") or [], "introduction")
    if figures:
        survey["introduction"] = survey["introduction"].rstrip() + "\n\n" + "\n\n".join(figures)
    survey["references"] = cite.references
    removed = update.pop("integrity_removed")
    update.update(survey=survey, gate=decisions, integrity={**(state.get("integrity") or {}), "frame_markers_removed": removed})
    return update


def frame_citations_resolve(text: str, n_references: int) -> bool:
    """Every numeric marker in ``text`` names one of ``n_references`` references."""
    return all(1 <= n <= n_references for m in CITATION_MARKER.finditer(text) for n in marker_numbers(m.group(1)))
