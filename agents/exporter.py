"""Export a finished (or budget-stopped) run: survey.md/.json/.tex, references.bib, manifest.json.

Files go into the run directory created when the run started; nothing outside it is written,
and existing run directories are never reused for a different run.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from pathlib import Path

from ..memory import paper_from_dump
from ..models import Citation, OutlineEntry, Reference, Survey, SurveySection
from .deps import GenerationDeps
from .outcome import run_outcome
from .latex import bib_value, tex_escape, tex_inline
from .latex_document import cite_key, to_latex
from ..sanitize import markdown_inert, markdown_safe, redact, untrusted, without_injections
from .outline.names import title_case
from .outline.parts import leads_section
from .text import (CITATION_MARKER, and_list, citation_units, in_sentence, marker_numbers, question_words, slugify,
                   typed_as_question)

FRAME_TITLES = {"introduction": "Introduction", "conclusion": "Conclusion"}


def folded_opening(body: str, section_title: str, sub_title: str) -> str:
    """A lone subsection's text under its section's heading: "This subsection reviews seven works on
    semantic similarity" under "Multi-Document Summarization" read as a heading its works are not
    about (a c23 reader); the opening says both."""
    body = re.sub(r"^This subsection\b", "This section", body)
    theme, within = in_sentence(sub_title.rstrip(".")), in_sentence(section_title.rstrip("."))
    # ("Methods, Benchmarks and Datasets" under "Further Methods, Benchmarks and Datasets": the heading
    # says the theme already, and "... on methods, benchmarks and datasets, within further methods,
    # benchmarks and datasets" was written, c29o)
    if theme.lower() == within.lower() or theme.lower() in within.lower():
        return body
    return re.sub(rf"^(This section reviews [^.]*? on {re.escape(theme)})(?=[.:,])", rf"\1, within {within}", body,
                  count=1) if body.startswith("This section reviews") else body


def lead_opening(body: str, sub_titles: list[str]) -> str:
    """The opening of a section's works at large (parts.leads_section), shown before its
    subsections: "This subsection reviews eight further works on RL training" becomes "Before its
    subsections on deep research and policy optimization, this section reviews eight works on RL
    training at large". (A concept's heading holds no comma: the theme ends at one.)"""
    lines = and_list([in_sentence(t.rstrip(".")) for t in sub_titles])
    return re.sub(r"^This subsection reviews (\w+) further (works?) on ([^.:,]*?)(?=[.:,])",
                  lambda m: f"Before its subsections on {lines}, this section reviews {m.group(1)} {m.group(2)} on "
                            f"{m.group(3)} at large", body, count=1)


def new_run_dir(runs_dir: Path, topic: str, now: datetime | None = None) -> Path:
    """<runs>/<slug>-<UTC timestamp>, with -2, -3 ... when that directory already exists."""
    stamp = (now or datetime.now(timezone.utc)).strftime("%Y%m%d-%H%M%S")
    base = runs_dir / f"{slugify(topic)}-{stamp}"
    candidate, n = base, 2
    while candidate.exists():
        candidate = base.with_name(f"{base.name}-{n}")
        n += 1
    candidate.mkdir(parents=True)
    return candidate


def reference_for(number: int, data: dict) -> Reference:
    paper = paper_from_dump(data)
    # Titles and author names come from the corpus: untrusted, reduced to plain text.
    authors = ", ".join(untrusted(a) for a in paper.authors[:3]) + (" et al." if len(paper.authors) > 3 else "")
    title = untrusted(paper.title)
    ident = f"arXiv:{paper.arxiv_id}" if paper.arxiv_id else (f"doi:{paper.doi}" if paper.doi else "")
    # "A, B et al." + "." would read "et al.."
    text = ". ".join(p for p in (authors.rstrip("."), title, str(paper.year or "n.d."), ident) if p)
    return Reference(key=str(number), text=text, title=title, arxiv_id=paper.arxiv_id,
                     doi=paper.doi, year=paper.year, paper_id=paper.paper_id)


def safe_body(text: str, n_references: int) -> str:
    """Survey prose as exported: no HTML or Markdown markup (markdown_safe), no sentence addressed
    to a model (an echoed injection), and no citation marker naming a number we did not assign.
    Model output and pasted abstracts are untrusted until here; our own markers are kept."""
    def valid_marker(match) -> str:
        numbers = [n for n in marker_numbers(match.group(1)) if 1 <= n <= n_references]
        return "[" + ", ".join(str(n) for n in dict.fromkeys(numbers)) + "]" if numbers else ""

    paragraphs = []
    for paragraph in re.split(r"\n\s*\n", markdown_safe(text)):
        kept, _dropped = without_injections(paragraph)
        kept = re.sub(r"\s+([.,;:])", r"\1", CITATION_MARKER.sub(valid_marker, kept)).strip()
        if kept:
            paragraphs.append(kept)
    return "\n\n".join(paragraphs)


