"""Runs in a real browser: score two presets on Evaluate, open Runs, compare them, open one
regressed question's two traces side by side. Screenshots: screenshots/runs-*.png."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser


def test_two_presets_compared_down_to_a_regressed_questions_traces(app) -> None:
    app.open("evaluate", "Test set")
    app.click("Run", timeout_s=150)
    app.settle("Results on", timeout_s=150)
    assert "compare it on the Runs page" in app.main_text()

    app.open("runs", "Two runs side by side", timeout_s=120)
    text = app.main_text()
    assert not app.exceptions(), app.exceptions()
    # (tables draw on a canvas: their cells are looked at in the screenshots)
    for shown in ("Config diff", "Metrics", "over time", "Worse on ndcg@10", "Better on ndcg@10"):
        assert shown in text, shown
    app.shot("runs-list-and-compare")

    # the default pair: the newest run (bm25) against the one before it (hybrid); the question
    # picker starts on the question the candidate lost most
    box = app.page.locator('[data-testid="stSelectbox"]').filter(has_text="Question (worst first)")
    picked = box.locator("input").first.input_value()  # the shown value sits in the input
    assert picked.startswith("-0."), picked  # a question the candidate lost, not a tie
    app.page.get_by_text("Open both traces").click()
    app.settle("candidates are relevant", timeout_s=120)
    text = app.main_text()
    assert not app.exceptions(), app.exceptions()
    assert "Baseline: hybrid" in text and "Candidate: bm25" in text
    assert text.count("candidates are relevant") == 2  # one trace view per run
    app.page.get_by_text("One question, both traces").first.evaluate(
        "e => e.scrollIntoView({block: 'start'})")
    app.shot("runs-two-traces")
