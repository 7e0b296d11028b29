"""What holds across the survey's sections: statistics the introduction and conclusion state.

No model: every figure is counted from the cited works' titles and abstracts, and every phrase it
names is a phrase those works use, cited to them.

- ``distinctive_phrases``: per section, the phrases that set its works apart from the other
  sections' (share of its works using the phrase minus the share of the others'), each with the
  works that use it: the taxonomy the introduction lays out.
- ``crosscutting_phrases``: phrases used by works of several sections: ingredients that cut across
  the taxonomy.
- ``evaluation_practice``: how many works name evaluation data, measures and a figure, and which
  data and measures recur.
- ``challenge_themes``: the challenges the cited works state, their own limitations and the gaps
  their problem statements name in existing methods, grouped by kind of challenge, each with the
  clause that names it.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from ..sanitize import untrusted
from .candidates import Candidate, candidate_sentences, fixes_a_limitation, names_a_gap, states_a_limitation
from .facets import Facets, recurring_data
from .grouping import concept_stems, phrase_users
from .outline.headings import is_name
from .outline.grams import _noun_end
from .outline.names import keyphrase_analyzer, stem, surface_forms
from .text import in_sentence

MAX_DISTINCT = 3  # phrases named per section in the introduction
MAX_THEMES = 4  # open-problem themes in the conclusion
def paper_text(paper: dict) -> str:
    return f"{untrusted(paper.get('title') or '', 300)}. {untrusted(paper.get('abstract') or '')}"


def titled_phrases(papers: list[dict], banned: set[str]) -> dict[str, set[int]]:
    """Which works' titles use each phrase (indices in ``papers`` order)."""
    analyze = keyphrase_analyzer(banned)
    out: dict[str, set[int]] = {}
    for i, paper in enumerate(papers):
        for phrase in set(analyze(untrusted(paper.get("title") or "", 300))):
            out.setdefault(phrase, set()).add(i)
    return out


def _named(phrase: str, forms: dict[str, str]) -> bool:
    return " " in phrase or is_name(forms.get(phrase, phrase))


def _name_users(phrase: str, who: set[int], forms: dict[str, str], texts: list[str]) -> set[int]:
    """The works using a one-word phrase read as a name ("GAP", a system one work names) that write
    it so: the others say the common word ("performance gap"). A conclusion listed "GAP (in
    Sections 4, 5 and 6; 4 works)" as an ingredient cutting across a survey of LLM recommenders (c32p)."""
    form = forms.get(phrase, phrase)
    if " " in phrase or form == form.lower():
        return who
    pattern = re.compile(rf"\b{re.escape(form)}s?\b")
    return {i for i in who if pattern.search(texts[i])}


def distinctive_phrases(sections: list[list[str]], papers: dict, banned: set[str]) -> list[list[tuple[str, list[str]]]]:
    """Per section (lists of paper ids), up to MAX_DISTINCT phrases that its works use more than the
    other sections' works do, each with the ids of its works that use it (at least two)."""
    ids = [pid for section in sections for pid in section if pid in papers]
    texts = {pid: paper_text(papers[pid]) for pid in dict.fromkeys(ids)}
    order = list(texts)
    ordered = [texts[pid] for pid in order]
    users = phrase_users(ordered, banned)
    forms = surface_forms(ordered)
    users = {phrase: _name_users(phrase, who, forms, ordered) for phrase, who in users.items()}
    titled = titled_phrases([papers[pid] for pid in order], banned)
    out = []
    for section in sections:
        mine = {order.index(pid) for pid in section if pid in texts}
        others = set(range(len(order))) - mine
        scored = []
        for phrase, who in users.items():
            inside = who & mine
            if len(inside) < 2 or not _named(phrase, forms) or not (titled.get(phrase, set()) & inside):
                continue  # a phrase no title of the section uses is abstract boilerplate
            if " " in phrase and not _noun_end(phrase.split()[-1]):
                continue  # cut before its noun: "convolutional neural" (a c23 draft's introduction)
            lift = len(inside) / max(1, len(mine)) - len(who & others) / max(1, len(others))
            if lift > 0:
                scored.append((round(lift, 4), len(inside), phrase))
        chosen: list[tuple[str, list[str]]] = []
        seen: set[str] = set()
        groups: set[frozenset] = set()
        for _lift, _count, phrase in sorted(scored, key=lambda item: (-item[0], -item[1], item[2])):
            stems = concept_stems(phrase)
            who = frozenset(users[phrase] & mine)
            if stems & seen or who in groups:  # 'NeRF' and 'neural radiance fields' used by the same works
                continue
            seen |= stems
            groups.add(who)
            chosen.append((in_sentence(forms.get(phrase, phrase)), [order[i] for i in sorted(users[phrase] & mine)]))
            if len(chosen) == MAX_DISTINCT:
                break
        out.append(chosen)
    return out


