"""Frame floor: abstract, introduction and conclusion from the outline and corpus statistics;
model text only through the gate; every citation resolves."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from surveygraph.agents.framer import frame_citations_resolve, write_frame
from surveygraph.agents.challenges import HEADINGS, SECTION_TITLE
from surveygraph.agents.trends import CHALLENGE_PATTERNS
from surveygraph.agents.outline.floor import build_outline_floor, tfidf_encoder
from surveygraph.agents.validators import validate_prose
from test_outline_floor import TOPIC, _texts, fixture_corpus

FIXTURES = Path(__file__).parent / "fixtures" / "local_model_outputs"


def _state() -> dict:
    """A polished survey over the fixture corpus: the floor outline, one cited sentence per paper."""
    ids, papers, _ = fixture_corpus()
    vectors, encode = tfidf_encoder(_texts(ids, papers))
    outline = build_outline_floor(TOPIC, ids, papers, vectors, n_sections=4, n_subsections=2, encode=encode)
    references: list[str] = []
    body = []
    for s, section in enumerate(outline, start=1):
        section["id"] = str(s)
        subs = []
        for j, sub in enumerate(section["subsections"], start=1):
            sub["id"] = f"{s}.{j}"
            lines = []
            for pid in sub["paper_ids"][:3]:  # not every paper is cited: the frame may add some
                references.append(pid)
                lines.append(f"{papers[pid]['title']} is discussed here [{len(references)}].")
            subs.append({"id": sub["id"], "title": sub["title"], "text": " ".join(lines)})
        body.append({"id": section["id"], "title": section["title"], "subsections": subs})
    return {"topic": TOPIC, "papers": papers, "memory": ids, "outline": outline,
            "survey": {"topic": TOPIC, "body": body, "references": references,
                       "figures": [{"path": "figures/papers_per_theme.png", "caption": "Papers per theme and year.",
                                    "section_id": "introduction"}]}}


def _deps(tmp_path, responder):
    from tests.generation_helpers import scripted_models

    from surveygraph.agents.deps import GenerationDeps
    from surveygraph.llm import build_role_clients
    from surveygraph.settings import Settings

    settings = Settings(home=tmp_path, llm={"cache": False, "retries": 0})
    _model, chat = scripted_models(responder)
    return GenerationDeps(settings=settings, corpus=None, outlines=None,
                          clients=build_role_clients(settings, chat_models=chat))


def _real_local_frame(prompt: str) -> str:
    calls = json.loads((FIXTURES / "write_frame.json").read_text())["calls"]
    part = re.search(r"TASK: write the (\w+)", prompt).group(1)
    return next(c["output"] for c in calls if c["part"] == part)


def test_floor_replaces_real_model_noise_and_states_the_facts(tmp_path):
    state = _state()
    update = write_frame(state, _deps(tmp_path, _real_local_frame))
    survey = update["survey"]
    assert {f["item"] for f in update["fallbacks"] if f["node"] == "write_frame"} == {"abstract", "introduction", "conclusion"}
    assert all(update["gate"][f"write_frame:{p}"]["winner"] == "floor" for p in ("abstract", "introduction", "conclusion"))
    n_refs = len(state["survey"]["references"])
    assert f"{n_refs} papers" in survey["abstract"] and "between 2024 and 2025" in survey["abstract"]
    for section in state["survey"]["body"]:  # every theme is named in abstract and introduction
        assert section["title"] in survey["abstract"] and section["title"] in survey["introduction"]
    intro_text = survey["introduction"].split("\n\n![")[0]
    for part in (survey["abstract"], intro_text, survey["conclusion"]):
        assert validate_prose(part) == [], part
        assert "http" not in part and "(5 points)" not in part and "research project" not in part.lower()
        assert frame_citations_resolve(part, len(survey["references"]))
    assert survey["introduction"].rstrip().endswith(
        "![Figure 1: Papers per theme and year.](figures/papers_per_theme.png)")


def test_surveys_the_background_names_are_said_apart_from_the_reviewed_papers(tmp_path):
    """The background names surveys among the topic's papers that the body may not cite: the abstract
    and the introduction say them apart from the reviewed works, so that the counts agree with the
    reference list ("The abstract says 95 papers but the list has 97 entries", a c34j reader) and with
    the later sections' "of the 60 works" ("the text says both 62 and 60 works", c34k)."""
    from surveygraph.agents.background import SURVEYS_TITLE

    state = _state()
    for n, scope in enumerate(("Retrieval-Augmented Generation for Question Answering",
                               "Retrievers and Rerankers in Retrieval-Augmented Generation")):
        pid = f"survey-{n}"
        state["papers"][pid] = {"paper_id": pid, "title": f"A Survey on {scope}", "year": 2025,
                                "authors": ["Ada Smith", "Bo Lee", "Cy Wu"],
                                "abstract": f"This survey reviews {scope.lower()}. We categorize existing methods."}
        state["memory"] = [*state["memory"], pid]
    survey = write_frame(state, _deps(tmp_path, _real_local_frame))["survey"]
    assert SURVEYS_TITLE in [sub["title"] for sub in survey["background"]["subsections"]]
    assert {"survey-0", "survey-1"} <= set(survey["references"])
    reviewed = len(state["survey"]["references"])  # the body's works; the two surveys said apart
    assert len(survey["references"]) == reviewed + 2
    for part in (survey["abstract"], survey["introduction"]):
        assert re.search(rf"reviews {reviewed} papers on [^.]*, and points to two further surveys of the field\.",
                         part), part


