"""Judge page: mine a set from the sidebar's collection, judge pooled passages (terms marked),
mark a question not answerable, drop and edit one, take a reference answer from a passage's
sentences, resume in another session without overwriting it, and save the judged set for
Evaluate (hashing embedder, two sample documents)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI
from fake_openai import fake_openai as fake_openai
from fake_openai import llm as llm
from own_collection import build_collection
from streamlit.testing.v1 import AppTest

from eval.judging import background_fit
from eval.judging.background_fit import SYNC_ENV
from eval.judging.store import open_judging
from eval.testsets.store import list_sets, load_set, read_rows, set_path
from pages.ui.state import APP_COLLECTION

PAGE = str(Path(__file__).resolve().parents[2] / "pages" / "judge.py")


@pytest.fixture(autouse=True)
def _fits_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The judge refits in the background on the page; here each label's fit is done at once
    (test_the_page_keeps_the_last_fit_while_a_refit_runs turns it off)."""
    monkeypatch.setenv(SYNC_ENV, "1")


def _page(collection: str | None, order: str | None = None) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=300)
    at.session_state[APP_COLLECTION] = collection
    if order is not None:
        at.session_state["judge_order"] = order
    return at.run()


def _pool_of_two(at: AppTest) -> AppTest:
    """Two pooled systems, judged in pool order (question by question)."""
    at.selectbox(key="judge_order").set_value("pool order")
    return at.multiselect(key="judge_systems").set_value(["bm25", "dense"]).run()


def test_without_a_collection_the_page_says_what_to_do() -> None:
    at = _page(None)
    assert not at.exception and "Pick or build a collection" in at.info[0].value


@pytest.mark.usefixtures("hashing_presets")
def test_mine_judge_resume_and_save_a_set(tmp_path: Path) -> None:
    name = build_collection(tmp_path)
    evaluate = AppTest.from_file(PAGE.replace("judge.py", "evaluate.py"), default_timeout=300)
    evaluate.session_state[APP_COLLECTION] = name
    assert any("has no test set of its own yet" in c.value for c in evaluate.run().caption)
    at = _page(name)
    assert f"Collection **{name}** has no test set yet" in at.info[0].value
    at.button(key="judge_new_go").click().run()
    assert not at.exception, at.exception
    assert any("Saved **mined**" in s.value for s in at.success)
    (info,) = list_sets(name)
    assert info.questions >= 3 and set(info.provenance) == {"mined"}

    at = _pool_of_two(at)
    assert f"0 of {info.questions} judged" in at.get("progress")[0].proto.text
    first = at.selectbox(key="judge_qid").value
    shown = " ".join(m.value for m in at.markdown)
    assert "Passage 1 of" in shown and "retrieved by" in shown
    assert any("<mark" in h.proto.body for h in at.get("html"))  # the question's terms marked
    at.button(key="judge_relevant").click().run()
    assert not at.exception, at.exception
    store = open_judging(name, "mined")
    assert list(store.labels(first)[first].values()) == ["relevant"]
    assert "Passage 2 of" in " ".join(m.value for m in at.markdown)  # moved on to the next one
    at.button(key="judge_not_relevant").click().run()

    # a reference answer from the passage's sentences
    pick = at.multiselect(key=next(w.key for w in at.multiselect if w.key.startswith("judge_answer_")))
    pick.set_value(pick.options[:1]).run()
    at.button(key="judge_answer_use").click().run()
    assert next(q for q in store.questions() if q.qid == first).answer == pick.options[0]

    # another browser session judges the same set: both sessions' judgments are kept
    other = _pool_of_two(_page(name, "pool order"))
    assert other.selectbox(key="judge_qid").value == first  # the first still-open question
    other.button(key="judge_skip").click().run()
    assert len(store.labels(first)[first]) == 3
    assert len({h[5] for h in store.history(first)}) == 2  # two sessions wrote

    # next question: not answerable; the one after: dropped; edit a question's text
    at.button(key="judge_next").click().run()
    second = at.selectbox(key="judge_qid").value
    assert second != first
    at.button(key="judge_unanswerable").click().run()
    assert any("Not answerable from these documents" in i.value for i in at.info)
    at.button(key="judge_next").click().run()
    third = at.selectbox(key="judge_qid").value
    at.text_input(key=f"judge_text_{third}").set_value("Edited question?").run()
    at.button(key=f"judge_save_{third}").click().run()
    at.button(key="judge_drop").click().run()
    assert any("dropped" in i.value for i in at.info)
    assert f"2 of {info.questions} judged" in at.get("progress")[0].proto.text

    at.button(key="judge_save_set").click().run()
    assert not at.exception, at.exception
    # saved in place: the same set, no fork, and judging goes on where it stood
    assert [i.name for i in list_sets(name)] == ["mined"]
    judged = list_sets(name)[0]
    assert judged.questions == info.questions - 1 and "judged" in judged.provenance
    items = {i.qid: i for i in load_set(name, "mined").items}
    assert third not in items and not items[second].answerable
    assert items[first].answer == pick.options[0]
    (relevant,) = [k for k, v in store.labels(first)[first].items() if v == "relevant"]
    assert relevant in {(sp.doc, sp.start, sp.end) for sp in items[first].spans}
    assert any(d.proto.label == "Download as QA JSONL" for d in at.get("download_button"))

    # reopened in a new session, the labels are there: nothing looks lost
    again = _pool_of_two(_page(name, "pool order"))
    assert f"2 of {info.questions} judged" in again.get("progress")[0].proto.text
    again.selectbox(key="judge_qid").set_value(first).run()
    assert "relevant" in list(again.dataframe[0].value["label"])  # the whole pool's labels

    # saved under another name: the copy carries its judging and the page goes on with it
    again.text_input(key="judge_save_name_mined").set_value("mined-copy").run()
    again.button(key="judge_save_set").click().run()
    assert not again.exception, again.exception
    assert again.selectbox(key="judge_set").value == "mined-copy"
    assert open_judging(name, "mined-copy").labels() == store.labels()
    assert f"2 of {info.questions} judged" in again.get("progress")[0].proto.text


