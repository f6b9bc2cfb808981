"""Weighted reciprocal rank fusion: candidates viewed over the array implementation (scores.py)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rag.records.hits import Candidate, RankedList
from rag.retrieve.fusion.base import FUSION
from rag.retrieve.fusion.scores import reciprocal_candidates
from rag.settings.retrieval import FusionConfig


def weighted_rrf(
    lists: Sequence[RankedList], weights: Mapping[str, float], k: int = 60
) -> tuple[Candidate, ...]:
    """score(d) = sum of w_list / (k + rank(d)) — EchoMind's _weighted_rrf (dense 0.6, sparse 0.4,
    k = 60) over RRF (Cormack et al. 2009). Weights apply per list name or retriever family."""
    return reciprocal_candidates(lists, k, weights)


@FUSION.register("weighted_rrf")
def _from_config(
    lists: Sequence[RankedList], config: FusionConfig, query: str
) -> tuple[Candidate, ...]:
    return weighted_rrf(lists, config.weights, k=config.k)