def test_frame_citations_keep_body_numbers_and_append_new_ones(tmp_path):
    state = _state()
    before = list(state["survey"]["references"])
    survey = write_frame(state, _deps(tmp_path, _real_local_frame))["survey"]
    assert survey["references"][:len(before)] == before  # body numbering untouched
    cited = {int(n) for n in re.findall(r"\[(\d+)\]", survey["introduction"] + survey["conclusion"])}
    assert cited and max(cited) <= len(survey["references"])
    assert len(set(survey["references"])) == len(survey["references"])


def test_good_model_text_passes_the_gate(tmp_path):
    state = _state()
    titles = [s["title"] for s in state["survey"]["body"]]

    def good(prompt: str) -> str:
        return (f"Retrieval-augmented generation couples a retriever with a generator so that answers rest on "
                f"evidence rather than on parameters alone. This survey examines four strands of that work: "
                f"{', '.join(titles[:-1])} and {titles[-1]}. Each strand is traced from the problems that motivate "
                "it to the methods proposed and the evidence reported for them, and the closing discussion weighs "
                "what remains unsolved across the strands, from faithfulness to cost.")

    update = write_frame(state, _deps(tmp_path, good))
    assert all(update["gate"][f"write_frame:{p}"]["winner"] == "model" for p in ("abstract", "introduction", "conclusion"))
    assert update["survey"]["abstract"].startswith("Retrieval-augmented generation couples")
    assert not [f for f in update["fallbacks"] if f["node"] == "write_frame"]


@pytest.mark.parametrize("polish", [False])
def test_no_frame_without_polish(tmp_path, polish):
    deps = _deps(tmp_path, _real_local_frame)
    deps.settings.generation.polish = polish
    assert write_frame(_state(), deps) == {}


SECTIONS = ("Retrieval and Reasoning", "Evaluation and Trust", "Domains and Applications")


def _real_state(shared_data) -> dict:
    """Three sections of two subsections over 48 real RAG papers, each subsection the synthesis of
    eight of them, numbered the way polish numbers them."""
    from tests.generation_helpers import rag_papers

    from surveygraph.agents.synthesis import synthesize
    from surveygraph.agents.text import renumber, resolve_local_citations

    found = rag_papers(shared_data, 48)
    papers = {p.paper_id: p.model_dump(mode="json", exclude_none=True) for p in found}
    ids = [p.paper_id for p in found]
    texts, body, outline = [], [], []
    for s, title in enumerate(SECTIONS):
        subs = []
        for j in range(2):
            group = ids[(2 * s + j) * 8:(2 * s + j + 1) * 8]
            text = synthesize(f"Part {j + 1}", [papers[i] for i in group], topic=TOPIC)
            texts.append(resolve_local_citations(text, {str(k): pid for k, pid in enumerate(group, 1)})[0])
            subs.append({"id": f"{s + 1}.{j + 1}", "title": f"Part {j + 1}"})
        body.append({"id": str(s + 1), "title": title, "subsections": subs})
        outline.append({"id": str(s + 1), "title": title, "subsections": subs})
    numbering: dict[str, int] = {}
    texts = iter(renumber(texts, numbering))
    for section in body:
        section["subsections"] = [{**sub, "text": next(texts)} for sub in section["subsections"]]
    return {"topic": TOPIC, "papers": papers, "memory": ids, "outline": outline,
            "relevance": {"enabled": True, "candidates": 900, "kept": 300,
                          "corpus": {"papers": 74728, "years": [2025, 2026]}},
            "survey": {"topic": TOPIC, "body": body, "references": sorted(numbering, key=numbering.get)}}