@pytest.mark.usefixtures("hashing_presets")
def test_a_question_is_judged_when_the_person_says_so_and_the_next_follows(tmp_path: Path) -> None:
    name = build_collection(tmp_path)
    at = _page(name)
    at.button(key="judge_new_go").click().run()
    at = _pool_of_two(at)
    first = at.selectbox(key="judge_qid").value
    at.button(key="judge_relevant").click().run()
    at.button(key="judge_done").click().run()  # D: judged enough, one passage labelled
    assert not at.exception, at.exception
    second = at.selectbox(key="judge_qid").value
    assert second != first  # the next open question followed without J
    total = len(open_judging(name, "mined").questions())
    assert f"1 of {total} judged" in at.get("progress")[0].proto.text
    # labelling every passage of a question moves on to the next open question too
    store = open_judging(name, "mined")
    while at.selectbox(key="judge_qid").value == second:
        at.button(key="judge_not_relevant").click().run()
        assert not at.exception, at.exception
    assert len(store.labels(second)[second]) == len(store.pool(second))
    assert at.selectbox(key="judge_qid").value not in (first, second)


@pytest.mark.usefixtures("hashing_presets")
def test_a_judged_set_saved_elsewhere_opens_with_its_labels(tmp_path: Path) -> None:
    from eval.judging.export import export_rows
    from eval.testsets.store import save_set

    name = build_collection(tmp_path)
    at = _page(name)
    at.button(key="judge_new_go").click().run()
    at = _pool_of_two(at)
    first = at.selectbox(key="judge_qid").value
    at.button(key="judge_relevant").click().run()
    ((key, _),) = open_judging(name, "mined").labels()[first].items()
    save_set(name, "older-fork", export_rows(open_judging(name, "mined")))  # no judging of its own
    other = _page(name)
    other.selectbox(key="judge_set").set_value("older-fork").run()
    assert not other.exception, other.exception
    assert open_judging(name, "older-fork").labels()[first][key] == "relevant"


@pytest.mark.usefixtures("hashing_presets")
def test_generate_a_set_with_the_connected_llm(tmp_path: Path, llm: FakeOpenAI) -> None:
    pytest.importorskip("eval.testsets.generate")  # LLM generation (branch gen) not merged yet
    import json
    import re

    def asks(body: dict) -> str:
        prompt = str(body["messages"][-1]["content"])
        if "Write one question" in prompt:
            words = sorted(set(re.findall(r"[A-Za-z]{7,}", prompt.split("<passage>")[1])))[:3]
            return json.dumps({"question": f"What does the guide say about {' and '.join(words)}?"})
        return json.dumps({"sentences": [1], "coverage": "full"})

    llm.responder = asks
    name = build_collection(tmp_path)
    at = _page(name)
    at.radio(key="judge_new_method").set_value("llm").run()
    at.text_input(key="judge_new_name").set_value("generated")
    at.number_input(key="judge_new_n").set_value(4).run()
    at.button(key="judge_new_go").click().run()
    assert not at.exception, at.exception
    assert any("Saved **generated**" in s.value for s in at.success)
    (info,) = list_sets(name)
    assert info.questions >= 1 and all(k.startswith("llm") for k in info.provenance)


