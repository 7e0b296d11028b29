"""Fuzz over every record field and every output format (issue 20).

Seeded random records mix hostile fragments - TeX (^^ notation, \\input, \\csname, \\write18,
\\catcode, \\openout), HTML, Markdown links/images/pipes, control and bidi characters, and
malformed identifiers - into every field of a real-topic corpus. They go in through the real
boundary (`corpus ingest`), a survey is generated from them, and every output is checked:
survey.md / .tex / .json, references.bib, the evaluation report as Markdown and HTML, and a
leaderboard (Markdown, CSV, HTML) whose system folders and topic files carry hostile names.
"""

from __future__ import annotations

import csv
import io
import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.fault

TOPIC = "Retrieval-Augmented Generation for Large Language Models"
TEX = ["$^^5cinput{/etc/passwd}$", "^^5cimmediate^^5cwrite18{touch /tmp/sg-pwned}", "\\input{/etc/passwd}",
       "\\csname input\\endcsname{/etc/hosts}", "\\catcode`\\^^M=13", "\\openout5=survey.md", "\\write18{id}",
       "\\def\\x{PWNED}\\x", "^^7c^^7c"]
HTML = ["<script>alert(1)</script>", "<img src=x onerror=alert(2)>", "<iframe src=//evil.example>",
        "&lt;b onmouseover=alert(3)&gt;"]
MARKDOWN = ["[click](javascript:alert(4))", "![x](http://evil.example/x.png)", "| a | b |", "`code`", "# Heading",
            "<!-- c -->", "***bold***"]
CONTROL = ["\u202eevil\u202c", "\x00\x07", "\u200b", "\r\n\r\n"]
FRAGMENTS = TEX + HTML + MARKDOWN + CONTROL
BAD_IDS = ["2599.00004<script>alert(5)</script>", "\\input{/etc/passwd}", "../../etc/passwd", "2501.00001 OR 1=1"]
BAD_DOIS = ["10.9999/<b>x</b>", "10.1000/\\input{/etc/passwd}", "javascript:alert(6)"]
BAD_CATEGORIES = ["\\input{/etc/passwd}", "<script>", "cs.CL"]

# What may never appear, per format: a TeX string is inert text in Markdown or JSON, an HTML one in
# TeX; each exporter escapes for its own format. Control and bidi characters: nowhere.
ANYWHERE = ["\u202e", "\x00", "\x07"]
WEB = ["<script", "onerror", "onmouseover", "<iframe", "javascript:", "evil.example"]
TEX_ACTIVE = ["^^5c", "^^7c", "\\input{/etc", "\\csname", "\\write18", "\\catcode", "\\openout", "\\def\\x"]
NEVER_BY_FORMAT = {".md": WEB, ".html": WEB, ".json": WEB, ".tex": TEX_ACTIVE + ["<script"], ".bib": TEX_ACTIVE}
BENIGN = ["Retrieval-augmented generation grounds large language models in retrieved passages.",
          "Dense retrievers are trained with contrastive losses for retrieval-augmented generation.",
          "We evaluate retrieval-augmented generation on open-domain question answering benchmarks.",
          "Graph-based retrieval improves multi-hop reasoning of large language models.",
          "Reranking retrieved evidence reduces hallucination in retrieval-augmented generation."]


def _records(seed: int = 7, n: int = 40) -> list[dict]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        frag = lambda: rng.choice(FRAGMENTS)  # noqa: E731
        out.append({
            "arxiv_id": rng.choice(BAD_IDS) if i % 4 == 0 else f"2503.{10000 + i:05d}",
            "doi": rng.choice(BAD_DOIS) if i % 3 == 0 else None,
            "title": f"{frag()} Retrieval-Augmented Generation {frag()} for Large Language Models {i}",
            "abstract": " ".join(f"{rng.choice(BENIGN)} {frag()}" for _ in range(4)),
            "authors": [f"{frag()} Author{i}", f"Writer {frag()}"],
            "categories": [rng.choice(BAD_CATEGORIES), "cs.CL"],
            "announced": f"2025-0{1 + i % 9}-15",
        })
    return out