def test_frame_lays_out_the_taxonomy_and_draws_the_sections_together(tmp_path, shared_data):
    from surveygraph.agents.facets import paper_facets
    from surveygraph.agents.text import drop_repeated_sentences, said_before, sentences
    from surveygraph.sanitize import untrusted

    state = _real_state(shared_data)
    body_texts = [sub["text"] for s in state["survey"]["body"] for sub in s["subsections"]]
    survey = write_frame(state, _deps(tmp_path, _real_local_frame))["survey"]
    refs = survey["references"]
    text_of = {n: untrusted(f"{state['papers'][pid]['title']}. {state['papers'][pid]['abstract']}").lower()
               for n, pid in enumerate(refs, start=1)}
    intro, conclusion = survey["introduction"].split("\n\n![")[0], survey["conclusion"]
    # the taxonomy: each section, and the phrases that set it apart cited to works that use them
    for number, title in enumerate(SECTIONS, start=2):
        assert f"Section {number}, {title}, covers" in intro
    named = re.findall(r"(?:attention to|more often concern|stand out for) (.+?)\.(?: |$)", intro)
    phrases = [(p, [int(n) for n in ns.split(", ")]) for part in named
               for p, ns in re.findall(r"(?:^|, | and )([^\[\],]+?) \[([\d, ]+)\]", part)]
    assert phrases, intro
    for phrase, numbers in phrases:
        for n in numbers:
            assert phrase.lower() in text_of[n], (phrase, n)
    # evaluation practice, counted from the cited works' abstracts
    cited = {pid for pid in refs if pid in state["papers"]}
    with_data = sum(bool(paper_facets(state["papers"][pid]).data) for pid in cited)
    assert re.search(rf"\b{with_data}\b|\b{['none', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'][with_data] if with_data < 13 else with_data}\b of the {len(refs)} works name their evaluation data",
                     conclusion), conclusion
    # open problems: a section of their own after the three body sections, one subsection per kind
    # of challenge; the works each subsection says report the kind use its words
    challenges = survey["challenges"]
    assert challenges["title"] == SECTION_TITLE and len(challenges["subsections"]) >= 2
    at = 6 if survey.get("evaluation") else 5  # after the three body sections (2-4) and any datasets section
    assert f"Section {at} collects the open challenges" in intro
    assert re.search(rf"\w+ of the \d+ works state a challenge; Section {at} sets out the kinds", conclusion), conclusion
    kind_of = {heading: kind for kind, heading in HEADINGS.items()}
    named = re.search(r"sets out the kinds they name most, (.+), with the works", conclusion).group(1)
    written = {kind_of[sub["title"]] for sub in challenges["subsections"]}
    assert {kind for kind in HEADINGS if f"{kind} (" in named} == written, named  # no kind the section left out
    for sub in challenges["subsections"]:
        kind = kind_of[sub["title"]]
        lead = re.match(r"(.+?) is a challenge reported by (?:one work|works)[^\[]*\[([\d, ]+)\]", sub["text"])
        assert lead and lead.group(1).lower() == kind.lower(), sub["text"]
        for n in lead.group(2).split(", "):
            assert CHALLENGE_PATTERNS[kind].search(text_of[int(n)]), (kind, n)
    # nothing the body said is said again; every citation resolves; the corpus window is stated
    said: set[str] = set()
    drop_repeated_sentences(body_texts, said)
    for part in (survey["abstract"], intro, conclusion, *(sub["text"] for sub in challenges["subsections"])):
        for sentence in sentences(" ".join(part.split())):
            assert not said_before(sentence, said), sentence
        assert frame_citations_resolve(part, len(refs))
    assert survey["abstract"].endswith("Only work from 2025-2026 is covered.")
    assert "[" not in survey["abstract"]
    assert len(conclusion.split()) > 100


