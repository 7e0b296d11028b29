"""The method part of the outline built bottom-up (agents/outline/taxonomy.py): leaf phrases grouped
into families named by the phrase that covers them; fragments, synonyms and task phrases kept out of
headings; the floor reads paper vectors from the index instead of encoding every abstract."""

from __future__ import annotations

import numpy as np

from surveygraph.agents.outline.concepts import PhraseIndex, candidate_concepts
from surveygraph.agents.outline.grams import stem_key
from surveygraph.agents.outline.floor import build_outline_floor, tfidf_encoder

TOPIC = "Efficient Inference for Large Language Models"


def _paper(pid: str, title: str, abstract: str) -> dict:
    return {"paper_id": pid, "title": title, "abstract": abstract, "year": 2025}


def _compression_pool() -> tuple[list[str], dict[str, dict]]:
    """Four leaf concepts in two families; only the abstracts name the compression family."""
    papers = {}
    leaves = {
        "Weight Quantization": "Model compression by weight quantization keeps accuracy at four bits for {}.",
        "Structured Pruning": "Model compression by structured pruning removes heads and channels for {}.",
        "Speculative Decoding": "Speculative decoding verifies guesses of a drafter in parallel to cut latency of {}.",
        "Lookahead Decoding": "Lookahead decoding produces n-grams in parallel to cut latency of {}.",
        "Early Exiting": "Early exiting stops at a shallow layer when confident to cut latency of {}.",
    }
    settings = ["Chatbots", "Edge Phones", "Code Assistants", "Translation", "Summaries", "Search Engines",
                "Long Documents", "Data Pipelines", "Spreadsheets", "Game Agents"]
    for leaf, abstract in leaves.items():
        for i, setting in enumerate(settings):
            pid = f"{leaf.split()[0].lower()}-{i}"
            papers[pid] = _paper(pid, f"{leaf} for {setting}", abstract.format(setting.lower()))
    return list(papers), papers


def test_families_are_named_by_the_phrase_that_covers_their_leaves():
    ids, papers = _compression_pool()
    vectors, encode = tfidf_encoder([f"{papers[i]['title']}. {papers[i]['abstract']}" for i in ids])
    outline = build_outline_floor(TOPIC, ids, papers, vectors, n_sections=2, n_subsections=3, encode=encode,
                                  kb_counts={stem_key(["model", "compression"]): 4})
    by_title = {s["title"]: {sub["title"] for sub in s["subsections"]} for s in outline}
    assert by_title.get("Model Compression") == {"Weight Quantization", "Structured Pruning"}, by_title
    compression = next(s for s in outline if s["title"] == "Model Compression")
    for sub in compression["subsections"]:  # each subsection holds the papers naming it
        assert all(sub["title"].split()[0].lower() in papers[p]["title"].lower() for p in sub["paper_ids"])


def _index(titles: list[str], abstracts: list[str]) -> PhraseIndex:
    """The papers and twelve unrelated ones (a phrase in more than 40% of a pool is its topic)."""
    padding = [f"Unrelated Note {word}" for word in "abcdefghijkl"]
    return PhraseIndex(titles + padding, abstracts + [""] * len(padding), {"llm", "llms"})


def test_verbs_predicates_and_adverbs_end_no_concept_phrase():
    abstracts = [f"We aim to detect hallucinations in answer {i}. Outputs are prone to errors and are often "
                 f"factually incorrect. Speculative decoding accelerates generation; with speculative decoding "
                 f"{'we' if i % 2 else 'one'} can accelerate serving and to accelerate decoding helps." for i in range(6)]
    titles = [f"Detect Hallucinations with Probe {i}" for i in range(6)]
    keys = {c.key for c in candidate_concepts(_index(titles, abstracts), min_support=2)}
    for fragment in (["detect", "hallucinations"], ["factually", "incorrect"], ["decoding", "accelerates"],
                     ["prone", "to", "errors"]):
        assert stem_key(fragment) not in keys, (fragment, sorted(keys))
    assert stem_key(["speculative", "decoding"]) in keys


def test_acronym_and_spelling_variants_are_one_concept():
    titles = [f"KV Cache Eviction {i}" for i in range(4)] + [f"Key-Value Cache Eviction for Agents {i}" for i in range(3)] + \
        [f"Robotic Manipulation for Task {i}" for i in range(3)] + [f"Robot Manipulation with Tool {i}" for i in range(3)]
    concepts = candidate_concepts(_index(titles, [""] * len(titles)), min_support=2)
    keys = {c.key for c in concepts}
    assert stem_key(["kv", "cache", "eviction"]) in keys and stem_key(["key-value", "cache", "eviction"]) not in keys
    merged = next(c for c in concepts if c.key == stem_key(["kv", "cache", "eviction"]))
    assert len(merged.strong) == 7
    assert len({k for k in keys if k.endswith("manipulation")}) == 1, keys


