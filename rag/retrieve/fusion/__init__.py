"""Fusion methods as pure functions over RankedLists; `fuse(lists, config)` picks one by name.

A new method is a module here that registers a `(lists, FusionConfig) -> tuple[Candidate, ...]`
function in FUSION, plus its import below, and may register a scores-only twin in
FUSION_SCORES (what `fused_ranking`, the sweeps' fast path, uses). Inputs are never modified.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from operator import itemgetter

from rag.retrieve.base import Candidate, RankedList
from rag.retrieve.fusion.base import FUSION, FUSION_SCORES, Pool, pool
from rag.retrieve.fusion.convex import convex
from rag.retrieve.fusion.dbsf import dbsf
from rag.retrieve.fusion.passthrough import passthrough
from rag.retrieve.fusion.relative_score import relative_score
from rag.retrieve.fusion.rrf import rrf
from rag.retrieve.fusion.weighted_rrf import weighted_rrf
from rag.retrieve.settings import FusionConfig


def fuse(
    lists: Sequence[RankedList] | Mapping[str, RankedList], config: FusionConfig
) -> tuple[Candidate, ...]:
    """Merge the lists with `config.method`; every fused candidate carries its full breakdown."""
    ranked = tuple(lists.values()) if isinstance(lists, Mapping) else tuple(lists)
    return FUSION.get(config.method)(ranked, config)


def fused_ranking(
    lists: Sequence[RankedList] | Mapping[str, RankedList],
    config: FusionConfig,
    found: Pool | None = None,
) -> tuple[tuple[str, float], ...]:
    """(chunk_id, score) pairs exactly as `fuse` ranks and scores them, without building
    Candidates; a method with no FUSION_SCORES entry falls back to `fuse`. `found` is
    pool(lists) when the caller has it already (a sweep pools once for many settings)."""
    ranked = tuple(lists.values()) if isinstance(lists, Mapping) else tuple(lists)
    if config.method not in FUSION_SCORES:
        return tuple((c.chunk_id, c.score) for c in fuse(ranked, config))
    found = found if found is not None else pool(ranked)
    scores = FUSION_SCORES.get(config.method)(found, config)
    # by chunk id, then stably by score, best first: the (-score, chunk_id) order of `fuse`
    order = sorted(scores.items())
    order.sort(key=itemgetter(1), reverse=True)
    return tuple(order)


__all__ = [
    "FUSION",
    "FUSION_SCORES",
    "convex",
    "dbsf",
    "fuse",
    "fused_ranking",
    "passthrough",
    "relative_score",
    "rrf",
    "weighted_rrf",
]