def test_open_problems_are_grouped_by_the_kind_of_challenge_their_words_name():
    from surveygraph.agents.candidates import Candidate
    from surveygraph.agents.trends import challenge_themes

    stated = [(pid, Candidate(1, 3, text, "limitation")) for pid, text in [  # sentences of corpus abstracts
        ("a", "We conclude by discussing how future work can mitigate the computational overhead and address "
              "potential hallucinations from large language models to refine efficiency and reliability in multi-hop QA."),
        ("b", "Recent works mostly depend on expensive manual annotations and training cost, or decoding strategies "
              "which significantly increase inference time."),
        ("c", "Performance is highest in English and degrades in lower-resource languages, with Hindi exhibiting the "
              "lowest detection accuracy."),
        ("d", "Existing benchmarks do not adequately reflect the linguistic, cultural, and reasoning characteristics "
              "of Arabic."),
        ("e", "Despite progress in RAG evaluation, current benchmarks focus only on simple multiple-choice QA tasks and "
              "employ metrics that poorly capture the semantic precision required for complex QA tasks.")]]
    themes = dict(challenge_themes(stated, {"hallucination", "hallucinations"}))
    efficiency = dict(themes["efficiency and scalability"])
    assert set(efficiency) == {"a", "b"}
    assert "computational overhead" in efficiency["a"] and efficiency["a"].endswith(" …")  # cut: marked
    assert efficiency["b"] == "Recent works mostly depend on expensive manual annotations and training cost"
    assert {pid for pid, _ in themes["evaluation"]} == {"d", "e"}
    assert "factuality" not in themes  # the topic's own word names no kind of challenge
    assert all(len(users) >= 2 for users in themes.values())


def test_introduction_says_how_the_pool_was_gathered_in_rounds(tmp_path):
    state = _state()
    state["relevance"] = {"enabled": True, "candidates": 1200, "kept": 310, "rounds": [{}, {}, {}],
                          "estimated_on_topic": {"on_topic": 842.4},
                          "corpus": {"papers": 74728, "years": [2025, 2026]}}
    intro = write_frame(state, _deps(tmp_path, _real_local_frame))["survey"]["introduction"]
    assert "310 papers judged to be about the topic" in intro and "1,200 candidates in 3 rounds of search" in intro
    assert "estimates about 842 such papers in the whole corpus" in intro
    assert intro.count("74,728") == 1  # the corpus window is the scope sentence's alone


def test_progress_on_a_challenge_is_a_gain_on_its_own_words_not_any_success():
    from surveygraph.agents.challenges import challenge_kinds

    def paper(pid, abstract):
        return {"paper_id": pid, "title": f"Work {pid}", "abstract": abstract, "authors": ["A. Smith", "B. Lee"]}

    papers = {
        "r1": paper("r1", "Safety filters of language models remain brittle under adversarial prompts and paraphrases. "
                          "We study why refusal training generalises poorly to unseen attacks in chat models."),
        "r2": paper("r2", "Guard models lack robustness to adversarial suffixes appended to harmful requests. "
                          "We analyse twelve open guard models on a shared set of jailbreak prompts."),
        "gain": paper("gain", "We propose a representation ranking defence for chat models against jailbreak attacks. "
                              "Across five benchmarks, our ranking significantly improves robustness to adversarial prompts."),
        "busy": paper("busy", "We propose a self-play framework for chat models that resists persona attacks. "
                              "PersonaPlay achieves co-evolution of attacker and defender through adversarial self-play rounds."),
    }
    from surveygraph.agents.trends import challenge_statements, challenge_themes
    ids = list(papers)
    stated = challenge_statements(ids, papers)
    themes = [t for t in challenge_themes(stated, set()) if t[0] == "robustness"]
    assert themes and {pid for pid, _ in themes[0][1]} == {"r1", "r2"}, themes
    sections = [{"title": "Defences", "papers": ids}]
    (kind,) = challenge_kinds(themes, stated, sections, papers, {"safety"})
    assert [pid for pid, _ in kind.addressing] == ["gain"]  # "achieves co-evolution" is no progress on robustness


