"""A topic word that asks for a kind of work, not a subject: "how to benchmark the reasoning and coding
abilities of LLMs" asks for benchmarks and evaluations of those abilities.

Why a rule of its own: nearly every method paper's abstract says it is evaluated on benchmarks, so a
paper "named" that word wherever its abstract said it, and that phrasing's pool was 393 papers on
reinforcement learning for reasoning (25 of the 90 cited works evaluate anything; the corpus holds
some 790 titles that benchmark or evaluate LLM reasoning or coding; c36e, session 36). A work that
is a benchmark or an evaluation says so in its title ("MPBench", "Evaluating ...", "Benchmarking
...") or where its abstract introduces what it contributes ("we introduce X, a benchmark for ...").
"""

from __future__ import annotations

import re

# Typed words (as the topic tokenizer gives them) that ask for the evaluation kind of work.
KIND_WORDS = frozenset({"benchmark", "benchmarking", "benchmarked", "evaluation", "evaluating", "evaluate",
                        "evaluated", "assessment", "assessing", "assess", "assessed"})
# The kind as a stem text says it: a benchmark's own name ends in it too ("mpbench", "vgrp bench").
KIND_FORMS = ("benchmark", "bench", "evalu", "assess")
_KIND_STEMS = re.compile(r"(?<!\S)(?:\S*bench\S*|evalu\S*|assess\S*)")
# "we introduce X, a comprehensive benchmark", "we present an evaluation of": the verb of a
# contribution, at most three words before the kind word, none of them a preposition ("we present
# results on five benchmarks" presents results, not a benchmark); or "we evaluate" with what it
# evaluates.
_INTRODUCED = re.compile(
    r"\b(?:introduc|present|propos|construct|buil|releas|develop|curat|creat|design)\w*\s+"
    r"(?:(?!(?:on|across|over|in|with|from|using|against|to)\b)[\w.()-]+[,:]?\s+){0,3}?"
    r"[\w-]*(?:[Bb]ench\w*|[Ee]valuation|[Aa]ssessment)\b"
    # "we evaluate 12 LLMs on ...", "we systematically benchmark frontier models": an evaluation study,
    # unless what is evaluated is the work's own ("we evaluate our method on", "we evaluate it on")
    r"|\b[Ww]e\s+(?:\w+ly\s+)?(?:evaluat|benchmark|assess)\w*\s+"
    r"(?!(?:it|them|our|the proposed|this|these|its|on|across|over|in|with|against|using)\b)[\w.-]+")


def is_kind_unit(tokens: list[str]) -> bool:
    """Whether a unit of these typed tokens asks for the evaluation kind of work."""
    return bool(tokens) and all(t in KIND_WORDS for t in tokens)


def kind_named(stems: str) -> bool:
    """Whether a stem text (see ``kind_text``) names the evaluation kind."""
    return bool(_KIND_STEMS.search(stems))


def kind_text(title: str, abstract: str) -> str:
    """What a paper says of its own kind: its title and the clauses where its abstract introduces
    its contribution."""
    return " ".join([title, *(m.group(0) for m in _INTRODUCED.finditer(abstract or ""))])
