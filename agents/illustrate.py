"""Illustrate: a comparison table per first-level section and a figure for the survey (no LLM).

Runs after polish (citation numbers are final) and before the frame (the introduction places the
figure). For each body section, the works its subsections cite become a GFM pipe table (work,
year, what it addresses, approach, key finding), written into the section-level text
(``survey["body"][i]["text"]``) and kept as data in ``survey["tables"]`` for exporters that
typeset tables themselves. Cells come from the papers' titles and abstracts through
``sanitize.untrusted`` (no markup, no bracketed numbers), pipes escaped, shortened.

The figure counts the cited works of each section per publication period (stacked bars),
rendered with matplotlib's Agg canvas (no display, no global pyplot state, so parallel runs are
safe) to ``<run_dir>/figures/<name>.png`` and recorded in ``survey["figures"]`` for the framer.
Off with ``generation.illustrate = False`` (the "no-illustrate" ablation).
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from ..sanitize import untrusted
from .attribution import paper_handle
from .deps import GenerationDeps
from .facets import NO_KNOWN_NAMES, KnownNames, paper_facets
from .text import CITATION_MARKER, and_list, marker_numbers

FIGURE_NAME = "papers-per-section"
TITLE_WORDS = 14  # a longer title is named by its part after the system name
TABLE_HEADER = ("Work", "Year", "Contribution", "Name", "Focus", "Evaluation data", "Measures", "Stated result")
# Columns an abstract often leaves empty: shown only when at least this share of the rows fill them,
# so a table is not a grid of dashes (the caption says which were left out).
OPTIONAL_COLUMNS = ("Name", "Evaluation data", "Measures", "Stated result")
MIN_FILLED = 1 / 3
COLUMN_WORDS = {"Contribution": "kind of contribution", "Name": "the name of the proposed system", "Focus": "focus",
                "Evaluation data": "evaluation data", "Measures": "measures", "Stated result": "a stated result"}
KIND_CELLS = {"survey": "survey", "benchmark": "benchmark / dataset", "study": "empirical study", "method": "method"}


def cell(text: str | None) -> str:
    """One table cell: plain, single-line, pipes escaped, '–' when empty."""
    value = " ".join(str(text or "").split()).replace("|", "\\|")
    return value or "–"


def focus(title: str) -> str:
    """What a work is about, as its title says it: the part after a system name ('HIRAG: X' -> X)
    when the whole title is long; never cut mid-phrase."""
    clean = re.sub(r"(?<!\.)\.$", "", untrusted(title, 300))
    head, _, rest = clean.partition(":")
    if len(clean.split()) > TITLE_WORDS and rest.strip() and len(head.split()) <= 3:
        return rest.strip()
    return clean


def paper_row(number: int, paper: dict, known: KnownNames = NO_KNOWN_NAMES) -> list[str]:
    """Work, year, contribution kind, the name it gives its system, focus, evaluation data, measures
    and the stated result of one paper, each a short phrase read from its title and abstract
    (agents/facets.py); '' when the abstract does not say."""
    handle, _plural = paper_handle(paper)
    facets = paper_facets(paper, known)
    return [f"{handle[:1].upper()}{handle[1:]} [{number}]", str(paper.get("year") or "n.d."),
            KIND_CELLS.get(facets.kind, ""), facets.own_names[0] if facets.own_names else "",
            focus(paper.get("title") or ""), ", ".join(facets.data[:4]), ", ".join(facets.metrics[:4]), facets.result]


def filled_columns(header: tuple[str, ...], rows: list[list[str]]) -> tuple[list[str], list[list[str]], list[str]]:
    """The header and rows without the optional columns fewer than MIN_FILLED of the rows fill, and
    the names of the columns left out."""
    keep = [i for i, name in enumerate(header) if name not in OPTIONAL_COLUMNS
            or sum(bool(row[i]) for row in rows) >= MIN_FILLED * len(rows)]
    dropped = [name for i, name in enumerate(header) if i not in keep]
    return [header[i] for i in keep], [[row[i] for i in keep] for row in rows], dropped


def pipe_table(header: tuple[str, ...] | list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(cell(h) for h in header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def cited_numbers(section: dict) -> list[int]:
    """Citation numbers used in a section's subsections, ascending."""
    numbers = {n for sub in section.get("subsections", []) for m in CITATION_MARKER.finditer(sub.get("text", ""))
               for n in marker_numbers(m.group(1))}
    return sorted(numbers)