def test_a_loss_on_a_challenge_is_no_progress_on_it(shared_data):
    """RARE (a corpus paper): "RAG systems consistently show lower robustness on multi-hop queries"
    was quoted as progress on robustness (a c26r reader); a gain verb on what should be high is a loss."""
    from tests.corpus_papers import corpus_papers
    from surveygraph.agents.challenges import LOSS_CUES, _progress

    (rare,) = corpus_papers(shared_data, "2506.00789")
    assert "lower robustness" in rare["abstract"]
    assert _progress(rare, "robustness", set()) is None
    assert LOSS_CUES.search("show lower robustness on multi-hop queries")
    assert not LOSS_CUES.search("lowers inference latency by half") and not LOSS_CUES.search("reduces the error rate")


def test_the_datasets_section_counts_only_data_two_works_name_and_cites_them():
    """The datasets-and-metrics section (agents/evaluation_practice.py): every row of its table is
    data that at least two works' abstracts name, cited to exactly those works, with the measures
    those works report; data one work names is counted, not tabled; too little shared data, no
    section."""
    from surveygraph.agents.evaluation_practice import SECTION_TITLE as EVALUATION_TITLE, evaluation_section
    from surveygraph.agents.facets import paper_facets
    from surveygraph.agents.frame_floor import Citer

    def paper(pid, abstract):
        return {"paper_id": pid, "title": f"Detector {pid}", "abstract": abstract, "authors": ["A. Smith", "B. Lee"]}

    papers = {
        "a": paper("a", "We propose a fusion detector. Experiments on the KITTI and nuScenes benchmarks show 2.1% higher mAP."),
        "b": paper("b", "We propose a radar detector. Experiments on the nuScenes and VoD datasets show that it "
                        "improves NDS by 1.5 points on VoD."),
        "c": paper("c", "We propose a LiDAR detector. Experiments on the KITTI and TJ4DRadSet benchmarks show gains in mAP."),
        "d": paper("d", "We propose a camera detector. Experiments on the VoD and TJ4DRadSet datasets reduce latency."),
        "e": paper("e", "We propose a tracker. Experiments on the ZJU-4DRadarCam dataset show gains."),
    }
    ids = list(papers)
    facets = {pid: paper_facets(papers[pid]) for pid in ids}
    sections = [{"title": "Fusion", "papers": ["a", "b"]}, {"title": "Single sensors", "papers": ["c", "d", "e"]}]
    cite = Citer(ids)
    section = evaluation_section(ids, facets, sections, papers, cite, set(), table_number=3)
    assert section and section["title"] == EVALUATION_TITLE and section["text"].startswith("Table 3 lists")
    rows = {row[0].lower(): row for row in section["table"]["rows"]}
    assert set(rows) == {"kitti", "nuscenes", "vod", "tj4dradset"}  # ZJU-4DRadarCam: one work, not tabled
    assert rows["kitti"][1] == "2 [1, 3]" and rows["kitti"][2] == "2, 3" and "mAP (2)" in rows["kitti"][3]
    assert rows["vod"][1] == "2 [2, 4]"
    data_text = section["subsections"][0]["text"]
    assert data_text.startswith("Five of the 5 works name their evaluation data") and "one abstract each" in data_text
    # a stated figure goes under the data its own clause names: "b" names nuScenes first, but its
    # figure is on VoD
    metrics_text = section["subsections"][1]["text"]
    assert "on VoD, Smith and Lee [2] “improves NDS by 1.5 points on VoD”" in metrics_text, metrics_text
    # ... and only there: a figure whose clause names none of the work's data is set beside no data ("on
    # WebArena, Cao et al. [17] 'achieves a 1.55x speedup over naive asynchronous batching'", c29o)
    papers["d"] = paper("d", "We propose a camera detector evaluated on the VoD and TJ4DRadSet datasets. It achieves a "
                             "1.55x speedup over naive batching.")
    facets["d"] = paper_facets(papers["d"])
    assert facets["d"].result and "VoD" not in facets["d"].result, facets["d"].result
    section = evaluation_section(ids, facets, sections, papers, Citer(ids), set(), table_number=3)
    assert "speedup" not in section["subsections"][1]["text"], section["subsections"][1]["text"]
    # three shared data sets are the least worth a section
    few = {pid: facets[pid] for pid in ("a", "b", "e")}
    assert evaluation_section(list(few), few, sections, papers, Citer(ids), set(), table_number=1) is None


