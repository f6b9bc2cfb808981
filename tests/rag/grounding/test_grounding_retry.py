"""Axiom's retry with feedback: up to max_retries regenerations, best-grounded answer kept."""

from __future__ import annotations

from answer_helpers import PARIS, context

from rag.generate.base import GeneratedAnswer
from rag.grounding.base import GroundingReport
from rag.grounding.check import check_answer
from rag.grounding.retry import ground_with_retry
from rag.settings.grounding import GroundingConfig

CTX = context("When was the Eiffel Tower completed?", PARIS)
GOOD = "The Eiffel Tower was completed in 1889 for the World's Fair [Source 1]."
BAD = "The Eiffel Tower was designed by aliens from Mars [Source 1]."


def check(text: str) -> GroundingReport:
    return check_answer(CTX.query, text, CTX, GroundingConfig(model_check="none"))


def llm(text: str, feedback: str = "") -> GeneratedAnswer:
    return GeneratedAnswer(text=text, mode="llm", feedback=feedback)


def test_an_ungrounded_answer_is_regenerated_with_feedback_until_grounded() -> None:
    feedbacks: list[str] = []

    def regenerate(feedback: str) -> GeneratedAnswer:
        feedbacks.append(feedback)
        return llm(GOOD, feedback)

    result = ground_with_retry(llm(BAD), check, regenerate, max_retries=2)
    assert result.answer.text == GOOD and result.report.is_grounded and result.retried == 1
    assert feedbacks == [f'- "{BAD}"']


def test_retries_stop_at_the_limit_and_keep_the_best_answer() -> None:
    answers = iter([llm(BAD + " Paris is the capital of France [Source 1]."), llm(BAD)])
    result = ground_with_retry(llm(BAD), check, lambda _f: next(answers), max_retries=2)
    assert len(result.iterations) == 3 and result.retried == 2
    assert result.report.grounded_share == 0.5 and result.answer.text.endswith("France [Source 1].")


def test_grounded_extractive_or_unretryable_answers_are_checked_once() -> None:
    def never(_feedback: str) -> GeneratedAnswer:
        raise AssertionError("must not regenerate")

    assert ground_with_retry(llm(GOOD), check, never, 2).retried == 0
    extractive = GeneratedAnswer(text=BAD, mode="extractive")
    assert ground_with_retry(extractive, check, never, 2).retried == 0
    assert ground_with_retry(llm(BAD), check, None, 2).retried == 0
    assert ground_with_retry(llm(BAD), check, never, 0).retried == 0
