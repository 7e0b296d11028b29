"""Concept phrases of a pool of papers, and which papers each one organises.

A heading of the taxonomy is a multi-word phrase the literature uses for a concept ("KV cache
compression", "speculative decoding"), chosen because many pool papers are about it. This module
finds the candidates and their support:

* candidates are 2-4 word phrases of the pool's titles and abstracts (sentence-bounded, no stop or
  boilerplate word at either end, not the topic alone), plus the phrases related human surveys use
  as headings or stated categories (the outline knowledge base, retrieval/outline_kb.py);
* a paper *supports* a phrase when its title (strongly) or abstract (weakly) contains it, matched
  on light stems ("KV caches" = "KV cache");
* a phrase's score rewards how many papers it organises, how often human surveys use it as a
  heading or category, and naming papers in their titles (titles name what a paper is about).

Why not KeyBERT or YAKE alone: a heading must organise papers, so each candidate needs the set of
papers that name it, which an index of phrase occurrences gives directly; keyphrase rankers score a
phrase for one text (YAKE) or by similarity to one embedded text (KeyBERT) and give no paper sets.
benchmarks/outline_keyphrases.py compares the four on the tuning topics against the headings of
each topic's own human survey.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from ...evaluation.headings import stem_word
from ..digest import stated_contributions
from .grams import INNER, MAX_WORDS, MEASURE_CUES, MIN_USES, TASK_FOLLOWERS, _gram_spans, _WordFacts, stem_key, verb_like
from .names import STOP, _tokens, initials, title_case

_COORDINATION_TOKEN = re.compile(r"[a-z0-9][a-z0-9'-]*|[()/]")
_CONJUNCTIONS = {"and", "or", "vs", "versus", "/"}
FOCUS_WEIGHT = 0.5  # a paper naming a phrase where its abstract states its contribution, against 1 for its title
ASIDE_WEIGHT = 0.2  # one naming it elsewhere in the abstract only: background, baselines, results


@dataclass
class Concept:
    key: str  # stems joined by spaces
    form: str  # usual spelling
    strong: set[int] = field(default_factory=set)  # rows whose title has it
    weak: set[int] = field(default_factory=set)  # rows whose abstract (only) has it
    focus: set[int] = field(default_factory=set)  # weak rows whose abstract has it where it states its contribution
    prior: int = 0  # human surveys using it as a heading or category
    related: bool = False  # used by a survey related to the topic
    lift: float = 1.0  # its share of the pool over its share of the background sample

    @property
    def support(self) -> set[int]:
        return self.strong | self.weak

    def weight(self, rows: set[int] | None = None) -> float:
        strong = self.strong if rows is None else self.strong & rows
        weak = self.weak if rows is None else self.weak & rows
        focus = self.focus & weak
        return len(strong) + FOCUS_WEIGHT * len(focus) + ASIDE_WEIGHT * len(weak - focus)

    def about(self, rows: set[int] | None = None) -> set[int]:
        """The rows about it: naming it in the title or where the abstract states the contribution."""
        about = self.strong | self.focus
        return about if rows is None else about & rows

    def title(self) -> str:
        return title_case(self.form)


# Words after a phrase that do not make it a modifier: generic heads ('token merging methods',
# 'semantic segmentation tasks', 'vision transformer backbones') name what kind of thing it is.
# (nouns only: 'use' ends 'tool use', which "Multi-Turn Tool" and "Agentic Tool" headings were cut from)
GENERIC_HEAD_STEMS = {stem_word(w) for w in TASK_FOLLOWERS | {
    "model", "models", "method", "methods", "framework", "frameworks", "approach", "approaches", "system",
    "systems", "technique", "techniques", "strategy", "strategies", "mechanism", "mechanisms", "paper", "papers",
    "study", "studies", "work", "works", "performance", "tasks", "problems", "results", "capability",
    "capabilities", "network", "networks", "architecture", "architectures", "module", "modules", "pipeline", "pipelines",
    "benchmarks", "datasets", "settings", "scenarios", "applications", "domains", "paradigm", "paradigms",
    "backbone", "backbones", "layer", "layers", "block", "blocks", "component", "components", "setup", "regime"}}
MIN_MODIFIER_USES = 4


class PhraseIndex:
    """Every candidate phrase of the pool with the rows that contain it (title / abstract)."""

    def __init__(self, titles: list[str], abstracts: list[str], banned: set[str]):
        self.n = len(titles)
        self.in_title: dict[str, set[int]] = defaultdict(set)
        self.in_abstract: dict[str, set[int]] = defaultdict(set)
        self.in_focus: dict[str, set[int]] = defaultdict(set)  # in the abstract's contribution sentences
        self.forms: dict[str, Counter] = defaultdict(Counter)  # original casing ('KV cache', 'LoRA')
        self.followers: dict[str, Counter] = defaultdict(Counter)  # next word after each occurrence
        self.preceders: dict[str, Counter] = defaultdict(Counter)  # word before each occurrence
        self.banned = banned
        self.texts = [f"{title}. {abstract}" for title, abstract in zip(titles, abstracts)]
        self._row_words: dict[int, tuple[list[str], list[str]]] = {}
        runs = [(_tokens(title), _tokens(abstract)) for title, abstract in zip(titles, abstracts)]
        facts = _WordFacts(banned, verb_like([r for pair in runs for r in pair]))
        for row, (title_runs, abstract_runs) in enumerate(runs):
            for target, text_runs in ((self.in_title, title_runs), (self.in_abstract, abstract_runs)):
                for run in text_runs:
                    known = [facts(w.lower()) for w in run]
                    stems = [f[0] for f in known]
                    for i, n in _gram_spans(known):
                        key = " ".join(stems[i:i + n])
                        target[key].add(row)
                        self.forms[key][" ".join(run[i:i + n])] += 1
                        self.followers[key][stems[i + n] if i + n < len(run) else ""] += 1
                        self.preceders[key][run[i - 1].lower() if i else ""] += 1
        # where an abstract says what its work does: a phrase there is what the work is about, one
        # only elsewhere may be its background or its baseline ('convolutional neural networks' in 41
        # of 122 ViT abstracts, nearly all "ViTs outperform CNNs", headed a section of a ViT survey)
        for row, abstract in enumerate(abstracts):
            for run in _tokens(" ".join(stated_contributions(abstract))):
                known = [facts(w.lower()) for w in run]
                stems = [f[0] for f in known]
                for i, n in _gram_spans(known):
                    self.in_focus[" ".join(stems[i:i + n])].add(row)

    def beside_topic(self, concept: Concept) -> set[int]:
        """The rows that set the phrase (or its initials) beside one of the topic's words with a
        conjunction: "CNNs and ViTs", "SFT and RL", "supervised fine-tuning (SFT) or reinforcement
        learning". Coordination joins things of one kind (Roark and Charniak, COLING 1998, read
        co-hyponyms off it): a phrase a pool names there is an alternative to the topic."""
        words = concept.key.split()
        acronym = initials(concept.form)
        rows = set()
        for row in concept.support:
            tokens, stems = self._words(row)
            n = len(words)
            for i in range(len(tokens)):
                if stems[i:i + n] == words:
                    end = i + n
                elif acronym and tokens[i].rstrip("s") == acronym:
                    end = i + 1
                else:
                    continue
                if self._topic_beside(tokens, end, 1) or self._topic_beside(tokens, i - 1, -1):
                    rows.add(row)
                    break
        return rows

    def _words(self, row: int) -> tuple[list[str], list[str]]:
        """A row's lower-cased words, brackets and slashes, and their stems (computed once)."""
        found = self._row_words.get(row)
        if found is None:
            tokens = _COORDINATION_TOKEN.findall(self.texts[row].lower())
            found = self._row_words[row] = (tokens, [stem_word(t) for t in tokens])
        return found

    def _topic_beside(self, tokens: list[str], at: int, step: int) -> bool:
        """A conjunction from ``at`` on (past a bracketed acronym), then a topic word within three words."""
        if step > 0 and at < len(tokens) and tokens[at] == "(":
            close = tokens.index(")", at) if ")" in tokens[at:at + 4] else at
            at = close + 1
        if step < 0 and at >= 0 and tokens[at] == ")":
            opened = max((j for j in range(max(0, at - 4), at) if tokens[j] == "("), default=at)
            at = opened - 1
        if not 0 <= at < len(tokens) or tokens[at] not in _CONJUNCTIONS:
            return False
        near = tokens[at + 1:at + 4] if step > 0 else tokens[max(0, at - 3):at]
        return any(t.replace("-", "").isalnum() and t not in STOP and t in self.banned for t in near)

    def task_share(self, key: str) -> float:
        """The share of the phrase's uses followed by a word that makes it a task or a setting
        ('question answering tasks', '... benchmarks', 'autonomous driving scenarios'): a problem the
        methods are applied to, not a family of methods. On the tuning pools method phrases score
        0.00-0.02 and task phrases 0.12-0.15 (benchmarks/results/outline_taxonomy.md)."""
        found = self.followers.get(key)
        total = sum(found.values()) if found else 0
        return sum(found[w] for w in TASK_FOLLOWERS if w in found) / total if total >= MIN_USES else 0.0

    def measure_share(self, key: str) -> float:
        """The share of the phrase's uses after a word that changes or sizes a quantity ('reduces
        computational costs', 'high token usage', 'improve rendering speed'): a measure methods
        move, not a family of methods."""
        found = self.preceders.get(key)
        total = sum(found.values()) if found else 0
        return sum(found[w] for w in MEASURE_CUES if w in found) / total if total >= MIN_USES else 0.0

    def incomplete(self, key: str) -> bool:
        """Nearly always continued by the same word ('integrating external' -> 'knowledge'), or, in
        MIN_MODIFIER_USES uses or more, nearly always by some word that is not a generic head: a
        modifier cut before the noun it modifies ('training-free token' -> pruning / merging /
        reduction, 'supervised and reinforcement' -> learning / fine-tuning; blind readers quoted
        "Training-Free Token" and "Diffusion-Based Image" as malformed headings)."""
        found = self.followers.get(key)
        if not found or sum(found.values()) < 2:
            return False
        total = sum(found.values())
        word, count = found.most_common(1)[0]
        # a preposition after it ('model compression by ...') ends the phrase, it does not continue it
        if word and word not in STOP and count >= 0.7 * total:
            return True
        continued = sum(n for w, n in found.items() if w and w not in STOP and w not in GENERIC_HEAD_STEMS)
        return total >= MIN_MODIFIER_USES and continued >= 0.7 * total

    def form(self, key: str) -> str:
        found = self.forms.get(key)
        if not found:
            return key
        best = found.most_common(1)[0][0]
        lower = best.lower()
        # a capital that only starts a title ('Speculative Decoding') yields to the lower-case form
        if lower in found and all(w[1:].islower() or len(w) == 1 for w in best.split()):
            return lower
        return best

    def concept(self, key: str) -> Concept:
        strong = set(self.in_title.get(key, ()))
        return Concept(key, self.form(key), strong, set(self.in_abstract.get(key, ())) - strong,
                       focus=set(self.in_focus.get(key, ())) - strong)