def test_the_conclusion_reads_right_when_one_section_is_both_largest_and_newest_and_one_kind_is_unknown():
    """Read in an untuned draft: "The most populated is X (50 works); X has the largest share of
    2026 papers" and "(the abstracts of the other one do not say)"."""
    from collections import Counter

    from surveygraph.agents.frame_floor import Citer, Overview, floor_conclusion
    from surveygraph.agents.trends import Practice

    facts = {"topic": "graph learning", "cited": 5, "latest": 2026, "sections": [
        {"title": "Graph Reasoning", "papers": ["a", "b", "c"], "subsections": [], "recent_share": 2 / 3},
        {"title": "Applications", "papers": ["d", "e"], "subsections": [], "recent_share": 0.5}]}
    practice = Practice(5, [], [], [], [], [], Counter({"method": 3, "survey": 1, "other": 1}))
    text, _ = floor_conclusion(facts, Citer(list("abcde")), Overview([[], []], [], practice, [], []))
    assert "The most populated is Graph Reasoning (three works); it also has the largest share of 2026 papers (2 of 3)" \
        in text, text
    assert "(the abstract of the other one does not say)" in text, text


def test_a_section_of_one_subsection_is_exported_undivided(tmp_path):
    """Readers of v7 faulted "Section 6 has a single subsection": one subsection is no division, so
    its text stands under the section's heading, and the introduction does not announce it."""
    from surveygraph.agents.exporter import build_survey

    state = {"topic": "RAG", "papers": {}, "outline": [{"id": "1", "title": "Benchmarks", "subsections": [{"id": "1.1"}]},
                                                        {"id": "2", "title": "Methods", "subsections": [{"id": "2.1"}, {"id": "2.2"}]}],
             "survey": {"references": [], "body": [
                 {"id": "1", "title": "Benchmarks", "text": "", "subsections": [
                     {"id": "1.1", "title": "Methods, Benchmarks and Datasets", "text": "This subsection reviews two works."}]},
                 {"id": "2", "title": "Methods", "text": "", "subsections": [
                     {"id": "2.1", "title": "Dense", "text": "Dense text."}, {"id": "2.2", "title": "Sparse", "text": "Sparse text."}]}]}}
    survey = build_survey(state)
    headings = [(s.level, s.heading) for s in survey.sections]
    assert headings == [(1, "Benchmarks"), (1, "Methods"), (2, "Dense"), (2, "Sparse")]
    assert survey.sections[0].text == "This section reviews two works."


def test_a_section_s_works_at_large_open_it_under_no_heading():
    """Blind readers faulted "Other Work on X" as a catch-all bucket on seven of ten c33 panels: before
    two or more named subsections, a section's works at large are its opening text, and the
    introduction says so; before one named subsection they keep their heading (no lone subsection)."""
    from surveygraph.agents.exporter import build_survey, to_markdown
    from surveygraph.agents.frame_floor import Citer, _section_sentence

    lead = "This subsection reviews two further works on policy optimization, both of which propose methods."
    state = {"topic": "RL agents", "papers": {}, "outline": [
        {"id": "1", "title": "Policy Optimization", "subsections": [{"id": "1.1"}, {"id": "1.2"}, {"id": "1.3"}]},
        {"id": "2", "title": "Tool Use", "subsections": [{"id": "2.1"}, {"id": "2.2"}]}],
             "survey": {"references": [], "body": [
                 {"id": "1", "title": "Policy Optimization", "text": "| a |\n|---|", "subsections": [
                     {"id": "1.1", "title": "Other Work on Policy Optimization", "text": lead},
                     {"id": "1.2", "title": "Agentic Reasoning", "text": "Reasoning text."},
                     {"id": "1.3", "title": "Decision Making", "text": "Decision text."}]},
                 {"id": "2", "title": "Tool Use", "text": "", "subsections": [
                     {"id": "2.1", "title": "Web Agents", "text": "Web text."},
                     {"id": "2.2", "title": "Other Work on Tool Use", "text": "Further text."}]}]}}
    survey = build_survey(state)
    assert [(s.level, s.heading) for s in survey.sections] == [
        (1, "Policy Optimization"), (2, "Agentic Reasoning"), (2, "Decision Making"), (1, "Tool Use"),
        (2, "Web Agents"), (2, "Other Work on Tool Use")]
    assert survey.sections[0].text == ("| a |\n|---|\n\nBefore its subsections on agentic reasoning and decision "
                                       "making, this section reviews two works on policy optimization at large, both "
                                       "of which propose methods.")
    assert "Other Work on Policy" not in to_markdown(survey)
    section = {"title": "Policy Optimization", "papers": ["a", "b", "c", "d"],
               "subsections": ["Other Work on Policy Optimization", "Agentic Reasoning", "Decision Making"]}
    assert _section_sentence(2, section, [], Citer([])) == (
        "Section 2, Policy Optimization, covers four works, those on policy optimization at large first, then two "
        "subsections (Agentic Reasoning and Decision Making).")


