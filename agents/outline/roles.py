"""Section roles: what human-written surveys are made of, and which papers play which role.

SurveyForge learns outlines from human outlines of related topics. What transfers between topics
is not their wording (a heading of a wireless survey does not belong in a RAG survey) but their
*roles*: foundations and background, a taxonomy of approaches, data / benchmarks / evaluation,
applications, challenges. ``learn_roles`` reads the roles and their order from the related
outlines' first-level headings; ``paper_role`` tells which role an on-topic paper plays from its
title (a benchmark, a survey or analysis, an application to a domain, otherwise a method), and
``domain_of`` names the application domain. The outline floor then instantiates each role with
this topic's papers and names (agents/outline/floor.py). Challenges get a section of their own,
written with the frame from the works' stated limitations (agents/challenges.py).
"""

from __future__ import annotations

import re
from statistics import median

from ...retrieval.kind_units import KIND_WORDS
from ...retrieval.spelling import is_task_verb, singular
from ...retrieval.topic_facets import phrased_as_request, products_after_model
from .grams import GERUND_VERBS
from .names import title_case

METHODS = "methods"
FOUNDATIONS, EVALUATION, APPLICATIONS = "foundations", "evaluation", "applications"
DEFAULT_ORDER = (FOUNDATIONS, METHODS, EVALUATION, APPLICATIONS)

# First-level headings of human outlines -> role (first match wins; anything else is a method
# family, the bulk of every survey). Frame headings (introduction, conclusion) have no role here.
_HEADING_ROLES = (
    ("frame", r"\b(introduction|conclusions?|concluding|summary|acknowledg\w*|references?|appendix)\b"),
    ("challenges", r"\b(challenges?|future|open (problems?|questions?|issues?)|directions?|outlook|limitations?|"
                   r"discussion|opportunit\w*|trends?)\b"),
    (EVALUATION, r"\b(benchmarks?|datasets?|evaluation|evaluating|metrics?|assessment|measurements?|"
                 r"experiments?|empirical)\b"),
    (APPLICATIONS, r"\b(applications?|domains?|use cases?|deployments?|practice|real[- ]world|downstream)\b"),
    (FOUNDATIONS, r"\b(background|preliminar\w*|foundations?|definitions?|overview|basics?|concepts?|"
                  r"formulations?|history|fundamentals?|taxonom\w*|principles?|problem setting)\b"),
)

# Paper titles -> role. A survey, review or analysis of the topic belongs with its foundations;
# a benchmark or dataset with evaluation; a paper naming an application domain with applications.
# The cue words are read where they name the paper's kind, not a task or a part ("3D Scene
# Understanding", "Routing Mechanism", "Position Encoding", "Peer Review", "Theory of Mind",
# "Review-Distilled Representations", "Tell Me Why: Designing ..."): matched anywhere, they filed 720 of
# 9,648 pool titles (session 20's 28 pools) as surveys or analyses, 409 now; a v13 reader found a
# dental-record system and a job recommender under "Overviews and Analyses".
_PAPER_FOUNDATIONS = re.compile(
    r"\b(surveys?|overview|tutorial|primer|taxonomy|sok|perspectives?|theoretical|rethinking|closer look|"
    r"empirical (study|analysis|findings)|systematic (study|analysis|mapping)|position paper|"
    r"(?:a|an|the|literature|systematic|critical|comprehensive|scoping|narrative|unified) review|review (?:of|on))\b"
    r"|\btheory\b(?! of mind)"
    r"|(?:^|:\s*|\b(?:towards?|on|for|in|of|and)\s+)(?:understanding|why)\b"
    r"|^(?:position|review)\b|\bmechanisms? (?:of|behind|underlying)\b",
    re.IGNORECASE)
_PAPER_EVALUATION = re.compile(r"(\w*bench\w*|\bdatasets?\b|\bevaluat\w*|\bmetrics?\b|\bleaderboards?\b|\btestbeds?\b|"
                               r"\bassessing\b|\bmeasuring\b|\bauditing\b|\baudit\b)", re.IGNORECASE)
