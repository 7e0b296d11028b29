"""How a user's wording of a topic is read against real corpus papers: British spelling, "and" /
"or" alternatives, and the rare words that carry a long description."""

from __future__ import annotations

import gzip
import json
import random
import re

import pytest

from surveygraph.retrieval.spelling import american, american_text
from surveygraph.retrieval.facet_feedback import drop_phrasing_words, drop_rare_facets, weigh_by_rarity
from surveygraph.retrieval.facet_reading import facet_shares
from surveygraph.retrieval.topic_facets import stem_text, topic_facets


@pytest.fixture(scope="module")
def corpus_texts(shared_data) -> list[tuple[str, str]]:
    with gzip.open(shared_data / "corpus" / "arxiv_2025_2026.jsonl.gz", "rt", encoding="utf-8") as handle:
        return [(r["title"], f"{r['title']} {r.get('abstract') or ''}") for r in map(json.loads, handle)]


def test_british_spellings_read_as_american_and_nothing_else_merges():
    assert [american(w) for w in ("tumours", "optimisation", "analyse", "centre", "paediatric", "behavioural",
                                  "dialogue")] == ["tumors", "optimization", "analyze", "center", "pediatric",
                                                   "behavioral", "dialog"]
    # -our is a list, not a rule: "four" is not "for", "tour" is not "Tor"
    assert [american(w) for w in ("four", "tour", "hour", "contour", "analysis", "series")] == \
        ["four", "tour", "hour", "contour", "analysis", "series"]
    assert american_text("Segmenting Tumours in CT") == "Segmenting tumors in CT"
    assert stem_text("tumour segmentation") == stem_text("tumor segmentation")


def test_a_british_topic_names_the_papers_that_spell_it_the_american_way(corpus_texts):
    papers = [text for title, text in corpus_texts if "tumor" in title.lower() and "segment" in title.lower()]
    assert len(papers) >= 20
    facets = topic_facets("tumour segmentation", [])
    named = [min(facet_shares(facets, stem_text(t))) >= 1.0 for t in papers]
    assert sum(named) == len(papers)


def test_and_joins_alternatives_of_one_unit(corpus_texts):
    first, second = topic_facets("segmenting organs and tumours in CT and MRI scans", [])
    assert [u.phrase for u in first.units] == ["segmenting", "organ or tumour"]
    assert [u.phrase for u in second.units] == ["ct or mri", "scan"]
    # real papers on CT (not MRI) tumour segmentation are in scope: each names both facets
    ct_only = [t for title, t in corpus_texts if all(w in title.lower() for w in ("ct", "tumor", "segment"))
               and "mri" not in t.lower() and "scan" in t.lower()]
    assert ct_only
    assert all(min(facet_shares([first, second], stem_text(t))) >= 1.0 for t in ct_only)
    # "and" between two phrases the papers say: their words are units, as a description's
    said = [t for _, t in corpus_texts if re.search(r"\b(image recognition|computer vision|graph representation "
                                                    r"learning|message passing|harmful|dangerous)\b", t.lower())][:600]
    (_, vision) = topic_facets("transformer architectures for image recognition and computer vision tasks", said)
    assert [u.phrase for u in vision.units] == ["image", "recognition", "computer vision"]  # "(CV)" mined
    graph_texts = [t for _, t in corpus_texts if re.search(r"\b(graph representation learning|message passing)\b",
                                                            t.lower())][:300]
    (graphs,) = topic_facets("graph representation learning and message passing networks", graph_texts)
    assert "learning or message" not in [u.phrase for u in graphs.units]
    # the same shape, but "dangerous outputs" is no phrase the papers say: its words are alternatives
    (_, outputs) = topic_facets("keeping LLMs from producing harmful or dangerous outputs", said)
    assert [u.phrase for u in outputs.units] == ["producing", "harmful or dangerou", "output"]
    assert outputs.required == 1.0  # "harmful or dangerous" is one slot: three units, a term
    (image,) = topic_facets("applying transformers to image classification and detection", [])
    assert [u.phrase for u in image.units] == ["transformer", "image", "classification or detection"]
    assert image.required == 1.0  # a CNN paper on image classification does not name it
    assert facet_shares([image], stem_text("A CNN for image classification and object detection"))[0] < 1.0
    assert len(topic_facets("transformer architectures for image recognition and computer vision tasks", [])[1].units) > 1
    # a phrase the literature abbreviates is one unit, "and" and all
    texts = ["Integrated sensing and communication (ISAC) unifies radar and links."] * 3
    (isac,) = topic_facets("Integrated Sensing and Communication", texts)
    assert len(isac.units) == 1 and "isac" in isac.units[0].forms