_FIGURE_LINE = re.compile(r"^!\[(?P<caption>(?:[^\[\]\n]|\[[^\[\]\n]*\])*)\]\((?P<path>[^()\s]+)\)$")


def body_with_figures(text: str, n_references: int, figure_paths: set[str]) -> str:
    """``safe_body`` for a part that may end with our own figure lines: an image paragraph is kept
    only when it points at a figure this run rendered (``survey["figures"]``), with its caption
    reduced to plain text; any other image (model or abstract text) is flattened by safe_body."""
    parts: list[str] = []
    for paragraph in re.split(r"\n\s*\n", text or ""):
        figure = _FIGURE_LINE.match(paragraph.strip())
        if figure and figure.group("path") in figure_paths:
            caption = untrusted(figure.group("caption")).replace("[", "(").replace("]", ")")
            parts.append(f"![{caption}]({figure.group('path')})")
        else:
            kept = safe_body(paragraph, n_references)
            parts += [kept] if kept else []
    return "\n\n".join(parts)


def build_survey(state: dict) -> Survey:
    """The run's survey as the shared ``Survey`` model (what evaluators read)."""
    data, topic = state["survey"], untrusted(state["topic"])
    n_refs = len(data["references"])
    sections: list[SurveySection] = []
    outline: list[OutlineEntry] = []
    if data.get("abstract"):
        sections.append(SurveySection(heading="Abstract", level=1, text=safe_body(data["abstract"], 0),
                                      section_id="abstract"))
    if data.get("introduction"):
        figure_paths = {f["path"] for f in data.get("figures") or [] if f.get("path")}
        sections.append(SurveySection(heading="Introduction", level=1,
                                      text=body_with_figures(data["introduction"], n_refs, figure_paths),
                                      section_id="introduction"))
        outline.append(OutlineEntry(level=1, title="Introduction"))
        # the introduction's background: the works' definitions, the earlier surveys (agents/background.py)
        for sub in (data.get("background") or {}).get("subsections", []):
            sections.append(SurveySection(heading=sub["title"], level=2, text=safe_body(sub["text"], n_refs),
                                          section_id=sub["id"]))
            outline.append(OutlineEntry(level=2, title=sub["title"]))
    plan = {s["id"]: s for s in state["outline"]}
    for section in data["body"]:
        planned = plan.get(section["id"], {})
        title = untrusted(section["title"])  # headings are model output or demo-outline text
        # Section-level text = agents/illustrate.py's table (cells already sanitized); not safe_body,
        # which joins lines and would break the pipe table.
        table = "\n".join(markdown_safe(line) for line in section.get("text", "").splitlines())  # line by line
        outline.append(OutlineEntry(level=1, title=title, description=untrusted(planned.get("description", "")),
                                    query=untrusted(planned.get("query", ""))))
        if len(section["subsections"]) == 1:
            # One subsection is no division: its text stands under the section's heading (readers
            # of v7 faulted "Section 6 has a single subsection", "4.1 Methods, Benchmarks and Datasets").
            body = folded_opening(safe_body(section["subsections"][0]["text"], n_refs), title,
                                  untrusted(section["subsections"][0]["title"]))
            sections.append(SurveySection(heading=title, level=1, text="\n\n".join(t for t in (table.strip(), body) if t),
                                          section_id=section["id"]))
            continue
        subsections = section["subsections"]
        opening = ""
        if leads_section([sub["title"] for sub in subsections]):
            # the section's works at large open it, under no heading of their own (parts.leads_section)
            opening = lead_opening(safe_body(subsections[0]["text"], n_refs),
                                   [untrusted(sub["title"]) for sub in subsections[1:]])
            subsections = subsections[1:]
        sections.append(SurveySection(heading=title, level=1, text="\n\n".join(t for t in (table.strip(), opening) if t),
                                      section_id=section["id"]))
        planned_subs = {s["id"]: s for s in planned.get("subsections", [])}
        for sub in subsections:
            sub_title = untrusted(sub["title"])
            sections.append(SurveySection(heading=sub_title, level=2, text=safe_body(sub["text"], n_refs),
                                          section_id=sub["id"]))
            p = planned_subs.get(sub["id"], {})
            outline.append(OutlineEntry(level=2, title=sub_title, description=untrusted(p.get("description", "")),
                                        query=untrusted(p.get("query", ""))))
    # after the taxonomy, before the conclusion: models and methods in use (agents/models_in_use.py),
    # datasets and metrics in use (agents/evaluation_practice.py),
    # open challenges (agents/challenges.py); their section-level text is a pipe table or empty
    for part in (data.get("models"), data.get("evaluation"), data.get("challenges")):
        if not part:
            continue
        table = "\n".join(markdown_safe(line) for line in part.get("text", "").splitlines())
        sections.append(SurveySection(heading=part["title"], level=1, text=table.strip(), section_id=part["id"]))
        outline.append(OutlineEntry(level=1, title=part["title"]))
        for sub in part["subsections"]:
            sections.append(SurveySection(heading=sub["title"], level=2, text=safe_body(sub["text"], n_refs),
                                          section_id=sub["id"]))
            outline.append(OutlineEntry(level=2, title=sub["title"]))
    if data.get("conclusion"):
        sections.append(SurveySection(heading="Conclusion", level=1, text=safe_body(data["conclusion"], n_refs),
                                      section_id="conclusion"))
        outline.append(OutlineEntry(level=1, title="Conclusion"))
    papers = state.get("papers") or {}
    references = [reference_for(n, papers[pid]) for n, pid in enumerate(data["references"], start=1)]
    citations = [
        Citation(sentence=s, ref_keys=[str(n) for m in CITATION_MARKER.finditer(s) for n in marker_numbers(m.group(1))],
                 section=section.section_id)
        for section in sections for s in citation_units(section.text) if CITATION_MARKER.search(s)
    ]
    return Survey(title=survey_title(topic), topic=topic, system="surveygraph", outline=outline,
                  sections=sections, references=references, citations=citations)


