"""Relevance, read as words: a topic's facets and their units, the stems that match them, the key
phrases that become sub-queries. (The judge and the pool on real corpus papers:
tests/test_literature_pool.py.)"""

from __future__ import annotations

from surveygraph.retrieval.bm25_index import tokenize
from surveygraph.retrieval.literature_pool import key_phrases
from surveygraph.retrieval.facet_reading import facet_shares, read_facets
from surveygraph.retrieval.topic_facets import concept_phrases, mine_acronyms, stem_text, topic_facets

RAG = "Retrieval-Augmented Generation for Large Language Models"
DEFINES = ["Large language models (LLMs) hallucinate. We study retrieval-augmented generation (RAG) for them.",
           "Retrieval-augmented generation (RAG) grounds large language models (LLMs) in documents."]


def test_topic_splits_into_facets_at_connectors_not_at_and():
    assert concept_phrases(RAG) == ["Retrieval-Augmented Generation", "Large Language Models"]
    assert concept_phrases("Integrated Sensing and Communication") == ["Integrated Sensing and Communication"]
    assert concept_phrases("LLM-based Multi-Agent Systems") == ["LLM", "Multi-Agent Systems"]
    assert concept_phrases("Fairness in Recommender Systems") == ["Fairness", "Recommender Systems"]
    assert concept_phrases("LLM-powered Agents") == ["LLM", "Agents"]


def test_acronyms_are_mined_only_where_the_text_defines_them():
    texts = ["Vision-Language-Action (VLA) models map images to actions.",
             "We study vision-language-action (VLA) models for manipulation.",
             "Large language models (GPT-4) are used."]
    assert mine_acronyms(tokenize("Vision-Language-Action Models"), texts) == ["vla"]
    assert mine_acronyms(tokenize("Large Language Models"), texts) == []  # GPT-4 does not start like it


def test_a_facet_reads_its_abbreviated_sub_phrase_as_one_unit():
    facets = topic_facets(RAG, DEFINES)
    assert [[u.phrase for u in f.units] for f in facets] == [["retrieval augmented generation"],
                                                             ["large language model"]]
    assert "llm" in facets[1].units[0].forms and "rag" in facets[0].units[0].forms
    # a facet without an abbreviation is its content words; generic heads ("systems") are not units
    fair = topic_facets("Fairness in Recommender Systems", DEFINES)
    assert [[u.phrase for u in f.units] for f in fair] == [["fairness"], ["recommender"]]


def test_a_word_listed_with_an_abbreviated_phrase_is_its_alternative():
    """c36o: "knowledge distillation and pruning to compress large language models" asked every paper
    for both (26 kept of the hundreds on compressing LLMs); either is what the user listed."""
    texts = ["Knowledge distillation (KD) compresses large language models (LLMs).",
             "We revisit knowledge distillation (KD) for LLMs.", "KV cache (KV) eviction.", "The KV cache (KV) grows."]
    for topic in ("knowledge distillation and pruning to compress large language models",
                  "pruning and knowledge distillation for LLMs"):
        units = topic_facets(topic, texts)[0].units
        assert len(units) == 1 and {"knowledg distil", "kd", "prune"} <= set(units[0].forms), units
    # a word that opens a phrase of its own is no alternative of the one before ("KV" of "KV cache")
    spec = topic_facets("speculative decoding and KV cache methods for faster LLM inference",
                        texts + ["Speculative decoding (SD) is fast.", "We study speculative decoding (SD)."])[0]
    assert "kv" not in spec.units[0].forms