def test_a_description_is_carried_by_its_rare_words_not_by_common_ones(corpus_texts):
    sample = [t for _, t in random.Random(7).sample(corpus_texts, 2000)]
    (facet,) = weigh_by_rarity(topic_facets("deep learning time series forecasting", []), sample)
    assert facet.required == 0.5  # five units: a description, half of it names it
    weights = {u.phrase: u.weight for u in facet.units}
    assert max(weights["deep"], weights["learning"], weights["time"]) < min(weights["serie"], weights["forecasting"])
    # real deep-learning papers that say "time" (real-time, ...) and nothing of the task: three of five
    # units, half of them by count, but not the half that says what the topic is
    common = [t for title, t in corpus_texts if "deep learning" in title.lower() and " time" in t.lower()
              and not any(w in t.lower() for w in ("series", "forecast"))]
    on_topic = [t for title, t in corpus_texts if "time series forecasting" in title.lower()]
    assert len(common) >= 20 and len(on_topic) >= 10
    assert all(facet_shares([facet], stem_text(t))[0] < 1.0 for t in common)
    assert all(facet_shares([facet], stem_text(t))[0] >= 1.0 for t in on_topic)
    # a term (every unit asked) is not weighed
    (term,) = weigh_by_rarity(topic_facets("time series forecasting", []), sample)
    assert {u.weight for u in term.units} == {1.0}


def test_a_tool_to_a_task_is_two_facets():
    """ "using large language models to forecast time series data": LLMs, and forecasting time
    series; read as one description, LLM-data-curation papers named half of it."""
    units = [[u.phrase for u in f.units]
             for f in topic_facets("using large language models to forecast time series data", [])]
    assert units == [["large", "language"], ["forecast", "time", "serie"]]  # a trailing "data" is no unit
    assert [u.phrase for u in topic_facets("text to speech synthesis", [])[0].units] == ["text", "speech", "synthesi"]
    # "to solve tasks" names no task: one facet, not a facet "solve" every paper must say
    assert len(topic_facets("LLM agents cooperating and debating to solve tasks", [])) == 1
    assert [f.phrase for f in topic_facets("teaching robots to act from vision and language", [])][0] == \
        "teaching robots to act"


def test_words_that_name_the_kind_of_text_wanted_are_not_facets():
    """No paper needs to say "survey" or "methods" to be on "a survey of federated learning"."""
    units = [[u.phrase for u in f.units] for f in topic_facets("a survey of federated learning under non-IID data", [])]
    assert units == [["federated", "learning"], ["non", "iid"]]
    units = [[u.phrase for u in f.units]
             for f in topic_facets("What are the latest methods for 3D reconstruction from a single image?", [])]
    assert units == [["3d", "reconstruction"], ["single", "image"]]
    units = [[u.phrase for u in f.units] for f in topic_facets("how do vision transformers compare to CNNs?", [])]
    assert units == [["vision", "transformer", "cnn"]]
    assert [[u.phrase for u in f.units] for f in topic_facets("methods", [])] == [["method"]]  # nothing else: kept