def test_data_two_works_name_is_no_shared_practice_of_the_survey():
    """A v9 reader of a 64-work survey: "AIME is the evaluation data the works share most (2 works)"
    draws statistics from thin evidence; the overview names data only when three works or more do."""
    from surveygraph.agents.facets import Facets
    from surveygraph.agents.trends import evaluation_practice

    facets = {f"p{i}": Facets(kind="method", data=names) for i, names in enumerate(
        [["AIME"], ["AIME"], ["GSM8K"], ["GSM8K"], ["GSM8K"], ["MATH"]])}
    practice = evaluation_practice(list(facets), facets, set())
    assert [name for name, _ in practice.data] == ["GSM8K"]
    assert evaluation_practice(list(facets)[:2], facets, set()).data == []


def test_the_field_term_the_topic_was_read_as_cuts_across_nothing():
    """A c23 conclusion: "Some ingredients cut across the taxonomy: GNNs (36 works), graph neural
    network (24 works)" in a survey asked as "neural networks that work on graph data"; and its
    introduction said the works "stand out for convolutional neural [15, 16]"."""
    from surveygraph.agents.frame_floor import overview_banned
    from surveygraph.agents.trends import distinctive_phrases

    facts = {"topic": "neural networks that work on graph data",
             "topic_terms": ["graph", "gnn", "neural", "networks"]}
    banned = overview_banned(facts)
    assert {"gnns", "network", "graphs", "neural"} <= {w for w in ("gnns", "network", "graphs", "neural") if w in banned}
    assert "convolution" not in banned and "attention" not in banned
    papers = {f"p{i}": {"title": title, "abstract": ""} for i, title in enumerate([
        "Convolutional Neural Graph Filters with Spectral Pooling", "Convolutional Neural Operators for Spectral Pooling",
        "Temporal Attention for Dynamic Graphs", "Temporal Attention over Evolving Graphs"])}
    distinct = distinctive_phrases([["p0", "p1"], ["p2", "p3"]], papers, banned)
    said = [phrase for section in distinct for phrase, _ in section]
    assert "convolutional neural" not in said and any("spectral pooling" in p for p in said), said


def test_a_topic_typed_as_a_question_stays_a_question_in_title_and_prose():
    """'A Survey on How Do Transformers Handle Very Long Documents' and 'papers on how do
    transformers ...' were what a user's question became; a request ('how to ...') and a field
    name read as typed."""
    from surveygraph.agents.exporter import survey_title
    from surveygraph.agents.text import topic_in_prose

    assert survey_title("how do transformers handle very long documents") == \
        "How Do Transformers Handle Very Long Documents? A Survey"
    assert survey_title("what's new in MoE LLMs?") == "What's New in MoE LLMs? A Survey"
    assert survey_title("Graph Neural Networks") == "A Survey on Graph Neural Networks"
    assert survey_title("how to stop LLMs from hallucinating") == "A Survey on How to Stop LLMs from Hallucinating"
    assert topic_in_prose("can LLMs forecast time series?") == 'the question "Can LLMs forecast time series?"'
    assert topic_in_prose("how to stop LLMs from hallucinating") == "how to stop LLMs from hallucinating"
    assert topic_in_prose("Vision Transformers") == "Vision Transformers"
    assert survey_title("CAN bus intrusion detection") == "A Survey on CAN Bus Intrusion Detection"  # an acronym
    # a noun clause is no question ("How Vision Transformers Work and Where They Are Used? A Survey")
    assert survey_title("how vision transformers work and where they are used") == \
        "A Survey on How Vision Transformers Work and Where They Are Used"
    assert topic_in_prose("why LLMs hallucinate") == "why LLMs hallucinate"
    assert topic_in_prose("why do LLMs hallucinate") == 'the question "Why do LLMs hallucinate?"'


