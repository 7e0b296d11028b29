"""SurveyForge SAM-R reference coverage and input coverage against a benchmark reference set.

Matching a generated reference to the benchmark goes arXiv id first, then the normalised title,
then a rapidfuzz ratio on normalised titles (>= ``fuzzy``), so that "[3] Attention is all you
need." still matches the benchmark's "Attention is All you Need".
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from rapidfuzz import fuzz, process

from ..errors import UserError
from ..models import Paper, Reference, normalize_arxiv_id, normalize_title

_ENTRY_PREFIX = re.compile(r"^\s*(\[[^\]]{1,40}\]|\d{1,4}[.)])\s*")
_BARE_ARXIV = re.compile(r"^\d{4}\.\d{4,5}(v\d+)?$")
_ARXIV_IN_TEXT = re.compile(r"(?:arxiv[:\s/]*|abs/)(\d{4}\.\d{4,5})(?:v\d+)?", re.I)


def _reference_from_mapping(key: str, item: dict) -> Reference:
    arxiv = item.get("arxivId") or item.get("arxiv_id") or item.get("arxiv")
    title = item.get("title")
    return Reference(
        key=str(key), text=title or "", title=title,
        arxiv_id=normalize_arxiv_id(arxiv) if arxiv else None,
        doi=item.get("doi"), year=item.get("year"),
    )


def _load_json(path: Path) -> list[Reference]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise UserError(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno})") from exc
    if isinstance(data, dict):  # SurveyForge: {"1706.03762": {"arxivId": ..., "title": ...}}
        refs = []
        for key, value in data.items():
            ref = _reference_from_mapping(key, value if isinstance(value, dict) else {"title": str(value)})
            if ref.arxiv_id is None and _BARE_ARXIV.match(key):  # the key itself is the arXiv id
                ref.arxiv_id = normalize_arxiv_id(key)
            refs.append(ref)
        return refs
    if isinstance(data, list):
        return [
            _reference_from_mapping(str(i + 1), v if isinstance(v, dict) else {"title": str(v)})
            for i, v in enumerate(data)
        ]
    raise UserError(f"{path}: expected a JSON object or list of references")


def _load_jsonl(path: Path) -> list[Reference]:
    refs = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            refs.append(_reference_from_mapping(str(lineno), json.loads(line)))
        except json.JSONDecodeError as exc:
            raise UserError(f"{path}:{lineno}: not valid JSON ({exc.msg})") from exc
    return refs


def _load_bib(path: Path) -> list[Reference]:
    import bibtexparser

    library = bibtexparser.parse_string(path.read_text(encoding="utf-8"))
    refs = []
    for entry in library.entries:
        fields = {f.key.lower(): str(f.value) for f in entry.fields}
        title = re.sub(r"[{}]", "", fields.get("title", "")).strip() or None
        arxiv = fields.get("eprint") if "arxiv" in fields.get("archiveprefix", "").lower() else None
        arxiv = arxiv or _find_arxiv(fields.get("journal", "") + " " + fields.get("url", ""))
        refs.append(Reference(key=entry.key, text=title or "", title=title,
                              arxiv_id=normalize_arxiv_id(arxiv), doi=fields.get("doi")))
    return refs


def _find_arxiv(text: str) -> str | None:
    found = _ARXIV_IN_TEXT.search(text or "")
    return found.group(1) if found else None


def _load_lines(path: Path) -> list[Reference]:
    """A Markdown/text list: one reference per line ("[n] Title", "1. Title", "- Title")."""
    refs = []
    for line in path.read_text(encoding="utf-8").splitlines():
        text = line.strip().lstrip("-*").strip()
        if not text or text.startswith("#"):
            continue
        title = _ENTRY_PREFIX.sub("", text).strip()
        refs.append(Reference(key=str(len(refs) + 1), text=text, title=title or None,
                              arxiv_id=normalize_arxiv_id(_find_arxiv(text))))
    return refs


def load_bench_refs(path: Path) -> list[Reference]:
    """Benchmark references from SurveyForge ``ref_bench`` / ``human_written_ref`` JSON
    (arXiv id -> {arxivId, title}), a JSON list, ``.jsonl``, ``.bib`` or a ``.md``/``.txt`` list."""
    path = Path(path)
    if not path.is_file():
        raise UserError(f"benchmark reference file not found: {path}")
    loaders = {".json": _load_json, ".jsonl": _load_jsonl, ".bib": _load_bib,
               ".md": _load_lines, ".txt": _load_lines}
    loader = loaders.get(path.suffix.lower())
    if loader is None:
        raise UserError(f"{path}: unsupported reference file type (use .json, .jsonl, .bib, .md or .txt)")
    return loader(path)


def reference_title(ref: Reference) -> str:
    """The best title we have for a reference: its parsed title, else the raw entry sans marker."""
    return (ref.title or _ENTRY_PREFIX.sub("", ref.text or "")).strip()


def reference_coverage(refs: list[Reference], bench: list[Reference], *, fuzzy: int = 92) -> dict:
    """SAM-R = |R_gen ∩ R_bench| / |R_gen| (generated refs that match a benchmark ref).

    Returns ``{"coverage", "recall", "matched", "generated", "bench", "pairs"}``: ``recall`` is
    the share of distinct benchmark refs hit; ``pairs`` are (generated key, bench key, how).
    Empty generated list -> coverage 0.0.
    """
    bench_by_id = {b.arxiv_id: k for k, b in enumerate(bench) if b.arxiv_id}
    bench_norm = [normalize_title(reference_title(b)) for b in bench]
    bench_by_title = {t: k for k, t in enumerate(bench_norm) if t}
    pairs: list[tuple[str, str, str]] = []
    hit_bench: set[int] = set()
    for ref in refs:
        match, how = None, ""
        arxiv = normalize_arxiv_id(ref.arxiv_id) or _find_arxiv(ref.text)
        if arxiv and arxiv in bench_by_id:
            match, how = bench_by_id[arxiv], "arxiv_id"
        title = normalize_title(reference_title(ref))
        if match is None and title in bench_by_title:
            match, how = bench_by_title[title], "title"
        if match is None and title and bench_norm:
            best = process.extractOne(title, bench_norm, scorer=fuzz.ratio, score_cutoff=fuzzy)
            if best is not None:
                match, how = best[2], "fuzzy"
        if match is not None:
            pairs.append((ref.key, bench[match].key, how))
            hit_bench.add(match)
    return {
        "coverage": len(pairs) / len(refs) if refs else 0.0,
        "recall": len(hit_bench) / len(bench) if bench else 0.0,
        "matched": len(pairs), "generated": len(refs), "bench": len(bench), "pairs": pairs,
    }


def papers_as_references(papers: list[Paper]) -> list[Reference]:
    return [Reference(key=p.paper_id, text=p.title, title=p.title, arxiv_id=p.arxiv_id, doi=p.doi)
            for p in papers]


def input_coverage(papers: list[Paper], bench: list[Reference], *, fuzzy: int = 92) -> dict:
    """SurveyForge "input coverage": the SAM-R overlap computed on the retrieved papers."""
    return reference_coverage(papers_as_references(papers), bench, fuzzy=fuzzy)
