"""The parts a user's topic lists, as the survey's first method sections.

A researcher who asks for "evaluating large language models: benchmarks, metrics and LLM-as-a-judge",
"jailbreak attacks and defenses for large language models" or "aligning LLMs with human preferences:
RLHF, DPO and beyond" has named the survey's structure. The taxonomy of the pool's phrases alone
gave the first "Question Answering", "Low-Resource Languages", "Human Experts" and the last "Human
Feedback", "Preference Data", "Human Values" (blind readers, c26d/c26e: "its section headings don't
fit the topic"). Here:

* ``listed_parts`` reads the list: after a colon, else the first segment of the topic (split at its
  connectors, as its facets are) that joins two or more items by commas, "and" or "or"; vague items
  ("beyond", "others") are left out;
* a word before a phrase shares the phrase's head ("image and video generation"), unless the
  literature says the two together more often ("camera and LiDAR fusion": "camera-LiDAR fusion"),
  which is one concept and no list;
* each part names a paper when its words, or for an acronym the expansion the pool's abstracts give
  it ("Direct Preference Optimization (DPO)"), are in the title (strongly) or the abstract;
* a paper goes to the part it names most strongly, and to none when two parts tie: a DPO paper's
  abstract mentions RLHF as its motivation, and a paper naming both equally is about neither alone;
* the list is the structure only when every part names enough papers (``min_size``) and no two
  parts are named together by most papers of each, as often as chance or more ("detect other vehicles
  and pedestrians": the same papers detect both, a coordination of targets, not of parts of the survey).

Each part's heading is a phrase, never a bare word: a multiword part as typed, an acronym by its
expansion, single words sharing the first part's action by the action's noun ("reducing the memory
and latency of ..." -> "Memory Reduction", "Latency Reduction"), a single word by the modifier the
list shares when the pool's texts say them together ("jailbreak attacks and defenses" -> "Jailbreak
Defenses"; "red teaming and guardrails": nobody says "red guardrails") or by what the list is for
("Benchmarks for Evaluating Large Language Models", "Guardrails for Safe Large Language Models");
a part that gets none of these leaves the topic to the taxonomy.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ...retrieval.acronyms import long_forms
from ...retrieval.spelling import WordFamilies, singular
from ...retrieval.facet_reading import unit_named
from ...retrieval.topic_facets import LIST_JOINS, Unit, concept_phrases, stem_text
from ..facets import _initials_match
from .names import title_case

# Items of a list that name no part: "RLHF, DPO and beyond", "... and other methods".
VAGUE_ITEMS = frozenset({"beyond", "more", "others", "other", "etc", "so on", "the like", "related", "variants",
                         "friends", "the rest", "similar", "alike"})
_ACRONYM = re.compile(r"^[A-Z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*s?$")  # "DPO", "RLHF", "LLMs", "GNNs"
MAX_PARTS = 5
MAX_PART_WORDS = 4
# No two parts are named together by more than this share of each one's papers.
MAX_SHARED = 0.5
THEME_SHARE = 0.5  # a part more than this share of the pool names is its theme (assign_parts)


def _items(segment: str) -> list[str]:
    items = [i.strip(" .;:!?\"'()") for i in LIST_JOINS.split(segment)]
    # "other methods", "beyond", "their variants": no part of their own
    return [i for i in items if i and i.lower() not in VAGUE_ITEMS
            and not i.lower().startswith(("other ", "beyond ", "their ", "its "))]


def listed_parts(topic: str) -> tuple[str, list[str], bool]:
    """(what the colon introduced or "", the parts as typed, whether they share the first part's
    modifier: two items joined by "and"/"or", no comma). No parts: fewer than two items."""
    text = " ".join(str(topic or "").split())
    head, _, tail = (p.strip() for p in text.partition(":"))
    # after a colon, the list is what the head introduces ("evaluating LLMs: benchmarks, metrics");
    # a list before it ("jailbreak attacks and defenses: a review") stands on its own
    segments = [(head, tail)] * bool(tail) + [("", s) for s in concept_phrases(head)]
    for context, segment in segments:
        items = _items(segment)
        # a part is a phrase ("jailbreak attacks"), not a clause ("how do self-driving cars detect
        # other vehicles" and "pedestrians")
        if 2 <= len(items) <= MAX_PARTS and all(len(i.split()) <= MAX_PART_WORDS for i in items):
            shared = "," not in segment and len(items) == 2
            return context, items, shared
    return "", [], False


def expansion(acronym: str, texts: Sequence[str]) -> str:
    """The words the texts most often spell ``acronym`` out with ("Direct Preference Optimization
    (DPO)"), as typed; "" when none do. Only a spelling whose initials are the letters heads a
    section: Schwartz-Hearst matching (retrieval/acronyms.py) also reads "LiDAR" as "Light
    Detection and Ranging", which no survey heads a section with."""
    for form in long_forms(acronym, texts, min_definitions=1):
        if _initials_match(acronym, re.findall(r"[A-Za-z][\w-]*", form)):
            return form
    return ""


def acronym_words(topic: str, texts: Sequence[str]) -> set[str]:
    """The words the works spell the topic's acronyms out with ("RL" -> reinforcement, learning): the
    topic too. A survey of "LLM agents trained with RL" wrote "Both involve reinforcement learning: ..."
    of two of its works (c28n)."""
    return {w.lower() for acronym in set(re.findall(r"\b[A-Z]{2,}s?\b", topic))
            for w in expansion(acronym, texts).split() if len(w) > 2}


# The noun of the action a gerund names ("reducing" -> "reduction"), by the regular English endings;
# a gerund of no such ending names no heading.
_ACTION_NOUNS = ((r"ucing$", "uction"), (r"ating$", "ation"), (r"izing$", "ization"), (r"ising$", "isation"),
                 (r"ecting$", "ection"), (r"ressing$", "ression"))
_LEADING_ACTION = re.compile(r"^([a-z]+ing)\s+(?:(?:the|a|an)\s+)?(\S.*)$")


def action_noun(gerund: str) -> str:
    for ending, noun in _ACTION_NOUNS:
        if re.search(ending, gerund):
            return re.sub(ending, noun, gerund)
    return ""


def _as_modifier(part: str, action: str, texts: Sequence[str]) -> str:
    """A plural part in the form it takes before its action noun: English compounds take the
    singular ("vehicle detection", not "Vehicles Detection", a heading a c35b reader quoted as machine
    made), unless the texts say the plural with the noun more often ("sales forecasting")."""
    single = singular(part)
    if single == part:
        return part

    def said(form: str) -> int:
        pattern = re.compile(rf"(?<![\w-]){re.escape(form)}[\s-]+{re.escape(action)}\b", re.I)
        return sum(1 for text in texts if pattern.search(text))

    return part if said(part) > said(single) else single


MIN_SAID = 2  # texts that must say a modifier with a part for the heading to join them


def _said(phrase: str, texts: Sequence[str], *, alone: bool = False) -> int:
    """Texts saying ``phrase``; ``alone``: as a phrase of its own, not the end of a compound
    ("radar-camera fusion" does not say "camera fusion")."""
    start = r"(?<![\w-])" if alone else r"\b"
    pattern = re.compile(start + rf"{re.escape(phrase.rstrip('s'))}s?\b", re.I)
    return sum(1 for text in texts if pattern.search(text))


def _named_subject(context: str, texts: Sequence[str]) -> str:
    """What a part is for, as the literature names it: the context as typed when papers say it
    ("evaluating large language models"), else, after its leading action, the longest run of its
    words they do say ("making large language models safe" -> "large language models": 'Jailbreaks
    for Making Large Language Models Safe' was a heading a c28j reader quoted as odd)."""
    lead = _LEADING_ACTION.match(context)
    if _said(context, texts) >= MIN_SAID:
        return context
    # a purpose's verb leads it too ("to compress large language models": 'Pruning for Compress Large
    # Language Models' headed a c36o section)
    words = lead.group(2).split() if lead else context.split()[1:]
    if len(words) < 2:
        return context
    for end in range(len(words), 0, -1):
        if end > 1 and _said(" ".join(words[:end]), texts) >= MIN_SAID:
            return " ".join(words[:end])
    return context


def part_headings(context: str, parts: list[str], shared: bool, texts: Sequence[str], *,
                  based: bool = False) -> tuple[list[str], list[Unit]]:
    """Each part's heading and the unit that names it in a paper ([] when a part gets no phrase).
    Parts sharing the first one's action ("reducing the memory and latency of LLM serving") are
    headed by the part and the action's noun ("Memory Reduction", not "Reducing the Memory"; a c27b
    heading); a part of one word after a colon by the part for the subject the colon closes ("Sampling
    for Diffusion Models" of "diffusion models for image generation: sampling, guidance ...")."""
    headings, units = [], []
    parts = [re.sub(r"^(?:the|a|an)\s+", "", p) for p in parts]
    lead = _LEADING_ACTION.match(parts[0]) if shared else None
    # (only over parts of one word each: "detecting deepfake videos and images" lists the targets of
    # one detection, whose parts would restate the topic)
    action = action_noun(lead.group(1)) if lead and len(lead.group(2).split()) == 1 else ""
    if action:
        parts = [lead.group(2), *parts[1:]]
    context = re.split(r"\s+(?:for|in|of|on|with)\s+", context)[0]
    # a word before a phrase shares the phrase's head ("image and video generation": image generation
    # and video generation); as parts, each is then that whole phrase, which must name its own papers
    # ("camera and LiDAR fusion" is one fusion of both: "camera fusion" names 3 of 140 papers, and
    # read as a part of its own, 'Camera for 3D Object Detection' headed a section)
    if shared and not action and len(parts) == 2 and len(parts[0].split()) == 1 and len(parts[1].split()) > 1:
        first, (*second, head) = parts[0], parts[1].split()
        # ... unless the literature says the two together more often than the first alone with the
        # head ("camera-LiDAR fusion", "LiDAR and camera fusion"): then it is one concept, no list
        joint = sum(_said(f"{a}{join}{b} {head}", texts) for a, b in ((first, " ".join(second)), (" ".join(second), first))
                    for join in ("-", " and ", " "))
        if joint >= _said(f"{first} {head}", texts, alone=True):
            return [], []
        parts = [f"{first} {head}", parts[1]]
    modifier = " ".join(parts[0].split()[:-1]) if shared and len(parts[0].split()) > 1 and not action else ""
    # a modifier is shared when the literature says it with the other parts ("jailbreak defenses"),
    # not when it is part of a compound ("red teaming and guardrails": no paper says "red guardrails")
    if modifier and any(len(p.split()) == 1 and _said(f"{modifier} {p}", texts) < MIN_SAID for p in parts[1:]):
        modifier = ""
    for part in parts:
        # a compound of several hyphenated words ("LLM-as-a-judge") is a phrase, not a bare word
        words = part.split() if part.count("-") < 2 else part.split("-")
        forms = [stem_text(part)]
        if action:
            heading = title_case(f"{_as_modifier(part, action, texts)} {action}")
        elif based and len(words) == 1 and context:
            # "LiDAR and camera based 3D object detection": each part is a basis of the context
            # ('Camera for Based 3D Object Detection' headed a c32b section)
            name = part if _ACRONYM.match(part) else title_case(part)
            heading = f"{name}-Based {title_case(_named_subject(context, texts))}"
            spelled = expansion(part, texts) if _ACRONYM.match(part) else ""
            forms += [stem_text(spelled)] if spelled else []
        elif len(words) == 1 and _ACRONYM.match(part):
            spelled = expansion(part, texts)
            heading = title_case(spelled) if spelled else part
            forms += [stem_text(spelled)] if spelled else []
        elif len(words) > 1:
            heading = title_case(part)
        elif modifier:
            heading = title_case(f"{modifier} {part}")
        elif context:
            heading = f"{title_case(part)} for {title_case(_named_subject(context, texts))}"
        else:
            return [], []
        headings.append(heading)
        units.append(Unit(part, tuple(dict.fromkeys(f for f in forms if f))))
    return headings, units


# A countering verb or preposition (kept) and what follows it to the end of the title's clause (dropped).
_COUNTERED = re.compile(r"\b(against|mitigat\w*|defend\w*|counter(?:ing|s)?|resist\w*|prevent\w*|thwart\w*|"
                        r"robust(?:ness)? to|safeguard\w* (?:\w+ )?from)\b[^:;,.?!]*", re.I)


def assign_parts(units: list[Unit], titles: Sequence[str], abstracts: Sequence[str]) -> tuple[list[list[int]], list[set[int]]]:
    """Per part: the rows it holds (named most strongly by it, no tie) and every row naming it. A
    part most of the papers name is the topic's theme ("benchmarks" in 224 of 249 abstracts on
    evaluating LLMs): it holds the papers whose titles name it, the benchmarks themselves, and a
    paper naming it and another part as strongly goes to the other."""
    # a part of one word is named in any of its forms: "Defending LLMs Against Jailbreak Attacks"
    # names the defenses part too (its stem "defend" is not "defen" of "defenses": a c26o reader
    # found that defence under "Jailbreak Attacks")
    # ... but an agent noun names the component, not its process: "retrievers" are not "retrieval",
    # the topic of "retrieval-augmented generation: retrievers, rerankers and generators"
    agents = [u.phrase.lower().rstrip("s") if re.fullmatch(r"[a-z]+(?:er|or)s?", u.phrase.lower()) else None
              for u in units]
    families = [WordFamilies({u.phrase.lower()}) if u.phrase.isalpha() and not _ACRONYM.match(u.phrase)
                and not agent else None for u, agent in zip(units, agents)]

    def names(i: int, text: str, stems: str) -> bool:
        if agents[i]:
            return re.search(rf"\b{agents[i]}s?\b", text.lower()) is not None
        if families[i] is not None:
            return any(word in families[i] for word in re.findall(r"[a-z]{4,}", text.lower()))
        return unit_named(units[i], stems)

    readings = [(title, stem_text(title), abstract, stem_text(abstract)) for title, abstract in zip(titles, abstracts)]
    # what a title sets out to counter is no part it contributes to: "SafeBehavior: ... to Mitigate
    # Jailbreak Attacks" is a defense (a c30 reader found it under "Jailbreak Attacks"); countered,
    # the part counts as the abstract's mention
    countered = [_COUNTERED.sub(r"\1", title) for title in titles]
    fits_by_row = [[2 if names(i, c, stem_text(c)) else 1 if names(i, t, ts) or names(i, a, abs_) else 0
                    for i in range(len(units))]
                   for c, (t, ts, a, abs_) in zip(countered, readings)]
    naming: list[set[int]] = [{row for row, fits in enumerate(fits_by_row) if fits[i]} for i in range(len(units))]
    theme = [len(rows) > THEME_SHARE * max(len(readings), 1) for rows in naming]
    held: list[list[int]] = [[] for _ in units]
    for row, fits in enumerate(fits_by_row):
        fits = [0 if theme[i] and fit == 1 else fit for i, fit in enumerate(fits)]
        best = max(fits)
        tied = [i for i, fit in enumerate(fits) if best and fit == best]
        # a tie with the theme goes to the part that tells the paper apart ("Defending LLMs Against
        # Jailbreak Attacks": jailbreak attacks are every paper's theme, defending is this one's)
        distinct = [i for i in tied if not theme[i]]
        if len(tied) == 1 or len(distinct) == 1:
            held[(distinct or tied)[0]].append(row)
    return held, naming


def context_after(topic: str, parts: list[str]) -> tuple[str, bool]:
    """What a list before the rest of the topic is for ("red teaming and guardrails for safe LLMs"
    -> "safe LLMs"), and whether the parts are its bases ("LiDAR and camera based 3D object
    detection" -> "3D object detection", True)."""
    after = re.split(rf"\b{re.escape(parts[-1])}\b", topic, maxsplit=1, flags=re.I)[-1]
    based = re.match(r"\s*-?based\s", after) is not None
    return re.sub(r"^\s*(?:-?based\s+)?(?:(?:for|in|of|on|with|to)\s+)?", "", after).strip(" .?"), based


def asked_parts(topic: str, titles: Sequence[str], abstracts: Sequence[str], *, min_size: int) -> list[tuple[str, str, list[int]]]:
    """(heading, part as typed, rows) of each part the topic lists, in its order, when the list is
    the survey's structure (module doc); [] otherwise."""
    context, parts, shared = listed_parts(topic)
    if not parts:
        return []
    based = False
    if not context:
        context, based = context_after(topic, parts)
    headings, units = part_headings(context, parts, shared, [f"{t}. {a}" for t, a in zip(titles, abstracts)],
                                    based=based)
    if not units:
        return []
    held, naming = assign_parts(units, titles, abstracts)
    if any(len(rows) < min_size for rows in held):
        return []
    for i in range(len(units)):
        for j in range(i + 1, len(units)):
            both = len(naming[i] & naming[j])
            # ... and at least as often as chance: "training" and "benchmarks", which most abstracts
            # of a vision-language pool say, share 165 of 248 and 309 papers where independence gives
            # 198 (a session-30 phrasing, "LVLMs: architectures, training and benchmarks", lost its
            # parts); "vehicles and pedestrians" are named together above chance, or by every paper
            chance = len(naming[i]) * len(naming[j]) / max(len(titles), 1)
            if both > MAX_SHARED * len(naming[i]) and both > MAX_SHARED * len(naming[j]) and both >= chance:
                return []
    return [(heading, part, rows) for heading, part, rows in zip(headings, parts, held)]
