"""Post-retrieval steps: the shapes they share and the registry they join.

A step is `apply(candidates, config, context) -> StepResult`: a new candidate tuple plus a report
of what it did to each candidate. Steps never modify their inputs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType
from typing import Any

import numpy as np

from rag.records.hits import Candidate
from rag.registry import Registry
from rag.settings.retrieval import PostprocessConfig
from rag.steps import StepReport, StepStatus


def _frozen(mapping: Mapping[str, Any] | None = None) -> Mapping[str, Any]:
    return MappingProxyType(dict(mapping or {}))


@dataclass(frozen=True)
class PostContext:
    """What steps may read besides the candidates: the query, the clock, candidate embeddings."""

    query: str = ""
    now: datetime | None = None  # None: steps that need a clock use datetime.now(UTC)
    vectors: Mapping[str, np.ndarray] = field(default_factory=_frozen)  # chunk_id -> embedding


@dataclass(frozen=True)
class StepResult:
    candidates: tuple[Candidate, ...]
    report: StepReport


ApplyFn = Callable[[tuple[Candidate, ...], PostprocessConfig, PostContext], StepResult]


@dataclass(frozen=True)
class PostStep:
    """A registered step: `off_reason(config)` says why it is off (None = it runs)."""

    name: str
    apply: ApplyFn
    off_reason: Callable[[PostprocessConfig], str | None]


POST_STEPS: Registry[PostStep] = Registry("post-retrieval step")


def result(
    step: str,
    before: tuple[Candidate, ...],
    after: tuple[Candidate, ...],
    decisions: Mapping[str, str],
    *,
    status: StepStatus = "ok",
    reason: str = "",
) -> StepResult:
    """Package a step's output; `removed` is whatever was in `before` and is not in `after`."""
    kept = {c.chunk_id for c in after}
    removed = tuple(c.chunk_id for c in before if c.chunk_id not in kept)
    report = StepReport(step, status, reason, _frozen(decisions), removed, len(before), len(after))
    return StepResult(after, report)


def with_stage_score(
    candidate: Candidate, key: str, value: float, note: str = "", score: float | None = None
) -> Candidate:
    """A new Candidate with one more stage score (and note, and maybe a new score); the original
    is untouched. Built directly: dataclasses.replace is the slow part of a slider move."""
    return Candidate(
        chunk=candidate.chunk,
        score=candidate.score if score is None else score,
        hits=candidate.hits,
        contributions=candidate.contributions,
        stage_scores=MappingProxyType({**candidate.stage_scores, key: value}),
        notes=(*candidate.notes, note) if note else candidate.notes,
    )


def rescale(
    candidates: tuple[Candidate, ...],
    step: str,
    factors: Mapping[str, float],
    notes: Mapping[str, str],
) -> tuple[Candidate, ...]:
    """Multiply scores by per-candidate factors and record them (candidates without a factor stay
    as they are), then re-sort. The sort is stable, so earlier tie-breaks survive."""
    scaled = []
    for cand in candidates:
        factor = factors.get(cand.chunk_id)
        if factor is None:
            scaled.append(cand)
            continue
        note = notes.get(cand.chunk_id, "")
        scaled.append(with_stage_score(cand, step, factor, note, score=cand.score * factor))
    scaled.sort(key=lambda c: -c.score)
    return tuple(scaled)