# Application domains, each a concept phrase that can head a subsection of "Applications".
DOMAINS = (  # words that name a domain in ML titles without another common ML sense
    ("Medicine and Healthcare", r"medic\w*|clinic\w*|health\w*|biomedic\w*|patients?|drugs?|radiolog\w*|diseases?|"
                                r"hospital\w*|ehrs?|surg\w*|nurs\w*|pharma\w*|oncolog\w*|"
                                # the organs and findings of medical imaging titles: "Skin Cancer ...",
                                # "Brain Tumor Classification ..." headed ViT method sections (c26f)
                                r"cancers?|tumou?rs?|lesions?|histopatholog\w*|patholog\w*|dermatolog\w*|"
                                r"radiograph\w*|x-rays?|mri|retinal|retinopath\w*|alzheimer\w*|diabet\w*|"
                                r"cardiac|cardiovascular|pneumon\w*|covid\w*|mammogra\w*|endoscop\w*|"
                                r"ultrasound|polyps?|glaucoma|dental|ecg|eeg"),
    ("Law and Public Policy", r"legal|court\w*|juris\w*|legislat\w*|lawyers?|government\w*|islamic"),
    # "filter banks", "memory banks" are ML's own banks: "A ... approach to deep filter banks for texture
    # recognition" headed "Science and Finance" in a ViT survey (a c34a reader: "contains no finance")
    ("Finance and Business", r"financ\w*|(?<!filter )(?<!memory )(?<!feature )(?<!prompt )(?<!question )(?<!data )"
                             r"bank\w*|business\w*|e-?commerce|insurance|stocks?|customers?|retail|advertis\w*"),
    ("Education", r"educat\w*|classroom\w*|schools?|tutoring"),
    ("Science and Engineering", r"scientific|chemi\w*|materials? science|biolog\w*|climate|manufactur\w*|"
                                r"industrial|nuclear|agricult\w*|telecom\w*|power grids?|geolog\w*|astronom\w*|"
                                r"molec\w*|proteins?|"
                                # the crops and herds of agriculture titles ("Crop Pest Classification",
                                # olive varieties filled ViT method sections, c35a)
                                r"plant diseases?|pests?|livestock|fruits?|weeds?|farm\w*|olives?"),
    # "Hyperspectral Image Classification" and "Remote Sensing" headed method subsections of a ViT survey
    # whose reader found "most works are domain applications" (c35a)
    ("Remote Sensing and Earth Observation", r"remote sensing|remotely sensed|hyperspectral|multispectral|satellite|"
                                             r"earth observation|land[- ](?:cover|use)"),
    ("Culture, Media and Society", r"cultur\w*|social media|news|music|artworks?|heritage|religio\w*|folk\w*|"
                                   r"literary|humanities"),
)
# Short names for small domains that share one subsection ("Finance, Education and Science").
DOMAIN_SHORT = {"Medicine and Healthcare": "Medicine", "Law and Public Policy": "Law", "Finance and Business": "Finance",
                "Education": "Education", "Science and Engineering": "Science", "Culture, Media and Society": "Culture",
                "Remote Sensing and Earth Observation": "Remote Sensing"}
_DOMAIN_PATTERNS = tuple((name, re.compile(rf"\b({pattern})\b", re.IGNORECASE)) for name, pattern in DOMAINS)


def heading_role(title: str) -> str:
    for role, pattern in _HEADING_ROLES:
        if re.search(pattern, title, re.IGNORECASE):
            return role
    return METHODS


def learn_roles(demos: list[dict]) -> tuple[list[str], dict]:
    """Body roles in the order the related human outlines use them, and what was read.

    A role enters when at least one related outline has a first-level heading of that role;
    methods always do. Without outlines, the usual order of human surveys (DEFAULT_ORDER)."""
    positions: dict[str, list[float]] = {}
    seen_in: dict[str, int] = {}
    for demo in demos:
        entries = [e for e in demo.get("entries", []) if e.get("level") == 1]
        roles_here = set()
        for i, entry in enumerate(entries):
            role = heading_role(str(entry.get("title") or ""))
            if role in ("frame", "challenges"):
                continue
            positions.setdefault(role, []).append(i / max(len(entries) - 1, 1))
            roles_here.add(role)
        for role in roles_here:
            seen_in[role] = seen_in.get(role, 0) + 1
    if not demos or not positions:
        return list(DEFAULT_ORDER), {"source": "default order (no related human outline)"}
    roles = sorted({METHODS, *positions}, key=lambda r: (median(positions.get(r, [0.5])), DEFAULT_ORDER.index(r)))
    # Evaluation and applications read the methods: placed before them (as some related outlines of
    # evaluation-heavy topics place a benchmark section early), the benchmarks section opened the
    # survey and a blind reader faulted "the evaluation section comes before any method section".
    after = [r for r in roles if r in (EVALUATION, APPLICATIONS) and roles.index(r) < roles.index(METHODS)]
    roles = [r for r in roles if r not in after]
    roles[roles.index(METHODS) + 1:roles.index(METHODS) + 1] = after
    return roles, {"source": f"{len(demos)} related human outline(s)", "roles_seen": seen_in}


def domain_of(title: str, topic: str) -> str | None:
    """The application domain a title names, unless the topic itself is about that domain."""
    for name, pattern in _DOMAIN_PATTERNS:
        if pattern.search(title) and not pattern.search(topic):
            return name
    return None


def asks_for_evaluation(topic: str) -> bool:
    """Whether the topic asks for benchmarks or evaluations ("how to benchmark the reasoning of
    LLMs", "Evaluation of Large Language Models"): then they are the survey's body, organised by
    what they evaluate, not one role section ("Benchmarks and Evaluation" held 40 of a 61-work
    survey of reasoning benchmarks, beside one other section; c36e, session 36)."""
    # (as typed: "benchmarks" of "LVLMs: architectures, training and benchmarks" is one listed part)
    return any(w in KIND_WORDS for w in re.findall(r"[a-z]+", topic.lower()))


def _only_kind_words(phrase: str) -> bool:
    words = re.findall(r"[a-z]+", phrase.lower())
    return bool(words) and all(singular(w) in KIND_WORDS for w in words)


