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
from .text import CITATION_MARKER, marker_numbers, sentences, slugify

FRAME_TITLES = {"introduction": "Introduction", "conclusion": "Conclusion"}


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
    authors = ", ".join(paper.authors[:3]) + (" et al." if len(paper.authors) > 3 else "")
    ident = f"arXiv:{paper.arxiv_id}" if paper.arxiv_id else (f"doi:{paper.doi}" if paper.doi else "")
    text = ". ".join(p for p in (authors, paper.title, str(paper.year or "n.d."), ident) if p)
    return Reference(key=str(number), text=text, title=paper.title, arxiv_id=paper.arxiv_id,
                     doi=paper.doi, year=paper.year, paper_id=paper.paper_id)


def build_survey(state: dict) -> Survey:
    """The run's survey as the shared ``Survey`` model (what evaluators read)."""
    data, topic = state["survey"], state["topic"]
    sections: list[SurveySection] = []
    outline: list[OutlineEntry] = []
    if data.get("abstract"):
        sections.append(SurveySection(heading="Abstract", level=1, text=data["abstract"], section_id="abstract"))
    if data.get("introduction"):
        sections.append(SurveySection(heading="Introduction", level=1, text=data["introduction"],
                                      section_id="introduction"))
        outline.append(OutlineEntry(level=1, title="Introduction"))
    plan = {s["id"]: s for s in state["outline"]}
    for section in data["body"]:
        planned = plan.get(section["id"], {})
        sections.append(SurveySection(heading=section["title"], level=1, section_id=section["id"]))
        outline.append(OutlineEntry(level=1, title=section["title"], description=planned.get("description", ""),
                                    query=planned.get("query", "")))
        planned_subs = {s["id"]: s for s in planned.get("subsections", [])}
        for sub in section["subsections"]:
            sections.append(SurveySection(heading=sub["title"], level=2, text=sub["text"], section_id=sub["id"]))
            p = planned_subs.get(sub["id"], {})
            outline.append(OutlineEntry(level=2, title=sub["title"], description=p.get("description", ""),
                                        query=p.get("query", "")))
    if data.get("conclusion"):
        sections.append(SurveySection(heading="Conclusion", level=1, text=data["conclusion"], section_id="conclusion"))
        outline.append(OutlineEntry(level=1, title="Conclusion"))
    papers = state.get("papers") or {}
    references = [reference_for(n, papers[pid]) for n, pid in enumerate(data["references"], start=1)]
    citations = [
        Citation(sentence=s, ref_keys=[str(n) for m in CITATION_MARKER.finditer(s) for n in marker_numbers(m.group(1))],
                 section=section.section_id)
        for section in sections for s in sentences(section.text) if CITATION_MARKER.search(s)
    ]
    return Survey(title=f"A Survey on {topic}", topic=topic, system="surveygraph", outline=outline,
                  sections=sections, references=references, citations=citations)


def to_markdown(survey: Survey) -> str:
    lines = [f"# {survey.title}", ""]
    for section in survey.sections:
        if section.section_id == "abstract":
            lines += ["**Abstract.** " + section.text, ""]
            continue
        lines += [("## " if section.level == 1 else "### ") + section.heading, ""]
        if section.text:
            lines += [section.text, ""]
    lines += ["## References", ""]
    lines += [f"[{r.key}] {r.text}" for r in survey.references]
    return "\n".join(lines).rstrip() + "\n"


_TEX_SPECIALS = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                 "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def tex_escape(text: str) -> str:
    return "".join(_TEX_SPECIALS.get(ch, ch) for ch in text)


def to_latex(survey: Survey) -> str:
    def body(text: str) -> str:
        escaped = tex_escape(text)
        # [1, 3] -> \cite{ref1,ref3}; the markers contain only digits and separators, so
        # escaping left them intact.
        return CITATION_MARKER.sub(
            lambda m: "\\cite{" + ",".join(f"ref{n}" for n in marker_numbers(m.group(1))) + "}", escaped)

    out = ["\\documentclass{article}", "\\usepackage[utf8]{inputenc}", "\\usepackage{hyperref}",
           f"\\title{{{tex_escape(survey.title)}}}", "\\date{}", "\\begin{document}", "\\maketitle"]
    for section in survey.sections:
        if section.section_id == "abstract":
            out += ["\\begin{abstract}", body(section.text), "\\end{abstract}"]
            continue
        command = "section" if section.level == 1 else "subsection"
        out.append(f"\\{command}{{{tex_escape(section.heading)}}}")
        if section.text:
            out += [body(p) + "\n" for p in re.split(r"\n\s*\n", section.text)]
    out += ["\\bibliographystyle{plain}", "\\bibliography{references}", "\\end{document}"]
    return "\n".join(out) + "\n"


def to_bibtex(survey: Survey, papers_by_id: dict[str, dict]) -> str:
    import bibtexparser
    from bibtexparser.model import Entry, Field

    library = bibtexparser.Library()
    for ref in survey.references:
        paper = paper_from_dump(papers_by_id[ref.paper_id]) if ref.paper_id in papers_by_id else None
        fields = [Field("title", "{" + tex_escape(ref.title or "") + "}")]
        if paper and paper.authors:
            fields.append(Field("author", tex_escape(" and ".join(paper.authors))))
        if ref.year:
            fields.append(Field("year", str(ref.year)))
        if ref.arxiv_id:
            fields += [Field("eprint", ref.arxiv_id), Field("archivePrefix", "arXiv")]
        if ref.doi:
            fields.append(Field("doi", tex_escape(ref.doi)))
        library.add(Entry("misc", f"ref{ref.key}", fields))
    return bibtexparser.write_string(library)


def write_json(path: Path, data) -> None:
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8")


def manifest(state: dict, deps: GenerationDeps, extra: dict | None = None) -> dict:
    clients = deps.clients
    meter = clients.meter
    models = {role: getattr(getattr(clients, role, None), "spec", None)
              or deps.settings.llm.for_role(role) for role in ("planner", "writer", "judge")}
    drafts = state.get("drafts") or {}
    return {
        "run_id": state.get("run_id"),
        "topic": state["topic"],
        "written_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "settings": deps.settings.model_dump(mode="json"),
        "models": models,
        "tokens": meter.to_dict(),  # {"total", "by_node", "by_model"}
        "timings_s": state.get("timings") or {},
        "budget_exhausted": bool(state.get("budget_exhausted")),
        "subsection_status": {sid: d.get("status") for sid, d in sorted(drafts.items())},
        "fallbacks": state.get("fallbacks") or [],
        "failures": state.get("failures") or [],
        "citations": state.get("integrity") or {},
        "papers_per_subsection": {sid: r.get("paper_ids", []) for sid, r in sorted((state.get("readings") or {}).items())},
        **(extra or {}),
    }


def export_survey(state: dict, deps: GenerationDeps) -> dict:
    """Write every export file into the run directory."""
    # Runs started by the CLI have a run dir from the start; Studio runs get one here.
    run_dir = Path(state.get("run_dir") or new_run_dir(deps.settings.runs_dir, state["topic"]))
    survey = build_survey(state)
    record = survey.model_dump(mode="json")
    record.update(
        run_id=state.get("run_id"),
        abstract=state["survey"].get("abstract", ""),
        subsection_papers={sid: r.get("paper_ids", []) for sid, r in (state.get("readings") or {}).items()},
        subqueries={sid: r.get("subqueries", []) for sid, r in (state.get("readings") or {}).items()},
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