def survey_title(topic: str) -> str:
    """'A Survey on Graph Neural Networks'; a question stays one: 'How Do Transformers Handle Very
    Long Documents? A Survey' (as surveys that ask one are titled), not 'A Survey on How Do ...'."""
    if typed_as_question(topic):
        return f"{title_case(question_words(topic))}? A Survey"
    return f"A Survey on {title_case(topic)}"


_NUMBERED = re.compile(r"^\d{1,2}(?:\.\d{1,2})*\.?\s+(?=\S)")


def to_markdown(survey: Survey) -> str:
    """survey.md. Every text from a model or a record is written inert (``markdown_inert``): its
    asterisks, underscores, backticks and tildes show as typed; only our own markup (headings, the
    "**Abstract.**" label, figure lines, pipe tables) formats."""
    lines = [f"# {markdown_inert(survey.title)}", ""]
    # Numbered as the LaTeX export numbers them and as the introduction refers to them ("Section 3,
    # ..."): readers of unnumbered drafts could not find the sections the text named.
    number, sub = 0, 0
    for section in survey.sections:
        if section.section_id == "abstract":
            lines += ["**Abstract.** " + markdown_inert(section.text), ""]
            continue
        if section.level == 1:
            number, sub = number + 1, 0
            label = f"{number} "
        else:
            sub += 1
            label = f"{number}.{sub} "
        # a heading that came numbered (a model's, or a demo outline's "2.1 ...") is renumbered, not numbered twice
        heading = _NUMBERED.sub("", section.heading)
        lines += [("## " if section.level == 1 else "### ") + label + markdown_inert(heading), ""]
        if section.text:
            lines += [_inert_blocks(section.text), ""]
    lines += ["## References", ""]
    lines += [f"[{r.key}] {markdown_inert(r.text)}" for r in survey.references]
    return "\n".join(lines).rstrip() + "\n"


def _inert_blocks(text: str) -> str:
    """A section's text made inert, except our own figure lines (kept by body_with_figures)."""
    return "\n".join(line if _FIGURE_LINE.match(line.strip()) else markdown_inert(line) for line in text.split("\n"))


