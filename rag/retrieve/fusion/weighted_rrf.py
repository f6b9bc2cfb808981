"""Weighted reciprocal rank fusion."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rag.index.hits import Candidate, RankedList
from rag.retrieve.fusion.base import (
    FUSION,
    Pool,
    assemble,
    list_weight,
    pool,
)
from rag.retrieve.fusion.rrf import rrf_terms
from rag.settings.retrieval import FusionConfig


def weighted_terms(
    found: Pool, reciprocal: Mapping[str, Mapping[str, float]], weights: Mapping[str, float]
) -> dict[str, dict[str, float]]:
    """Per list, chunk_id -> w_list / (k + rank)."""
    terms = {}
    for name in found.names:
        weight = list_weight(weights, name)
        terms[name] = {cid: weight * rr for cid, rr in reciprocal[name].items()}
    return terms


def weighted_rrf(
    lists: Sequence[RankedList], weights: Mapping[str, float], k: int = 60
) -> tuple[Candidate, ...]:
    """score(d) = sum of w_list / (k + rank(d)) — EchoMind's _weighted_rrf (dense 0.6, sparse 0.4,
    k = 60) over RRF (Cormack et al. 2009). Weights apply per list name or retriever family."""
    found = pool(lists)
    normalized = rrf_terms(found, k)
    return assemble(found, weighted_terms(found, normalized, weights), normalized=normalized)


@FUSION.register("weighted_rrf")
def _from_config(
    lists: Sequence[RankedList], config: FusionConfig, query: str
) -> tuple[Candidate, ...]:
    return weighted_rrf(lists, config.weights, k=config.k)