def test_generation_without_an_llm_says_how_to_connect_one(tmp_path: Path,
                                                           hashing_presets: None) -> None:
    at = _page(build_collection(tmp_path))
    at.radio(key="judge_new_method").set_value("llm").run()
    assert any("needs an LLM endpoint" in i.value for i in at.info)
    assert not any(b.key == "judge_new_go" for b in at.button)


@pytest.mark.usefixtures("hashing_presets")
def test_a_made_set_can_carry_questions_the_collection_cannot_answer(tmp_path: Path) -> None:
    import uuid

    from rag.cli import main as rag_main

    other = tmp_path / "garden"
    other.mkdir()
    (other / "garden-faq.md").write_text(
        "# Garden FAQ\n\n## When should tomatoes be planted?\n\nPlant Tomatoes after the last "
        "frost, when Soil reaches sixteen degrees.\n\n## How often do Orchids need water?\n\n"
        "Water Phalaenopsis orchids weekly; let the bark dry between waterings.\n\n"
        "## Why do Hydrangeas change colour?\n\nHydrangea flowers turn blue in acidic soil "
        "and pink in alkaline soil because of aluminium uptake.\n")
    garden = f"garden-{uuid.uuid4().hex[:6]}"
    assert rag_main(["ingest", str(other), "--collection", garden, "--preset", "hybrid"]) == 0
    name = build_collection(tmp_path)
    at = _page(name)
    at.selectbox(key="judge_new_unanswerable").select(f"collection {garden}").run()
    at.button(key="judge_new_go").click().run()
    assert not at.exception, at.exception
    (info,) = list_sets(name)
    assert 0 < info.answerable < info.questions and "unanswerable" in info.provenance


@pytest.mark.usefixtures("hashing_presets")
def test_the_ndcg_gain_order_can_be_chosen_and_steers_the_page(tmp_path: Path) -> None:
    from eval.judging.live import fit_judge, live_pool, next_passage, pool_features
    from rag.config import load_preset
    from rag.embed import get_embedder

    name = build_collection(tmp_path)
    at = _page(name)
    at.button(key="judge_new_go").click().run()
    options = at.selectbox(key="judge_order").options
    assert options[0].startswith("most useful next") and any(
        o.startswith("likely relevant where it moves nDCG@10 most") for o in options)
    at.selectbox(key="judge_order").set_value("ndcg_gain").run()
    at.button(key="judge_pool_all").click().run()
    assert not at.exception, at.exception
    store = open_judging(name, "mined")
    differs = 0
    for i in range(4):
        live = live_pool(store.snapshot())
        probs = fit_judge(live, pool_features(
            live, get_embedder(load_preset("dense").embedding))).probabilities
        want = next_passage(live, "ndcg_gain", probs)
        differs += want != next_passage(live, "judge_uncertainty", probs)
        shown = " ".join(m.value for m in at.markdown if "Passage" in m.value)
        assert at.selectbox(key="judge_qid").value == want[0], (i, want)
        assert f"characters {want[1][1]}–{want[1][2]}" in shown, (i, want, shown)
        at.button(key="judge_relevant" if i % 2 == 0 else "judge_not_relevant").click().run()
        assert not at.exception, at.exception
    assert differs  # the choice matters: judge_uncertainty would have picked otherwise


