"""Content floor: an extractive synthesis of one subsection's papers, written without an LLM.

The floor a model draft must beat (agents/gate.py), and what the survey says when no model can
write. It is a synthesis, not a per-paper list:

1. **Candidates**: every sentence of every paper's whole abstract, sanitized
   (``sanitize.untrusted``: no markup, no look-alike tags, no bracketed numbers from the source),
   without injection-like sentences (``sanitize.looks_like_injection``), fragments, questions,
   links, and sentences that open on a pronoun pointing at text we do not quote.
2. **Roles**: each candidate is tagged problem / method / finding / limitation by cue phrases
   ("we propose", "results show", "fails to", ...), ties broken by its position in the abstract
   (abstracts run problem -> method -> finding).
3. **Selection**: salience = mean of centrality (mean cosine to the other candidates, as in
   LexRank), relevance (cosine to the subsection's heading and focus) and representativeness
   (cosine to the centroid of its own paper's sentences), on sentence embeddings
   from the project's encoder; then MMR (Carbonell & Goldstein, 1998) picks salient but
   non-redundant sentences, first one per paper (so every paper with text is covered), then up to
   ``per_paper`` per paper. Scores are rounded and ties broken by (paper, position), so the same
   papers give the same text in every process.
4. **Composition**: an opening sentence naming the subsection's theme, how many works it covers
   and their years (facts from the metadata, no claims; it names and cites the works only when no
   abstract sentence is usable), then paragraphs by role (problem,
   method, findings + limitations), each sentence attributed in the sentence to its paper in the
   third person (agents/attribution.py) and cited with the writer's local key [n]. Every sentence
   therefore cites the paper it comes from: claim support holds by construction.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from ..sanitize import looks_like_injection, untrusted
from .attribution import attribute, paper_handle, standalone
from .outline.names import topic_words
from .comparison import compare
from .facets import paper_facets
from .text import and_list, count_words, in_sentence, sentences

Encoder = Callable[[Sequence[str]], np.ndarray]

ROLES = ("problem", "method", "finding", "limitation")
# Cue phrases per role (case-insensitive, word-bounded). A sentence takes the role with most cues.
ROLE_CUES = {
    "problem": re.compile(
        r"\b(?:challeng\w*|problems?|issues?|suffer\w*|struggl\w*|lacks?|lacking|limited|difficult\w*|costly|"
        r"expensive|bottlenecks?|gaps?|hallucinat\w*|vulnerab\w*|existing (?:methods|approaches|work|systems)|"
        r"prior (?:work|methods|approaches)|remains? (?:unclear|underexplored|unexplored|challenging)|"
        r"increasingly|critical|crucial|essential|fundamental|demand\w*|need for|requires?|widely|overlook\w*|"
        r"often|rely on|relies on|underexplored|remains?)\b", re.I),
    "method": re.compile(
        r"\b(?:we (?:propose|introduce|present|develop|design|build|construct|formulate|devise|leverage|"
        r"employ|adopt|train|describe|extend|combine|integrate)|propos\w+|introduc\w+|framework|architecture|"
        r"pipeline|algorithm|approach|module|mechanism|consists? of|compris\w+|leverag\w+|novel|"
        r"we model|we use|we fine-tune|training|strategy|method|we (?:study|investigate|explore|analy[sz]e|examine)|"
        r"(?:this|the present) (?:paper|work|study|article)|in this (?:paper|work|study|article))\b", re.I),
    "finding": re.compile(
        r"\b(?:results?|experiments?|empirical\w*|evaluat\w*|outperform\w*|achiev\w*|improv\w*|demonstrat\w*|"
        r"shows?|showed|shown|reveal\w*|find|found|findings|observ\w*|state-of-the-art|significant\w*|accuracy|"
        r"gains?|reduc\w*|benchmarks?|surpass\w*|yields?|boost\w*|\d+(?:\.\d+)?\s?%|speed-?ups?)\b", re.I),
    "limitation": re.compile(
        r"\b(?:limitations?|fails?|failures?|cannot|unable|remains? (?:an? )?(?:open|unsolved)|future work|"
        r"open (?:questions?|problems?|challenges?)|trade-?offs?|at the cost|degrad\w*|shortcomings?|drawbacks?|"
        r"caveats?|not yet|insufficient\w*|brittle|does not|do not)\b", re.I),
}
# Role of a sentence without cues, by position in its abstract (first, middle, last third).
POSITION_ROLE = ("problem", "method", "finding")
REPORT_VERBS = {"problem": "note", "method": None, "finding": "report", "limitation": "point out"}
ROLE_LEAD = {"method": "On the methods side, ", "finding": "Empirically, ", "limitation": "As for limitations, "}
ADDITIVE = ("", "In addition, ", "", "Moreover, ")  # rotated between sentences of different papers
MIN_WORDS, MAX_WORDS = 8, 60  # shorter: a fragment or heading; longer: a run-on list
MAX_PARAGRAPH = 6  # sentences; longer role paragraphs are split where one paper's sentences end
MAX_PROBLEMS = 2  # motivation sentences per subsection (more only where a paper has nothing else)
MMR_LAMBDA = 0.7  # relevance vs novelty in MMR; the usual setting in extractive summarisation
_NOISE = re.compile(r"https?://|www\.|github|\b(?:code|data|models?|datasets?|weights)\b[^.]{0,60}\b(?:publicly "
                    r"available|released?|open[- ]sourced?)\b|\breleas\w* (?:\w+ ){0,3}(?:code|data|models?|"
                    r"datasets?)\b|\bcode (?:is|and data are|will be) (?:publicly )?(?:available|released)|"
                    r"\bavailable at\b|\.\.\.|…|\bet al\b|\bsection \d|\bfig(?:ure)?\.? ?\d|\btable \d", re.I)
# Back-references inside a sentence ("addresses both challenges", "utilizing PRM, it refines"):
# quoted alone, the sentence would point at text the reader does not have.
_BACK_REFERENCE = re.compile(
    r"\b(?:these|those|both|such|the above|the aforementioned|this) (?:challenges?|issues?|problems?|limitations?|"
    r"gaps?|shortcomings?|methods?|approach(?:es)?|works|tasks?|settings?|frameworks?|models?|paradigms?|designs?|"
    r"datasets?|benchmarks?|techniques?|process(?:es)?|stages?|modules?|pipelines?|systems?)\b"
    r"|\b(?:address|tackl|solv|mitigat|overcom|alleviat)\w* (?:this|these|it|them)\b", re.I)
# A preposition left before punctuation: the source's citation was removed ("As shown in [2], ..." ->
# "As shown in, ..."); the sentence no longer reads.
_CITATION_GAP = re.compile(r"\b(?:in|by|see|from|of|and|to|cf|following|following the work of)\s*[,.;:)]", re.I)
_EARLY_PRONOUN = re.compile(r"^(?:\S+\s+){0,5}?(?:it|they|them|these|those|their|the (?:first|second|third|"
                            r"fourth|former|latter))\b", re.I)
# "Abstract: ..." in the source, and a scraped page header before that label ("... Download PDF
# N. Author Published: 20 Aug 2025 ... Abstract: Retrieval ...")
_ABSTRACT_LABEL = re.compile(r"^\s*(?:abstract|summary)\s*[:.\-–—]\s*|^.{0,1000}?\s(?:Abstract|ABSTRACT)\s*:\s+(?=[A-Z])",
                             re.S)
_ENCODE_LOCK = threading.Lock()  # one encoder call at a time: parallel branches share one CPU model


@dataclass(frozen=True)
class Candidate:
    key: int  # the paper's local citation number (1-based, as in the writer's prompt)
    position: int  # sentence index within the abstract
    text: str  # sanitized, standalone sentence
    role: str


def tag_role(sentence: str, position: int, total: int) -> str:
    counts = {role: len(cue.findall(sentence)) for role, cue in ROLE_CUES.items()}
    # An abstract opens on its problem and closes on its findings: position counts as one cue.
    counts["problem"] += position == 0
    counts["finding"] += position == total - 1 and total > 1
    best = max(counts.values())
    if best == 0:
        return POSITION_ROLE[min(2, 3 * position // max(1, total))]
    tied = [role for role in ROLES if counts[role] == best]
    if len(tied) == 1 or "limitation" in tied:  # limitation cues are the most specific
        return "limitation" if "limitation" in tied else tied[0]
    by_position = POSITION_ROLE[min(2, 3 * position // max(1, total))]
    return by_position if by_position in tied else tied[-1]


_LATEX_TEXT = re.compile(r"\\(?:textsc|textit|textbf|textrm|texttt|emph|mathrm|mathbf|mathcal|text)\s*\{([^{}]*)\}")
_INNER_BOUNDARY = re.compile(r"[a-z0-9)][.!?]\s*(?:\\|[A-Z][a-z])")  # two sentences the splitter missed


def _plain(sentence: str) -> str:
    """LaTeX text commands from arXiv abstracts reduced to their text ("\\textsc{GRADE}" -> "GRADE")."""
    return _LATEX_TEXT.sub(r"\1", sentence)


def _usable(sentence: str) -> bool:
    words = sentence.split()
    letters = sum(ch.isalpha() for ch in sentence)
    shaped = (MIN_WORDS <= len(words) <= MAX_WORDS and sentence[:1].isupper() and sentence.endswith((".", "!"))
              and letters >= 0.6 * len(sentence.replace(" ", "")) and not re.search(r"[\\$^{}_]", sentence))
    readable_alone = not (_NOISE.search(sentence) or _BACK_REFERENCE.search(sentence) or _CITATION_GAP.search(sentence)
                          or _EARLY_PRONOUN.match(sentence) or _INNER_BOUNDARY.search(sentence[:-1]))
    return shaped and readable_alone and not looks_like_injection(sentence)


def candidate_sentences(papers: Sequence[dict]) -> list[Candidate]:
    """Usable, role-tagged sentences of every paper's whole abstract (local keys 1..K)."""
    out = []
    for key, paper in enumerate(papers, start=1):
        said = sentences(_plain(_ABSTRACT_LABEL.sub("", untrusted(paper.get("abstract") or ""))))
        for position, raw in enumerate(said):
            if looks_like_injection(raw):
                continue
            text = standalone(raw)
            if text and _usable(text):
                out.append(Candidate(key, position, text, tag_role(text, position, len(said))))
    return out


