"""Score threshold with a fallback to the top-n when nothing passes."""

from __future__ import annotations

from rag.records.hits import Candidate
from rag.retrieve.post.base import (
    POST_STEPS,
    PostContext,
    PostStep,
    StepResult,
    result,
    with_stage_score,
)
from rag.settings.retrieval import PostprocessConfig


def threshold_value(candidate: Candidate, on: str) -> float | None:
    """The number the threshold reads: the current score, a retriever's raw score, or a stage
    score; None when the candidate has no such score (e.g. BM25 found it but dense did not)."""
    if on == "score":
        return candidate.score
    if on in candidate.hits:
        return candidate.hits[on].raw_score
    return candidate.stage_scores.get(on)


def apply_threshold(
    candidates: tuple[Candidate, ...], threshold: float, on: str = "score", fallback_n: int = 0
) -> StepResult:
    """Keep candidates whose `on` value is >= threshold (IntelliDocs 0.3, Adaptive 0.40); if none pass,
    keep the first `fallback_n` and say so (Axiom's threshold fallback)."""
    passed: list[Candidate] = []
    failed: list[Candidate] = []
    decisions: dict[str, str] = {}
    for cand in candidates:
        value = threshold_value(cand, on)
        ok = value is not None and value >= threshold
        shown = "none" if value is None else f"{value:.4f}"
        decisions[cand.chunk_id] = f"{'pass' if ok else 'below'}: {on}={shown} vs {threshold}"
        (passed if ok else failed).append(cand)
    if passed or not candidates or fallback_n == 0:
        kept = tuple(with_stage_score(c, "threshold_passed", 1.0) for c in passed)
        return result("threshold", candidates, kept, decisions)
    kept = tuple(with_stage_score(c, "threshold_passed", 0.0) for c in failed[:fallback_n])
    for cand in kept:
        decisions[cand.chunk_id] += "; kept by fallback"
    reason = f"no candidate reached {on} >= {threshold}; kept the top {len(kept)}"
    return result("threshold", candidates, kept, decisions, status="fallback", reason=reason)


def _apply(
    candidates: tuple[Candidate, ...], config: PostprocessConfig, ctx: PostContext
) -> StepResult:
    threshold = config.threshold if config.threshold is not None else float("-inf")
    return apply_threshold(candidates, threshold, config.threshold_on, config.threshold_fallback_n)


def _off(config: PostprocessConfig) -> str | None:
    return "postprocess.threshold is not set" if config.threshold is None else None


POST_STEPS.add("threshold", PostStep("threshold", _apply, _off))
