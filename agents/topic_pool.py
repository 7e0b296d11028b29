"""The topic's pool: which papers of the store are about the topic, and how big a survey they make.

Planning builds memory M with retrieval/literature_pool.py: rounds of retrieval (the topic, then
sub-queries drawn from the kept papers' key phrases, then the kept papers' embedding neighbours),
each candidate judged by retrieval/topic_judge.py (the topic's facets, the vocabulary learned from
its confident papers, dense similarity; a model fitted on the corpus-wide labelled set). Only kept
papers become M, so every later step sees on-topic papers only. The survey's shape follows what is
kept: fewer on-topic papers, fewer subsections; fewer than MIN_ON_TOPIC, a clear stop that names
what the store does hold near the topic.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

from ..errors import UserError
from ..memory.store import paper_dump, remember_papers
from ..retrieval.literature_pool import LiteraturePool, PoolOptions, build_literature_pool, key_phrases, rebuild_judge
from ..retrieval.topic_judge import PaperRecord, model_for
from .deps import GenerationDeps
from .facets import KnownNames, paper_facets
from .outline.asked import acronym_words
from .name_roles import common_names, family, is_data, is_tool, name_mentions

MIN_ON_TOPIC = 5  # below this the corpus cannot support a survey of the topic at all
SHORT_SURVEY = 40  # up to this many on-topic papers the survey says it is short, and why


@dataclass
class TopicPool:
    ids: list[str]  # kept papers, most probably on topic first
    dumps: dict[str, dict]
    record: dict  # for state['relevance'] and the manifest
    shape: dict  # {"sections", "subsections", "reason"}
    notes: list[dict] = field(default_factory=list)  # fallbacks to record (short survey, relevance off)


def survey_shape(kept: int, deps: GenerationDeps) -> dict:
    """Sections x subsections the kept papers can fill: about ``papers_per_subsection`` distinct
    papers per subsection, never more than the configured shape."""
    settings = deps.settings.generation
    wanted = settings.sections * settings.subsections
    fillable = max(1, kept // settings.papers_per_subsection)
    total = min(wanted, fillable)
    sections = max(1, min(settings.sections, math.ceil(total / settings.subsections)))
    subsections = max(1, min(settings.subsections, math.ceil(total / sections)))
    reason = ("as configured" if total == wanted else
              f"{kept} on-topic papers fill about {fillable} subsection(s) of {settings.papers_per_subsection} papers")
    return {"sections": sections, "subsections": subsections, "reason": reason}


def pool_options(deps: GenerationDeps) -> PoolOptions:
    settings = deps.settings.generation
    return PoolOptions(per_query=settings.pool_per_query, max_rounds=settings.pool_rounds, seed=settings.seed,
                       facet_gate=settings.facet_gate)


def _dumps(ids: list[str], deps: GenerationDeps) -> dict[str, dict]:
    return {p.paper_id: paper_dump(p) for p in deps.corpus.get(ids)}


def _nearest_topics(pool: LiteraturePool) -> str:
    """What the store holds near the topic: key phrases of the papers retrieved for it, with how
    many of them use each."""
    first = pool.rounds[0].candidates if pool.rounds else 0
    texts = [title for title, _ in list(pool.texts.values())[:first]]
    phrases = key_phrases(texts, [], 5) if texts else []
    counts = [(p, sum(p in t.lower() for t in texts)) for p in phrases]
    return "; ".join(f"{p!r} ({n} papers)" for p, n in counts if n) or "nothing with a shared theme"


def topic_pool(topic: str, deps: GenerationDeps, *, on_progress=None) -> TopicPool:
    """Build memory M for ``topic``: the on-topic papers of the store, found in rounds."""
    settings = deps.settings.generation
    if not settings.relevance:  # the ablation: the topic's nearest candidates, none judged
        hits = deps.corpus.search(topic, k=settings.outline_candidates, mode="hybrid", tre=False)
        ids, dumps = remember_papers(hits)
        return TopicPool(ids, dumps, {"enabled": False, "candidates": len(ids), "kept": len(ids)},
                         survey_shape(len(ids), deps),
                         [{"node": "gather_topic_context", "reason": "relevance filter off "
                           "(generation.relevance=false): every retrieved candidate enters the pool"}])
    pool = build_literature_pool(topic, deps.corpus, options=pool_options(deps), on_round=on_progress)
    estimate = pool.estimate
    facets = " + ".join(f.phrase for f in pool.judge.facets)
    if len(pool.kept) < MIN_ON_TOPIC:
        raise UserError(
            f"the paper store holds too little on {topic!r}: {len(pool.kept)} of {len(pool.probability)} candidates "
            f"found in {len(pool.rounds)} round(s) are about it (an estimated {estimate['on_topic']:.0f} in the "
            f"whole store; facets read from the topic: {facets}). Nearest themes the store does hold: "
            f"{_nearest_topics(pool)}. Ingest papers on the topic (`surveygraph corpus fetch arxiv ...` or "
            "`corpus ingest`) or name the topic as its literature does")
    kept = pool.kept[: settings.memory_limit]
    span = deps.corpus.year_span() if hasattr(deps.corpus, "year_span") else None
    record = {"enabled": True, **pool.record(), "memory": len(kept),
              "probability": {i: round(pool.probability[i], 4) for i in kept},
              "corpus": {"papers": deps.corpus.count(), "years": list(span) if span else None},
              # what the judge needs to be rebuilt for store-wide reads (MR off): it is deterministic
              "judge_seeds": pool.seed_ids, "options": pool_options(deps).__dict__,
              # older readers of the record (the outline floor's topic words)
              "concepts": [{"phrase": f.phrase, "variants": [form for u in f.units for form in u.forms]}
                           for f in pool.judge.facets]}
    dumps = _dumps(kept, deps)
    record["known_names"] = misread_names(list(pool.texts.values()), list(dumps.values())).to_record()
    shape = survey_shape(len(kept), deps)
    notes = []
    if len(pool.kept) <= SHORT_SURVEY or shape["reason"] != "as configured":
        notes.append({"node": "gather_topic_context", "reason": f"short survey: {len(pool.kept)} on-topic papers found "
                      f"in {len(pool.probability)} candidates (an estimated {estimate['on_topic']:.0f} in the whole "
                      f"store of {estimate['store']}); {shape['sections']} section(s) x {shape['subsections']} "
                      "subsection(s) instead of padding with off-topic papers"})
    if len(pool.kept) > len(kept):
        notes.append({"node": "gather_topic_context", "reason": f"memory M holds the {len(kept)} most probable of "
                      f"{len(pool.kept)} on-topic papers (generation.memory_limit)"})
    return TopicPool(kept, dumps, record, shape, notes)


def misread_names(texts: list[tuple[str, str]], papers: list[dict]) -> KnownNames:
    """The names the kept papers' abstracts alone would misread, as the pool's candidates (``texts``:
    titles and abstracts) use them (agents/name_roles.py): evaluation data that are tools (models,
    methods), own system names that are data ("reasoning performance (GSM8K)"), and own system names
    that many candidates use (the field's terms: "DeepFakes", "AIGC")."""
    roles = name_mentions(texts)
    facets = [paper_facets(paper) for paper in papers]  # each paper read once, for its data and own names
    data = {name for f in facets for name in f.data}
    own = {name for f in facets for name in f.own_names}
    common = common_names(texts)
    tools = frozenset(n for n in data if is_tool(n, roles))
    # the learned check (agents/data_names.py) was fitted on role counts over the kept papers, so it
    # reads them there, not over the wider candidates
    kept_roles = name_mentions([(str(p.get("title") or ""), str(p.get("abstract") or "")) for p in papers])
    counts = tuple(sorted((n, *_tool_and_data(kept_roles, n)) for n in data - tools))
    return KnownNames(tools, frozenset(n for n in own if is_data(n, roles)), frozenset(n for n in own if n in common),
                      counts)


def _tool_and_data(roles: dict, name: str) -> tuple[int, int]:
    seen = roles.get(name) or roles.get(family(name)) or {}
    return int(seen.get("tool", 0)), int(seen.get("data", 0))


def known_names(relevance: dict | None) -> KnownNames:
    """The run's ``misread_names`` (none for runs made before they were recorded)."""
    return KnownNames.from_record((relevance or {}).get("known_names"))


def topic_terms(relevance: dict | None) -> set[str]:
    """The words of the topic's concept variants the pool mined ("vit" for Vision Transformers,
    "ssl" for self-supervised learning): like the topic's own words, they name no part of it, and no
    line of works in it ("Four works involve ViT" in a survey of vision transformers)."""
    return {w for c in (relevance or {}).get("concepts", []) for v in c.get("variants", []) for w in v.split()
            if w != "*"}


def written_terms(topic: str, relevance: dict | None, papers: dict[str, dict]) -> set[str]:
    """The words no line or pair of a subsection is named by: the topic's mined variants and the words
    its acronyms stand for, read from all the run's papers. A subsection's few papers may not spell
    "RLHF" out, and a survey of "RLHF and GRPO for post-training LLMs" wrote "Both involve
    reinforcement learning: ..." (c29g)."""
    texts = [f"{p.get('title') or ''}. {p.get('abstract') or ''}" for p in (papers or {}).values()]
    return topic_terms(relevance) | acronym_words(topic, texts)


def shape_of(state: dict, deps: GenerationDeps) -> tuple[int, int]:
    """(sections, subsections) for this run: the pool's shape, or the settings for older states."""
    shape = state.get("shape") or {}
    settings = deps.settings.generation
    return int(shape.get("sections") or settings.sections), int(shape.get("subsections") or settings.subsections)


@lru_cache(maxsize=4)
def _judge_for(topic: str, seeds: tuple[str, ...], options: tuple, corpus_key: int, corpus) -> object:
    return rebuild_judge(topic, list(seeds), corpus, options=PoolOptions(**dict(options)))


def on_topic(topic: str, record: dict | None, hits: list, deps: GenerationDeps) -> list:
    """``hits`` found after planning (store-wide reads, MR off) that the pool's judge keeps;
    ``record`` is the run's relevance record (state['relevance'])."""
    record = record or {}
    if not record.get("enabled") or not record.get("judge_seeds") or not hits:
        return hits
    judge = _judge_for(topic, tuple(record["judge_seeds"]), tuple(sorted(record["options"].items())),
                       id(deps.corpus), deps.corpus)
    vectors = deps.corpus.vectors([h.paper.paper_id for h in hits])
    records = [PaperRecord(h.paper.paper_id, h.paper.title, h.paper.abstract or "", vectors.get(h.paper.paper_id))
               for h in hits]
    keep = judge.probability(records, model_for(deps.corpus)) >= float(record["threshold"])
    return [h for h, k in zip(hits, keep) if k]