def test_units_match_inflections_and_plural_acronyms():
    facets = topic_facets(RAG, DEFINES)
    assert facet_shares(facets, stem_text("RAG pipelines for LLMs")) == [1.0, 1.0]
    efficient = topic_facets("Efficient Inference for Large Language Models", DEFINES)
    reading = read_facets(efficient, "Speeding up LLM decoding", "We improve the efficiency of inference.")
    assert reading.title_min == 0.0 and reading.text_min == 1.0  # words anywhere in the abstract count
    fair = topic_facets("Fairness in Recommender Systems", DEFINES)
    assert facet_shares(fair, stem_text("Unfair exposure in recommendation")) == [0.0, 1.0]  # 'unfair' is another word
    assert facet_shares(fair, stem_text("Fair recommendations")) == [1.0, 1.0]


def test_a_topic_word_ending_in_s_is_named_by_the_text_that_says_it():
    # The tokenizer's plural cut made 'autonomous' the unit 'autonomou', which no text's stem
    # ('autonom') matched: 3D detection papers 'for autonomous driving' never named the facet.
    driving = topic_facets("3D Object Detection in Autonomous Driving", [])
    assert facet_shares(driving, stem_text("LiDAR 3D object detection for autonomous driving")) == [1.0, 1.0]
    analysis = topic_facets("Medical Image Analysis", [])
    assert facet_shares(analysis, stem_text("Deep learning for medical images: an analysis")) == [1.0]
    defined = topic_facets("Autonomous Vehicles", ["autonomous vehicles (AVs) and autonomous vehicles (AV)"] * 2)
    assert facet_shares(defined, stem_text("Planning for autonomous vehicles")) == [1.0]
    assert facet_shares(defined, stem_text("AV planning")) == [1.0]


def test_key_phrases_are_what_the_kept_titles_share_and_the_background_does_not():
    kept = ["KV Cache Compression for Long-Context LLM Inference", "Speculative Decoding with Draft Trees",
            "Adaptive KV Cache Compression", "Lossless Speculative Decoding for LLMs",
            "KV Cache Eviction by Attention Scores", "Faster Speculative Decoding via Early Exit"]
    background = ["Image Segmentation with Transformers", "A Benchmark for Video Question Answering",
                  "Graph Neural Networks for Molecules", "Long-Context Retrieval for Question Answering"] * 5
    phrases = key_phrases(kept, background, 5, topic_words=set(stem_text("Efficient LLM Inference").split()))
    assert set(phrases[:2]) == {"speculative decoding", "kv cache"}  # three titles each; none inside another
    assert not any("llm inference" == p for p in phrases)  # made of the topic's own words


def test_a_topic_typed_as_a_question_or_request_keeps_only_its_concepts():
    """'how do transformers handle long documents' made 'how', 'do' and 'handle' units that every
    on-topic paper had to name; 'LLMs that write code' was one facet needing the word 'write'."""
    from surveygraph.retrieval.topic_facets import topic_facets

    units = [[u.phrase for u in f.units] for f in topic_facets("how do transformers handle long documents", [])]
    assert units == [["transformer", "long", "document"]], units
    units = [[u.phrase for u in f.units] for f in topic_facets("LLMs that write code", [])]
    assert units == [["llm"], ["code"]], units
    units = [[u.phrase for u in f.units] for f in topic_facets("recommender systems built on large language models", [])]
    assert units == [["recommender"], ["large", "language"]], units  # 'built' was a unit of the first facet
    # a topic made only of such words keeps them rather than having no facet
    assert topic_facets("how to use it", [])
    # a request's goal is no concept: every on-topic paper would have had to say "stop" or "cheaper"
    units = [[u.phrase for u in f.units] for f in topic_facets("how to stop LLMs from hallucinating", [])]
    assert units == [["llm"], ["hallucinating"]], units
    units = [[u.phrase for u in f.units] for f in topic_facets("how does retrieval help LLMs answer questions better?", [])]
    assert units == [["retrieval", "llm", "answer", "question"]], units  # 'does' was a unit 'doe'
    units = [[u.phrase for u in f.units] for f in topic_facets("how to speed up LLM inference", [])]
    assert units == [["llm", "inference"]], units


