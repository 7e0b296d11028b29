"""Does the offline survey read as a synthesis or as a reading list? (benchmarks/results/content_synthesis.md)

    python benchmarks/content_synthesis.py measure RUN_DIR [RUN_DIR ...]
    python benchmarks/content_synthesis.py replay RUN_DIR OUT_DIR [--reread]

``replay`` rewrites a finished run with the code on PYTHONPATH from its own checkpoint: the plan
and the readings (the papers of every subsection) are kept, drafts, polish, tables, frame and export
run again into a new run directory under OUT_DIR (self-evaluation off). The same pools before and
after, in seconds instead of the minutes the pool takes. ``--reread`` also redoes the readings
(for changes to the choice of papers per subsection).

``measure`` prints, per run, on the survey's sentences (table rows, headings and figure lines left
out), the figures the blind readers' complaints point at:

- ``multi``: share of body sentences citing two or more distinct works;
- ``opens``: share of body sentences that open on one work's name ("Smith et al. [3] ...",
  "In Smith et al. [3], ...", "Moreover, Smith [3] ...", "The paper by Smith [3] ...");
- ``copy``: share of cited body sentences that are near-copies of one cited abstract (at least
  60% of the sentence's word 5-grams, names and markers left out, occur in one cited abstract);
- ``contrast``: body sentences citing two or more works that set them against each other
  (whereas, while, but, unlike, in contrast, by contrast, instead, differ, rather than, both);
- ``concl``: words and sentences of the conclusion; ``intro``: words of the introduction;
- ``repeats``: sentences said twice (same words, markers and case aside) anywhere in the survey;
- ``glitches``: sentences not ending in . ! ? (cut off), starting lower-case, with unbalanced
  brackets or quotes, a placeholder ("xxx"), two stacked connectives ("In addition, Moreover,"),
  a lower-case name before a marker ("kurra et al. [12]"), "1 parts", a connective left inside
  ("report that Indeed, ..."), a word broken across lines ("medi- cal") or "One of the two are";
  each one is listed with -v;
- ``headless``: subsections opening on a sentence that points back at an introduction they lack
  ("Grouped by what they share, the works ...", "A further two works ...");
- ``dash``: share of empty ("–") table cells; ``cited``: references; ``words``: body words.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import sys
from collections import Counter
from pathlib import Path

MARKER = re.compile(r"\[(\d+(?:\s*[,;–-]\s*\d+)*)\]")
SPLIT = re.compile(r"(?<!\bal\.)(?<!e\.g\.)(?<!i\.e\.)(?<!\bvs\.)(?<=[.!?])\s+(?=[A-Z\[(“\"'])")
HANDLE = r"(?:[A-Z][\w'’\-]+|[a-z][\w'’\-]+)(?: (?:et al\.|and [A-Z][\w'’\-]+))?"
OPENS = re.compile(rf"^(?:[A-Z][\w ]{{0,30}},\s+)?(?:In |the \w+ by |The \w+ by )?{HANDLE} \[\d+\]")
CONTRAST = re.compile(r"\b(?:whereas|while|but|unlike|in contrast|by contrast|instead|differ\w*|rather than|both|"
                      r"whilst|however|on the other hand|the former|the latter)\b", re.I)
STACKED = re.compile(r"\b(?:In addition|Moreover|Empirically|On the methods side|As for limitations),\s+"
                     r"(?:[A-Z][a-z]+ly|Concurrently|Additionally|Moreover|Furthermore|In addition|However)\b")
WORD = re.compile(r"[a-z0-9]+")
CORPUS = Path(os.environ.get("SURVEYGRAPH_SHARED_DATA", "../shared/data")) / "corpus" / "arxiv_2025_2026.jsonl.gz"


def numbers(text: str) -> set[int]:
    out = set()
    for match in MARKER.finditer(text):
        for part in re.split(r"\s*[,;]\s*", match.group(1)):
            bounds = re.split(r"\s*[–-]\s*", part)
            out.update(range(int(bounds[0]), int(bounds[-1]) + 1) if len(bounds) == 2 else [int(part)])
    return out


def prose_sentences(text: str) -> list[str]:
    out = []
    for paragraph in re.split(r"\n\s*\n", text or ""):
        lines = [ln for ln in paragraph.splitlines() if ln.strip()]
        if not lines or lines[0].lstrip().startswith(("|", "![", "#")) or re.match(r"Table \d+:", lines[0]):
            continue
        out += [s.strip() for s in SPLIT.split(" ".join(lines)) if s.strip()]
    return out


def grams(words: list[str], n: int = 5) -> set[tuple[str, ...]]:
    return {tuple(words[i:i + n]) for i in range(len(words) - n + 1)}


def abstracts_of(ids: set[str]) -> dict[str, str]:
    found = {}
    with gzip.open(CORPUS, "rt", encoding="utf-8") as fh:
        for line in fh:
            record = json.loads(line)
            if record["arxiv_id"] in ids:
                found[record["arxiv_id"]] = record.get("abstract") or ""
    return found


def glitches(sentence: str) -> list[str]:
    bare = MARKER.sub("", sentence).strip()
    found = []
    if not re.search(r"[.!?][”\"')]*$", bare):
        found.append("no end")
    if bare[:1].islower():
        found.append("lower start")
    if bare.count("(") != bare.count(")") or bare.count("“") != bare.count("”"):
        found.append("unbalanced")
    if re.search(r"\bxxx\b", bare, re.I):
        found.append("placeholder")
    if STACKED.search(sentence):
        found.append("stacked connectives")
    if re.search(r"\b[a-z][a-z]+ (?:et al\.|and [A-Z]\w+) \[\d+\]", sentence) and not re.search(
            r"\b(?:by|of|in|and|from|with|see|as|to|that|than|unlike) [a-z]+ et al", sentence):
        found.append("lower-case name")
    if re.search(r"\b1 (?:parts|papers|works|themes)\b", sentence):
        found.append("1 plural")
    if re.search(r"\bthat (?:Indeed|Moreover|However|Furthermore|Subsequently|Additionally|Thus|Therefore|Since),",
                 sentence) or re.search(r", (?:Since|Indeed|Subsequently),", sentence):
        found.append("embedded connective")
    if re.search(r"[a-z]- (?!(?:and|or|to|nor|as|vs)\b)[a-z]", bare):
        found.append("broken word")
    if re.search(r"\bOne of the \w+ (?:are|propose|contribute)\b", sentence):
        found.append("one of ... are")
    return found


def headless(markdown: str) -> int:
    """Subsections whose first sentence points at what no sentence before it introduced ("Grouped by
    what they share, the works ...", "A further two works ...", "Beyond these lines, ...")."""
    firsts = [prose_sentences(block.split("\n", 1)[-1])[:1] for block in markdown.split("\n### ")[1:]]
    return sum(bool(f and re.match(r"(?:Grouped by what they share|A further|\w+ further works|Beyond th)", f[0]))
               for f in firsts)


def run_numbers(run_dir: Path, verbose: bool = False) -> dict:
    survey = json.loads((run_dir / "survey.json").read_text(encoding="utf-8"))
    markdown = (run_dir / "survey.md").read_text(encoding="utf-8")
    refs = survey["references"]
    by_key = {int(r["key"]): (r.get("arxiv_id") or "") for r in refs}
    abstracts = abstracts_of({v for v in by_key.values() if v})
    frame = {"Abstract", "Introduction", "Conclusion"}
    parts = {s["heading"]: s["text"] for s in survey["sections"] if s["heading"] in frame}
    body = [s for s in survey["sections"] if s["heading"] not in frame and s["heading"] != "References"]
    said = [x for s in body for x in prose_sentences(s["text"])]
    every = [x for s in survey["sections"] for x in prose_sentences(s["text"])]
    cited = [s for s in said if numbers(s)]
    multi = [s for s in said if len(numbers(s)) >= 2]
    copies = 0
    for sentence in cited:
        words = WORD.findall(MARKER.sub(" ", sentence).lower())
        mine = grams(words)
        if not mine:
            continue
        best = max((len(mine & grams(WORD.findall(abstracts.get(by_key.get(n, ""), "").lower()))) / len(mine)
                    for n in numbers(sentence)), default=0)
        copies += best >= 0.6
    keys = Counter(" ".join(WORD.findall(MARKER.sub("", s).lower())) for s in every)
    bad = [(s, g) for s in every for g in [glitches(s)] if g]
    conclusion = prose_sentences(parts.get("Conclusion", ""))
    cells = [c.strip() for line in markdown.splitlines() if line.startswith("| ") and not line.startswith("| Work")
             for c in line.strip().strip("|").split("|")]
    out = {
        "run": run_dir.name, "cited": len(refs), "words": sum(len(s.split()) for s in said),
        "sentences": len(said), "multi": round(len(multi) / max(1, len(said)), 3),
        "opens": round(sum(bool(OPENS.match(s)) for s in said) / max(1, len(said)), 3),
        "copy": round(copies / max(1, len(cited)), 3),
        "contrast": sum(bool(CONTRAST.search(MARKER.sub("", s))) for s in multi),
        "concl": f"{len(' '.join(conclusion).split())}w/{len(conclusion)}s",
        "intro": len(parts.get("Introduction", "").split()),
        "repeats": sum(c - 1 for k, c in keys.items() if c > 1 and len(k.split()) > 4),
        "glitches": len(bad), "headless": headless(markdown), "dash": round(sum(c == "–" for c in cells) / max(1, len(cells)), 3),
    }
    if verbose:
        for sentence, kinds in bad:
            print(f"  glitch {kinds}: {sentence[:160]}")
        for key, count in keys.items():
            if count > 1 and len(key.split()) > 4:
                print(f"  repeated x{count}: {key[:160]}")
    return out


def replay(run_dir: Path, out_dir: Path, reread: bool = False) -> Path:
    """Rewrite a finished run from its checkpoint with the code on PYTHONPATH (see the docstring)."""
    from surveygraph.agents.exporter import new_run_dir
    from surveygraph.graphs.runner import PLAN_NODES, _execute, _saved_state, _write_run_record, build_deps, run_settings

    deps = build_deps(run_settings(run_dir))
    deps.settings.generation.self_evaluate = False  # the measures read survey.json and survey.md only
    values, _pending = _saved_state(run_dir, deps)
    target = new_run_dir(out_dir, values["topic"])
    _write_run_record(target, values["topic"], deps, rerun_of=run_dir.name)
    keep = ("papers", "memory", "section_memory", "demos", "outline", "relevance", "shape", "outline_floor")
    graph_input = {k: values[k] for k in keep if k in values}
    graph_input.update(topic=values["topic"], run_id=target.name, run_dir=str(target), drafts={},
                       readings={} if reread else values.get("readings", {}),
                       fallbacks=[f for f in values.get("fallbacks", []) if f.get("node") in PLAN_NODES])
    _execute(deps, target, graph_input, None, {"replay_of": run_dir.name})
    return target


if __name__ == "__main__":
    command, args = sys.argv[1], [a for a in sys.argv[2:] if not a.startswith("-")]
    if command == "replay":
        print(replay(Path(args[0]), Path(args[1]), reread="--reread" in sys.argv))
    else:
        rows = [run_numbers(Path(a), verbose="-v" in sys.argv) for a in args]
        print(" | ".join(rows[0]))
        for row in rows:
            print(" | ".join(str(v) for v in row.values()))
        mean = {k: round(sum(r[k] for r in rows) / len(rows), 3) for k in rows[0] if isinstance(rows[0][k], (int, float))}
        mean["concl"] = round(sum(int(r["concl"].split("w")[0]) for r in rows) / len(rows))
        print("mean | " + " | ".join(str(mean.get(k, "")) for k in list(rows[0])[1:]))
