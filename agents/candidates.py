"""Candidate sentences of a subsection's abstracts: usable, standalone, tagged by role, ranked.

The material of the content floor (agents/synthesis.py):

1. **Candidates**: every sentence of every paper's whole abstract, sanitized
   (``sanitize.untrusted``: no markup, no look-alike tags, no bracketed numbers from the source),
   without injection-like sentences (``sanitize.looks_like_injection``), fragments, questions,
   links, and sentences that open on a pronoun pointing at text we do not quote.
2. **Roles**: each candidate is tagged problem / method / finding / limitation by cue phrases
   ("we propose", "results show", "fails to", ...), ties broken by its position in the abstract
   (abstracts run problem -> method -> finding).
3. **Salience**: mean of centrality (mean cosine to the other candidates, as in LexRank),
   relevance (cosine to the subsection's heading and focus) and representativeness (cosine to the
   centroid of its own paper's sentences), on sentence embeddings from the project's encoder.
   Scores are rounded and ties broken by position, so the same papers give the same text in every
   process.
4. **Cues** for what a sentence is worth quoting as: a gap the field has, a result with a figure or
   a comparison, a limitation (what fails or stays open, not what the work fixes).
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from ..sanitize import looks_like_injection, untrusted
from .attribution import standalone
from .text import separate_joined_sentences, sentences, strip_section_labels

Encoder = Callable[[Sequence[str]], np.ndarray]

ROLES = ("problem", "method", "finding", "limitation")
# Cue phrases per role (case-insensitive, word-bounded). A sentence takes the role with most cues.
ROLE_CUES = {
    "problem": re.compile(
        r"\b(?:challeng\w*|problems?|issues?|suffer\w*|struggl\w*|lacks?|lacking|limited|difficult\w*|costly|"
        r"expensive|bottlenecks?|gaps?|hallucinat\w*|vulnerab\w*|existing (?:methods|approaches|work|systems)|"
        r"prior (?:work|methods|approaches)|remains? (?:unclear|underexplored|unexplored|challenging)|"
        r"increasingly|critical|crucial|essential|fundamental|demand\w*|need for|requires?|widely|overlook\w*|"
        r"often|rely on|relies on|underexplored|remains?|"
        # the field's history, which opens an abstract: background, not a finding of the work ("Galichin et
        # al. report that recent advances have led to ... DeepSeek-R1", quoted by a c28b reader)
        r"recent (?:advances?|progress|developments?|years|breakthroughs?|successes?)|rapid (?:development|progress|"
        r"advances?|growth)|(?:has|have) led to|(?:has|have) (?:emerged|become))\b", re.I),
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
# A sentence about the field's earlier work, not the work's own method: "In Park and Shim [42], various
# approaches have been proposed: ..." read as the work's claim (a c35b reader: "misattribute background
# to authors"); such a sentence is what the work notes.
_PRIOR_WORK = re.compile(r"\b(?:ha(?:ve|s) been (?:widely |extensively )?(?:proposed|developed|explored|studied|introduced|"
                         r"investigated)|(?:existing|prior|previous|earlier|conventional|traditional) (?:\w+ )?"
                         r"(?:methods|approaches|works?|studies|techniques|solutions|research)\b)", re.I)


def describes_prior_work(text: str) -> bool:
    return _PRIOR_WORK.search(text) is not None
MIN_WORDS, MAX_WORDS = 8, 60  # shorter: a fragment or heading; longer: a run-on list
_NOISE = re.compile(r"https?://|www\.|github|\b(?:code|data|models?|datasets?|weights)\b[^.]{0,60}\b(?:publicly "
                    r"available|released?|open[- ]sourced?)\b|\breleas\w* (?:\w+ ){0,3}(?:code|data|models?|"
                    r"datasets?)\b|\bcode (?:is|and data are|will be) (?:publicly )?(?:available|released)|"
                    r"\bavailable at\b|\.\.\.|…|\bet al\b|\bsection \d|\bfig(?:ure)?\.? ?\d|\btable \d", re.I)
# Back-references inside a sentence ("addresses both challenges", "utilizing PRM, it refines"):
# quoted alone, the sentence would point at text the reader does not have.
_BACK_REFERENCE = re.compile(
    r"\b(?:these|those|this|such|both|the above|the aforementioned)\s+(?!paper\b|work\b|study\b|article\b|survey\b|"
    r"letter\b|report\b|thesis\b|review\b|manuscript\b|way\b|end\b|regard\b|as\b|a\b|an\b|is\b|are\b|was\b|were\b|"
    r"can\b|could\b|will\b|would\b|may\b|might\b|should\b|must\b|has\b|have\b|had\b|does\b|do\b|did\b|"
    r"the\b|it\b|they\b|their\b|its\b|with\b|in\b|on\b|of\b|to\b|for\b|by\b|from\b|and\b|or\b|not\b)[a-z][a-z-]*"
    r"|\b(?:address|tackl|solv|mitigat|overcom|alleviat|investigat|stud|examin|explor|answer)\w* (?:this|these|it|them)\b"
    # ... or one standing alone before a punctuation mark ("no existing AI system replicates this: ...", c29m)
    r"|\b(?:this|these|those)\s*[:;,.]"
    # ... or a pronoun before a preposition ("we analyze this by computing ...", read in a session-30 draft)
    r"|\b(?:this|these|those)\s+(?:by|through|via|using|with|into|to|for|from|under|across|and|or)\b",
    re.I)
# ("this X", "these X", "such X" point at something the abstract said before: quoted alone, the
# sentence would point at text the reader does not have; "such as" is no demonstrative, and "that"
# is left alone: it is mostly the conjunction of "show that ...".)
# A preposition left before punctuation: the source's citation was removed ("As shown in [2], ..." ->
# "As shown in, ..."); the sentence no longer reads.
# A sentence whose claim is the attention a field gets ("the safety of LLMs has garnered significant
# research attention", quoted by a c28j reader as abstract boilerplate) says nothing of the work.
_ATTENTION = re.compile(r"\b(?:garner\w*|attract\w*|gain\w*|receiv\w*|draw\w*|drew) (?:a )?(?:significant|considerable|"
                        r"increasing|growing|widespread|much|great|substantial|extensive|tremendous|remarkable|"
                        r"wide|broad|lots of|a lot of|more and more) (?:research |academic |scientific )?"
                        r"(?:attention|interest|popularity)\b", re.I)
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
              and sentence.count("(") == sentence.count(")") and sentence.count("“") == sentence.count("”")
              and letters >= 0.6 * len(sentence.replace(" ", "")) and not re.search(r"[\\$^{}_]", sentence))
    # "medi- cal": a word broken across lines in the source PDF (suspended "pre- and post-" is fine)
    broken = re.search(r"[a-z]- (?!(?:and|or|to|nor|as|vs)\b)[a-z]", sentence)
    readable_alone = not (broken or _NOISE.search(sentence) or _ATTENTION.search(sentence) or _BACK_REFERENCE.search(sentence) or _CITATION_GAP.search(sentence)
                          or _EARLY_PRONOUN.match(sentence) or _INNER_BOUNDARY.search(sentence[:-1]))
    return shaped and readable_alone and not looks_like_injection(sentence)


def candidate_sentences(papers: Sequence[dict]) -> list[Candidate]:
    """Usable, role-tagged sentences of every paper's whole abstract (local keys 1..K)."""
    out = []
    for key, paper in enumerate(papers, start=1):
        said = sentences(_plain(separate_joined_sentences(
            strip_section_labels(_ABSTRACT_LABEL.sub("", untrusted(paper.get("abstract") or ""))))))
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