def _judge_for_two_facets():
    """A judge of 'graph neural networks for drug discovery' whose facet vocabularies are learned
    from small synthetic literatures (molecules for the drug facet, message passing for the GNN
    facet) against a background that shares their everyday words."""
    import numpy as np

    from surveygraph.retrieval.topic_classifier import TermSpace, fit_topic_classifier
    from surveygraph.retrieval.topic_facets import topic_facets
    from surveygraph.retrieval.topic_judge import ReadingCache, TopicJudge

    rng = np.random.default_rng(0)
    common = [f"word{i}" for i in range(300)]

    def doc(*special: str) -> str:
        return " ".join([*rng.choice(common, 10), *special])

    background = [doc() for _ in range(300)]
    drug = [doc("molecular property prediction binding affinity ligand toxicity compound") for _ in range(30)]
    graph = [doc("message passing node embeddings graph convolution edges") for _ in range(30)]
    space = TermSpace(background + drug + graph)
    facets = topic_facets("graph neural networks for drug discovery", [])
    back = space.vectors(background)
    classifiers = [fit_topic_classifier(space.vectors(graph), back), fit_topic_classifier(space.vectors(drug), back)]
    return TopicJudge(facets, space, classifiers[0], np.ones(4) / 2, np.ones(4) / 2,
                      {"centroid": (0.0, 1.0), "topic": (0.0, 1.0)}, classifiers, ReadingCache(space, facets)), doc


def test_a_paper_must_hold_every_facet_of_a_two_facet_topic_in_words_or_in_meaning():
    from surveygraph.retrieval.topic_judge import PaperRecord

    judge, doc = _judge_for_two_facets()
    papers = [
        PaperRecord("both-named", "Graph neural networks for drug discovery", doc("gnn drug design"), None),
        PaperRecord("gnn-only", "Graph neural networks for fraud detection", doc("transactions fraud"), None),
        PaperRecord("drug-only", "A language model for drug discovery", doc("prompting drug design"), None),
        # names the GNN facet; the drug facet only in meaning (molecules, ligands, binding affinity)
        PaperRecord("drug-in-meaning", "Rotation-invariant graph neural networks",
                    doc("molecular property prediction binding affinity ligand compound"), None),
    ]
    assert judge.facets_hold(papers).tolist() == [True, False, False, True]
    single, _ = _judge_for_two_facets()
    single.facets = single.facets[:1]
    assert single.facets_hold(papers).all()  # one facet: nothing to gate on