def _contains(longer: str, shorter: str) -> bool:
    return f" {shorter} " in f" {longer} "


MIN_LIFT = 3.0  # a phrase this much more common in the pool than in the background names a part of the field
# Disciplines name a whole field, never a part of one ('Machine Learning' heading a section of a
# federated learning survey says nothing about what its papers do).
DISCIPLINES = {"machine learning", "deep learning", "neural networks", "deep neural networks", "artificial intelligence",
               "computer vision", "natural language processing", "data science", "data mining", "signal processing",
               "pattern recognition", "computer science", "information retrieval", "robotics research"}


def candidate_concepts(index: PhraseIndex, *, min_support: int, kb_counts: dict[str, int] | None = None,
                       related: set[str] | frozenset = frozenset(), max_share: float = 0.4,
                       background: dict | None = None) -> list[Concept]:
    """Phrases supported by at least ``min_support`` papers (a title counts, an abstract only with
    a second abstract or a title), at most ``max_share`` of the pool (more is the topic itself), not
    a fragment that nearly always continues into one longer phrase ('augmented generation'), and, with
    a ``background`` ({papers, df} of a sample of the whole store), at least MIN_LIFT times more common
    in the pool than in the background ('real-world applications' is common everywhere)."""
    kb_counts = kb_counts or {}
    keys = set(index.in_title) | set(index.in_abstract)
    concepts = {}
    for key in keys:
        strong = index.in_title.get(key, set())
        support = len(strong | index.in_abstract.get(key, set()))
        if support < min_support or support > max_share * max(index.n, 1) or (not strong and support < 2) \
                or index.incomplete(key):
            continue
        concepts[key] = index.concept(key)
    # fragments: a phrase whose support is >= 80% that of one phrase extending it by a word
    longer_by_word: dict[str, list[str]] = defaultdict(list)
    for key in concepts:
        words = key.split()
        if len(words) > 2:
            longer_by_word[" ".join(words[1:])].append(key)
            longer_by_word[" ".join(words[:-1])].append(key)
        # and by a joined word: 'simultaneous localization' of 'simultaneous localization and mapping'
        # (a 3DGS reader: "'Simultaneous Localization' contains no SLAM")
        if len(words) > 3 and words[-2] in INNER:
            longer_by_word[" ".join(words[:-2])].append(key)
    fragments = set()
    for short, longs in longer_by_word.items():
        if short in concepts:
            best = max(longs, key=lambda k: (len(concepts[k].support), k))
            if len(concepts[best].support) >= 0.8 * len(concepts[short].support):
                fragments.add(short)
    result = []
    fragments |= {stem_key(d.split()) for d in DISCIPLINES}
    for key in _acronym_duplicates(concepts):
        fragments.add(key)
    for key, concept in concepts.items():
        if key in fragments:
            continue
        concept.prior = kb_counts.get(key, 0)
        concept.related = key in related
        if background and background.get("papers"):
            share = len(concept.support) / max(index.n, 1)
            concept.lift = share / ((background["df"].get(key, 0) + 1) / background["papers"])
            if concept.lift < MIN_LIFT:
                continue
        result.append(concept)
    return sorted(result, key=lambda c: c.key)