def crosscutting_phrases(sections: list[list[str]], papers: dict, banned: set[str], limit: int = 3,
                         headings: list[str] | tuple = ()) -> list[tuple[str, list[int], list[str]]]:
    """Phrases used by works of at least two sections (two works at least per section... or three
    works overall): (phrase, section indices, paper ids), most sections and works first. A phrase
    that heads a section (``headings``) is that section's theme, no ingredient cutting across
    ("semantic segmentation (in Sections 3 and 6 ...)" beside a section "Semantic Segmentation")."""
    order = list(dict.fromkeys(pid for section in sections for pid in section if pid in papers))
    texts = [paper_text(papers[pid]) for pid in order]
    users = phrase_users(texts, banned)
    forms = surface_forms(texts)
    users = {phrase: _name_users(phrase, who, forms, texts) for phrase, who in users.items()}
    titled = titled_phrases([papers[pid] for pid in order], banned)
    where = {pid: {i for i, section in enumerate(sections) if pid in section} for pid in order}
    ranked = []
    for phrase, who in users.items():
        ids = [order[i] for i in sorted(who)]
        spread = sorted(set().union(*(where[pid] for pid in ids)))
        if len(spread) >= 2 and len(ids) >= 3 and len(ids) < 0.5 * len(order) and _named(phrase, forms) \
                and len(titled.get(phrase, ())) >= 2:
            ranked.append((-len(spread), -len(ids), phrase, spread, ids))
    chosen, seen = [], set()
    headed = [concept_stems(heading.lower()) for heading in headings]
    for _s, _n, phrase, spread, ids in sorted(ranked):
        if any(concept_stems(phrase) <= stems for stems in headed):
            continue
        stems = concept_stems(phrase)
        if stems & seen:
            continue
        seen |= stems
        chosen.append((in_sentence(forms.get(phrase, phrase)), spread, ids))
        if len(chosen) == limit:
            break
    return chosen


@dataclass
class Practice:
    works: int
    with_data: list[str]  # paper ids naming evaluation data
    with_metric: list[str]
    with_result: list[str]  # paper ids stating a figure
    data: list[tuple[str, list[str]]]  # recurring data names with the ids that name them
    metrics: list[tuple[str, list[str]]]
    kinds: Counter


# Data named by two works is no shared practice of a survey's works ("AIME is the evaluation data
# the works share most (2 works)", a v9 reader of a 64-work survey: "statistics from thin evidence").
PRACTICE_USERS = 3


def evaluation_practice(ids: list[str], facets: dict[str, Facets], banned: set[str]) -> Practice:
    metric_users: dict[str, list[str]] = {}
    for pid in ids:
        for name in facets[pid].metrics:
            metric_users.setdefault(name, []).append(pid)

    def recurring(users: dict[str, list[str]]) -> list[tuple[str, list[str]]]:
        return sorted(((n, u) for n, u in users.items() if len(u) >= 2), key=lambda item: (-len(item[1]), item[0]))

    return Practice(len(ids), [p for p in ids if facets[p].data], [p for p in ids if facets[p].metrics],
                    [p for p in ids if facets[p].result],
                    [d for d in recurring_data([(p, facets[p]) for p in ids], banned) if len(d[1]) >= PRACTICE_USERS][:3],
                    recurring(metric_users)[:3],
                    Counter(facets[p].kind or "other" for p in ids))


