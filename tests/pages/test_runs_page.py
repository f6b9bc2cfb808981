"""Runs page: runs stored by the Evaluate page (with the sidebar's user) listed newest first,
filtered, marked orphaned / not comparable, a metric over time, and two runs side by side down
to a question's two traces."""

from __future__ import annotations

from pathlib import Path

import pytest
from stored_runs import make_run
from streamlit.testing.v1 import AppTest

from eval.runs.store import runs_dir

ROOT = Path(__file__).resolve().parents[2]
RUNS, EVALUATE = str(ROOT / "pages" / "runs.py"), str(ROOT / "pages" / "evaluate.py")


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hashing_presets: None) -> Path:
    monkeypatch.setenv("RAG_WORKBENCH_DATA", str(tmp_path))
    return tmp_path


def _plots(at: AppTest) -> list[str]:
    return [chart.proto.spec for chart in at.get("plotly_chart")]


def test_no_runs_says_how_to_make_one(data: Path) -> None:
    at = AppTest.from_file(RUNS, default_timeout=60).run()
    assert not at.exception
    assert "No stored run yet" in at.info[0].value


def test_runs_from_evaluate_compared_down_to_both_traces(data: Path) -> None:
    ev = AppTest.from_file(EVALUATE, default_timeout=300)
    ev.session_state["app_user"] = "ada"
    ev.run()
    ev.selectbox(key="eval_dataset").select("beir_sample (BEIR)").run()
    ev.multiselect(key="eval_presets").set_value(["bm25", "hybrid"]).run()
    ev.button(key="eval_run").click().run()
    assert not ev.exception
    assert any("compare it on the Runs page" in c.value for c in ev.caption)

    at = AppTest.from_file(RUNS, default_timeout=120).run()
    assert not at.exception
    table = at.dataframe[0].value
    assert list(table["preset"]) == ["hybrid", "bm25"]  # newest first
    assert set(table["user"]) == {"ada"} and set(table["test set"]) == {"beir_sample"}
    assert table["ndcg@10"].between(0, 1).all() and table["ndcg@10 95% CI"].str.startswith("[").all()
    assert set(table["labels"]) == {"qrels"} and (table["marks"] == "").all()
    assert any("ndcg@10 on beir_sample" in s and "over time" in s for s in _plots(at))
    # baseline bm25 (second newest), candidate hybrid (newest)
    diff = at.dataframe[1].value
    assert "fusion.method" in set(diff["path"]) and "retrieval.retrievers" in set(diff["path"])
    metrics = at.dataframe[2].value
    assert metrics["metric"].iloc[0] == "ndcg@10" and metrics["questions"].iloc[0] == 20
    assert ((metrics["p (paired randomization)"] > 0) & (metrics["p (paired randomization)"] <= 1)).all()
    changed = len(at.dataframe[3].value) + len(at.dataframe[4].value)
    assert changed > 0
    question = at.selectbox(key="runs_question")
    assert question.value in set(at.dataframe[4].value["qid"]) | set(at.dataframe[3].value["qid"])
    at.toggle(key="runs_open_traces").set_value(True).run()
    assert not at.exception
    # each side: the stage table and the candidates of a stage, marked relevant or not
    stage_pickers = [s for s in at.selectbox if s.key in ("runs_stage_a", "runs_stage_b")]
    assert len(stage_pickers) == 2 and not at.info
    assert any(" candidates are relevant" in c.value for c in at.caption)


def test_filters_and_marks(data: Path) -> None:
    root = runs_dir()
    make_run(root, "bm25", {"q1": 0.2, "q2": 0.4}, collection="gone")
    make_run(root, "hybrid", {"q1": 0.5, "q2": 0.5}, collection="gone", testset_hash="relabelled")
    make_run(root, "dense", {"q1": 0.9}, testset="set-b")
    at = AppTest.from_file(RUNS, default_timeout=60).run()
    table = at.dataframe[0].value
    assert len(table) == 3
    marks = dict(zip(table["preset"], table["marks"], strict=True))
    assert marks == {"dense": "", "hybrid": "orphaned", "bm25": "orphaned, not comparable"}
    at.selectbox(key="runs_scope").select("gone").run()
    assert list(at.dataframe[0].value["preset"]) == ["hybrid", "bm25"]
    assert any("changed (questions or labels)" in w.value for w in at.warning)
    at.multiselect(key="runs_presets").set_value(["bm25"]).run()
    assert list(at.dataframe[0].value["preset"]) == ["bm25"]
    assert "Store two runs" in at.info[0].value


def test_sweeps_and_tunes_from_evaluate_are_stored_too(data: Path) -> None:
    ev = AppTest.from_file(EVALUATE, default_timeout=300)
    ev.session_state["app_user"] = "grace"
    ev.run()
    ev.selectbox(key="eval_dataset").select("beir_sample (BEIR)").run()
    ev.radio(key="eval_mode").set_value("Sweep one field").run()
    ev.text_input(key="eval_values").input("1, 60").run()
    ev.button(key="eval_run").click().run()
    assert not ev.exception
    ev.radio(key="eval_mode").set_value("Tune (cross-validated)").run()
    ev.number_input(key="eval_tune_folds").set_value(2)
    ev.number_input(key="eval_tune_trials").set_value(2).run()
    ev.button(key="eval_tune_run").click().run()
    assert not ev.exception

    at = AppTest.from_file(RUNS, default_timeout=120).run()
    table = at.dataframe[0].value
    assert list(table["kind"]) == ["tune", "sweep", "sweep"] and set(table["user"]) == {"grace"}
    assert set(table["preset"][1:]) == {"hybrid fusion.k=1", "hybrid fusion.k=60"}
    at.multiselect(key="runs_kinds").set_value(["sweep"]).run()
    diff = at.dataframe[1].value  # the two sweep points: only fusion.k differs
    assert list(diff["path"]) == ["fusion.k"]
    assert not any("kept no trace" in i.value for i in at.info)
    at.toggle(key="runs_open_traces").set_value(True).run()
    assert any("kept no trace" in i.value for i in at.info)  # sweep points keep none
