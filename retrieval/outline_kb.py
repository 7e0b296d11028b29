"""The outline knowledge base: how many human surveys organise their fields, mined once.

SurveyForge learns outline structure from thousands of human outlines; offline we have three
sources, and this module mines them into one JSON file in the data home (``outline_kb.json``, built
by ``surveygraph outlines build-kb``):

* human outlines (``outlines.json`` files and Markdown surveys, e.g. the 20 SurveyBench CS surveys
  and ASG-Bench's 57 surveys of six other disciplines): their headings, by level;
* the survey and review papers of the paper store: their abstracts often state their taxonomy
  ("we categorize existing methods into data-level, model-level and system-level optimization"),
  and the stated categories are mined as concept phrases (``taxonomy_items``).

Planning asks it for the surveys related to a topic (``related``) and how often the literature uses
a phrase as a heading or category (``phrase_counts``). A topic's own human survey is never handed
back: ``exclude`` drops every survey whose topic or title matches an excluded outline, and every
survey whose title matches (token-set similarity ≥ 90) the title of an excluded outline's survey.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from ..errors import UserError
from ..models import normalize_title
from ..settings import Settings

KB_FILE = "outline_kb.json"
VECTORS_FILE = "outline_kb.npy"
KB_VERSION = 1
SURVEY_TITLE = re.compile(r"\b(surveys?|review|overview|tutorial|taxonomy|systematic literature|state of the art)\b", re.I)
# A sentence that states a taxonomy, then the list that follows its cue.
_CUE = re.compile(
    r"\b(?:categori[sz]\w*|classif\w*|taxonom\w*|group(?:s|ed|ing)?|divid\w*|organi[sz]\w*|partition\w*|"
    r"structur\w*|decompos\w*|fall into|distinguish\w*)\b", re.I)
_LIST_START = re.compile(r"\b(?:into|namely|including|comprising)\b|:", re.I)
_ENUM = re.compile(r"\(\s*(?:\d+|[ivx]+|[a-e])\s*\)|\b(?:\d+|[ivx]+)\)\s*|\be\.g\.,?|\bi\.e\.,?", re.I)
_ITEM_SPLIT = re.compile(r"\s*(?:,|;|\band\b|\bor\b|\bas well as\b)\s*", re.I)
_LEAD = re.compile(r"^(?:the|a|an|both|either|three|four|five|six|two|several|key|main|major|distinct|core)\s+", re.I)
_COUNT_NOUN = re.compile(r"^(?:\w+\s+)?(?:categories|types|paradigms|dimensions|stages|families|classes|levels|"
                         r"perspectives|aspects|directions|groups|kinds|areas|branches|pillars|phases|strategies|"
                         r"approaches|methods|components|modules)\b", re.I)
_BAD_ITEM = re.compile(r"^(?:highlighting|including|spanning|covering|providing|discussing|analy[sz]ing|need|"
                       r"steady|increasing|emerging|over|thereby|especially|particularly|ranging)\b|"
                       r"\b(we|our|this|these|those|which|that|is|are|was|were|be|been|has|have|can|will|"
                       r"et|al|paper|survey|review|work|study)\b", re.I)


@dataclass
class KBSurvey:
    source: str  # "outline" (a human outline file) or "abstract" (a survey paper of the store)
    title: str
    topic: str = ""
    headings: list[list] = field(default_factory=list)  # [level, title]
    taxonomy: list[str] = field(default_factory=list)  # categories stated in the abstract

    def phrases(self, max_level: int = 3) -> list[str]:
        return [str(t) for lv, t in self.headings if int(lv) <= max_level] + list(self.taxonomy)

    def text(self) -> str:
        """What relatedness is judged on: the title and the top of its structure."""
        top = [str(t) for lv, t in self.headings if int(lv) == 1][:12] or self.taxonomy[:8]
        return f"{self.topic + '. ' if self.topic and self.topic != self.title else ''}{self.title}. " + "; ".join(top)


def _clean_item(item: str) -> str:
    item = _ENUM.sub(" ", item)
    item = re.sub(r"\([^)]*\)?|\[[^\]]*\]?", " ", item)  # acronyms and asides in brackets
    item = " ".join(item.replace("--", " ").split()).strip(" .:-—–\"'")
    previous = None
    while previous != item:
        previous, item = item, _LEAD.sub("", item)
    return item


def taxonomy_items(abstract: str) -> list[str]:
    """Categories a survey abstract states: 'we categorize X into A, B, and C' -> [A, B, C].

    Each item is 1-6 words with no verb-like function word; a shared head noun after the last item
    is given to bare modifiers ('sampling-based, feedback-based and search-based approaches')."""
    found: list[str] = []
    for sentence in re.split(r"(?<=[.!?])\s+", str(abstract or "")):
        if not _CUE.search(sentence):
            continue
        start = _LIST_START.search(sentence, _CUE.search(sentence).start())
        if not start:
            continue
        tail = sentence[start.end():].rstrip(". ")
        tail = re.split(r"\s[-—–]{1,2}\s|\b(?:which|that|where|while|with a focus|to provide|to offer|based on)\b",
                        tail, maxsplit=1)[0]
        tail = _COUNT_NOUN.sub("", tail.strip(" :"))
        items = [_clean_item(x) for x in _ITEM_SPLIT.split(tail)]
        items = [x for x in items if x and 1 <= len(x.split()) <= 6 and not _BAD_ITEM.search(x)
                 and re.search(r"[a-z]{3}", x.lower())]
        if len(items) < 2:
            continue
        head = items[-1].split()[-1] if len(items[-1].split()) > 1 else ""
        if head:  # 'sampling-based, feedback-based and search-based approaches'
            items = [x + f" {head}" if len(x.split()) == 1 and x.endswith("-based") else x for x in items]
        found += items
    return list(dict.fromkeys(found))


def _outline_surveys(paths: list[Path]) -> list[KBSurvey]:
    from .outlines import OUTLINES_JSON, outline_from_markdown, outlines_from_json

    surveys: dict[str, KBSurvey] = {}
    for path in paths:
        json_files = [path] if path.suffix == ".json" else sorted(path.rglob(OUTLINES_JSON))
        md_files = [path] if path.suffix in (".md", ".markdown") else sorted(path.rglob("*.md")) if path.is_dir() else []
        titles = {}
        for md in md_files:  # the Markdown gives the survey's own title; outlines.json the cleaner headings
            outline = outline_from_markdown(md.read_text(encoding="utf-8", errors="replace"), name=md.name)
            titles[normalize_title(outline.topic)] = outline.title
            if len(outline.entries) >= 2:
                surveys[normalize_title(outline.topic)] = KBSurvey(
                    "outline", outline.title or outline.topic, outline.topic,
                    [[e.level, e.title] for e in outline.entries])
        for file in json_files:
            for outline in outlines_from_json(file):
                key = normalize_title(outline.topic)
                surveys[key] = KBSurvey("outline", outline.title or titles.get(key) or outline.topic, outline.topic,
                                        [[e.level, e.title] for e in outline.entries])
    return list(surveys.values())


BACKGROUND_EVERY = 4  # one paper in four of the store gives the background phrase frequencies
BACKGROUND_MIN_DF = 3


def _store_pass(settings: Settings) -> tuple[list[KBSurvey], dict]:
    """The store's survey papers, and how many papers of a background sample use each 2-4 word
    phrase: a phrase common everywhere ('real-world applications', 'computational overhead') names
    no part of any one field."""
    from ..agents.outline.grams import _WordFacts, phrase_grams, stem_key
    from ..agents.outline.names import _tokens
    from .paper_table import PaperTable

    path = settings.store_dir / "papers.sqlite"
    if not path.is_file():
        return [], {"papers": 0, "df": {}}
    table = PaperTable(path, read_only=True)
    surveys, df, sampled, facts = [], Counter(), 0, _WordFacts(set())
    for batch in table.iter_ids():
        for row, paper in enumerate(table.get(batch).values()):
            if SURVEY_TITLE.search(paper.title or ""):
                surveys.append(KBSurvey("abstract", paper.title, "", [], taxonomy_items(paper.abstract or "")))
            if row % BACKGROUND_EVERY == 0:
                sampled += 1
                df.update({stem_key(list(g)) for run in _tokens(f"{paper.title}. {paper.abstract or ''}")
                           for g in phrase_grams(run, set(), facts)})
    return surveys, {"papers": sampled, "df": {k: n for k, n in df.items() if n >= BACKGROUND_MIN_DF}}


def build_kb(settings: Settings, outline_paths: list[Path], *, encode=None) -> dict:
    """Mine the outlines under ``outline_paths`` and the store's survey papers; write the KB.
    Returns what it holds (counts by source)."""
    missing = [str(p) for p in outline_paths if not Path(p).exists()]
    if missing:
        raise UserError(f"no such outline file or folder: {', '.join(missing)}")
    from_store, background = _store_pass(settings)
    surveys = _outline_surveys([Path(p) for p in outline_paths]) + from_store
    if not surveys:
        raise UserError("nothing to mine: no human outlines given and no survey papers in the paper store "
                        "(ingest a corpus, or pass outline folders)")
    encoder = _index_encoder_id(settings) if encode is None else "given"
    vectors = np.asarray((encode or _index_encode(settings))([s.text() for s in surveys]), dtype=np.float32)
    home = Path(settings.home)
    home.mkdir(parents=True, exist_ok=True)
    np.save(home / VECTORS_FILE, vectors)
    summary = {"outlines": sum(s.source == "outline" for s in surveys),
               "abstracts": sum(s.source == "abstract" for s in surveys),
               "abstracts_with_taxonomy": sum(bool(s.taxonomy) for s in surveys),
               "headings": sum(len(s.headings) for s in surveys), "taxonomy_items": sum(len(s.taxonomy) for s in surveys)}
    summary["background_papers"] = background["papers"]
    (home / KB_FILE).write_text(json.dumps({"version": KB_VERSION, "encoder": encoder, "summary": summary,
                                            "background": background, "surveys": [asdict(s) for s in surveys]}),
                                encoding="utf-8")
    return summary


LEGACY_ENCODER = "minilm"  # what KBs recording no encoder were embedded with


def _index_encoder_id(settings: Settings) -> str:
    from .embeddings import embedder_id

    return embedder_id(settings)


def _index_encode(settings: Settings):
    """The paper index's encoder: the topic is compared with the surveys in the index's space."""
    from .embeddings import get_embedder

    embedder = get_embedder(settings)
    return lambda texts: embedder.encode(list(texts))


class OutlineKB:
    """The mined surveys and their vectors (rows in the same order)."""

    def __init__(self, surveys: list[KBSurvey], vectors: np.ndarray, background: dict | None = None):
        self.surveys = surveys
        self.background = background or {"papers": 0, "df": {}}
        self.vectors = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)

    @classmethod
    def load(cls, settings: Settings) -> "OutlineKB | None":
        """The KB of the data home, or None when it was never built."""
        home = Path(settings.home)
        if not (home / KB_FILE).is_file() or not (home / VECTORS_FILE).is_file():
            return None
        try:
            data = json.loads((home / KB_FILE).read_text(encoding="utf-8"))
            vectors = np.load(home / VECTORS_FILE)
        except (OSError, ValueError) as exc:
            raise UserError(f"the outline knowledge base in {home} is unreadable ({exc}): "
                            "run `surveygraph outlines build-kb` again") from exc
        surveys = [KBSurvey(**s) for s in data.get("surveys", [])]
        if data.get("version") != KB_VERSION or len(surveys) != len(vectors):
            raise UserError(f"the outline knowledge base in {home} is from another version: "
                            "run `surveygraph outlines build-kb` again")
        # Planning compares the topic with the surveys in the paper index's space. A KB built with
        # another encoder (before version 2 of the planner: contextual MiniLM) is re-encoded here,
        # a few hundred milliseconds with the static index encoder, instead of loading that model.
        if data.get("encoder", LEGACY_ENCODER) not in (_index_encoder_id(settings), "given"):
            vectors = np.asarray(_index_encode(settings)([s.text() for s in surveys]), dtype=np.float32)
        return cls(surveys, vectors, data.get("background"))

    def excluded_rows(self, exclude: list[str]) -> set[int]:
        """Rows of the excluded outlines (by topic or title) and of every survey whose title matches
        one of theirs: a topic is never handed its own human survey's headings."""
        from rapidfuzz import fuzz

        keys = {normalize_title(x) for x in exclude if x}
        titles = {normalize_title(x) for x in exclude if x}
        for s in self.surveys:
            if keys & {normalize_title(s.topic), normalize_title(s.title)}:
                titles.add(normalize_title(s.title))
        titles.discard("")
        return {i for i, s in enumerate(self.surveys)
                if keys & {normalize_title(s.topic), normalize_title(s.title)} or
                any(fuzz.token_set_ratio(normalize_title(s.title), t) >= 90 for t in titles if len(t.split()) >= 3)}

    def related(self, topic_vector: np.ndarray, *, k: int, exclude: list[str] = ()) -> list[tuple[KBSurvey, float]]:
        """The ``k`` surveys closest to the topic (cosine of the topic to title + top headings)."""
        if not self.surveys:
            return []
        sims = self.vectors @ (topic_vector / max(float(np.linalg.norm(topic_vector)), 1e-12))
        banned = self.excluded_rows(list(exclude))
        order = [i for i in np.argsort(-sims, kind="stable") if i not in banned][:k]
        return [(self.surveys[i], float(sims[i])) for i in order]

    def phrase_counts(self, exclude: list[str] = ()) -> dict[str, int]:
        """Normalised phrase -> how many surveys use it as a heading or a stated category."""
        banned = self.excluded_rows(list(exclude))
        counts: dict[str, int] = {}
        for i, s in enumerate(self.surveys):
            if i in banned:
                continue
            for key in {normalize_title(p) for p in s.phrases()} - {""}:
                counts[key] = counts.get(key, 0) + 1
        return counts


