"""Reciprocal rank fusion."""

from __future__ import annotations

from collections.abc import Sequence

from rag.index.hits import Candidate, RankedList
from rag.retrieve.fusion.base import FUSION, Pool, assemble, pool
from rag.settings.retrieval import FusionConfig


def rrf_terms(found: Pool, k: int) -> dict[str, dict[str, float]]:
    """Per list, chunk_id -> 1 / (k + rank)."""
    if k < 1:
        raise ValueError(f"RRF k must be >= 1, got {k}")
    return {
        name: {cid: 1.0 / (k + rank) for cid, (rank, _) in found.placed[name].items()}
        for name in found.names
    }


def rrf(lists: Sequence[RankedList], k: int = 60) -> tuple[Candidate, ...]:
    """RRF: score(d) = sum over lists of 1 / (k + rank(d)) (Cormack, Clarke & Büttcher 2009)."""
    found = pool(lists)
    terms = rrf_terms(found, k)
    return assemble(found, terms, normalized=terms)


@FUSION.register("rrf")
def _from_config(
    lists: Sequence[RankedList], config: FusionConfig, query: str
) -> tuple[Candidate, ...]:
    return rrf(lists, k=config.k)
