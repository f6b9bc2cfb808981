"""Reciprocal rank fusion: candidates viewed over the array implementation (scores.py)."""

from __future__ import annotations

from collections.abc import Sequence

from rag.records.hits import Candidate, RankedList
from rag.retrieve.fusion.base import FUSION
from rag.retrieve.fusion.scores import reciprocal_candidates
from rag.settings.retrieval import FusionConfig


def rrf(lists: Sequence[RankedList], k: int = 60) -> tuple[Candidate, ...]:
    """RRF: score(d) = sum over lists of 1 / (k + rank(d)) (Cormack, Clarke & Büttcher 2009)."""
    return reciprocal_candidates(lists, k)


@FUSION.register("rrf")
def _from_config(
    lists: Sequence[RankedList], config: FusionConfig, query: str
) -> tuple[Candidate, ...]:
    return rrf(lists, k=config.k)