def test_a_rare_pairing_raises_the_bar_a_paper_not_naming_the_facet_must_reach():
    """The topic's own papers (naming both facets) read strongly as drug papers; a GNN paper with a
    drug word or two in passing reaches the fixed 1 SD but not the bar they set on the facet the
    candidates name least."""
    from surveygraph.retrieval.topic_judge import FACET_HOLDS_Z, PaperRecord, facet_bars

    judge, doc = _judge_for_two_facets()
    undisputed = [PaperRecord(f"both-{i}", "Graph neural networks for drug discovery",
                              doc("molecular property prediction binding affinity ligand toxicity compound"), None)
                  for i in range(8)]
    passing = PaperRecord("in-passing", "Graph neural networks for knowledge graph question answering",
                          doc("compound questions"), None)
    drug_scores = judge.facet_classifiers[1].readings(judge.cache.term_rows([passing]))[0]
    assert drug_scores[0] >= FACET_HOLDS_Z  # the fixed bar lets it through
    bars = facet_bars(judge.facets, judge.facet_classifiers, judge.cache, [*undisputed, passing])
    assert bars[1] > drug_scores[0] > FACET_HOLDS_Z
    assert bars[0] == FACET_HOLDS_Z  # the facet every candidate names keeps the fixed bar
    judge.facet_bars = bars
    assert judge.facets_hold([passing]).tolist() == [False]
    assert judge.facets_hold(undisputed[:1]).tolist() == [True]
    # too few papers name both facets to set a bar from: the fixed bar stands
    assert facet_bars(judge.facets, judge.facet_classifiers, judge.cache, [*undisputed[:3], passing]) == \
        [FACET_HOLDS_Z, FACET_HOLDS_Z]
    # ... unless enough papers name the rare facet (whatever else they are about): they are the
    # reference then ("graph neural networks for molecular property prediction": 3 candidates named
    # both, and at the fixed bar GNN papers on knowledge graphs held the molecular facet, session 35)
    # ... unless the rare facet is a term (one unit of several words) that enough papers name: they
    # are the reference then ("graph neural networks for molecular property prediction": 3 candidates
    # named both, and at the fixed bar GNN papers on knowledge graphs held the molecular facet)
    from surveygraph.retrieval.topic_facets import Facet, Unit
    from surveygraph.retrieval.topic_judge import ReadingCache

    drug_only = [PaperRecord(f"drug-{i}", "A language model for drug discovery",
                             doc("molecular property prediction binding affinity ligand toxicity compound"), None)
                 for i in range(6)]
    gnn_only = [PaperRecord(f"gnn-{i}", "Graph neural networks for fraud detection", doc("transactions fraud"), None)
                for i in range(8)]
    papers = [*undisputed[:3], *drug_only, *gnn_only, passing]
    # the drug facet as two description words: the fixed bar stands (a description is read loosely)
    assert facet_bars(judge.facets, judge.facet_classifiers, judge.cache, papers) == [FACET_HOLDS_Z, FACET_HOLDS_Z]
    term = [judge.facets[0], Facet("drug discovery", (Unit("drug discovery", ("drug discoveri",)),))]
    bars = facet_bars(term, judge.facet_classifiers, ReadingCache(judge.space, term), papers)
    assert bars[1] > drug_scores[0] > FACET_HOLDS_Z and bars[0] == FACET_HOLDS_Z


def test_a_long_description_a_user_typed_is_named_by_half_its_words_a_term_by_all():
    """'automatically transcribing spoken audio into text with neural models' kept 1 paper when every
    paper had to say 'automatically', 'transcribing', 'spoken', 'audio' and 'text' (a phrasing of
    tests/data/topic_phrasings.json); a term of three words or fewer is still named only in full."""
    from surveygraph.retrieval.facet_reading import facet_shares
    from surveygraph.retrieval.topic_facets import stem_text, topic_facets

    # "with neural models" only situates it: no facet (test_topic_wording)
    (long_facet,) = topic_facets("automatically transcribing spoken audio into text with neural models", [])
    assert len(long_facet.units) == 5 and long_facet.required == 0.5
    abstract = stem_text("We transcribe spoken audio of meetings into text with a neural encoder.")
    assert facet_shares([long_facet], abstract) == [1.0]
    assert facet_shares([long_facet], stem_text("Audio tagging of bird song."))[0] < 1.0
    (term,) = topic_facets("3D object detection", [])
    assert len(term.units) == 3 and facet_shares([term], stem_text("2D object detection in images"))[0] < 1.0



