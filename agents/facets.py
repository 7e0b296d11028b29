"""Facets of a paper read from its title and abstract: what kind of work it is, the data and
models it names, the metrics it reports, and a reported result with its number.

These are the columns a comparison needs (issue 17.3): who uses which data or metric, which works
are surveys and which propose methods. Everything is read from the source text by patterns, with
no model; a facet is left empty rather than guessed, so a comparison built from facets states only
what the abstracts say. The patterns are general to empirical research writing (metric names,
"experiments on ... datasets"), not to one topic.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..retrieval.acronyms import long_forms
from ..sanitize import untrusted
from .data_names import is_evaluation_data
from .text import separate_joined_sentences, sentences, strip_section_labels

KINDS = ("survey", "benchmark", "study", "method")  # or "" when neither title nor abstract says
# "review" as a kind of paper, not the reviews a method reads ("Review-driven Retrieval", "Review-Distilled
# Representations", "code review", "product review": both read in an LLM4Rec panel draft's "Surveys" section).
_SURVEY_TITLE = re.compile(r"\b(?:surveys?|overview|tutorial|sok|systematic (?:mapping|literature)|roadmap|state of the art|"
                           r"primer|(?<!code )(?<!peer )(?<!product )(?<!user )(?<!customer )(?<!app )(?<!movie )"
                           r"(?<!online )review(?![\w-]))\b", re.I)
_SURVEY_TEXT = re.compile(r"\b(?:this|our|we (?:present|provide|offer|conduct) an?) (?:\w+ ){0,2}(?:survey|review)\b"
                          r"|\bwe (?:survey|review|systematically review)\b", re.I)
_BENCHMARK_TITLE = re.compile(r"\b(?:benchmark\w*|datasets?|corpus|test ?beds?|suite|arena|leaderboard)\b", re.I)
_BENCHMARK_TEXT = re.compile(r"\bwe (?:introduce|present|propose|construct|build|release|curate|develop|create) "
                             r"(?:[\w-]+[\s,]+){0,5}?(?:benchmark|dataset|corpus|test ?bed|evaluation suite)\b", re.I)
_STUDY_TEXT = re.compile(r"\b(?:we|this (?:paper|work|study)) (?:systematically |empirically |comprehensively )?"
                         r"(?:stud(?:y|ies)|investigates?|analy[sz]es?|examines?|compares?|evaluates?|measures?|"
                         r"probes?|characteri[sz]es?|conducts?|benchmarks?)\b|\b(?:empirical|comparative|"
                         r"systematic) (?:study|analysis|evaluation|comparison)\b", re.I)
_METHOD_TEXT = re.compile(r"\bwe (?:propose|introduce|present|develop|design|devise)\b|\b(?:propose|introduce)s? "
                          r"(?:a|an) (?:novel|new)\b", re.I)
# Weaker signs of a method paper, enough when nothing says it is a survey, benchmark or study.
_METHOD_WORDS = re.compile(r"\b(?:framework|method|approach|algorithm|architecture|pipeline|technique|model|"
                           r"system|mechanism|strategy)s?\b", re.I)

# Metrics as empirical papers name them; the canonical spelling is the dictionary key.
METRICS = {
    "accuracy": r"accuracy", "F1": r"F1(?:[- ]scores?)?|F-score", "exact match": r"exact[- ]match|\bEM\b",
    "BLEU": r"BLEU", "ROUGE": r"ROUGE(?:-\w+)?", "METEOR": r"METEOR", "BERTScore": r"BERTScore|BertScore",
    "nDCG": r"[nN]?DCG(?:@\d+)?", "ANLS": r"ANLS", "MRR": r"MRR", "mAP": r"mAP(?:@\d+)?|mean average precision",
    "NDS": r"NDS|nuScenes detection score",
    "recall": r"recall(?:@\d+)?", "precision": r"precision(?:@\d+)?", "latency": r"latency",
    "throughput": r"throughput", "perplexity": r"perplexity", "AUC": r"AUC|AUROC",
    "hallucination rate": r"hallucination rates?", "faithfulness": r"faithfulness", "win rate": r"win[- ]rates?",
    "success rate": r"success rates?", "FID": r"FID", "FVD": r"FVD", "PSNR": r"PSNR", "SSIM": r"SSIM",
    "LPIPS": r"LPIPS", "Chamfer distance": r"Chamfer(?:[- ]L?\d)?(?: distance)?", "CIDEr": r"CIDEr", "WER": r"WER",
    "pass@k": r"pass@\d+", "kappa": r"QWK|(?:Cohen's )?kappa", "Hits@k": r"Hits@\d+", "AUPRC": r"AUPRC",
    "RMSE": r"RMSE", "MAE": r"MAE", "MSE": r"MSE", "IoU": r"m?IoU", "Dice": r"Dice(?: score)?",
    # segmentation's boundary distance ("evaluate on ACDC, HD95 ...", a c33r draft's data)
    "Hausdorff distance": r"HD95|95HD|Hausdorff distance",
    "bit error rate": r"bit error rates?|\bBER\b", "spectral efficiency": r"spectral efficiency",
    "sum rate": r"sum[- ]rates?", "energy efficiency": r"energy efficiency", "inference cost":
    r"(?:inference|computational|token) (?:cost|usage|overhead)",
}
_METRIC_RES = {name: re.compile(rf"(?<![\w-])(?:{pattern})(?![\w-])", re.I if name in
                                {"accuracy", "recall", "precision", "latency", "throughput", "perplexity",
                                 "hallucination rate", "faithfulness", "win rate", "success rate", "exact match",
                                 "spectral efficiency", "sum rate", "energy efficiency", "inference cost",
                                 "mAP", "Dice", "bit error rate"} else 0)
               for name, pattern in METRICS.items()}
# Foundation models by family name: "who builds on which model" is part of a comparison.
_MODEL = re.compile(r"(?<![\w-])(?:GPT(?:-?(?:\d|o\d|oss)[\w.-]*)?|GPT-4o|ChatGPT|LLaMA[\w.-]*|Llama[\w.-]*|LLaMa[\w.-]*|Qwen[\w.-]*|Mistral[\w.-]*|"
                    r"Mixtral[\w.-]*|Gemma[\w.-]*|Claude[\w.-]*|Gemini[\w.-]*|DeepSeek[\w.-]*|Phi-\d[\w.-]*|"
                    r"Vicuna[\w.-]*|PaLM[\w.-]*|T5|Flan-T5|BERT|RoBERTa|ColBERT\w*|CLIP|BLIP-?\d?|LLaVA[\w.-]*|"
                    r"InternVL[\w.-]*|Stable Diffusion|Grok[\w.-]*|Kimi[\w.-]*|(?:Chat)?GLM[\w.-]*|InternLM[\w.-]*|"
                    r"Baichuan[\w.-]*|Falcon[\w.-]*|OLMo[\w.-]*|Pythia[\w.-]*|BLOOM[\w.-]*|OPT-\d[\w.-]*|"
                    r"Nemotron[\w.-]*|StarCoder[\w.-]*|CodeLlama[\w.-]*|ERNIE[\w.-]*|Yi-\d[\w.-]*|"
                    # vision and speech backbones and detectors, named as what a work uses, not as data
                    r"ResNet[\w-]*|ResNeXt[\w-]*|ViT[\w/-]*|Swin(?:V2)?(?:-\w+)?|ConvNeXt[\w-]*|EfficientNet[\w-]*|"
                    r"YOLO[\w.-]*|(?:Faster |Mask |Cascade )?R-CNN|DETR[\w-]*|U-?Net|fastText|PointNet[\w+-]*|"
                    r"PointPillars|VoxelNet|CenterPoint|BEVFormer|BEVFusion|DINO(?:v\d)?(?:-\w+)?|Whisper[\w.-]*|wav2vec[\w.-]*|"
                    # read in a ViT draft as "evaluation data": DeiT, VideoMAE-B
                    r"DeiT[\w-]*|BEiT[\w-]*|VideoMAE[\w-]*|MobileNet[\w-]*|RegNet[\w-]*|DenseNet[\w-]*|VGG[\w-]*|"
                    r"Mamba[\w-]*|m?HuBERT[\w-]*|WavLM[\w-]*|data2vec[\w.-]*|Conformer[\w-]*|XLS-R|"
                    # read in a v13 ViT draft as evaluation data: "use AlexNet", "use SwinUNETR"
                    r"AlexNet|GoogLeNet|LeNet[\w-]*|Inception[\w-]*|Xception|SqueezeNet|ShuffleNet[\w-]*|"
                    r"(?:Swin)?UNETR[\w-]*|TransUNet|nnU-?Net|SegFormer[\w-]*|Mask2Former|SAM\d?|"
                    # segmentation decoders, read as evaluation data by a c34k reader ("UperNet")
                    r"UPerNet|DeepLab[\w.+-]*|PSPNet|DPT|"
                    # a network family with a prefix ("2D-CNN", "Tri-CNN", "Bi-LSTM"), read as evaluation
                    # data in a c35a draft ("Alkhatib and Jamali use 2D-CNN"); "CNN/DailyMail" stays data
                    r"[0-9]D-?(?:CNN|RNN|LSTM|GNN|GCN|MLP)s?|[A-Za-z]+-(?:CNN|RNN|LSTM|GRU|GNN|GCN|MLP)s?|"
                    # diffusion language models, read as evaluation data by a session-21 reader ("LLaDA")
                    r"LLaDA[\w.-]*)(?![\w-])")
# Spelled in any case ("MobilenetV2"), a backbone is no evaluation data either; nor is a family's name
# before a word ("Swin Transformer", "Llama 3"): "Moon et al. use Swin Transformer" (a v11 reader).
_MODEL_ANY_CASE = re.compile(_MODEL.pattern, re.I)
# A name: CamelCase (HotpotQA), capitals (NQ, MS MARCO) or letters with digits (2WikiMultiHopQA).
_NAME = re.compile(r"(?<![\w-])(?:[A-Z][a-z]+[A-Z][\w-]*|[A-Z]{2,}[a-z]?[\w-]*|[0-9]+[A-Z][\w-]*|[A-Z][a-z]*-\d[\w.-]*)"
                   r"(?:\s(?:[A-Z]{2,}[\w-]*|\d[\w.]*))?(?![\w-])")
_METRIC_VARIANT = re.compile(r"(?:m|max|min|abs|c|avg|mean|mm)(?:AP|IoU|Dice|F1|Rel|Acc|Wave)")  # mAP50, cIoU, mmWave
_LOWER_CAMEL = re.compile(r"(?<![\w-])[a-z]{1,4}[A-Z][A-Za-z0-9]*[a-z0-9][\w-]*(?![\w-])")
_DATA_CONTEXT = re.compile(r"\b(?:datasets?|benchmarks?|corpora|corpus|test sets?|experiments? (?:on|across)|"
                           r"evaluat\w+ (?:on|across)|tested on|results on|on (?:the )?(?:\w+ )?(?:tasks?|suites?))\b",
                           re.I)
# Abbreviations of fields and techniques that every paper of an area uses: not data, not models.
_GENERIC_NAMES = set("""AI ML DL NLP NLU NLG CV RL LLM LLMs LM LMs VLM VLMs MLLM MLLMs LVLM LVLMs RAG QA VQA KG KGs
    API APIs GPU GPUs CPU TPU SOTA GNN GNNs CNN CNNs RNN LSTM MLP IR IoT UAV UAVs ISAC MIMO OFDM SNR SQL JSON
    PDF URL HTML XML US EU UK USA EHR EHRs ASR TTS OCR CoT ICL SFT RLHF DPO PPO KV MoE LoRA PEFT ANN ANNs
    GRPO RM RMs PRM PRMs ORM RLVR LRM LRMs BEV VRU VRUs FMCW LiDAR IID OOD NSFW
    MRI fMRI CT PET EEG ECG EMG OCT""".split())
# A name the abstract introduces for its own method: "we propose X", "called X", "(X)" after a phrase.
_INTRODUCED = re.compile(r"(?:\b[Ww]e (?:propose|introduce|present|develop|design|build|call|name|term)|"
                         r"\b(?:[Tt]his|[Oo]ur) (?:paper|work|study|article) (?:proposes|introduces|presents|develops)|"
                         r"\b(?:called|named|"
                         r"dubbed|termed|coined)) (?:a |an |the )?(?:\w+ ){0,2}?([A-Z][\w-]*[A-Z0-9][\w-]*)|[a-z]\w* \(([A-Z][\w-]*[A-Z][\w-]*(?: [A-Z][\w-]*)?)\)")
# A name followed by one of these nouns is a method, model or tool the paper uses, not evaluation data.
_TOOL_AFTER = r"\s+(?:framework|method|model|retriever|encoder|embeddings?|pipeline|system|agent|approach|architecture|" \
              r"backbone|algorithm|module|baseline|detector|tokenizer)s?\b"
_RESULT_WORDS = re.compile(r"\b(?:results?|experiments?|evaluations?|shows?|outperform\w*|achiev\w*|recovers?|"
                           r"improv\w*|accuracy)\b", re.I)
_BASELINE_BEFORE = re.compile(r"\b(?:over|than|against|versus|vs\.?|outperform\w*|surpass\w*|beat\w*)\s+(?:the\s+)?"
                              r"(?:[\w-]+,?\s+(?:and|or)\s+)?$", re.I)
# Baselines listed after the methods they stand for ("outperforming prior methods such as Circuit
# Breaker, RMU, and NPO"): every name of the list is a baseline, not evaluation data (a v13 reader).
_BASELINE_LIST = re.compile(r"\b(?:over|than|against|outperform\w*|surpass\w*|beat\w*|compar\w+ (?:to|with))\s+"
                            r"(?:[\w-]+\s+){0,4}?(?:methods?|baselines?|approaches|models|defen[cs]es|techniques|"
                            r"systems|works)\s+(?:such as|including|like|e\.g\.,?)\s+"
                            r"([^.;:]*?)(?=,?\s+(?:with|across|on|in|by|while|at|under|reaching)\b|[.;:]|$)", re.I)
_RESULT_VERB = re.compile(r"\b(?:improv\w*|outperform\w*|reduc\w*|increas\w*|achiev\w*|gains?|boost\w*|surpass\w*|"
                          r"lower\w*|cuts?|speed\w*|raises?|decreas\w*|exceed\w*|attain\w*|reach\w*|halv\w*)\b", re.I)
_NUMBER = re.compile(r"\d+(?:\.\d+)?\s?(?:%|×|x\b|-fold|fold\b|\s?percent\b|\s?points?\b|\s?pp\b|percentage points)")
MAX_RESULT_WORDS = 16  # a result clause longer than this is a sentence, not a table cell


@dataclass(frozen=True)
class KnownNames:
    """What the literature around the topic says names are (agents/name_roles.py): ``tools``
    (models, methods, systems) are never a work's evaluation data, ``data`` (benchmarks, datasets)
    never the name of its own system, ``common`` (names many of the topic's papers use) no work's
    own system unless its title opens with it ("DiffusionFF: ...")."""

    tools: frozenset[str] = frozenset()
    data: frozenset[str] = frozenset()
    common: frozenset[str] = frozenset()
    # (name, tool, data): how often the kept papers use each name their patterns read as data; with
    # them, each such reading is checked by the learned model (agents/data_names.py)
    roles: tuple[tuple[str, int, int], ...] = ()

    @classmethod
    def from_record(cls, record: dict | None) -> "KnownNames":
        record = record or {}
        roles = tuple(sorted((str(name), int(tool), int(data)) for name, (tool, data) in (record.get("roles") or {}).items()))
        return cls(frozenset(record.get("tools") or ()), frozenset(record.get("data") or ()),
                   frozenset(record.get("common") or ()), roles)

    def to_record(self) -> dict:
        return {"tools": sorted(self.tools), "data": sorted(self.data), "common": sorted(self.common),
                "roles": {name: [tool, data] for name, tool, data in self.roles}}

    def role_counts(self) -> dict[str, tuple[int, int]]:
        return {name: (tool, data) for name, tool, data in self.roles}


NO_KNOWN_NAMES = KnownNames()


@dataclass
class Facets:
    kind: str
    data: list[str] = field(default_factory=list)
    models: list[str] = field(default_factory=list)
    metrics: list[str] = field(default_factory=list)
    result: str = ""  # "improves exact match by 3.1 points over concatenation readers"
    own_names: list[str] = field(default_factory=list)  # the system the paper names itself


def _abstract(paper: dict) -> str:
    return " ".join(separate_joined_sentences(strip_section_labels(untrusted(paper.get("abstract") or ""))).split())


def contribution_kind(title: str, abstract: str) -> str:
    """survey / benchmark / study / method, by the title first (it states what the paper is)."""
    proposed = _METHOD_TEXT.search(abstract)
    if _SURVEY_TITLE.search(title) or (_SURVEY_TEXT.search(abstract) and not proposed):
        return "survey"
    built = _BENCHMARK_TEXT.search(abstract)
    # A method proposed before the data it builds to train or test it ("we propose InForage, a
    # framework ... To facilitate training, we construct a dataset") is a method paper: the first
    # contribution an abstract states is its main one (1,814 of the corpus's 4,018 text-only cases).
    if _BENCHMARK_TITLE.search(title) or (built and not (proposed and proposed.start() < built.start())):
        return "benchmark"
    if _STUDY_TEXT.search(abstract) and not proposed:
        return "study"
    return "method" if proposed or _METHOD_WORDS.search(f"{title} {abstract}") else ""


# A measure's abbreviation that a text defines as something else names that, not the measure:
# "masked autoencoders (MAE)" is a model ("'MAE' is treated as an evaluation measure", a c34k reader).
_METRIC_LONG_FORMS = {"MAE": "mean absolute error", "MSE": "mean squared error", "RMSE": "root mean squared error",
                      "EM": "exact match", "WER": "word error rate", "MRR": "mean reciprocal rank",
                      "AUC": "area under", "NDS": "nuscenes detection score", "ANLS": "average normalized levenshtein"}


def _defined_otherwise(name: str, text: str) -> bool:
    meaning = _METRIC_LONG_FORMS.get(name)
    if not meaning or f"({name}" not in text:
        return False
    # the long forms the text defines for it (retrieval/acronyms.py, Schwartz-Hearst)
    return any(not form.lower().startswith(meaning.split()[0]) for form in long_forms(name, [text], min_definitions=1))


def _metrics(text: str) -> list[str]:
    return [name for name, pattern in _METRIC_RES.items() if pattern.search(text)
            and not _defined_otherwise(name, text)]


_MODIFIES_NEXT = re.compile(r" (?!(?:for|with|via|on|in|of|and|or|to|from|by|at|as|vs|using|under|through)\b)[A-Za-z]")
_INTRODUCING = re.compile(r"\b(?:we|our|this (?:paper|work|study|article))\b|\b(?:propos|introduc|present|develop|design|"
                          r"call|nam|term|dub|coin)\w*\b|\bnovel\b", re.I)


def _sentence_at(text: str, at: int) -> str:
    before = text.rfind(". ", 0, at)
    start = before + 2 if before >= 0 else 0
    end = text.find(". ", at)
    return text[start:end if end >= 0 else len(text)]


def own_names(title: str, abstract: str) -> list[str]:
    """Names the paper gives itself: the name before a title's colon ('Vgent: ...'), names in its
    title ('... with DenseFuse'), and names the abstract introduces ('we propose X', 'called X',
    'Multimodal RAG (MRAG)')."""
    names = []
    head = title.split(":", 1)[0].strip()
    if ":" in title and 0 < len(head.split()) <= 2:
        names.append(head)
    # a name inside the title that modifies the word after it is the domain's term, not the system
    # ("... for Semiconductor IC Packaging" gave a table the name "IC", a session-30 draft)
    found = [m.group(0) for m in _NAME.finditer(title) if m.start() == 0 or not _MODIFIES_NEXT.match(title, m.end())]
    # the name the title brackets is the system's ("PolSAR Image Classification using a Hybrid
    # Complex-Valued Network (HybridCVNet)" named its system "PolSAR" in a c36a table)
    found.sort(key=lambda name: f"({name})" not in title)
    for match in _INTRODUCED.finditer(abstract):
        # an acronym defined in passing names what the work uses ("local patch boundaries (BSDS500)",
        # "Class Activation Mapping (Grad-CAM) analysis confirmed ..."); one the sentence introducing
        # the work defines ("we propose Multimodal RAG (MRAG)") is its own
        if match.group(1) or _INTRODUCING.search(_sentence_at(abstract, match.start())):
            found.append(match.group(1) or match.group(2))
    generic = {term for term, is_generic in _definitions(abstract).items() if is_generic}
    # Past the title's head, ordinary words joined by hyphens ("Visual-Grounded", "LLM-based",
    # "Scale-Normalized") are a description, not a name; a name has a capital or digit inside a word.
    names += [n for n in found if not _DESCRIPTIVE.fullmatch(n)]
    # a name the title evaluates "on" is its data ("Improving ... on ML-SUPERB 2.0"); a plural
    # acronym is a class ("MFCCs", "AudioLLMs"); a measure is no system ("WER")
    data = {m.group(1) for m in re.finditer(r"\b(?:on|at) ((?:[A-Z][\w.-]*)(?: [A-Z0-9][\w.-]*)*)", title)}
    return [n for i, n in enumerate(names) if n not in names[:i] and n not in _GENERIC_NAMES and not _MODEL.fullmatch(n)
            and not _NOT_DATA.match(n) and n not in generic and not _TASK.fullmatch(n)
            and not _PLURAL_ACRONYM.fullmatch(n) and not _metrics(n) and not any(n in d for d in data)]


_PLURAL_ACRONYM = re.compile(r"[A-Za-z0-9]*[A-Z][A-Z0-9]s")


# X-to-Y generation tasks abbreviated ("T2I", "I2V", "TI2V", "T2-3D"): a task, not a system.
_TASK = re.compile(r"(?:T|I|V|A|S|M|TI|TV|IT)2(?:I|V|A|S|T|M|3D|4D)")
_DESCRIPTIVE = re.compile(r"[A-Z][a-z]+(?:-[A-Za-z][a-z]+)+|[A-Z]{2,5}(?:-[a-z]+)+|[A-Z][A-Z][a-z]+|"
                          # a title's capitals do not make "LLM-Based" or "RL-Driven" a name (a v13
                          # table listed four works' system as "LLM-Based")
                          r"[A-Z]{2,5}-(?:Based|Driven|Powered|Enabled|Guided|Aware|Augmented|Assisted|Enhanced|"
                          r"Centric|Oriented|Free|Agnostic|Specific|Grounded|Informed|Integrated)")


# A list of capitalised items ("Natural Questions and TriviaQA", "NQ, TriviaQA, and HotpotQA").
_CAPITAL_LIST = re.compile(r"(?:[A-Z][\w-]*(?: [A-Z][\w-]*){0,3}(?:, and |, | and ))+[A-Z][\w-]*(?: [A-Z][\w-]*){0,3}")


def _listed_names(sentence: str) -> list[str]:
    """Names in reading order, plus multiword capitalised items that share a list with a name
    ('Natural Questions' beside 'TriviaQA'): a dataset's name is not always one token."""
    found = [(m.start(), m.group(0)) for m in _NAME.finditer(sentence)]
    # data names that start lower-case ("nuScenes", "eICU"); not in own_names, where such a word in a
    # title is a dataset the work uses more often than its own name
    found += [(m.start(), m.group(0)) for m in _LOWER_CAMEL.finditer(sentence) if not _METRIC_VARIANT.match(m.group(0))]
    for listing in _CAPITAL_LIST.finditer(sentence):
        items = [(listing.start() + m.start(), m.group(0)) for m in
                 re.finditer(r"[A-Z][\w-]*(?: [A-Z][\w-]*)*", listing.group(0))]
        if any(_NAME.fullmatch(item) for _, item in items):
            found += [(at, item) for at, item in items if " " in item]
    return [name for _, name in sorted(found)]


# "(LRMs)" after the words it abbreviates: "Large Reasoning Models (LRMs)", "knowledge distillation (KD)".
_PARENTHESISED = re.compile(r"\(([A-Za-z][A-Za-z0-9-]{1,11})\)")
_DATA_WORDS = re.compile(r"\b(?:bench\w*|datasets?|corpus|corpora|suite|collection|test ?set)\b", re.I)
# Tokens a name pattern takes that name no data: dimensions ("3D"), sizes ("40GB"), code hosts.
_NOT_DATA = re.compile(r"^(?:\d+(?:\.\d+)?(?:D|[KMGT]B|[KMB]))$|^\d+(?:\.\d+)?[KMB]?-\d+(?:\.\d+)?[KMB]$|^(?:GitHub|HuggingFace|Hugging Face|arXiv|SoTA|SOTA|STEM)$"
                       # who builds a model is no data ("use OpenAI and DeepMind", a v13 reader)
                       r"|^(?:OpenAI|DeepMind|Google(?: DeepMind| Research)?|Meta(?: AI)?|Microsoft|Anthropic|NVIDIA|"
                       r"Alibaba|Baidu|Tencent|ByteDance|Huawei|Apple|Amazon|IBM|xAI|Mistral AI)$"
                       # a class of models or systems spelled with capitals ("Large Vision-Language Models")
                       r"|^(?:[A-Z][\w-]* )+(?:Models|Networks|Agents|Systems|Methods|Transformers|Architectures)$"
                       # compute counts are what a method costs, not what it is evaluated on ("use FLOPs")
                       # ... also with their count ("93G FLOPs", a c33r draft's data)
                       r"|^(?:\d+(?:\.\d+)?\s?[KMGT]?\s?)?(?:[GTM]?FLOPs?|[GM]?MACs|FPS|Params)$"
                       # serving latency and sampling cost ("use TTFT", "use NFE", c23 readers)
                       r"|^(?:TTFT|TPOT|ITL|TBT|NFEs?)$"
                       # a mixture-of-experts size, total and active ("use 30B-A3B", a c23 reader)
                       r"|^\d+(?:\.\d+)?B-A\d+(?:\.\d+)?B$"
                       # detection's average precision and recall ("improve AP by 2 points"): measures
                       r"|^A[PR](?:\d{2})?$"
                       # a model size and its class ("use 7B LLMs", a v9 reader): not data
                       r"|^\d+(?:\.\d+)?[KMB]\s+[A-Za-z]"
                       # the hardware a method runs on ("Du et al. use RTX 4090", a session-21 reader)
                       r"|^(?:NVIDIA |GeForce )?(?:RTX|GTX) ?\d{3,4}\w*$|^(?:NVIDIA )?(?:[AHBLV]\d{2,3}|A[456]000)(?: GPUs?)?$"
                       r"|^(?:Jetson(?: \w+)*|TPUs?(?: ?v\d\w*)?|[GCNT]PUs?|FPGAs?)$")


def _initials_match(acronym: str, words: list[str]) -> bool:
    """Whether ``acronym``'s letters are the initials of the last words before it (a hyphenated
    word counts its parts: "Retrieval-Augmented Generation (RAG)")."""
    letters = re.sub(r"s$", "", re.sub(r"[^A-Za-z]", "", acronym)).lower()
    # "Omni-modal" gives O or O, M; "Human Video Generation in 4D (HVG)": small words and numbers skipped
    # ("Reinforcement Learning from Human Feedback (RLHF)": "from" too)
    skipped = [w for w in words if len(w) > 1 and w.lower() not in {"in", "of", "for", "with", "on", "the", "and", "to",
                                                                     "from", "by", "via", "an"}]
    for parts in (words, [p for w in words for p in w.split("-") if p], skipped):
        for k in range(1, min(len(parts), len(letters) + 2) + 1):
            if "".join(p[0].lower() for p in parts[-k:] if p[0].isalpha()) == letters:
                return True
    return False


# Head words of an expansion that name a task or a class of models, not one system.
_CLASS_HEADS = frozenset("""recognition detection classification segmentation generation translation retrieval
    answering summarization summarisation prediction estimation identification verification tracking
    forecasting reasoning captioning synthesis understanding rate model network""".split())


def _definitions(abstract: str) -> dict[str, bool]:
    """Abbreviations the abstract defines for a concept, each with whether it names a class or a
    task rather than one system: a plural ("Large Reasoning Models (LRMs)"), a lower-case
    expansion ("image-to-video (I2V)", "knowledge distillation (KD)") or an X-to-Y task ("T2V").
    An expansion that names a benchmark or dataset is left out: it is data."""
    found: dict[str, bool] = {}
    for match in _PARENTHESISED.finditer(abstract):
        before = re.findall(r"[A-Za-z][\w-]*", abstract[max(0, match.start() - 120):match.start()])[-8:]
        acronym = match.group(1)
        expansion = " ".join(before[-len(acronym) - 2:])
        after = abstract[match.end():match.end() + 40]
        # "autoregressive (AR)", "multilingual (ML)": one lower-case word abbreviated by its syllables
        syllables = (before and before[-1][:1].islower() and before[-1][:1] == acronym[:1].lower()
                     and len(acronym.rstrip("s")) <= 3)
        if syllables and not _initials_match(acronym, before):
            found[acronym] = True
            continue
        if not before or not _initials_match(acronym, before) or (
                _DATA_WORDS.search(expansion) or _DATA_WORDS.search(after) or re.search(r"\d", expansion)):
            continue  # "EPIC-KITCHENS-100 (EK-100)", "(WIT) dataset": data
        last = before[-1]
        # "Speech Emotion Recognition (SER)", "Language Identification (LID)", "Word Error Rates
        # (WER)", "Speech Foundation Models (SFM)": a task, a measure or a class of models, capitalised
        generic = (acronym.endswith("s") or last[:1].islower() or bool(_TASK.fullmatch(acronym))
                   or last.lower().rstrip("s") in _CLASS_HEADS or bool(_metrics(" ".join(before[-len(acronym):]))))
        for term in {acronym, acronym.rstrip("s")}:
            found[term] = found.get(term, False) or generic
    return found


def defined_terms(abstract: str) -> set[str]:
    """Abbreviations the abstract defines for a concept ("Large Reasoning Models (LRMs)", "Group
    Relative Policy Optimization (GRPO)"): the models, methods or problems it talks about, not
    evaluation data."""
    return set(_definitions(abstract))


_LINK = re.compile(r"(?:https?://|www\.)\S+|\b(?:github|huggingface|gitlab)\.(?:com|co|io)/\S+", re.I)


def _data_names(said: list[str], exclude: set[str], own: Sequence[str] = ()) -> list[str]:
    # a link's path names an account or a repository, not data ("use XueyangFeng", a reader)
    said = [_LINK.sub(" ", sentence) for sentence in said]
    text = " ".join(said)
    defined = defined_terms(text)
    found: list[str] = []
    for sentence in said:
        data_sentence = bool(_DATA_CONTEXT.search(sentence))
        results_sentence = bool(_RESULT_WORDS.search(sentence) or _NUMBER.search(sentence))
        if not (data_sentence or results_sentence):
            continue
        baselines = [m.span(1) for m in _BASELINE_LIST.finditer(sentence)]  # read once per sentence
        for name in _listed_names(sentence):
            at = sentence.find(name)
            # in a results sentence without data words, only a name right after "on" is data
            if not data_sentence and not re.search(r"\b[Oo]n (?:the )?$", sentence[max(0, at - 8):at]):
                continue
            # a sentence's opening word is no part of a name ("Using R-MHSafe and MHSafeEval, we ...")
            name = re.sub(r"^(?:Using|With|Via|From|For|And|The|On|In)\s+", "", name.rstrip(".-"))
            in_baselines = any(start <= at < end for start, end in baselines)
            if in_baselines or _BASELINE_BEFORE.search(sentence[max(0, at - 30):at]) or \
                    re.search(re.escape(name) + _TOOL_AFTER, text):
                continue  # "improves over MedRAG" (a baseline), "the BGE-M3 retriever" (a tool): not evaluation data
            # not data: a dimension, a size ("3B", "Meditron-8B"), a code host, a concept the abstract
            # defines, field abbreviations ("LLM RLVR"), a metric, a model, or a name already found
            if (_NOT_DATA.match(name) or re.search(r"-[a-z]+$|[\s-]\d+(?:\.\d+)?[BM]$", name)
                    or name in defined or name.rstrip("s") in defined or name.rstrip("s") in _GENERIC_NAMES
                    or all(w in _GENERIC_NAMES for w in name.split()) or _metrics(name) or name in exclude
                    or _MODEL_ANY_CASE.fullmatch(name) or _MODEL.fullmatch(name.split()[0]) or len(name) < 2
                    or name in found
                    # a variant of the work's own system ("FrameDiT-H" of FrameDiT) is the system
                    or any(name.startswith(f"{o}-") for o in own)
                    # a plural acronym is a class of models ("RLLMs", "MLRMs"), not one dataset
                    or _PLURAL_ACRONYM.fullmatch(name)
                    or (name.endswith("s") and name[:-1] in found)):
                continue
            found.append(name)
    return found


def result_clause(sentence: str) -> str:
    """The clause of a sentence that reports a number: from its result verb to the end of the
    clause ('improves exact match by 3.1 points over concatenation readers'); '' when the sentence
    states no number or the clause is too long for a table cell."""
    number = _NUMBER.search(sentence)
    if not number:
        return ""
    verbs = [m for m in _RESULT_VERB.finditer(sentence) if m.start() < number.start()]
    if not verbs:
        return ""
    start = verbs[-1].start()
    end_match = re.search(r"[,;.](?:\s|$)|\s(?:while|whereas|and (?:achiev|reduc|improv))", sentence[number.end():])
    end = number.end() + (end_match.start() if end_match else len(sentence) - number.end())
    clause = sentence[start:end].strip().rstrip(".,;")
    # Quoted as it stands, so a clause that speaks as "we"/"our" would misattribute; left out.
    if re.search(r"\b(?:we|our|us)\b", clause, re.I) or len(clause.split()) > MAX_RESULT_WORDS or clause.count("(") != clause.count(")"):
        return ""
    return clause


def paper_facets(paper: dict, known: KnownNames = NO_KNOWN_NAMES) -> Facets:
    """The facets of one paper; ``known``: what the topic's literature says names are."""
    title = " ".join(untrusted(paper.get("title") or "", 300).split())
    abstract = _abstract(paper)
    said = sentences(abstract)
    # a name the literature uses as data is a benchmark's own name in the benchmark's title, and no
    # system name where only the abstract brackets it ("reasoning performance (GSM8K)")
    mine = [name for name in own_names(title, abstract) if name not in known.data or name in title]
    # a name many of the topic's papers use is the field's term, unless the title opens with it
    head = title.split(":", 1)[0].strip() if ":" in title else ""
    mine = [name for name in mine if name not in known.common or name == head]
    models = []
    for match in _MODEL.finditer(abstract):
        # "Vicuna-revealing", "GPT-4V-aided": a lost space before the next word, not part of the name
        name = re.sub(r"-[a-z]{3,}$", "", match.group(0).rstrip(".-"))
        # "ViTs", "CNNs": the family the acronym names, one model with "ViT" ("The models their
        # abstracts name are ViTs (four works) and ViT (three works)", c36a)
        name = re.sub(r"(?<=[A-Z])s$", "", name)
        if name not in models and name not in mine:
            models.append(name)
    result = next((c for c in (result_clause(s) for s in said) if c), "")
    data = _data_names(said, set(mine) | set(models) | known.tools, mine)
    if known.roles:  # the pool's role counts are there: the learned check reads each name in context
        counts = known.role_counts()
        data = [name for name in data if is_evaluation_data(name, title, abstract, *counts.get(name, (0, 0)))]
    return Facets(kind=contribution_kind(title, abstract), data=data, models=models, metrics=_metrics(abstract),
                  result=result, own_names=mine)


def data_key(name: str) -> str:
    """A data name's spelling-free key: lower case, without hyphens and spaces ("OS-World" = "OSWorld")."""
    return re.sub(r"[\s-]+", "", name.lower())


def recurring_data(items: Sequence[tuple[object, Facets]], banned: set[str] | frozenset = frozenset()
                   ) -> list[tuple[str, list]]:
    """(name, ids) of the evaluation data two or more of ``items`` (id, facets) name, most users
    first. Spellings that differ only in case or in a hyphen or space are one name ("ImageNet-1K",
    "ImageNet-1k"; "OSWorld", "OS-World": a c29 draft said both recur and one stands alone), shown as
    most works write it; ``banned`` (lower case) are left out. The one reading of "shared data" for
    the subsections' comparisons, the overview and the evaluation section."""
    users: dict[str, list[str]] = {}
    spellings: dict[str, Counter] = {}
    for pid, facets in items:
        for name in facets.data:
            if name.lower() in banned:
                continue
            key = data_key(name)
            spellings.setdefault(key, Counter())[name] += 1
            if pid not in users.setdefault(key, []):
                users[key].append(pid)
    shared = [(spellings[k].most_common(1)[0][0], u) for k, u in users.items() if len(u) >= 2]
    return sorted(shared, key=lambda item: (-len(item[1]), item[0].lower()))