def test_a_one_word_facet_the_field_does_not_use_is_the_user_s_wording(corpus_texts):
    """ "making 3D scenes from photos with gaussian splats": splatting papers say "images" and
    "views"; asking each to say "photo" kept 49 of the corpus's several hundred."""
    splatting = [t for title, t in corpus_texts if "gaussian splatting" in title.lower()][:100]
    facets = topic_facets("making 3D scenes from photos with gaussian splats", splatting)
    kept, unasked = drop_rare_facets(facets, splatting)
    assert unasked == ["photos"] and [f.phrase for f in kept] == ["making 3D scenes", "gaussian splats"]
    # a rare facet that is the topic's subject stays: chemistry papers among LLM-for-science ones
    science = [t for title, t in corpus_texts if ("language model" in title.lower() or "llm" in title.lower())
               and any(w in title.lower() for w in ("chemi", "molecul", "materials", "protein"))][:100]
    kept, unasked = drop_rare_facets(topic_facets("large language models for chemistry", science), science)
    assert len(kept) == 2 and not unasked
    assert drop_rare_facets(facets, splatting[:5]) == (facets, [])  # too few nearest papers to read
    # a term the literature abbreviates is the subject however rarely the nearest papers name it:
    # "molecular property prediction" (MPP), dropped, left a survey of GNNs at large (session 35)
    gnn = [t for title, t in corpus_texts if "graph neural network" in title.lower()][:100]
    molecular = [t for title, t in corpus_texts if "molecular property prediction" in t.lower()]
    facets = topic_facets("graph neural networks for molecular property prediction", gnn + molecular)
    assert any(" " in u.phrase for u in facets[-1].units), facets
    kept, unasked = drop_rare_facets(facets, gnn)
    assert len(kept) == 2 and not unasked


def test_a_term_said_verbatim_still_loses_a_phrasing_word_when_a_phrase_is_left(corpus_texts):
    """ "producing harmful outputs" is said verbatim, but the papers on harmful outputs rarely say
    "producing": thinned, the facet is still two units; "privacy attacks" would fall to one word
    and stays whole (test_relevance)."""
    nearest = [t for title, t in corpus_texts if re.search(r"\b(jailbreak|harmful)\b", title.lower())][:100]
    said = [f"{t} Models may end up producing harmful outputs." for t in nearest[:5]]
    (_, outputs) = drop_phrasing_words(topic_facets("keeping LLMs from producing harmful or dangerous outputs", []),
                                       nearest, said)
    assert [u.phrase for u in outputs.units] == ["harmful or dangerou", "output"] and outputs.phrasing == ("producing",)
    assert outputs.required == 1.0


def test_a_phrase_said_verbatim_is_no_term_when_its_word_is_as_common_everywhere(corpus_texts):
    """ "multimodal LLMs that combine vision and language": seven candidates say "combine vision and
    language", so the facet stayed whole and every paper had to say "combine", which the topic's
    papers say no more often than the store's (c32h). "privacy attacks", whose "attack" the topic's
    papers say far more often than the store's, stays a term."""
    rng = random.Random(7)
    store = [t for _, t in rng.sample(corpus_texts, 2000)]
    vision = [t for title, t in corpus_texts if re.search(r"\b(vision-language|multimodal)\b", title.lower())]
    rate = sum("combin" in stem_text(t) for t in store) / len(store)
    with_combine = [t for t in vision if "combin" in stem_text(t)]
    without = [t for t in vision if "combin" not in stem_text(t)]
    nearest = with_combine[:round(100 * rate)] + without[:100 - round(100 * rate)]  # the store's rate
    said = [f"{t} Such models combine vision and language." for t in nearest[:7]]
    facets = topic_facets("multimodal LLMs that combine vision and language", [])
    kept = drop_phrasing_words(facets, nearest, said, store)
    assert [u.phrase for u in kept[-1].units] == ["vision or language"], kept
    # without the store to compare with, the verbatim phrase stays whole, as before
    assert [u.phrase for u in drop_phrasing_words(facets, nearest, said)[-1].units] == ["combine", "vision or language"]
    privacy = [t for title, t in corpus_texts if re.search(r"\bprivacy\b", title.lower())][:100]
    attacks = [f"{t} We study privacy attacks on it." for t in privacy[:6]]
    (facet, _) = drop_phrasing_words(topic_facets("privacy attacks on federated learning", []), privacy, attacks, store)
    assert [u.phrase for u in facet.units] == ["privacy", "attack"]