def short_key(key: str) -> str:
    """The key with each hyphenated compound read as its initials ('key-value cach' -> 'kv cach')
    and every other word cut to five letters ('robotic manipulation' = 'robot manipulation')."""
    return " ".join("".join(p[0] for p in w.split("-") if p) if len([p for p in w.split("-") if p]) > 1 else w[:5]
                    for w in key.split())


def _acronym_duplicates(concepts: dict[str, Concept]) -> set[str]:
    """Keys whose acronym form is another concept's key ('key-value cache' = 'KV cache'), or that
    differ only by a hyphen ('KV-cache compression' = 'KV cache compression'): the one with fewer
    papers goes, its papers given to the other."""
    parent = {key: key for key in concepts}

    def root(key: str) -> str:
        while parent[key] != key:
            parent[key] = parent[parent[key]]
            key = parent[key]
        return key

    first: dict[str, str] = {}
    for key in sorted(concepts):
        for variant in {short_key(key), short_key(key.replace("-", " "))}:
            if variant in first:
                parent[root(key)] = root(first[variant])
            else:
                first[variant] = key
    by_short: dict[str, list[str]] = defaultdict(list)
    for key in concepts:
        by_short[root(key)].append(key)
    dropped = set()
    for keys in by_short.values():
        if len(keys) > 1:
            keep = max(keys, key=lambda k: (len(concepts[k].support), k))
            for other in keys:
                if other != keep:
                    concepts[keep].strong |= concepts[other].strong
                    concepts[keep].weak = (concepts[keep].weak | concepts[other].weak) - concepts[keep].strong
                    concepts[keep].focus = (concepts[keep].focus | concepts[other].focus) - concepts[keep].strong
                    dropped.add(other)
    return dropped


