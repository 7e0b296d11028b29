"""A topic word asking for a kind of work ("how to benchmark ..."): named where a work says it is one."""

from __future__ import annotations

from surveygraph.retrieval.kind_units import kind_text
from surveygraph.retrieval.facet_reading import read_facets
from surveygraph.retrieval.topic_facets import Facet, topic_facets

TOPIC = "how to benchmark the reasoning and coding abilities of LLMs"


def _facets() -> list[Facet]:
    return topic_facets(TOPIC, [])


def test_the_benchmark_word_of_a_request_is_a_kind_unit():
    units = [u for f in _facets() for u in f.units]
    assert [u.phrase for u in units if u.kind] == ["benchmark"]
    assert all(Facet.from_dict(f.to_dict()) == f for f in _facets())  # kept through the manifest


def test_a_method_evaluated_on_benchmarks_is_not_a_benchmark():
    """c36e: 393 kept papers on RL for reasoning, each "evaluated on math and coding benchmarks"."""
    method = read_facets(_facets(), "Scaf-GRPO: Scaffolded Group Relative Policy Optimization for Enhancing LLM Reasoning",
                         "We improve the reasoning abilities of LLMs and evaluate on math and coding benchmarks. "
                         "We present results on five benchmarks.")
    assert method.text_min < 1.0 and not all(method.kinds)


def test_a_benchmark_says_so_in_its_title_or_where_it_introduces_itself():
    named_in_title = read_facets(_facets(), "MPBench: A Comprehensive Multimodal Reasoning Benchmark",
                                 "We study the coding abilities of LLMs.")
    introduced = read_facets(_facets(), "Can LLMs reason about code?",
                             "We introduce CodeR, a new benchmark measuring the reasoning abilities of LLMs.")
    for reading in (named_in_title, introduced):
        assert reading.text_min == 1.0 and all(reading.kinds)


def test_the_kind_text_keeps_introductions_not_results():
    text = kind_text("A title", "We propose GRPO-X. We present results on five benchmarks. "
                                "We construct a large-scale evaluation suite.")
    assert "results on five benchmarks" not in text
    assert "construct a large-scale evaluation" in text