def test_task_phrases_are_told_from_method_phrases():
    abstracts = [f"We evaluate on question answering tasks and question answering benchmarks {i}. Speculative "
                 f"decoding speeds up generation, and speculative decoding is exact." for i in range(6)]
    index = _index([f"Paper {i}" for i in range(6)], abstracts)
    assert index.task_share(stem_key(["question", "answering"])) >= 0.5
    assert index.task_share(stem_key(["speculative", "decoding"])) == 0.0


class _IndexedCorpus:
    def __init__(self, vectors: dict[str, np.ndarray]):
        self._vectors = vectors

    def vectors(self, ids):
        return {i: self._vectors[i] for i in ids if i in self._vectors}


def test_floor_reads_index_vectors_and_encodes_only_missing_papers(tmp_path, monkeypatch):
    from surveygraph.agents.outline import vectors as vectors_module
    from surveygraph.settings import Settings

    encoded: list[str] = []

    def fake_encoder(settings):
        def encode(texts):
            encoded.extend(texts)
            return np.ones((len(texts), 4))
        return encode

    monkeypatch.setattr(vectors_module, "memory_encoder", fake_encoder)
    papers = {f"p{i}": _paper(f"p{i}", f"Title {i}", "An abstract.") for i in range(5)}
    stored = {f"p{i}": np.eye(4)[i % 4] * 3.0 for i in range(4)}
    ids, vectors, _, stats = vectors_module.floor_inputs(Settings(home=tmp_path), _IndexedCorpus(stored),
                                                         list(papers), papers)
    assert ids == list(papers) and stats["papers_encoded"] == 1
    assert len(encoded) == 1 and "Title 4" in encoded[0]
    assert np.allclose(vectors[0], np.eye(4)[0]) and np.allclose(np.linalg.norm(vectors, axis=1), 1.0)


def test_papers_a_family_holds_only_by_nearness_can_head_a_section_of_their_own():
    """Fourteen cache-eviction papers name no compression phrase but sit nearest to 'Weight
    Quantization' (they keep accuracy at four bits); with a section slot left, they head their own
    section instead of filling the quantization subsection."""
    ids, papers = _compression_pool()
    ids = [i for i in ids if not i.startswith("early")]  # two families of two leaves
    papers = {i: papers[i] for i in ids}
    for i, setting in enumerate(["Chatbots", "Edge Phones", "Code Assistants", "Translation", "Summaries",
                                 "Search Engines", "Long Documents", "Data Pipelines", "Spreadsheets",
                                 "Game Agents", "Tutors", "Legal Drafting", "Medical Notes", "Robots"]):
        pid = f"kv-{i}"
        papers[pid] = _paper(pid, f"Cache Eviction of Attention Keys with Quantization for {setting}",
                             f"Cache eviction drops keys and values with low attention; it keeps accuracy at four "
                             f"bits for {setting.lower()}.")
        ids.append(pid)
    vectors, encode = tfidf_encoder([f"{papers[i]['title']}. {papers[i]['abstract']}" for i in ids])
    outline = build_outline_floor(TOPIC, ids, papers, vectors, n_sections=3, n_subsections=3, encode=encode,
                                  kb_counts={stem_key(["model", "compression"]): 4})
    compression = next(s for s in outline if s["title"] == "Model Compression")
    assert not [p for p in compression["paper_ids"] if p.startswith("kv-")], compression
    own = [s for s in outline if any(p.startswith("kv-") for p in s["paper_ids"])]
    assert len(own) == 1 and {sub["title"] for sub in own[0]["subsections"]} == {"Cache Eviction"}, outline
    assert sum(p.startswith("kv-") for p in own[0]["paper_ids"]) == 14


def test_a_leaf_goes_under_a_section_that_subsumes_it_not_one_its_papers_are_near():
    """A GNN outline filed "Link Prediction" and "Adjacency Matrix" under "Convolutional Networks" by
    embedding nearness; two blind readers preferred outlines built by subsumption alone on 12 of 17
    topics (session 18). A leaf is kin to a section only when most of its papers name the section."""
    from surveygraph.agents.outline.concepts import Concept
    from surveygraph.agents.outline.taxonomy import _Kinship

    name = Concept("convolut network", "convolutional networks", strong=set(range(10)))
    near = Concept("link predict", "link prediction", strong={10, 11, 12, 13})  # names no convolution
    named = Concept("spectral convolut", "spectral convolution", strong={0, 1, 2, 14})  # 3 of 4 name it
    kin = _Kinship([name], [near, named], set(range(15)))
    assert kin.kin(name, near) is None
    assert kin.kin(name, named) == (0, 10)