def challenge_statements(ids: list[str], papers: dict) -> list[tuple[str, Candidate]]:
    """(paper id, candidate) for every sentence of the works that states a challenge: a limitation
    of the work or its field (what fails or stays open, not what the work fixes), or the gap in
    existing methods that the work's problem statement names ("existing methods suffer from ...",
    "3DGS tends to overfit when input views are limited")."""
    out = []
    for pid in ids:
        for cand in candidate_sentences([papers[pid]]):
            gap = cand.role == "problem" and names_a_gap(cand.text) and not fixes_a_limitation(cand.text)
            if (cand.role == "limitation" and states_a_limitation(cand.text)) or gap:
                out.append((pid, cand))
    return out


def excerpt(sentence: str, start: int, end: int, limit: int = 12) -> str:
    """The clause of ``sentence`` around the span [start, end) (from the previous to the next comma,
    semicolon, colon or bracket); a longer clause is cut to about ``limit`` words around the span,
    a cut at its end marked with an ellipsis."""
    left = max(sentence.rfind(c, 0, start) for c in ",;:")
    right = [i for i in (sentence.find(c, end) for c in ",;:") if i >= 0]
    right_at = min(right) if right else len(sentence)
    # a bracket the clause opens or closes is kept whole: "(KV" or "LLMs)" would not read
    while sentence[left + 1:right_at].count("(") > sentence[left + 1:right_at].count(")") and right_at < len(sentence):
        right_at = sentence.find(")", right_at) + 1 or len(sentence)
    while sentence[left + 1:right_at].count(")") > sentence[left + 1:right_at].count("(") and left >= 0:
        left = sentence.rfind("(", 0, left + 1) - 1
    clause = sentence[left + 1:right_at].strip().rstrip(".,;:")
    words = clause.split()
    if len(words) <= limit:
        return clause
    at = len(sentence[left + 1:start].split())
    low, high = max(0, at - limit // 2), min(len(words), at + len(sentence[start:end].split()) + limit // 2)
    cut = " ".join(words[low:high])
    if cut.count("(") != cut.count(")"):  # a window through a bracket: the bracket goes
        cut = re.sub(r"\s*\([^()]*\)?|\s*[^()\s]*\)", "", cut)
    # a cut at the end is marked; one at the start is not: "… LLM-based" would read as a new sentence
    return cut + (" …" if high < len(words) else "")


# What a limitation is about, by the kinds of challenge surveys of empirical ML fields discuss; a
# sentence belongs to every kind whose terms it uses. The terms are read from the sentence, so "X
# names latency as a limitation" quotes X.
CHALLENGES = {
    "efficiency and scalability": r"computational (?:cost|overhead|burden|complexity)|computationally \w+|"
                                  r"(?:inference|training) (?:cost|time)|latency|overhead|(?:GPU )?memory (?:footprint|"
                                  r"usage|cost|consumption|overhead)|scalab\w*|resource-intensive|expensive|costly|"
                                  r"inefficien\w*|prohibitive\w*|slow \w+",
    "robustness": r"robustness|noisy \w+|noise|adversarial \w+|perturbations?|brittle(?:ness)?|instability",
    "generalisation": r"generali[sz]ation|generali[sz]e|out-of-distribution|unseen \w+|domain (?:shifts?|gaps?)|"
                      r"distribution shifts?|overfit\w*",
    "data and annotation": r"data scarcity|scarce \w+|scarcity|annotations?|labell?ed data|limited (?:data|samples|"
                           r"labels|views|inputs?)|sparse (?:views?|inputs?|data)|data quality|training data",
    "evaluation": r"benchmarks?|evaluation protocols?|evaluation|metrics?",
    "interpretability": r"interpretability|explainability|transparency|opaque|poorly understood|"
                        r"insufficiently understood|not well understood|remains? unclear",
    # the faithfulness of an explanation to the model's reasoning is interpretability's, and an
    # "unreliable monosemanticity" no factual error (both filed as factuality in a c25 draft)
    "factuality": r"hallucinations?|factual (?:errors?|accuracy|consistency)|"
                  r"(?<!explanation )faithfulness(?![^.;]{0,60}\b(?:reasoning|explanations?|rationales?|interpretations?)\b)|"
                  r"unreliable (?:outputs?|answers?|responses?|generations?|information|content|facts?|claims?)",
    "fidelity and consistency": r"artifacts?|artefacts?|blurr\w*|floaters|aliasing|distortions?|inconsisten\w*|"
                                r"(?:degraded|poor|low) (?:\w+ )?quality|inaccura\w*",
    "dependence on inputs and priors": r"(?:heavily |strongly )?(?:depends?|dependen\w*|relian\w*|relies|rely) on \w+(?: \w+)?|"
                                       r"sensitiv\w* to \w+",
    # an architecture's "inductive bias" (a ViT reader saw it filed here) is no social bias
    "safety, privacy and fairness": r"privacy|safety|security|(?<!inductive )(?<!positional )(?<!spectral )(?<!locality )"
                                    r"bias(?:es)?|fairness|harmful \w+",
    "languages and modalities": r"low-resource languages?|lower-resource languages?|multilingual \w+|cross-lingual \w+|"
                                r"languages other than English|non-English \w+",
    "reasoning and long contexts": r"multi-hop \w+|long(?:-| )(?:context|horizon|range)s?|complex (?:queries|reasoning)",
}
_GAIN = re.compile(r"\b(?:reduc\w*|improv\w*|lower\w*|decreas\w*|sav\w*|cuts?|boost\w*|accelerat\w*|speeds? up|"
                   r"enhanc\w*|achiev\w*|outperform\w*)\b", re.I)
# The clause quoted for a challenge must say something is wrong or missing, not just name the topic
# ("particularly on benchmarks such as HLE" names evaluation, not a problem with it).
_NEGATIVE = re.compile(r"\b(?:fail\w*|suffer\w*|lacks?|lacking|struggl\w*|remains?|limited|limit\w*|costly|expensive|"
                       r"bottlenecks?|underexplored|overlook\w*|ignor\w*|neglect\w*|brittle\w*|insufficient\w*|"
                       r"prone to|vulnerab\w*|gaps?|cannot|unable|not|poor\w*|inadequate\w*|difficult\w*|challeng\w*|"
                       r"hinder\w*|degrad\w*|prohibitive\w*|inefficien\w*|overfit\w*|scarc\w*|unreliab\w*|"
                       r"inaccura\w*|inconsisten\w*|sensitiv\w*|high|heav\w*|only|rarely|hard|expensive|future|mitigat\w*)\b", re.I)
INHERENTLY_NEGATIVE = {"dependence on inputs and priors"}  # "relies heavily on X" is the challenge itself
CHALLENGE_PATTERNS = {name: re.compile(rf"\b(?:{pattern})\b", re.I) for name, pattern in CHALLENGES.items()}


def challenge_themes(stated: list[tuple[str, Candidate]], banned: set[str]) -> list[tuple[str, list[tuple[str, str]]]]:
    """(kind of challenge, [(paper id, the clause of its sentence that names it)]) for kinds named
    by at least two works, most works first; a term made only of the topic's own words
    ('hallucination' in a survey of hallucination) says nothing about the kind and is not counted."""
    found: dict[str, dict[str, str]] = {}
    for pid, cand in stated:
        for name, pattern in CHALLENGE_PATTERNS.items():
            for match in pattern.finditer(cand.text):
                term = match.group(0)
                clause = excerpt(cand.text, match.start(), match.end())
                if _GAIN.search(clause) or not (_NEGATIVE.search(clause) or name in INHERENTLY_NEGATIVE):
                    continue  # "this reduces GPU memory usage", "scientists care about robustness": no challenge
                if {stem(w) for w in re.split(r"[^a-z0-9]+", term.lower()) if w} <= {stem(w) for w in banned}:
                    continue
                found.setdefault(name, {}).setdefault(pid, excerpt(cand.text, match.start(), match.end()))
                break
    ranked = sorted(((name, list(users.items())) for name, users in found.items() if len(users) >= 2),
                    key=lambda item: (-len(item[1]), list(CHALLENGES).index(item[0])))
    return ranked[:MAX_THEMES]