def encode_texts(texts: Sequence[str], encode: Encoder | None) -> np.ndarray:
    """Sentence vectors from the project's encoder (one call at a time), or TF-IDF without one."""
    if encode is None:
        return tfidf_encoder(texts)
    with _ENCODE_LOCK:
        return np.asarray(encode(list(texts)), dtype=np.float32)


def salience(candidates: Sequence[Candidate], vectors: np.ndarray, query: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per candidate: (centrality + relevance to ``query`` + representativeness of its paper) / 3,
    and the rounded cosine matrix between candidates."""
    vectors = _unit_rows(vectors)
    query = _unit_rows(query.reshape(1, -1))[0]
    sims = np.round(vectors @ vectors.T, 4)
    n = len(candidates)
    centrality = (sims.sum(axis=1) - np.diag(sims)) / max(1, n - 1)
    # How well a sentence stands for its own paper: cosine to the centroid of that paper's candidates.
    keys = np.array([c.key for c in candidates])
    centroids = {k: _unit_rows(vectors[keys == k].mean(axis=0, keepdims=True))[0] for k in set(keys.tolist())}
    representative = np.round(np.array([vectors[i] @ centroids[keys[i]] for i in range(n)]), 4)
    return np.round((centrality + np.round(vectors @ query, 4) + representative) / 3, 4), sims


# A problem statement worth quoting names a gap, not just that the field is growing.
GAP_CUES = re.compile(r"\b(?:fail\w*|suffer\w*|lacks?|lacking|struggl\w*|remains? (?:unclear|underexplored|unexplored|"
                      r"challenging|limited|difficult|an open)|limited|limitations?|costly|expensive|bottlenecks?|"
                      r"underexplored|overlook\w*|ignor\w*|neglect\w*|brittle|insufficient\w*|prone to|"
                      r"vulnerab\w*|gaps?)\b", re.I)
RESULT_CUES = re.compile(r"\d+(?:\.\d+)?\s?(?:%|×|x\b|-fold|\s?points?\b|\s?pp\b|\s?percent)|\boutperform\w*|"
                         r"\b(?:achiev\w*|sets?|new|establish\w*) (?:a )?(?:new )?state-of-the-art\b|\bsurpass\w*|\bbeats?\b",
                         re.I)
# A limitation worth quoting says what fails or stays open; "to address the limitation of X" says
# what the work fixes, not what remains.
LIMIT_CUES = re.compile(r"\b(?:fails?|failures?|cannot|unable|remains? (?:an? )?(?:open|unsolved|challenging|difficult|"
                        r"poorly understood|insufficiently understood|unclear|limited)|limitations?|open (?:questions?|"
                        r"problems?|challenges?)|future (?:work|research|directions?)|degrad\w*|does not|"
                        r"do not|not yet|struggl\w*|lacks?|insufficient\w*|brittle|hinder\w*|shortcomings?|drawbacks?|"
                        r"costly|expensive|bottlenecks?)\b", re.I)
_FIXES = re.compile(r"\b(?:address\w*|overcom\w*|mitigat\w*|solv\w*|tackl\w*|alleviat\w*|resolv\w*|remed\w*|bridg\w*|"
                    r"fill\w*|eliminat\w*|avoid\w*|reduc\w*|without)\s+(?:[\w-]+\s+){0,4}?(?:the\s+)?(?:key\s+)?"
                    r"(?:limitations?|shortcomings?|failures?|drawbacks?|bottlenecks?|gaps?|challenges?)\b", re.I)


def fixes_a_limitation(text: str) -> bool:
    return bool(_FIXES.search(text))


# A clause naming what the work does without, or unlike, or spares others: its cost or gap words are
# what the work avoids, not a challenge it states ("unlike prior approaches that depend on costly Monte
# Carlo estimation, IGPO derives ...", "... without relying on costly auxiliary models", "to spare
# others from expensive trial-and-error, we sample ...": three "efficiency" challenges of a c29 draft)
_AVOIDED = re.compile(r"\b(?:without|unlike|instead of|rather than|spare[sd]?\s+\w+\s+from|avoid\w*|free of|"
                      r"no need for|eliminat\w*)\b[^,;:.]*", re.I)


def names_a_gap(text: str) -> bool:
    """A gap cue ("costly", "fails", "limited") outside the clauses of what the work avoids."""
    return bool(GAP_CUES.search(_AVOIDED.sub(" ", text)))


# A sentence whose verbs say what the work achieves ("by surfacing failure modes, X offers ...") is a
# contribution unless it also turns to what remains ("however", "remains", "future work").
_ACHIEVES = re.compile(r"\b(?:offers?|enables?|provides?|achiev\w*|improv\w*|enhanc(?:e|es|ed|ing)|outperform\w*|surpass\w*|"
                       r"delivers?|facilitat\w*|supports?|allows?|ensures?)\b", re.I)
_STILL_OPEN = re.compile(r"\b(?:however|but|yet|remains?|still|cannot|fails?|future|open|limitations?|not yet)\b", re.I)


_CONTRIBUTES = re.compile(r"\b(?:we|they)\s+(?:\w+ly\s+|also\s+|further\s+)?(?:introduce|propose|present|develop|"
                          r"design|construct|build|create|release|establish)\b", re.I)


# "our findings ... surface open questions, providing a foundation for future work": what the work
# offers (a map of open questions) names no problem; the cue inside it is no limitation
_POINTS_AHEAD = re.compile(r"\b(?:surfac|identif|outlin|highlight|discuss|summari[sz]|provid|offer|lay|lays|pav|inform|"
                           r"guid|foundation for|groundwork for|basis for|way for)\w*\b[^.;]{0,60}?\b(?:open (?:questions?|"
                           r"challenges?|problems?)|future (?:work|research|directions?))"
                           # ... and the rest of the list ("discuss open challenges and future directions": c28e)
                           r"(?:\s*(?:,|and|,\s*and)\s*(?:open (?:questions?|challenges?|problems?)|"
                           r"future (?:work|research|directions?)))*", re.I)


# A result stated with a failure word in it is a success: "resolves 40.7% of problems that base models
# fail to solve", "sustains a Top-1 degradation of only 1.06%", "successfully ..."
_SUCCEEDS = re.compile(r"\b(?:successfully|succeeds? (?:in|at)|(?:resolv|solv)\w*\s+(?:\w+\s+){0,3}?\d+(?:\.\d+)?\s?%|"
                       r"(?:degradation|drop|loss|decrease)\s+(?:\w+\s+){0,2}?(?:of\s+)?only\b|"
                       r"only\s+(?:a\s+)?(?:marginal|minor|slight|small|negligible)\s+(?:degradation|drop|loss|decrease)|"
                       # comparative success and harm denied (c23 readers: "their method exhibits less
                       # performance degradation", "the gate does not hurt success" filed as limitations)
                       r"(?:less|lower|smaller|reduced|minimal|little|no)\s+(?:[\w-]+\s+){0,2}?(?:degradation|drop|loss)|"
                       r"(?:does|do|did|will|would)\s+not\s+(?:\w+ly\s+)?(?:hurt|harm|degrade|compromise|sacrifice|"
                       r"impair|undermine)\w*|"
                       # what a method needs not ("PAPO does not rely on additional data curation", c28i)
                       r"(?:does|do)\s+not\s+(?:\w+ly\s+)?(?:rely|require|need|depend)\w*)",
                       re.I)


# Failures as the thing a method works on ("adjusts sampling based on failure modes", "a failure
# analysis of agents") name no limitation of the work
_FAILURE_AS_TOPIC = re.compile(r"\bfailure (?:modes?|cases?|conditions?|patterns?|types?|analys[ie]s|taxonom\w+)\b|"
                               # recovering from failures is what a method does ("adaptive recovery from tool
                               # failures", quoted as a limitation by a c28e reader)
                               r"\brecover\w*\s+from\s+(?:[\w-]+\s+){0,2}?failures?\b", re.I)


# The failure of earlier methods told as the foil of a success ("enables robust 4-bit quantization
# while maintaining safety where previous methods fail", read as a limitation in a v6 panel draft).
_OTHERS_FAIL = re.compile(r"\b(?:where|which|that|as|while|whereas|in which)?\s*(?:previous|prior|existing|earlier|"
                          r"conventional|baseline|competing|other)\s+(?:\w+\s+){0,3}?(?:fail\w*|struggl\w*|fall short|"
                          r"cannot|break down)\b"
                          # "... enables reliable reward modeling in regimes where judgment methods fail" (c28g)
                          r"|\bwhere\s+(?:[\w-]+\s+){1,3}?(?:fail\w*|struggl\w*|fall short|break down)\b", re.I)


# Limitations as what a study sorts or annotates ("analyze the sources of non-robustness,
# categorizing intrinsic model limitations", "distinguishes ... technical refusals, which reflect
# system limitations", "annotated 600 reasoning traces ... mapping computational failures", read as
# stated limitations by v11/v12 readers), and limitations as one side of a comparison ("each with
# distinct advantages and limitations"): the work's subject, not what it leaves open
# (anywhere in the sentence: "Pasch distinguishes ethical refusals, which cite safety concerns (e.g. ...),
# and technical refusals, which reflect system limitations" ran past 200 characters, c31f), and limitations
# as one aspect a review covers ("highlighting their mechanisms and limitations", c31e)
_LIMITS_AS_SUBJECT = re.compile(r"\b(?:analy[sz]\w*|categori[sz]\w*|taxonom\w*|distinguish\w*|annotat\w*|"
                                r"characteri[sz]\w*|catalog\w*|mapping|classif\w*)\b[^.;]*?\b(?:limitations?|"
                                r"failures?|weaknesses|vulnerabilit\w*|non-robustness)\b|\b(?:advantages|strengths|"
                                r"benefits|mechanisms|capabilities|opportunities|principles) and (?:limitations|weaknesses|"
                                r"drawbacks)\b|"
                                # failures a work's tool finds in others: "EDCT uncovers substantial
                                # faithfulness gaps ... when cited concepts fail causal tests" (a c35f
                                # reader: "'Limitations' are often not limitations")
                                r"\b(?:uncover(?:s|ed|ing)|expos(?:es|ed|ing)|flag(?:s|ged|ging)|detect(?:s|ed|ing)|pinpoint(?:s|ed|ing))\b[^.;]*?"
                                # ... or the limitations it exposes in others' ("CognitiveAttack achieves a higher
                                # attack success rate ..., exposing critical limitations in current defense
                                # mechanisms", read as the work's limitation by a c36j reader)
                                r"\b(?:gaps?|failures?|fail\w*|weakness\w*|vulnerabilit\w*|flaws?|errors?|limitations?|"
                                r"shortcomings?|deficienc\w*|blind spots?)\b", re.I)


# A failure that would happen otherwise is the foil of a result, whatever the sentence's verbs
# ("increases the jailbreak success rate from 0% to 60% when direct prompting alone would fail", c28j)
_WOULD_FAIL = re.compile(r"\b(?:when|where|in which|whereas)\s+(?:[\w-]+\s+){0,5}?(?:would|could)\s+(?:otherwise\s+)?"
                         r"(?:fail|struggle|break down)\b", re.I)


# A purpose clause names what the work's method counters: "to mitigate potential performance degradation
# due to shared weights, ScaleNet introduces ..." (filed as a limitation, a c33m reader)
_PURPOSE = re.compile(r"\b(?:to|in order to|so as to)\s+(?:\w+ly\s+)?(?:mitigat|address|overcom|alleviat|reduc|prevent|"
                      r"counter|compensat|avoid|tackl|remed|resolv|handle|suppress|minimi[sz])\w*\b[^,;:.]*", re.I)


def states_a_limitation(text: str) -> bool:
    """What fails or stays open, not what the work fixes ("to address the limitation of X"),
    offers or builds ("to probe insufficient information, we introduce X"), or points ahead to
    ("surface open questions, providing a foundation for future work"); in a sentence of what the
    work achieves, earlier methods' failure is the foil, not a limitation."""
    # an abbreviation's stops end no clause ("e.g." kept its inner stop, and a c31f sentence's clause
    # ended at "e.g")
    text = re.sub(r"\b(?:e\.g|i\.e|cf|vs)\.", lambda m: m.group(0).replace(".", ""), text)
    text = _PURPOSE.sub(" ", _WOULD_FAIL.sub(" ", _FAILURE_AS_TOPIC.sub(" ", _POINTS_AHEAD.sub(" ", text))))
    if _LIMITS_AS_SUBJECT.search(text):
        return False
    if _ACHIEVES.search(text):
        text = _OTHERS_FAIL.sub(" ", text)
    if not LIMIT_CUES.search(text) or fixes_a_limitation(text) or _CONTRIBUTES.search(text) or _SUCCEEDS.search(text):
        return False
    return not _ACHIEVES.search(text) or bool(_STILL_OPEN.search(text))