def default_sources() -> list[Path]:
    """The human outlines of the shared data, when it is there: SurveyBench's 20 CS surveys and
    ASG-Bench's human surveys of six other disciplines."""
    from .default_data import shared_data_dir

    folder = shared_data_dir()
    if folder is None:
        return []
    found = [folder / "weaidb_surveybench" / "HumanSurvey", folder / "asg_bench" / "HumanSurvey"]
    return [p for p in found if p.is_dir()]


_LOADED: dict[str, OutlineKB | None] = {}


def knowledge_base(settings: Settings, *, build_missing: bool = True) -> tuple[OutlineKB | None, str | None]:
    """The data home's KB (loaded once per process), built first from the default sources when it is
    missing and the home holds a paper store; and a note saying what happened, if anything."""
    key = str(Path(settings.home).resolve())
    if key in _LOADED:
        return _LOADED[key], None
    kb = OutlineKB.load(settings)
    note = None
    if kb is None and build_missing and (settings.store_dir / "papers.sqlite").is_file():
        try:
            summary = build_kb(settings, default_sources())
        except UserError as exc:  # a store with no survey and no outline found: the outline is planned without
            _LOADED[key] = None
            return None, f"no outline knowledge base ({exc})"
        kb = OutlineKB.load(settings)
        note = (f"built the outline knowledge base once ({summary['outlines']} human outlines, "
                f"{summary['abstracts']} survey abstracts); rebuild with `surveygraph outlines build-kb`")
    _LOADED[key] = kb
    return kb, note
