"""Evaluate on the sidebar's collection: its stored sets are listed first (questions, provenance,
date), and presets, a sweep and a cross-validated tune run on them; a judged set adds the
unjudged share, bpref and condensed nDCG (hashing embedder, two sample documents)."""

from __future__ import annotations

from pathlib import Path

import pytest
from own_collection import build_collection, sample_rows
from streamlit.testing.v1 import AppTest

from eval.judging.export import export_rows
from eval.judging.pool import pool_question, pool_searchers
from eval.judging.store import open_judging
from eval.testsets.store import save_set
from pages.ui.state import APP_COLLECTION
from rag.index import open_collection

PAGE = str(Path(__file__).resolve().parents[2] / "pages" / "evaluate.py")


@pytest.fixture(scope="module")
def own(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A collection with a 'mined' set (the sample rows) and a 'judged' set: two questions whose
    bm25/dense depth-2 pool was judged against the sample spans."""
    patch = pytest.MonkeyPatch()
    from hashing_presets import use_hashing_presets

    use_hashing_presets(patch)
    name = build_collection(tmp_path_factory.mktemp("own"))
    rows = [{**r, "provenance": {"method": "mined"}} for r in sample_rows(n=6)]
    absent = {"id": "qz", "question": "Who won the 1998 football world cup final?",
              "answerable": False, "provenance": {"method": "unanswerable"}}
    save_set(name, "mined", [*rows, absent])
    judging = open_judging(name, "mined")
    judging.add_questions(rows[:2])
    searchers = pool_searchers(open_collection(name), ("bm25", "dense"))
    for row in rows[:2]:
        pool = pool_question(row["question"], searchers, depth=2).passages
        judging.add_pool(row["id"], pool)
        for p in pool:
            hit = any(s["doc"] == p.doc and s["start"] < p.end and p.start < s["end"]
                      for s in row["spans"])
            judging.judge(row["id"], p.key, "relevant" if hit else "not_relevant", "t")
    save_set(name, "judged", export_rows(judging))
    yield name
    patch.undo()


def _page(collection: str) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=300)
    at.session_state[APP_COLLECTION] = collection
    return at.run()


def test_the_collections_sets_come_first_and_presets_run_on_them(own: str) -> None:
    at = _page(own)
    box = at.selectbox(key="eval_dataset")
    assert box.options[:2] == [f"{own} / judged — 2 questions (2 answerable) · judged 2 · "
                               + box.options[0].split(" · ")[-1],
                               box.options[1]]
    assert "7 questions (6 answerable) · mined 6, unanswerable 1" in box.options[1]
    assert "beir_sample (BEIR)" in box.options
    at.selectbox(key="eval_dataset").select(f"{own} / mined").run()
    assert any(f"**{own} / mined**: 2 documents, 7 queries; relevance per chunk" in c.value
               for c in at.caption)
    at.multiselect(key="eval_presets").set_value(["bm25", "dense"]).run()
    at.button(key="eval_run").click().run()
    assert not at.exception, at.exception
    table = at.dataframe[0].value
    assert list(table["run"]) == ["bm25", "dense"] and table["queries"].tolist() == [7, 7]
    assert (table["recall@100"] > 0).all()  # the spans found their chunks in the collection
    assert not any("Judged passages only" in h.value for h in at.subheader)  # not a judged set
    at.button(key="eval_fail_go").click().run()  # failure classes: every query gets one
    assert not at.exception, at.exception
    queries = next(d.value for d in at.dataframe if "why" in d.value.columns)
    assert len(queries) == 7 and "qz" in set(queries["query"])  # one class per query
    at.selectbox(key="eval_a").select("dense").run()  # query by query: dense vs dense ties
    assert set(next(d.value for d in at.dataframe if "outcome" in d.value.columns)["outcome"]) \
        == {"tied"}
    at.button(key="eval_diagnose").click().run()  # ceilings: retrieval or ranking?
    assert not at.exception, at.exception
    at.toggle(key="eval_drill_open").set_value(True).run()  # a query's trace
    assert not at.exception, at.exception
    assert any("candidates are relevant" in c.value for c in at.caption)


def test_a_judged_set_shows_honest_scores(own: str) -> None:
    at = _page(own)
    at.selectbox(key="eval_dataset").select(f"{own} / judged").run()
    assert any("carry passages judged not relevant" in c.value for c in at.caption)
    at.multiselect(key="eval_presets").set_value(["bm25", "hybrid"]).run()
    at.button(key="eval_run").click().run()
    assert not at.exception, at.exception
    assert any("Judged passages only" in h.value for h in at.subheader)
    honest = next(d.value for d in at.dataframe if "bpref" in d.value.columns)
    assert list(honest["run"]) == ["bm25", "hybrid"]
    # the pool was bm25's and dense's top 2: bm25's top 10 holds chunks nobody judged
    assert ((honest["unjudged@10"] > 0) & (honest["unjudged@10"] < 1)).all()
    assert (honest["condensed ndcg@10"] >= honest["ndcg@10 (lower bound)"] - 1e-9).all()
    over = honest[honest["over 30% unjudged"]]["run"].tolist()
    assert [w.value.split(":")[0] for w in at.warning if "never judged" in w.value] == over


def test_sweep_and_tune_run_on_a_collection_set(own: str) -> None:
    at = _page(own)
    at.selectbox(key="eval_dataset").select(f"{own} / mined").run()
    at.radio(key="eval_mode").set_value("Sweep one field").run()
    at.selectbox(key="eval_base").select("hybrid")
    at.text_input(key="eval_values").set_value("10,60").run()
    at.button(key="eval_run").click().run()
    assert not at.exception, at.exception
    assert at.dataframe[0].value["queries"].tolist() == [7, 7]
    at.radio(key="eval_mode").set_value("Tune (cross-validated)").run()
    at.selectbox(key="eval_tune_space").select("rrf_grid")
    at.number_input(key="eval_tune_folds").set_value(2)
    at.number_input(key="eval_tune_trials").set_value(2).run()
    at.button(key="eval_tune_run").click().run()
    assert not at.exception, at.exception
    folds = at.dataframe[0].value
    assert folds["held-out queries"].sum() == 6
    assert 0 <= float(next(m.value for m in at.metric if m.label.startswith("Out-of-fold"))) <= 1


def test_abstention_is_calibrated_on_the_collection_itself(own: str) -> None:
    at = _page(own)
    at.selectbox(key="eval_dataset").select(f"{own} / mined").run()
    assert at.text_input(key="abs_corpus").value == f"collection {own}"
    assert at.text_input(key="abs_qa").value.endswith("mined.jsonl")
    at.number_input(key="abs_folds").set_value(2)
    at.button(key="abs_run").click().run()
    assert not at.exception, at.exception
    assert any("of 6 answerable and declines" in s.value and "of 1 unanswerable" in s.value
               for s in at.success)