def test_a_phrase_and_its_acronym_stand_for_one_concept_in_a_section_s_summary():
    """"its works stand out for convolutional neural networks [3, 4, 5, 9], CNNs [3, 4, 5, 6] and ..."
    (a c29 draft's introduction): the acronym is the phrase's concept, named once."""
    from surveygraph.agents.trends import distinctive_phrases

    titles = ["Convolutional Neural Networks Meet Transformers for Segmentation",
              "Hybrid Convolutional Neural Networks and CNNs for Medical Segmentation",
              "Lightweight CNNs with Attention for Segmentation", "Pruning CNNs and Convolutional Neural Networks",
              "Token Merging for Detection Transformers", "Token Merging with Adaptive Budgets"]
    papers = {f"p{i}": {"title": title, "abstract": ""} for i, title in enumerate(titles)}
    distinct = distinctive_phrases([["p0", "p1", "p2", "p3"], ["p4", "p5"]], papers, set())
    said = [phrase.lower() for phrase, _ in distinct[0]]
    assert sum(p in ("cnns", "convolutional neural networks") for p in said) == 1, said


def test_a_phrase_that_heads_a_section_cuts_across_nothing():
    """A session-30 conclusion: "Some ingredients cut across the taxonomy: ... semantic segmentation (in
    Sections 3 and 6; 16 works ...)" in a survey whose Section 6 is "Semantic Segmentation"."""
    from surveygraph.agents.trends import crosscutting_phrases

    titles = ["Semantic Segmentation with Token Merging", "Semantic Segmentation via Sparse Attention",
              "Semantic Segmentation of Medical Images", "Token Pruning for Semantic Segmentation",
              "Medical Image Classification with Token Pruning", "Token Pruning Meets Hierarchical Windows",
              "Registers for Vision Transformers", "Knowledge Distillation for Compact Backbones",
              "Visual Prompt Tuning at Scale", "Adversarial Patches against Vision Backbones"]
    papers = {f"p{i}": {"title": t, "abstract": f"{t}. We study it on ImageNet."} for i, t in enumerate(titles)}
    sections = [["p0", "p1", "p2", "p6", "p7"], ["p3", "p4", "p5", "p8", "p9"]]
    everything = [phrase.lower() for phrase, _, _ in crosscutting_phrases(sections, papers, set())]
    assert "semantic segmentation" in everything
    headed = [phrase.lower() for phrase, _, _ in crosscutting_phrases(
        sections, papers, set(), headings=["Semantic Segmentation", "Efficient Architectures"])]
    assert "semantic segmentation" not in headed


def test_a_system_name_is_no_ingredient_of_the_works_that_say_the_common_word():
    """A c32p conclusion: "Some ingredients cut across the taxonomy: ... GAP (in Sections 4, 5 and 6; 4
    works)": one work's system is GAP, three others mention a performance or evaluation gap."""
    from surveygraph.agents.trends import crosscutting_phrases

    papers = {
        "p0": {"title": "GAP: Graph-Assisted Prompts for Medication Recommendation",
               "abstract": "We propose GAP. GAP builds graphs; GAP prompts the model. GAP beats baselines, and GAP "
                           "is cheap: GAP needs no tuning, GAP scales, GAP transfers and GAP explains."},
        "p1": {"title": "Closing the Gap in Conversational Recommenders", "abstract": "A gap remains in recall."},
        "p2": {"title": "Mind the Gap: Judges for Recommendation Lists", "abstract": "The evaluation gap is wide."},
        "p3": {"title": "Bridging the Gap between IDs and Text", "abstract": "The semantic gap hurts ranking."},
        "p4": {"title": "Semantic IDs for Generative Recommendation", "abstract": "Semantic IDs index items."},
        "p5": {"title": "Semantic IDs at Scale", "abstract": "We scale semantic IDs."},
        "p6": {"title": "Semantic IDs for News", "abstract": "Semantic IDs for news items."},
        **{f"q{i}": {"title": f"Cold-Start Recommendation Study {i}", "abstract": "Cold users get few items."}
           for i in range(4)},
    }
    sections = [["p0", "p1", "p4", "q0"], ["p2", "p5", "q1", "q2"], ["p3", "p6", "q3"]]
    phrases = [phrase for phrase, _, _ in crosscutting_phrases(sections, papers, set())]
    assert not any(phrase.lower() == "gap" for phrase in phrases), phrases
    assert any("ids" in phrase.lower().split() for phrase in phrases), phrases  # what the works share stays