def section_table(index: int, section: dict, references: list[str], papers: dict, tabled: set[int],
                  known: KnownNames = NO_KNOWN_NAMES) -> dict | None:
    """The table of the works a section cites that no earlier table listed (``tabled`` is
    updated): a work appears in one table only. ``known``: see ``facets.paper_facets``."""
    numbers = [n for n in cited_numbers(section) if 1 <= n <= len(references) and references[n - 1] in papers
               and n not in tabled]
    if len(numbers) < 2:
        return None
    tabled.update(numbers)
    header, rows, dropped = filled_columns(TABLE_HEADER, [paper_row(n, papers[references[n - 1]], known) for n in numbers])
    title = untrusted(section.get("title"), 120)
    shown = and_list([COLUMN_WORDS[name] for name in header[2:]])
    left = (f"; {and_list([COLUMN_WORDS[name] for name in dropped])} left out, as fewer than a third of the "
            "abstracts state them" if dropped else "")
    caption = (f"Table {index}: Works first cited in “{title}”: {shown}, as their titles and abstracts give them "
               f"(– where they do not){left}.")
    return {"section_id": section["id"], "caption": caption, "header": header, "rows": rows}


def table_text(table: dict) -> str:
    """Section-level text: a lead sentence, the caption, the pipe table."""
    count = len(table["rows"])
    number = re.match(r"Table (\d+)", table["caption"]).group(1)
    lead = f"Table {number} compares the {count} works this section is the first to cite."
    return f"{lead}\n\n{table['caption']}\n\n{pipe_table(table['header'], table['rows'])}"


def _period(paper: dict, by_quarter: bool) -> str | None:
    year = paper.get("year")
    if not year:
        return None
    month = re.match(r"\d{4}-(\d{2})", str(paper.get("published") or ""))
    if by_quarter and month:
        return f"{year} Q{(int(month.group(1)) - 1) // 3 + 1}"
    return str(year)


def period_counts(body: list[dict], references: list[str], papers: dict) -> tuple[list[str], dict[str, Counter]]:
    """Cited works per section per period: quarters when the works span three years or fewer and
    have dates, else years."""
    cited = {s["id"]: [papers[references[n - 1]] for n in cited_numbers(s)
                       if 1 <= n <= len(references) and references[n - 1] in papers] for s in body}
    years = {p.get("year") for ps in cited.values() for p in ps if p.get("year")}
    dated = all(p.get("published") for ps in cited.values() for p in ps if p.get("year"))
    by_quarter = len(years) <= 3 and dated
    counts = {sid: Counter(k for k in (_period(p, by_quarter) for p in ps) if k) for sid, ps in cited.items()}
    periods = sorted({k for c in counts.values() for k in c})
    return periods, counts


def render_figure(path: Path, body: list[dict], periods: list[str], counts: dict[str, Counter]) -> None:
    """Stacked bars: cited works per period, one colour per section."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    figure = Figure(figsize=(7.5, 3.8), dpi=150)
    FigureCanvasAgg(figure)
    axes = figure.add_subplot(1, 1, 1)
    bottom = [0] * len(periods)
    colours = [f"C{i % 10}" for i in range(len(body))]  # matplotlib's default cycle, fixed order
    for colour, section in zip(colours, body):
        heights = [counts[section["id"]].get(p, 0) for p in periods]
        label = untrusted(section.get("title"), 42)
        axes.bar(range(len(periods)), heights, bottom=bottom, color=colour, label=label, edgecolor="white",
                 linewidth=0.5)
        bottom = [b + h for b, h in zip(bottom, heights)]
    axes.set_xticks(range(len(periods)), [p.replace(" ", "\n") for p in periods], fontsize=8)  # "2025\nQ1"
    axes.yaxis.set_major_locator(MaxNLocator(integer=True))  # counts of works
    axes.set_ylabel("cited works")
    axes.set_xlabel("publication " + ("quarter" if periods and "Q" in periods[0] else "year"))
    axes.spines[["top", "right"]].set_visible(False)
    axes.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, format="png", metadata={"Software": None})  # no version stamp: same bytes each run


def illustrate(state: dict, deps: GenerationDeps) -> dict:
    """Tables into the section-level texts and the survey's figure (see the module docstring)."""
    if not deps.settings.generation.illustrate:
        return {}
    survey = dict(state["survey"])
    references, papers = survey.get("references", []), state.get("papers") or {}
    body, tables, tabled = [], [], set()
    known = KnownNames.from_record((state.get("relevance") or {}).get("known_names"))
    for section in survey["body"]:
        table = section_table(len(tables) + 1, section, references, papers, tabled, known)
        if table:
            tables.append(table)
        body.append({**section, "text": table_text(table) if table else section.get("text", "")})
    update: dict = {}
    figures = []
    periods, counts = period_counts(body, references, papers)
    if periods and any(counts.values()):
        run_dir = state.get("run_dir")
        if not run_dir:  # Studio runs get their folder here (export reuses it)
            from .exporter import new_run_dir

            run_dir = str(new_run_dir(deps.settings.runs_dir, state["topic"]))
            update["run_dir"] = run_dir
        relative = f"figures/{FIGURE_NAME}.png"
        render_figure(Path(run_dir) / relative, body, periods, counts)
        unit = "quarter" if "Q" in periods[0] else "year"
        figures.append({"path": relative, "section_id": "introduction",
                        "caption": f"Works cited in each section per publication {unit} (stacked; a work "
                                   "cited in two sections counts in both)."})
    survey.update(body=body, tables=tables, figures=figures)
    update["survey"] = survey
    return update