def _two_kinds(shared_data, first, second, sizes: tuple[int, int]) -> tuple[list[str], list[str]]:
    """Title + abstract of the corpus records ``first(title, text)`` accepts and of those ``second``
    accepts (lower-cased title, full text), read until each has its size."""
    import gzip
    import json

    found: tuple[list[str], list[str]] = ([], [])
    with gzip.open(shared_data / "corpus" / "arxiv_2025_2026.jsonl.gz", "rt", encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            title = record["title"].lower()
            text = f"{record['title']} {record.get('abstract') or ''}"
            if first(title, text):
                found[0].append(text)
            elif second(title, text):
                found[1].append(text)
            if len(found[0]) >= sizes[0] and len(found[1]) >= sizes[1]:
                break
    return found

def test_words_the_topic_s_nearest_papers_do_not_use_are_the_user_s_phrasing(shared_data):
    """'teaching robots to act from vision and language instructions' was refused: every paper had to
    say 'teaching' and 'act'. Read against the papers nearest it (here: the corpus's vision-language-
    action and robot-instruction papers, real records), those two words are the user's, 'robot' and
    the second facet's words the field's; a one-unit facet and a field's own term stay whole."""
    from surveygraph.retrieval.facet_feedback import PHRASING_RATE, drop_phrasing_words
    from surveygraph.retrieval.facet_reading import unit_named
    from surveygraph.retrieval.topic_facets import stem_text

    nearest, other = _two_kinds(
        shared_data, lambda title, text: "vision-language-action" in title or ("robot" in title and "instruction" in title),
        lambda title, text: "scientific" in title and ("language model" in title or "llm" in title), (100, 40))
    robots, instructions = drop_phrasing_words(
        topic_facets("teaching robots to act from vision and language instructions", nearest[:300]), nearest[:100])
    assert [u.phrase for u in robots.units] == ["robot"] and set(robots.phrasing) == {"teaching", "act"}
    assert [u.phrase for u in instructions.units] == ["vision or language", "instruction"]  # "and": alternatives
    assert not instructions.phrasing
    stems = [stem_text(t) for t in nearest[:100]]
    for unit in instructions.units:  # each kept word is one the nearest papers use
        assert sum(unit_named(unit, s) for s in stems) / len(stems) >= PHRASING_RATE
    (science,) = drop_phrasing_words(topic_facets("Scientific Large Language Models", other), other)
    assert [u.phrase for u in science.units] == ["scientific", "large language model"] and not science.phrasing
    (lonely,) = drop_phrasing_words(topic_facets("Hallucination", []), other)  # one unit: never thinned
    assert [u.phrase for u in lonely.units] == ["hallucination"] and not lonely.phrasing
    assert drop_phrasing_words([robots], nearest[:5]) == [robots]  # too few nearest papers to read
    assert robots.required == 1.0  # three words as typed: a term, named in full
    spoken = [f"{t} automatically transcribing spoken audio" for t in ("speech recognition of audio into text",) * 30]
    (described,) = drop_phrasing_words(topic_facets("automatically transcribing spoken audio into text", []),
                                       [s.replace("transcribing spoken ", "") for s in spoken])
    assert len(described.units) == 3 and described.phrasing and described.required == 0.5  # still a description



def test_a_description_s_unit_most_nearest_papers_name_is_asked_of_every_paper(shared_data):
    """"how do self-driving cars detect other vehicles and pedestrians in 3D from lidar point clouds"
    was half-named by LiDAR segmentation papers of driving scenes ('self', 'driving'), and its blind
    reader found the survey off topic (c25). Read against LiDAR 3D-detection papers (real records),
    'detect' is named by most of them: a key unit, without which half of the description is not enough."""
    from surveygraph.retrieval.facet_feedback import KEY_UNIT_RATE, drop_phrasing_words
    from surveygraph.retrieval.facet_reading import facet_shares, unit_named
    from surveygraph.retrieval.topic_facets import stem_text

    nearest, segmentation = _two_kinds(
        shared_data, lambda title, text: "3d object detection" in title and ("lidar" in title or "point cloud" in title),
        lambda title, text: "segmentation" in title and "lidar" in title and "detect" not in text.lower(), (60, 10))
    (described,) = drop_phrasing_words(
        topic_facets("how do self-driving cars detect other vehicles and pedestrians", []), nearest)
    assert described.required == 0.5
    stems = [stem_text(t) for t in nearest]
    for unit in described.units:
        rate = sum(unit_named(unit, s) for s in stems) / len(stems)
        assert unit.key == (rate >= KEY_UNIT_RATE), (unit.phrase, rate)
    assert "detect" in [u.phrase for u in described.units if u.key]
    driving_segmentation = [t for t in segmentation if "driving" in t.lower()]
    assert driving_segmentation
    for text in driving_segmentation:  # names 'driving' and maybe more, never 'detect'
        assert facet_shares([described], stem_text(text))[0] < 1.0
    unkeyed = type(described)(described.phrase, tuple(type(u)(u.phrase, u.forms, u.weight) for u in described.units),
                              described.phrasing)
    assert any(facet_shares([unkeyed], stem_text(t))[0] == 1.0 for t in driving_segmentation)  # what it let in
    assert all(facet_shares([described], s)[0] == 1.0 for s in stems if "detect" in s and "driv" in s and "vehicl" in s)

def test_a_facet_the_candidates_say_verbatim_is_a_term_and_stays_whole(shared_data):
    """'privacy attacks on federated learning': its nearest papers are mostly privacy-preserving FL
    (few say 'attack'), but "privacy attacks" is said as such in the literature, so it is the
    field's term, not a user's wording (thinning it kept 220 papers at labelled precision 0.05)."""
    import gzip
    import json

    from surveygraph.retrieval.facet_feedback import drop_phrasing_words

    nearest, candidates = [], []
    with gzip.open(shared_data / "corpus" / "arxiv_2025_2026.jsonl.gz", "rt", encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            text = f"{record['title']} {record.get('abstract') or ''}"
            low = text.lower()
            if "privacy attack" in low:
                candidates.append(text)
            elif "federated" in record["title"].lower() and "privacy" in low and "attack" not in low:
                nearest.append(text)
            if len(nearest) >= 100 and len(candidates) >= 20:
                break
    facets = topic_facets("privacy attacks on federated learning", candidates)
    thinned, _ = drop_phrasing_words(facets, nearest[:100])  # read against the nearest papers alone
    assert [u.phrase for u in thinned.units] == ["privacy"] and thinned.phrasing == ("attack",)
    whole, _ = drop_phrasing_words(facets, nearest[:100], candidates)
    assert [u.phrase for u in whole.units] == ["privacy", "attack"] and not whole.phrasing


def test_the_relevance_model_matches_the_index_encoder(tmp_home):
    """centroid_z and topic_z read the index's own vectors: a store indexed with minilm-static keeps
    the model fitted on minilm-static features, a minilm-head store (the default) the one fitted
    on those; each model file records the encoder it was fitted on."""
    from types import SimpleNamespace

    from surveygraph.retrieval.topic_judge import MODEL_PATH, STATIC_MODEL_PATH, model_for, model_path_for
    from surveygraph.settings import load_settings

    static = SimpleNamespace(settings=load_settings(**{"embedding.model": "minilm-static"}))
    head = SimpleNamespace(settings=load_settings())
    assert model_path_for(static) == STATIC_MODEL_PATH and model_path_for(head) == MODEL_PATH
    assert model_for(static).record["encoder"] == "minilm-static"
    assert model_for(head).record["encoder"] == head.settings.embedding.model == "minilm-head"
    assert model_for(static).coef != model_for(head).coef


def test_a_description_that_lists_phrases_asks_for_either_of_them():
    """"speeding up LLM text generation with speculative decoding and KV cache compression" (c25m):
    made key, 'speculative decoding' kept 15 papers and no KV-cache paper. A list of phrases asks for
    any of them; a key unit is read only in a description of one thing."""
    from surveygraph.retrieval.facet_feedback import _with_key_units
    from surveygraph.retrieval.topic_facets import lists_phrases

    (listed,) = topic_facets("speculative decoding and KV cache compression", [])
    assert lists_phrases(listed.phrase) and listed.required == 0.5
    rates = {u.phrase: 0.9 for u in listed.units}
    assert not any(u.key for u in _with_key_units(listed, rates).units)
    (one_thing,) = topic_facets("how do self-driving cars detect other vehicles and pedestrians", [])
    assert not lists_phrases(one_thing.phrase)  # "vehicles and pedestrians" share a head: one unit
    assert any(u.key for u in _with_key_units(one_thing, {u.phrase: 0.9 for u in one_thing.units}).units)