def to_bibtex(survey: Survey, papers_by_id: dict[str, dict]) -> str:
    """references.bib, in the survey's citation order (``unsrt`` numbers it as the Markdown does).

    arXiv papers carry ``eprint`` / ``archivePrefix`` / ``primaryClass`` (biblatex shows them) and
    a ``url`` and ``note`` (classic styles like unsrt/plain print only those).
    """
    import bibtexparser
    from bibtexparser.model import Entry, Field

    library = bibtexparser.Library()
    for ref in survey.references:
        paper = paper_from_dump(papers_by_id[ref.paper_id]) if ref.paper_id in papers_by_id else None
        # bibtexparser writes each value between braces as given; bib_value makes sure no brace in
        # it can close that field early (BibTeX counts "\\}" as a brace too).
        fields = [Field("title", "{" + bib_value(tex_inline(ref.title or "")) + "}")]
        if paper and paper.authors:
            fields.append(Field("author", " and ".join(_bib_name(a) for a in paper.authors)))
        if ref.year:
            fields.append(Field("year", str(ref.year)))
        if ref.arxiv_id:
            fields += [Field("eprint", ref.arxiv_id), Field("archivePrefix", "arXiv")]
            categories = getattr(paper, "categories", None) or []
            if categories:
                fields.append(Field("primaryClass", str(categories[0])))
            fields += [Field("url", f"https://arxiv.org/abs/{ref.arxiv_id}"),
                       Field("note", f"arXiv:{ref.arxiv_id}")]
        if ref.doi:
            fields.append(Field("doi", ref.doi))
            if not ref.arxiv_id:
                fields.append(Field("url", f"https://doi.org/{ref.doi}"))
        library.add(Entry("misc", cite_key(ref.key), fields))
    return bibtexparser.write_string(library)


def _bib_name(name: str) -> str:
    """One author for BibTeX's name list: "Last, First" keeps its one comma; any other comma (two
    or more, or one at an end: BibTeX stops with "has a comma at the end") is braced, which BibTeX
    reads as one name."""
    value = bib_value(tex_escape(name)).strip()
    last, comma, first = value.partition(",")
    well_formed = not comma or (last.strip() and first.strip() and "," not in first)
    return value if well_formed else f"{{{value}}}"


def write_json(path: Path, data) -> None:
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8")


def manifest(state: dict, deps: GenerationDeps, extra: dict | None = None) -> dict:
    clients = deps.clients
    meter = clients.meter
    models = {role: getattr(getattr(clients, role, None), "spec", None)
              or deps.settings.llm.for_role(role) for role in ("planner", "writer", "judge")}
    drafts = state.get("drafts") or {}
    return redact({  # no password or key from the settings or an error message reaches the file
        "run_id": state.get("run_id"),
        "topic": state["topic"],
        "written_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "settings": deps.settings.model_dump(mode="json"),
        "models": models,
        "tokens": meter.to_dict(),  # {"total", "by_node", "by_model"}
        "timings_s": state.get("timings") or {},
        "budget_exhausted": bool(state.get("budget_exhausted")),
        "subsection_status": {sid: d.get("status") for sid, d in sorted(drafts.items())},
        # which candidates were judged on topic (concepts, threshold, excluded ids) and the shape
        # the on-topic pool could fill; the reference vectors stay in the checkpoint
        "relevance": {k: v for k, v in (state.get("relevance") or {}).items() if k != "reference"},
        "shape": state.get("shape") or {},
        "outline_roles": [{"title": s.get("title"), "role": s.get("role"), "source": s.get("source")}
                          for s in state.get("outline") or []],
        "fallbacks": state.get("fallbacks") or [],
        "gate": state.get("gate") or {},  # per step: model text or floor, and why (agents/gate.py)
        "failures": state.get("failures") or [],
        "citations": state.get("integrity") or {},
        "papers_per_subsection": {sid: r.get("paper_ids", []) for sid, r in sorted((state.get("readings") or {}).items())},
        "outcome": run_outcome(state, meter.entries()),  # usable survey or not: generate's exit status
        **(extra or {}),
    })


def export_survey(state: dict, deps: GenerationDeps) -> dict:
    """Write every export file into the run directory."""
    # Runs started by the CLI have a run dir from the start; Studio runs get one here.
    run_dir = Path(state.get("run_dir") or new_run_dir(deps.settings.runs_dir, state["topic"]))
    survey = build_survey(state)
    record = survey.model_dump(mode="json")
    record.update(
        run_id=state.get("run_id"),
        abstract=safe_body(state["survey"].get("abstract", ""), 0),
        subsection_papers={sid: r.get("paper_ids", []) for sid, r in (state.get("readings") or {}).items()},
        subqueries={sid: [untrusted(q) for q in r.get("subqueries", [])]
                    for sid, r in (state.get("readings") or {}).items()},
        integrity=state.get("integrity") or {},
    )
    files = {
        "survey.md": to_markdown(survey),
        "survey.tex": to_latex(survey),
        "references.bib": to_bibtex(survey, state.get("papers") or {}),
    }
    for name, text in files.items():
        (run_dir / name).write_text(text, encoding="utf-8")
    write_json(run_dir / "survey.json", record)
    write_json(run_dir / "manifest.json", manifest(state, deps))
    names = [*files, "survey.json", "manifest.json"]
    return {"export": {name: str(run_dir / name) for name in names}, "run_dir": str(run_dir)}
