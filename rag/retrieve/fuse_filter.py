"""Fuse cached ranked lists and run the post-retrieval steps: pure and fast, no model runs.

The Retrieval page calls `fuse_and_filter` on every slider move and eval sweeps call it per
configuration, so it only touches the candidate lists (dicts and a little numpy).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from rag.config import PipelineConfig
from rag.retrieve.base import Candidate, RankedList
from rag.retrieve.fusion import fuse
from rag.retrieve.post import PostContext, StepReport, postprocess


@dataclass(frozen=True)
class FusionResult:
    """Every intermediate list: fused (full depth), after the post steps, and the final top-k."""

    fused: tuple[Candidate, ...]
    steps: tuple[StepReport, ...]
    filtered: tuple[Candidate, ...]
    top: tuple[Candidate, ...]


def select_top(candidates: tuple[Candidate, ...], k: int) -> tuple[Candidate, ...]:
    """The first k candidates (all of them when k exceeds their number)."""
    if k < 0:
        raise ValueError(f"top_k must be >= 0, got {k}")
    return candidates[:k]


def fuse_and_filter(
    lists: Mapping[str, RankedList],
    config: PipelineConfig,
    *,
    query: str = "",
    vectors: Mapping[str, np.ndarray] | None = None,
    now: datetime | None = None,
) -> FusionResult:
    """fuse (config.fusion) -> post-retrieval steps (config.postprocess) -> retrieval.top_k.

    `query` feeds the tag boost, `vectors` (chunk_id -> embedding) the de-duplication, `now`
    the time window and decay; none of the inputs is modified.
    """
    fused = fuse(lists, config.fusion)
    context = PostContext(query=query, now=now, vectors=vectors or {})
    filtered, steps = postprocess(fused, config.postprocess, context)
    return FusionResult(fused, steps, filtered, select_top(filtered, config.retrieval.top_k))
