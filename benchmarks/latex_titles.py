"""Corpus titles in a PDF: every record's title, as the exporter writes it, compiles.

    python benchmarks/latex_titles.py [--data ../shared/data] [--sample 2000 | --all] [--engine lualatex]

The sample holds every corpus title that looks like TeX (a "$", "\\", "{", "}", "^" or "_") and
random others (seed 31) up to ``--sample``; ``--all`` takes every title, in PDFs of 5,000
references. Each title goes the exporter's way: ``untrusted`` (as ``reference_for`` does), then
``tex_inline`` in a ``thebibliography`` cited from the body, then ``compile_pdf`` (the sandboxed
latexmk build of ``generate --pdf``). Prints the counts, the math spans kept as math and written
as text, and the build time.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import re
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import DEFAULT_DATA, corpus_file, load_average  # noqa: E402

TEX_LOOKING = re.compile(r"[$\\{}^_]")
CHUNK = 5000


def load_titles(data: Path) -> list[tuple[str, str]]:
    with gzip.open(corpus_file(data), "rt", encoding="utf-8") as fh:
        return [(r["arxiv_id"], r["title"]) for r in map(json.loads, fh)]


def pick(titles: list[tuple[str, str]], size: int | None) -> list[tuple[str, str]]:
    if size is None:
        return titles
    texlike = [t for t in titles if TEX_LOOKING.search(t[1])]
    rest = [t for t in titles if not TEX_LOOKING.search(t[1])]
    return texlike + random.Random(31).sample(rest, max(0, size - len(texlike)))


def build(chunk: list[tuple[str, str]], folder: Path, engine: str) -> tuple[float, dict]:
    from surveygraph.agents.latex import tex_inline
    from surveygraph.agents.latex_document import compile_pdf, to_latex
    from surveygraph.models import Reference, Survey, SurveySection
    from surveygraph.sanitize import untrusted

    refs, kept, escaped = [], 0, 0
    for n, (arxiv_id, title) in enumerate(chunk, start=1):
        clean = untrusted(title)
        tex = tex_inline(clean)
        kept += len(re.findall(r"(?<!\\)\$[^$]*\$", tex))
        escaped += clean.count("$") // 2 - len(re.findall(r"(?<!\\)\$[^$]*\$", tex))
        refs.append(Reference(key=str(n), title=clean, arxiv_id=arxiv_id, year=2025,
                              text=f"A. Author. {clean}. 2025. arXiv:{arxiv_id}"))
    body = " ".join(f"Work [{n}]." for n in range(1, len(chunk) + 1))
    survey = Survey(title="Corpus titles", references=refs,
                    sections=[SurveySection(heading="Works", level=1, section_id="1", text=body)])
    tex_path = folder / "survey.tex"
    tex_path.write_text(to_latex(survey), encoding="utf-8")
    started = time.perf_counter()
    compile_pdf(tex_path, timeout=3600, engine=engine)
    return time.perf_counter() - started, {"math kept": kept, "math as text": max(0, escaped)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--sample", type=int, default=2000)
    group.add_argument("--all", action="store_true")
    parser.add_argument("--engine", default="lualatex")
    args = parser.parse_args()
    titles = load_titles(args.data)
    chosen = pick(titles, None if args.all else args.sample)
    texlike = sum(bool(TEX_LOOKING.search(t)) for _, t in chosen)
    load = load_average()
    totals: dict = {"math kept": 0, "math as text": 0}
    seconds = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for start in range(0, len(chosen), CHUNK):
            folder = Path(tmp) / f"part{start // CHUNK}"
            folder.mkdir()
            took, counts = build(chosen[start:start + CHUNK], folder, args.engine)
            seconds += took
            totals = {k: totals[k] + counts[k] for k in totals}
    print(f"{len(chosen):,} of {len(titles):,} corpus titles ({texlike:,} TeX-looking) compiled with "
          f"{args.engine} in {seconds:.0f} s ({-(-len(chosen) // CHUNK)} PDF(s)); $...$ spans kept as math "
          f"{totals['math kept']:,}, written as text {totals['math as text']:,}; {load} before, "
          f"{load_average()} after")


if __name__ == "__main__":
    main()