def paper_role(title: str, topic: str) -> str:
    if _PAPER_FOUNDATIONS.search(title):
        return FOUNDATIONS
    if _PAPER_EVALUATION.search(title) and not asks_for_evaluation(topic):
        return EVALUATION
    if domain_of(title, topic):
        return APPLICATIONS
    return METHODS


_SMALL_WORDS = {"a", "an", "and", "as", "at", "by", "for", "from", "in", "into", "of", "on", "or", "the", "to", "via",
                "with"}


def names_no_field(topic: str) -> bool:
    """The topic is a request or a task to do ("how to stop ...", "using large language models to
    forecast time series data", "detecting deepfake videos and images"), not the name of a field: no
    heading is "Benchmarks and Evaluation of Using Large Language Models to ..." (a blind reader
    quoted it)."""
    # "explaining the predictions of LLMs" is the task "explaining LLM predictions" (c35f)
    words = re.findall(r"[a-z]+", products_after_model(topic).lower())
    if phrased_as_request(topic) or (words and words[0] in GERUND_VERBS):
        return True
    # a gerund before its object ("segmenting organs", "recognising emotions"), not an -ing noun
    # that names a field ("reasoning models", "federated learning" never opens so)
    return len(words) > 1 and is_task_verb(words[0]) and words[1] not in _SMALL_WORDS


def role_heading(role: str, topic: str) -> str:
    """The heading of a role section, instantiated with the topic (never another survey's words)."""
    # what a colon introduces is the survey's parts, not its subject ("Applications of Retrieval-
    # Augmented Generation: Retrievers, Rerankers and Generators" headed a section)
    topic = topic.split(":")[0].strip() or topic
    # a relative clause describes the subject and is no part of its name: "Benchmarks and Evaluation
    # of Multimodal LLMs That Combine Vision and Language" headed a c32l section
    topic = re.split(r"\s+(?:that|which|who|whose)\s+", topic, maxsplit=1, flags=re.IGNORECASE)[0].strip() or topic
    subject = topic if len(topic) <= 40 else re.split(r"\s+(?:built\s+(?:on|upon|with)|for|in|of|on|with)\s+", topic)[0]
    # The foundations role holds the pool's surveys and analyses (paper_role), not the field's
    # background concepts: named "Foundations", it promised what blind readers then missed
    # ("'Foundations' ... holds a pediatric dental antibiotic system", "no foundations").
    label = {FOUNDATIONS: "Overviews and Analyses", EVALUATION: "Benchmarks and Evaluation",
             APPLICATIONS: "Applications"}[role]
    # a topic typed as a question is no name to head a section with ("Applications of How to Stop
    # LLMs from Hallucinating"): the role alone, in two words
    # so too when the cut below kept a topic's tool, not its subject: "large language models in
    # recommender systems" headed "Benchmarks and Evaluation of Large Language Models" (a c36g
    # reader: "named too broadly")
    # (or its kind of work: "benchmarks for evaluating LLM-based agents" headed "Applications of
    # Benchmarks" in c36n)
    if names_no_field(topic) or (subject != topic and (_TOOL_HEAD.search(subject) or _only_kind_words(subject))):
        return {APPLICATIONS: "Application Domains"}.get(role, label)
    # A topic that opens with the role's own word ("Evaluation of LLMs") is not repeated after it:
    # "Benchmarks and Evaluation of Large Language Models", not "... Evaluation of Evaluation of ...".
    own = {w.lower().rstrip("s") for w in label.split()} - {"and"}
    opening = re.match(r"(\w+?)s?\s+(?:of|for|in|on)\s+(.+)", subject)
    if opening and opening.group(1).lower() in own:
        subject = opening.group(2)
    # a subject headed by the role's word keeps only its other words, before the label: "Safety
    # Benchmarks and Evaluation", not "Benchmarks and Evaluation of Safety Evaluation Benchmarks" (c27q)
    words = subject.split()
    if words and words[-1].lower().rstrip("s") in own:
        rest = [w for w in words if w.lower().rstrip("s") not in own]
        return f"{title_case(' '.join(rest))} {label}" if rest else label
    return f"{label} of {title_case(subject)}"


# a phrase headed by a kind of model names the tool a topic applies, not what it is about
_TOOL_HEAD = re.compile(r"\b(?:models?|networks?|llms?|lms?|transformers?|agents?|mllms?|vlms?|gnns?)$", re.IGNORECASE)

_SYSTEM_NAME = re.compile(r"[a-z][A-Z]|[A-Z]{2,}[a-z]{2,}|[A-Za-z]-?\d|\d[A-Za-z]{2,}")


def is_system_name(phrase: str) -> bool:
    """'GraphRAG', 'RAGTruth', 'GPT-4', 'Qwen2.5': the name of one system or dataset, not a concept
    ('LLMs', '3D', 'VQA' are fine)."""
    for word in phrase.split():
        bare = word[:-1] if word.endswith("s") else word
        if _SYSTEM_NAME.search(bare) and not re.fullmatch(r"\d+[dD]", bare):
            return True
    return False
