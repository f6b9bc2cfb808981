"""Weighted reciprocal rank fusion."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rag.retrieve.base import Candidate, RankedList
from rag.retrieve.fusion.base import FUSION, assemble, list_weight, pool
from rag.retrieve.settings import FusionConfig


def weighted_rrf(
    lists: Sequence[RankedList], weights: Mapping[str, float], k: int = 60
) -> tuple[Candidate, ...]:
    """score(d) = sum of w_list / (k + rank(d)) — EchoMind's _weighted_rrf (dense 0.6, sparse 0.4,
    k = 60) over RRF (Cormack et al. 2009). Weights apply per list name or retriever family."""
    if k < 1:
        raise ValueError(f"RRF k must be >= 1, got {k}")
    found = pool(lists)
    normalized = {
        name: {cid: 1.0 / (k + rank) for cid, (rank, _) in found.placed[name].items()}
        for name in found.names
    }
    terms = {}
    for name in found.names:
        weight = list_weight(weights, name)
        terms[name] = {cid: weight * rr for cid, rr in normalized[name].items()}
    return assemble(found, terms, normalized=normalized)


@FUSION.register("weighted_rrf")
def _from_config(lists: Sequence[RankedList], config: FusionConfig) -> tuple[Candidate, ...]:
    return weighted_rrf(lists, config.weights, k=config.k)
