"""Axiom's hallucination retry: when an LLM answer is not grounded, regenerate with feedback
naming the unsupported claims, up to `max_retries` times, and keep the best-grounded answer."""

from __future__ import annotations

from collections.abc import Callable

from rag.outputs.generated import GeneratedAnswer
from rag.outputs.grounding import GroundedAnswer, GroundingReport, Iteration


def ground_with_retry(
    first: GeneratedAnswer,
    check: Callable[[str], GroundingReport],
    regenerate: Callable[[str], GeneratedAnswer] | None,
    max_retries: int,
) -> GroundedAnswer:
    """Check `first`; while ungrounded, an LLM answer and retries remain, regenerate with the
    report's feedback. Extractive answers copy their sources, so they are never retried."""
    iterations = [Iteration(1, first, check(first.text))]
    while (
        not iterations[-1].report.is_grounded
        and regenerate is not None
        and iterations[-1].answer.mode == "llm"
        and len(iterations) <= max_retries
    ):
        answer = regenerate(iterations[-1].report.feedback())
        iterations.append(Iteration(len(iterations) + 1, answer, check(answer.text)))
    best = max(iterations, key=lambda it: (it.report.grounded_share, it.number))
    return GroundedAnswer(best.answer, best.report, tuple(iterations))
