"""The answer-metrics table says why ragas's non-LLM context metrics are 0 on span labels."""

from __future__ import annotations

from eval.scoring.metrics import MetricScores
from pages.ui.answer_eval import ZERO_BY_CONSTRUCTION, AnswerRun, answers_frame


def test_a_zero_string_match_context_metric_says_why_and_others_do_not() -> None:
    run = AnswerRun("hybrid", {
        "context_recall": MetricScores("context_recall", {"q1": 0.0, "q2": 0.0}, {}),
        "rouge_l": MetricScores("rouge_l", {"q1": 0.0, "q2": 0.0}, {}),
        "context_precision": MetricScores("context_precision", {"q1": 0.5}, {}),
    })
    notes = dict(zip(answers_frame([run])["metric"], answers_frame([run])["note"], strict=True))
    assert notes == {"context_recall": ZERO_BY_CONSTRUCTION, "rouge_l": "", "context_precision": ""}