def test_the_method_family_every_paper_uses_is_no_facet_beside_a_topic(corpus_texts):
    """ "neural networks for protein structure prediction": protein-structure papers say AlphaFold,
    diffusion, transformers; asked to say "neural", the pool kept 7 papers."""
    units = [[u.phrase for u in f.units] for f in topic_facets("neural networks for protein structure prediction", [])]
    assert units == [["protein", "structure", "prediction"]]
    proteins = [t for title, t in corpus_texts if "protein" in title.lower() and "structur" in t.lower()]
    assert len(proteins) >= 20 and sum("neural" not in t.lower() for t in proteins) >= len(proteins) / 2
    units = [[u.phrase for u in f.units]
             for f in topic_facets("motion planning for autonomous vehicles with deep learning", [])]
    assert units == [["motion", "planning"], ["autonomou", "vehicle"]]
    assert [[u.phrase for u in f.units] for f in topic_facets("deep learning", [])] == [["deep", "learning"]]  # alone: kept
    assert [[u.phrase for u in f.units] for f in topic_facets("Graph Neural Networks", [])] == [["graph", "neural"]]
    # "without" joins two facets: continual-learning papers name the forgetting they avoid
    units = [[u.phrase for u in f.units] for f in topic_facets("continual learning without catastrophic forgetting", [])]
    assert units == [["continual", "learning"], ["catastrophic", "forgetting"]]


def test_examples_after_like_or_such_as_are_alternatives_not_units(corpus_texts):
    """"stopping chatbots like ChatGPT from making up facts" asked every paper for the word "like"."""
    first, _ = topic_facets("stopping chatbots like ChatGPT from making up facts", [])
    assert [u.phrase for u in first.units] == ["chatbot or chatgpt"]
    (llm,) = topic_facets("large language models such as GPT-4", [])
    assert "such" not in " ".join(u.phrase for u in llm.units)
    # a real paper on ChatGPT that never says "chatbot" (nor "like") holds the facet
    chatgpt_only = [t for title, t in corpus_texts if "chatgpt" in title.lower() and "chatbot" not in t.lower()
                    and not re.search(r"\blike\b", t.lower())][:20]
    assert chatgpt_only
    assert all(facet_shares([first], stem_text(t))[0] >= 1.0 for t in chatgpt_only)


def test_a_part_of_request_words_only_is_no_facet():
    """"neural networks that work on graph data" made "work" a facet every paper had to say."""
    facets = topic_facets("neural networks that work on graph data like molecules and social networks", [])
    assert [[u.phrase for u in f.units] for f in facets] == [["graph", "data or molecule or social"]]
    assert topic_facets("what works", [])  # a topic of request words only is still read as typed


def test_the_method_family_the_field_names_by_the_topic_s_words_stays_a_facet(corpus_texts):
    """"neural networks that work on graph data": dropping "neural networks" as the method family
    at large left "graph data", and the pool was knowledge graphs; the papers say "graph neural
    networks (GNNs)"."""
    graph_texts = [t for _, t in corpus_texts if re.search(r"\bgraph", t.lower())][:1500]
    protein_texts = [t for title, t in corpus_texts if "protein" in title.lower()][:1500]
    family, graphs = topic_facets("neural networks that work on graph data like molecules and social networks",
                                  graph_texts)
    assert family.units[0].forms[:2] == ("graph neural", "gnn") and [u.phrase for u in graphs.units][0] == "graph"
    # the family the field does not name by the topic's words still goes
    units = [[u.phrase for u in f.units] for f in topic_facets("neural networks for protein structure prediction",
                                                               protein_texts)]
    assert units == [["protein", "structure", "prediction"]]


