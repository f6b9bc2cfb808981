"""Post-retrieval steps, each optional and configured by `PostprocessConfig`.

`postprocess(candidates, config, context)` runs the steps in ORDER and reports every one,
including those that are off (status "skipped" with the reason). A new step is a module that
registers a `PostStep` in POST_STEPS, its import below, and its name in ORDER.
"""

from __future__ import annotations

from rag.records.hits import Candidate
from rag.retrieve.post import dedupe, penalties, recency, tags, threshold  # noqa: F401 (registers)
from rag.retrieve.post.base import POST_STEPS, PostContext, PostStep, StepReport, StepResult
from rag.settings.retrieval import PostprocessConfig

# EchoMind's order (window -> decay -> tag boost), then Adaptive's penalties; the threshold reads the
# final score; de-duplication last, over the fewest candidates.
ORDER = ("time_window", "time_decay", "tag_boost", "content_penalty", "threshold", "dedupe")


def postprocess(
    candidates: tuple[Candidate, ...], config: PostprocessConfig, context: PostContext | None = None
) -> tuple[tuple[Candidate, ...], tuple[StepReport, ...]]:
    """Run every enabled step in ORDER; return the final candidates and one report per step."""
    context = context or PostContext()
    reports = []
    for name in ORDER:
        step = POST_STEPS.get(name)
        off = step.off_reason(config)
        if off is not None:
            n = len(candidates)
            reports.append(StepReport(name, "skipped", off, n_in=n, n_out=n))
            continue
        outcome = step.apply(candidates, config, context)
        candidates = outcome.candidates
        reports.append(outcome.report)
    return candidates, tuple(reports)


def enabled_steps(config: PostprocessConfig) -> list[str]:
    return [name for name in ORDER if POST_STEPS.get(name).off_reason(config) is None]


__all__ = [
    "ORDER",
    "POST_STEPS",
    "PostContext",
    "PostStep",
    "StepReport",
    "StepResult",
    "enabled_steps",
    "postprocess",
]