def concept_score(concept: Concept, rows: set[int] | None = None) -> float:
    """How well the phrase organises ``rows`` (all rows when None): weighted support, times the
    literature's use of it as a heading, times the share of its papers about it (naming it in the
    title or where the abstract states the contribution, Concept.about)."""
    weight = concept.weight(rows)
    support = len(concept.support if rows is None else concept.support & rows)
    if not support:
        return 0.0
    about_share = len(concept.about(rows)) / support
    specific = min(math.log2(1.0 + concept.lift), 6.0) / 6.0
    return weight * (1.0 + math.log1p(concept.prior)) * (1.3 if concept.related else 1.0) * (0.5 + about_share) * specific


def overlapping_words(a: str, b: str) -> bool:
    return bool(set(a.split()) & set(b.split()))


def select_concepts(concepts: list[Concept], rows: set[int], k: int, *, min_support: int,
                    avoid: set[str] | frozenset = frozenset(), max_overlap: float = 0.5,
                    distinct_words: bool = True) -> list[Concept]:
    """Up to ``k`` phrases that together organise ``rows``: greedy on the score of the papers not yet
    covered; a phrase sharing a word with one already chosen (or with ``avoid``), or whose papers
    are mostly already covered by one chosen phrase, is skipped."""
    chosen: list[Concept] = []
    covered: set[int] = set()
    pool = [c for c in concepts if len(c.support & rows) >= min_support
            and not any(overlapping_words(c.key, a) for a in avoid)]
    while len(chosen) < k:
        best, best_score = None, 0.0
        for concept in pool:
            if distinct_words and any(overlapping_words(concept.key, c.key) for c in chosen):
                continue
            mine = concept.support & rows
            if any(len(mine & c.support) > max_overlap * len(mine) for c in chosen):
                continue
            fresh = mine - covered
            if len(fresh) < min_support:
                continue
            score = concept_score(concept, fresh)
            if score > best_score or (score == best_score and best is not None and concept.key < best.key):
                best, best_score = concept, score
        if best is None:
            break
        chosen.append(best)
        covered |= best.support & rows
    return chosen




def fit(concept: Concept, row: int) -> float:
    """How much a paper is about a phrase: 2 in its title, 1 in its abstract, else 0."""
    return 2.0 if row in concept.strong else 1.0 if row in concept.weak else 0.0


def phrase_key(phrase: str) -> str:
    """The stem key of a heading or category as the index would key it ('KV-Cache Compression' ->
    'kv-cache compression'); empty when it is not a 2-4 word phrase."""
    runs = [run for run in _tokens(str(phrase or "")) if run]
    if len(runs) != 1 or not 2 <= len(runs[0]) <= MAX_WORDS:
        return ""
    return stem_key([w.lower() for w in runs[0]])