def test_a_task_verb_alone_carries_no_topic(corpus_texts):
    """"predicting protein-ligand binding with graph neural networks": half of the papers nearest
    the topic say "predicting", few say protein or ligand (the corpus holds a dozen such papers), and
    the thinned facet kept "predicting" alone: 171 papers of any prediction with graph networks."""
    (facet,) = topic_facets("predicting protein-ligand binding", [])
    proteins = [t for title, t in corpus_texts if re.search(r"protein.ligand|binding affinit", t.lower())]
    nearest = proteins + [t for _, t in corpus_texts if "predicting" in t.lower() and "protein" not in t.lower()][:150]
    background = [t for _, t in random.Random(0).sample(corpus_texts, 2000)]
    thinned = drop_phrasing_words([facet], nearest, [], background)[0]
    assert [u.phrase for u in thinned.units][0] == "predicting" and len(thinned.units) == 2, thinned
    assert thinned.units[1].phrase in {"protein", "ligand", "binding"}, thinned
    # a noun the nearest papers name stays the facet's core, as before ("teaching robots to act")
    (robots, _) = topic_facets("teaching robots to act from vision and language instructions", [])
    robot_texts = [t for _, t in corpus_texts if "robot" in t.lower()][:100]
    assert [u.phrase for u in drop_phrasing_words([robots], robot_texts, [], background)[0].units] == ["robot"]


def test_a_kind_of_model_the_literature_does_not_name_is_the_user_s_phrasing(corpus_texts):
    """"RLHF and its alternatives for aligning chat models": the papers nearest it say "aligning" (0.64)
    and seldom "chat" (0.15); asked for "chat" because it is rare (beside the task verb), the pool kept
    22 of the corpus's hundreds of RLHF and DPO papers. "chat" names a kind of model, the head the
    facet leaves out: it stays only when the nearest papers name it at the phrasing rate."""
    (_, facet) = topic_facets("RLHF and its alternatives for aligning chat models", [])
    assert [u.phrase for u in facet.units] == ["aligning", "chat"]
    aligning = [t for _, t in corpus_texts if re.search(r"\balign(ing|ment)\b.*\b(llms?|language models?)\b", t.lower())]
    chat = [t for t in aligning if "chat" in t.lower()]
    nearest = chat[:15] + [t for t in aligning if "chat" not in t.lower()][:85]
    background = [t for _, t in random.Random(0).sample(corpus_texts, 2000)]
    thinned = drop_phrasing_words([facet], nearest, [], background)[0]
    assert [u.phrase for u in thinned.units] == ["aligning"] and thinned.phrasing == ("chat",), thinned
    # a kind of model the nearest papers do name stays: "protein language models"
    (protein,) = topic_facets("protein language models", [])
    proteins = [t for _, t in corpus_texts if "protein language model" in t.lower()][:100]
    assert len(proteins) >= 10
    assert {u.phrase for u in drop_phrasing_words([protein], proteins, [], background)[0].units} >= {"protein", "language"}


def test_how_new_the_user_wants_it_is_no_facet():
    """"what's new in mixture-of-experts LLMs?" asked every paper to say "new" (80 kept; the topic
    alone keeps 337)."""
    assert [[u.phrase for u in f.units] for f in topic_facets("what's new in mixture-of-experts LLMs?", [])] == \
        [["mixture", "expert", "llm"]]
    assert [[u.phrase for u in f.units] for f in topic_facets("recent advances in graph neural networks", [])] == \
        [["graph", "neural"]]


def test_words_joined_by_and_are_abbreviated_only_where_the_text_joins_them(corpus_texts):
    """"making images and videos from noise ..." read "images and videos" as "image-to-video (I2V)",
    whose "to" the tokenizer drops: 105 papers were kept, asked to say image-to-video."""
    i2v = [t for _, t in corpus_texts if "image-to-video (I2V)" in t][:40]
    assert len(i2v) >= 2
    (images, _noise, _models) = topic_facets("making images and videos from noise with diffusion generative models", i2v)
    assert [u.phrase for u in images.units] == ["image or video"]
    # "research" says what the models are used for, not which papers are on topic
    assert [[u.phrase for u in f.units] for f in topic_facets(
        "how are large language models being used for research in chemistry, biology and physics?", [])] == \
        [["large", "language"], ["chemistry or biology or physic"]]


def test_coordinators_and_words_of_asking_are_no_units():
    """"AI models that understand both images and text" asked every paper to say "both"; "how can we
    tell why a model gave an answer" made "tell" and "gave" units before the nearest papers thinned
    them; "how good" asks nothing of a paper."""
    units = [u.phrase for f in topic_facets("AI models that understand both images and text", []) for u in f.units]
    assert "both" not in units and "understand" in units
    units = [u.phrase for f in topic_facets("how can we tell why a large language model gave an answer?", [])
             for u in f.units]
    assert not {"tell", "gave"} & set(units) and "answer" in units
    units = [u.phrase for f in topic_facets("how should we measure how good large language models are?", [])
             for u in f.units]
    assert "good" not in units and "measure" in units


