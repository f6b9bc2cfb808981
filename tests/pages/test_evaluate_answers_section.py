"""Evaluate page, answer section: pick a QA set, score bm25's extractive answers, read the table;
LLM metrics are offered only when an endpoint is configured; BEIR sets have no answer section."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

PAGE = str(Path(__file__).resolve().parents[2] / "pages" / "evaluate.py")
QA = "qa_samples (spans over samples/)"


def _qa_page() -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=300).run()
    at.selectbox(key="eval_dataset").select(QA).run()
    assert not at.exception
    return at


def test_beir_sets_have_no_answer_section(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    at = AppTest.from_file(PAGE, default_timeout=300).run()
    at.selectbox(key="eval_dataset").select("beir_sample (BEIR)").run()
    assert not at.exception
    assert not [w for w in at.multiselect if w.key == "ans_metrics"]


def test_llm_metrics_are_offered_only_with_an_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    offline = _qa_page().multiselect(key="ans_metrics").options
    assert "rouge_l" in offline and "faithfulness" not in offline
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    online = _qa_page().multiselect(key="ans_metrics").options
    assert {"faithfulness", "answer_relevancy"} <= set(online)


@pytest.mark.slow  # indexes the sample documents for bm25 (no model) and answers 2 questions
def test_scoring_answers_shows_each_metric_with_its_failures(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    at = _qa_page()
    at.multiselect(key="eval_presets").set_value(["bm25"])  # the page's one preset picker
    at.multiselect(key="ans_metrics").set_value(["rouge_l", "grounded_share"])
    at.number_input(key="ans_limit").set_value(2)
    at.button(key="ans_run").click().run()
    assert not at.exception
    table = at.dataframe[0].value
    assert list(table["metric"]) == ["rouge_l", "grounded_share"]
    assert (table["scored"] + table["failed"] + table["declined"] == 2).all()  # declined: not scored
    assert table["mean"].between(0, 1).all()
    given = 2 - int(table["declined"].iloc[0])  # offline, the extractive answerer wrote them all
    assert set(table["written by"]) == {f"extractive {given}" if given else ""}


def test_declined_questions_are_counted_not_scored() -> None:
    from eval.scoring.metrics import MetricScores
    from pages.ui.answer_eval import AnswerRun, answers_frame

    table = answers_frame([AnswerRun("hybrid", {"rouge_l": MetricScores("rouge_l", {"q1": 0.5}, {})}, 1)])
    assert table.loc[0, "declined"] == 1 and table.loc[0, "scored"] == 1