def _cli(home: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SURVEYGRAPH_")}
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", ANONYMIZED_TELEMETRY="False")
    return subprocess.run([sys.executable, "-m", "surveygraph", "--home", str(home), *args], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=900)


def _violations(text: str, where: str) -> list[str]:
    never = ANYWHERE + NEVER_BY_FORMAT[Path(where).suffix]
    return [f"{where}: {bad!r}" for bad in never if bad in text]


@pytest.fixture(scope="module")
def fuzz_run(tmp_path_factory, shared_data):
    from tests.generation_helpers import rag_papers

    root = tmp_path_factory.mktemp("fuzz")
    home = root / "home"
    corpus = root / "fuzz.jsonl"
    benign = [json.loads(p.model_dump_json()) for p in rag_papers(shared_data, 60)]
    lines = [json.dumps({"arxiv_id": p["arxiv_id"], "title": p["title"], "abstract": p["abstract"],
                         "authors": p["authors"], "categories": p["categories"], "announced": f"{p['year']}-06-01"})
             for p in benign] + [json.dumps(r) for r in _records()]
    corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
    ingest = _cli(home, "corpus", "ingest", str(corpus))
    assert ingest.returncode == 0, ingest.stderr[-2000:]
    run = _cli(home, "generate", TOPIC, "--sections", "2", "--subsections", "2", "--out", str(root / "runs"))
    assert run.returncode == 0, run.stderr[-3000:]
    run_dir = next((root / "runs").iterdir())
    return root, home, run_dir, ingest


def test_the_boundary_drops_malformed_identifiers_and_says_so(fuzz_run):
    _, _, _, ingest = fuzz_run
    said = ingest.stdout + ingest.stderr
    assert re.search(r"dropped|invalid", said), said[-1500:]


def test_every_survey_output_is_clean(fuzz_run):
    root, _, run_dir, _ = fuzz_run
    problems = []
    for name in ("survey.md", "survey.tex", "survey.json", "references.bib", "manifest.json", "evaluation.md"):
        path = run_dir / name
        if path.is_file():
            problems += _violations(path.read_text(encoding="utf-8", errors="replace"), name)
    assert not problems, problems
    cited = json.loads((run_dir / "survey.json").read_text())["references"]
    fuzzed = [r for r in cited if re.search(r"for Large Language Models \d+$", r.get("title") or "")]
    assert cited and fuzzed, "the survey cites papers, fuzzed ones among them"
    assert not Path("/tmp/sg-pwned").exists()


def test_evaluation_reports_of_the_fuzzed_survey_are_clean(fuzz_run):
    root, home, run_dir, _ = fuzz_run
    problems = []
    for fmt in ("md", "html", "json"):
        out = root / f"report.{fmt}"
        done = _cli(home, "evaluate", str(run_dir / "survey.md"), "--metrics", "structure,integrity",
                    "--format", fmt, "--out", str(out), "--force")
        assert done.returncode == 0, done.stderr[-2000:]
        problems += _violations(out.read_text(encoding="utf-8"), out.name)
    assert not problems, problems


HOSTILE_NAMES = ["<img src=x onerror=alert(7)>", "=HYPERLINK(\"evil.example\")", "a|b`c*d_[e](javascript:x)",
                 "\u202eevil\u202c name", "[bold]markup[red]"]  # no "/": a folder name cannot hold one


def test_leaderboard_with_hostile_folder_and_topic_names_is_clean(fuzz_run, shared_data):
    root, home, run_dir, _ = fuzz_run
    board = root / "board"
    human_dir, systems = board / "human", board / "systems"
    human_dir.mkdir(parents=True)
    topic = "RAG <b>survey<b> | x"
    source = shared_data / "weaidb_surveybench"
    (human_dir / f"{topic}.md").write_text((source / "HumanSurvey" / f"{TOPIC}.md").read_text(encoding="utf-8"))
    for name, draft in zip(HOSTILE_NAMES, ("SurveyForge", "AutoSurvey", "LLMxMR-V2", "OpenAI_DeepResearch", "SurveyForge")):
        folder = systems / name
        folder.mkdir(parents=True)
        (folder / f"{topic}.md").write_text((source / draft / f"{TOPIC}.md").read_text(encoding="utf-8"))
    out = board / "out"
    done = _cli(home, "leaderboard", str(systems), "--human-dir", str(human_dir), "--out", str(out),
                "--metrics", "structure,quality")
    assert done.returncode == 0, done.stderr[-3000:]
    assert "[bold]markup[red]" in done.stdout  # printed as spelled, not as Rich markup
    markdown = (out / "leaderboard.md").read_text(encoding="utf-8")
    html = (out / "report.html").read_text(encoding="utf-8")
    # the names are shown as spelled (so "onerror" may be read as a word), but never live:
    problems = [f"{where}: {bad!r}" for where, text in (("leaderboard.md", markdown), ("report.html", html))
                for bad in ANYWHERE if bad in text]
    problems += [f"leaderboard.md: raw tag {m.group(0)!r}" for m in re.finditer(r"<[A-Za-z!/][^>]{0,20}", markdown)]
    problems += [f"leaderboard.md: live link {m.group(0)!r}" for m in re.finditer(r"(?<!\\)\]\((?:javascript|http)", markdown)]
    problems += [f"report.html: hostile tag {t!r}" for t in ("<img", "<b>") if t in html]
    for tag in re.findall(r"<[A-Za-z][^<>]*>", html):  # real tags only (escaped text is "&lt;...")
        if re.search(r"\son\w+\s*=|javascript:|\ssrc\s*=", tag):
            problems.append(f"report.html: live attribute in {tag[:80]!r}")
    assert not problems, problems
    for table in re.findall(r"(?:^\|.*\|\n)+", markdown, re.M):  # every row of a table has the header's cells
        rows = table.strip().split("\n")
        widths = {len(re.split(r"(?<!\\)\|", row)) for row in rows}
        assert len(widths) == 1, rows[:3]
    rows = list(csv.reader(io.StringIO((out / "leaderboard.csv").read_text(encoding="utf-8"))))
    assert all(not cell.startswith(("=", "+", "@")) for row in rows for cell in row[:2]), rows[:5]