def test_a_request_verb_an_and_joins_to_another_makes_the_slot_ask_nothing():
    """"LLMs that write and repair code" is about code LLMs write or repair: read as "repair" + "code"
    (the request verb "write" dropped, its alternative left alone), the pool kept program-repair
    papers only (session 33). A noun that is a request word elsewhere keeps its slot ("tool use and
    web tasks": tool or web tasks); "LLMs and how to defend" keeps "LLMs"."""
    assert [[u.phrase for u in f.units] for f in topic_facets("LLMs that write and repair code", [])] \
        == [["llm"], ["code"]]
    units = [[u.phrase for u in f.units] for f in topic_facets("RL for LLM agents for tool use and web tasks", [])]
    assert ["tool or web"] in units, units
    units = [u.phrase for f in topic_facets("attacks on LLMs and how to defend against them", []) for u in f.units]
    assert "llm" in units and "defend" in units


def test_what_a_model_produces_right_after_its_name_is_no_unit():
    """"post-hoc explanation methods for LLM predictions" asked every paper to say "prediction" (120
    kept; 153 without, c33o/c33p); "interpreting and explaining LLM behavior" asked "behavior" of
    papers on LLMs simulating human behaviour (c33f). "link prediction" keeps its word (no model
    name before it), and "a model gave an answer" asks for the answer (not right after the name)."""
    facets = [[u.phrase for u in f.units] for f in topic_facets("post-hoc explanation methods for LLM predictions", [])]
    assert facets[-1] == ["llm"], facets
    units = [u.phrase for f in topic_facets("interpreting and explaining LLM behavior", []) for u in f.units]
    assert "behavior" not in units and "llm" in units
    units = [u.phrase for f in topic_facets("graph neural networks for node classification and link prediction", [])
             for u in f.units]
    assert "prediction" in units
    units = [u.phrase for f in topic_facets("how can we tell why a large language model gave an answer?", [])
             for u in f.units]
    assert "answer" in units
    # ... and after it, joined by "of": "explaining the predictions of large language models" had a
    # facet "the predictions", and its sections were "Next-Token Prediction" (c35f, read last)
    facets = [[u.phrase for u in f.units] for f in topic_facets("explaining the predictions of large language models", [])]
    assert facets[0] == ["explaining"] and len(facets) == 2 and "prediction" not in facets[1], facets
    units = [u.phrase for f in topic_facets("predictions of protein structure", []) for u in f.units]
    assert "prediction" in units


def test_prepositions_join_concepts_and_quantifiers_ask_nothing():
    """"training LLM agents with reinforcement learning to act over many steps" made "over" a unit
    every paper had to say; "against" and "between" join two concepts as "for" and "across" do."""
    units = [u.phrase for f in topic_facets("training LLM agents with reinforcement learning to act over many steps", [])
             for u in f.units]
    assert not {"over", "many"} & set(units) and "step" in units
    assert [[u.phrase for u in f.units] for f in topic_facets("robustness of vision models against adversarial attacks", [])] \
        == [["robustness"], ["vision"], ["adversarial", "attack"]]