def tfidf_encoder(texts: Sequence[str]) -> np.ndarray:
    """Stand-in encoder when no sentence model is available: L2-normalised TF-IDF rows."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    if not texts:
        return np.zeros((0, 1), dtype=np.float32)
    matrix = TfidfVectorizer(stop_words="english", sublinear_tf=True).fit_transform(texts)
    return matrix.toarray().astype(np.float32)


def _unit_rows(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float64)
    return matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)


def select(candidates: Sequence[Candidate], vectors: np.ndarray, query: np.ndarray, per_paper: int) -> list[int]:
    """Indices of the chosen candidates: MMR over salience, covering every paper once first."""
    if not candidates:
        return []
    vectors = _unit_rows(vectors)
    query = _unit_rows(query.reshape(1, -1))[0]
    sims = np.round(vectors @ vectors.T, 4)
    n = len(candidates)
    centrality = (sims.sum(axis=1) - np.diag(sims)) / max(1, n - 1)
    # How well a sentence stands for its own paper: cosine to the centroid of that paper's candidates.
    keys = np.array([c.key for c in candidates])
    centroids = {k: _unit_rows(vectors[keys == k].mean(axis=0, keepdims=True))[0] for k in set(keys.tolist())}
    representative = np.round(np.array([vectors[i] @ centroids[keys[i]] for i in range(n)]), 4)
    salience = np.round((centrality + np.round(vectors @ query, 4) + representative) / 3, 4)
    papers = sorted({c.key for c in candidates})
    budget = per_paper * len(papers)
    chosen: list[int] = []
    taken = dict.fromkeys(papers, 0)
    while len(chosen) < budget:
        uncovered = {k for k, count in taken.items() if count == 0}
        pool = [i for i in range(n) if i not in chosen and taken[candidates[i].key] < per_paper
                and (not uncovered or candidates[i].key in uncovered)]
        if not pool:
            break
        redundancy = sims[np.ix_(pool, chosen)].max(axis=1) if chosen else np.zeros(len(pool))
        scores = np.round(MMR_LAMBDA * salience[pool] - (1 - MMR_LAMBDA) * redundancy, 4)
        best = max(range(len(pool)), key=lambda j: (scores[j], -candidates[pool[j]].key, -candidates[pool[j]].position))
        chosen.append(pool[best])
        taken[candidates[pool[best]].key] += 1
    return chosen


def theme_phrase(title: str) -> str:
    """A heading as a noun phrase inside a sentence: Title Case words lower-cased, acronyms kept."""
    return in_sentence(untrusted(title, 160).rstrip("."))


def _years(papers: Sequence[dict]) -> str:
    years = sorted({int(p["year"]) for p in papers if str(p.get("year") or "").isdigit()})
    if not years:
        return ""
    return f", published in {years[0]}" if len(years) == 1 else f", published between {years[0]} and {years[-1]}"


def _listing(papers: Sequence[dict], keys: Sequence[int]) -> str:
    return and_list([f"{paper_handle(papers[k - 1])[0]} [{k}]" for k in keys])


def opening_sentence(title: str, papers: Sequence[dict], *, list_works: bool) -> str:
    """Names the theme, how many works the subsection covers and their years: facts only. With
    ``list_works`` (nothing else to say) it also names and cites every work."""
    noun = "work" if len(papers) == 1 else "works"
    listing = f": {_listing(papers, range(1, len(papers) + 1))}" if list_works else ""
    return (f"This subsection reviews {count_words(len(papers))} {noun} on {theme_phrase(title)}"
            f"{_years(papers)}{listing}.")


def uncovered_sentence(papers: Sequence[dict], keys: Sequence[int]) -> str:
    """Papers of the subsection none of whose abstract sentences was usable: named, not skipped."""
    verb = "was" if len(keys) == 1 else "were"
    return f"The work{'s' if len(keys) > 1 else ''} of {_listing(papers, keys)} {verb} also retrieved for this theme."


def _compose(chosen: list[Candidate], papers: Sequence[dict], order: dict[int, int]) -> list[list[str]]:
    """Attributed sentences grouped into paragraphs by role, papers in salience order."""
    groups = {"problem": [], "method": [], "finding": [], "limitation": []}
    for cand in sorted(chosen, key=lambda c: (ROLES.index(c.role), order[c.key], c.position)):
        groups[cand.role].append(cand)
    paragraphs: list[list[str]] = []
    for roles in (("problem",), ("method",), ("finding", "limitation")):
        lines: list[tuple[int, str]] = []
        previous_key, turn = None, 0
        for role in roles:
            for i, cand in enumerate(groups[role]):
                handle, plural = paper_handle(papers[cand.key - 1])
                sentence = attribute(cand.text, handle, plural, f"[{cand.key}]", REPORT_VERBS[role])
                lead = ""
                if i == 0 and role in ROLE_LEAD:
                    lead = ROLE_LEAD[role]
                elif previous_key is not None and cand.key != previous_key:
                    lead = ADDITIVE[turn % len(ADDITIVE)]
                    turn += 1
                if lead and not sentence.startswith("In "):  # "In X [3], ..." already leads in
                    lowered = sentence.startswith(("The ", "On ", "Across ", "Over "))  # not a name
                    sentence = lead + (sentence[:1].lower() + sentence[1:] if lowered else sentence)
                lines.append((cand.key, sentence))
                previous_key = cand.key
        paragraphs += _chunk(lines)
    return paragraphs


def _chunk(lines: list[tuple[int, str]]) -> list[list[str]]:
    """Split a long role paragraph where one paper's sentences end, about every MAX_PARAGRAPH."""
    out: list[list[str]] = []
    current: list[str] = []
    for i, (key, sentence) in enumerate(lines):
        current.append(sentence)
        next_key = lines[i + 1][0] if i + 1 < len(lines) else None
        remaining = len(lines) - i - 1
        if len(current) >= MAX_PARAGRAPH and next_key != key and remaining >= 2:
            out.append(current)
            current = []
    if current:
        out.append(current)
    return out