@pytest.mark.usefixtures("hashing_presets")
def test_by_default_the_strategy_picks_the_next_passage_across_questions(tmp_path: Path) -> None:
    from eval.judging.cross_judge import NAME as CROSS
    from eval.judging.cross_judge import fit_probabilities, pool_vectors
    from eval.judging.judge_choice import load_choice
    from eval.judging.live import fit_judge, live_pool, next_passage, pool_features
    from rag.config import load_preset
    from rag.embed import get_embedder

    name = build_collection(tmp_path)
    at = _page(name)
    at.button(key="judge_new_go").click().run()
    assert not at.exception, at.exception
    assert at.selectbox(key="judge_order").value == "answer_seek"
    store = open_judging(name, "mined")
    assert not all(store.has_pool(q.qid) for q in store.questions())  # pooled on request only
    at.button(key="judge_pool_all").click().run()
    assert not at.exception, at.exception
    open_questions = [q for q in store.questions() if not (q.dropped or q.unanswerable)]
    assert all(store.pool(q.qid) for q in open_questions)  # every question pooled, once
    assert any("Learned judge: not yet" in c.value for c in at.caption)
    seen = []
    for i in range(12):
        snap = store.snapshot()
        live = live_pool(snap)
        features = pool_features(live, get_embedder(load_preset("dense").embedding))
        choice = load_choice(name)  # the judge the comparison kept, once labels allow one
        probs = fit_probabilities(pool_vectors(live.pool), dict(live.trained)) \
            if choice is not None and choice.chosen == CROSS else \
            fit_judge(live, features).probabilities
        want = next_passage(live, "answer_seek", probs)
        qid = at.selectbox(key="judge_qid").value
        shown = " ".join(m.value for m in at.markdown if "Passage" in m.value)
        assert qid == want[0] and f"characters {want[1][1]}–{want[1][2]}" in shown, (i, want, shown)
        seen.append(qid)
        at.button(key="judge_relevant" if i % 3 == 0 else "judge_not_relevant").click().run()
        assert not at.exception, at.exception
    assert len(set(seen)) > 1  # it moved across questions
    assert sum(len(v) for v in store.labels().values()) == 12
    assert any("agrees with your" in c.value and "Cohen's κ" in c.value for c in at.caption)
    choice = load_choice(name)  # both judges compared on the labels, the better one stored
    assert choice is not None and set(choice.agreements) == {"logistic", CROSS}
    assert any(c.value.startswith("Judges compared on your") and f"kept: {choice.chosen}"
               in c.value for c in at.caption)
    assert any("relevant passages are expected among those nobody judged" in m.value
               for m in [*at.info, *at.success])
    table = at.dataframe[0].value
    assert list(table["system"]) == sorted(table["system"]) and table[
        "yours + judge-filled"].notna().all()

    # saved with the judge's fill: Evaluate scores human + judge-filled with its interval
    at.button(key="judge_save_set").click().run()
    assert not at.exception, at.exception
    rows = {r["id"]: r for r in read_rows(name, "mined")}
    filled = [f for r in rows.values() for f in r.get("judge_filled", [])]
    assert filled and all(0.0 <= f["p"] <= 1.0 for f in filled)
    labelled = {(q, k) for q, ls in store.labels().items() for k in ls}
    assert not any((q, (f["doc"], f["start"], f["end"])) in labelled
                   for q, r in rows.items() for f in r.get("judge_filled", []))
    evaluate = AppTest.from_file(PAGE.replace("judge.py", "evaluate.py"), default_timeout=300)
    evaluate.session_state[APP_COLLECTION] = name
    evaluate.run()
    evaluate.selectbox(key="eval_dataset").select(f"{name} / mined").run()
    evaluate.multiselect(key="eval_presets").set_value(["bm25", "dense"]).run()
    evaluate.button(key="eval_run").click().run()
    assert not evaluate.exception, evaluate.exception
    assert any("Human + judge-filled" in h.value for h in evaluate.subheader)
    assert any("Cohen's κ" in c.value for c in evaluate.caption)

    # a new run after the fill changed shows the new fill's figures, not the last run's
    def filled_ndcg() -> list[float]:
        table = next(d.value for d in evaluate.dataframe if "ndcg@10 human + judge" in d.value)
        return list(table["ndcg@10 human + judge"])

    before = filled_ndcg()
    path = set_path(name, "mined")
    refilled = [{**r, "judge_filled": [{**f, "p": 1.0} for f in r.get("judge_filled", [])]}
                for r in read_rows(name, "mined")]
    path.write_text("".join(json.dumps(r) + "\n" for r in refilled), encoding="utf-8")
    evaluate.button(key="eval_run").click().run()
    assert not evaluate.exception, evaluate.exception
    assert filled_ndcg() != before


def test_the_page_keeps_the_last_fit_while_a_refit_runs(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A key never waits for the judge: while the one fit worker is busy the page answers with
    the last finished fit and says the judge is refitting; once the fit is done the next run
    uses it."""
    import threading

    monkeypatch.setenv(SYNC_ENV, "0")
    name = build_collection(tmp_path)
    at = _page(name)
    at.button(key="judge_new_go").click().run()
    at.button(key="judge_pool_all").click().run()
    assert not at.exception, at.exception
    fitter = at.session_state["judge_fitter"]
    for i in range(8):  # enough labels of each kind for the judge
        at.button(key="judge_relevant" if i % 2 == 0 else "judge_not_relevant").click().run()
        fitter.wait(60)
    at.run()
    n, cv = fitter.latest.value.labels, fitter.latest.value.judge.agreement.labels
    assert n == 8 and any(f"agrees with your {cv} labels" in c.value for c in at.caption)
    started, release = threading.Event(), threading.Event()
    background_fit._executor().submit(lambda: (started.set(), release.wait(60)))
    assert started.wait(30)
    try:
        at.button(key="judge_not_relevant").click().run()
        assert not at.exception, at.exception
        captions = [c.value for c in at.caption]
        assert any("judge refitting…" in c and f"fit on {n} labels" in c for c in captions)
        assert any(f"agrees with your {cv} labels" in c for c in captions)  # the last fit
    finally:
        release.set()
    fitter.wait(60)
    at.run()
    captions = [c.value for c in at.caption]
    assert not any("judge refitting…" in c for c in captions), captions
    assert fitter.latest.value.labels == n + 1