def test_a_description_listing_phrases_the_field_says_is_read_as_either_phrase(corpus_texts):
    """"graph neural networks for node classification and link prediction": read as half its
    words, "classification" + "prediction" named vision-GNN image classifiers (a c26i reader: "many
    of its papers are off topic"). A fifth or more of the nearest papers say one of the two phrases:
    the facet is either phrase. "preference tuning and value alignment", which few papers say, stays
    a description (read verbatim it kept 54 papers of hundreds, session 22)."""
    from surveygraph.retrieval.facet_feedback import read_listed_phrases
    from surveygraph.retrieval.facet_reading import unit_named

    # as the topic's nearest papers by meaning: a quarter of them say one of the phrases (0.24 on
    # the full corpus's minilm-head index), a tenth does not make it the field's reading
    gnn = [t for title, t in corpus_texts if re.search(r"\bgraphs?\b|\bgnns?\b", title.lower())]
    saying = [t for t in gnn if re.search(r"node classification|link prediction", t.lower())]
    other = [t for t in gnn if t not in saying]
    graphs = saying[:25] + other[:75]
    topic = "graph neural networks for node classification and link prediction"
    few = saying[:10] + other[:90]
    assert read_listed_phrases(topic_facets(topic, few), few)[-1].units == topic_facets(topic, few)[-1].units
    facets = read_listed_phrases(topic_facets(topic, graphs), graphs)
    tasks = facets[-1]
    assert len(tasks.units) == 1 and set(tasks.units[0].forms) == {stem_text("node classification"),
                                                                   stem_text("link prediction")}
    vision_gnn = stem_text("Vision GNN for image classification: graph convolution on patches improves prediction")
    assert not unit_named(tasks.units[0], vision_gnn)
    aligned = [t for title, t in corpus_texts if "alignment" in title.lower() and "language model" in t.lower()][:100]
    listed = topic_facets("preference tuning and value alignment of foundation language models", aligned)
    assert read_listed_phrases(listed, aligned) == listed


def test_two_words_the_field_says_as_one_compound_are_both_asked(corpus_texts):
    """"camera and LiDAR fusion" read as "camera or LiDAR" kept radar-camera fusion papers, which the
    c28d reader counted off topic: papers say "camera-LiDAR fusion" (and "LiDAR-camera", "LiDAR and
    camera fusion") more than "camera fusion", so both words are asked. "image and video generation"
    stays either: papers say "image generation" alone far more often."""
    fusion = [t for _, t in corpus_texts if re.search(r"lidar|radar", t, re.I) and "fusion" in t.lower()][:400]
    (lidar, _detection) = topic_facets("camera and LiDAR fusion for 3D object detection", fusion)
    assert [u.phrase for u in lidar.units] == ["camera", "lidar", "fusion"]
    generation = [t for _, t in corpus_texts if re.search(r"\b(?:image|video) generation\b", t, re.I)][:400]
    (media, _diffusion) = topic_facets("image and video generation with diffusion", generation)
    assert [u.phrase for u in media.units] == ["image or video", "generation"]


def test_ai_is_no_unit_in_a_store_of_ai_papers():
    """ "explainable AI methods for LLMs" asked every paper to say "AI" and kept AI-generated text
    and image detectors that explain their verdicts (c30f); "AI agents" are agents."""
    facets = topic_facets("explainable AI methods for large language models", [])
    assert [u.phrase for u in facets[0].units] == ["explainable"]
    assert [[u.phrase for u in f.units] for f in topic_facets("AI agents", [])] == [["agent"]]
    # alone, it is still what the user asked for
    assert [[u.phrase for u in f.units] for f in topic_facets("AI", [])] == [["ai"]]


def test_their_variants_are_more_of_the_topic_not_a_facet():
    """ "ViT models and their variants" asked every paper to say "variant" (c31c)."""
    assert [[u.phrase for u in f.units] for f in topic_facets("ViT models and their variants", [])] == [["vit"]]
    assert [f.phrase for f in topic_facets("GNNs and their applications in chemistry", [])] == ["GNNs", "chemistry"]
    assert [[u.phrase for u in f.units] for f in topic_facets("transformers, their variants and applications", [])] \
        == [["transformer"]]


def test_a_tool_enhanced_task_is_two_facets():
    """ "LLM-enhanced recommender systems" asked every paper to say "enhance" (c31g: a reader found
    LLM preference alignment and medical RAG); "computer-aided diagnosis" stays one term."""
    assert [[u.phrase for u in f.units] for f in topic_facets("LLM-enhanced recommender systems", [])] == \
        [["llm"], ["recommender"]]
    assert [[u.phrase for u in f.units] for f in topic_facets("LLM-empowered agents", [])] == [["llm"], ["agent"]]
    assert len(topic_facets("computer-aided diagnosis", [])) == 1