def _fewer_motivations(chosen: list[int], candidates: Sequence[Candidate]) -> list[int]:
    """At most MAX_PROBLEMS problem sentences (the most salient, chosen first): the rest restate the
    field's common motivation ("RAG has become a widely used approach ...") once per paper. A problem
    sentence that is its paper's only chosen sentence stays, so every paper is still covered."""
    per_paper = Counter(candidates[i].key for i in chosen)
    kept, problems = [], 0
    for i in chosen:
        if candidates[i].role == "problem":
            if problems >= MAX_PROBLEMS and per_paper[candidates[i].key] > 1:
                per_paper[candidates[i].key] -= 1
                continue
            problems += 1
        kept.append(i)
    return kept


def synthesize(title: str, papers: Sequence[dict], *, description: str = "", encode: Encoder | None = None,
               per_paper: int = 2, topic: str = "") -> str:
    """The synthesis of one subsection (local citation keys [1]..[K] = ``papers`` order): an
    opening, the comparison of the works (agents/comparison.py), then their own statements."""
    if not papers:
        return ""
    facets = [paper_facets(p) for p in papers]
    comparison = compare(papers, facets, topic_words(topic) | topic_words(title))
    # A figure the comparison already states is not quoted again in its source sentence.
    stated = [f.result for f in facets if f.result and any(f.result in line for line in comparison)]
    candidates = [c for c in candidate_sentences(papers) if not any(r in c.text for r in stated)]
    if not candidates:
        return " ".join([opening_sentence(title, papers, list_works=True), *comparison])
    query = " ".join(untrusted(t, 300) for t in (title, description) if t)
    texts = [c.text for c in candidates] + [query or untrusted(title, 300)]
    if encode is None:
        vectors = tfidf_encoder(texts)
    else:
        with _ENCODE_LOCK:
            vectors = np.asarray(encode(texts), dtype=np.float32)
    chosen_idx = _fewer_motivations(select(candidates, vectors[:-1], vectors[-1], per_paper), candidates)
    order = {}
    for i in chosen_idx:  # papers in the order their first sentence was chosen (most salient first)
        order.setdefault(candidates[i].key, len(order))
    paragraphs = _compose([candidates[i] for i in chosen_idx], papers, order)
    paragraphs.insert(0, [opening_sentence(title, papers, list_works=False), *comparison])
    uncovered = [k for k in range(1, len(papers) + 1) if k not in order]
    if uncovered:
        paragraphs[-1].append(uncovered_sentence(papers, uncovered))
    return "\n\n".join(" ".join(p) for p in paragraphs)
