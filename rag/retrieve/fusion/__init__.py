"""Fusion methods as pure functions over RankedLists; `fuse(lists, config)` picks one by name.

A new method is a module here that registers a `(lists, FusionConfig) -> tuple[Candidate, ...]`
function in FUSION, plus its import below. Inputs are never modified; sweeps and pages re-fuse
through the pipeline's tail (rag.pipeline.run_tail), like every run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rag.records.hits import Candidate, RankedList
from rag.retrieve.fusion.base import FUSION, cut_to_depths
from rag.retrieve.fusion.convex import convex
from rag.retrieve.fusion.dbsf import dbsf
from rag.retrieve.fusion.learned import learned
from rag.retrieve.fusion.passthrough import passthrough
from rag.retrieve.fusion.relative_score import relative_score
from rag.retrieve.fusion.rrf import rrf
from rag.retrieve.fusion.weighted_rrf import weighted_rrf
from rag.settings.retrieval import FusionConfig


def fuse(
    lists: Sequence[RankedList] | Mapping[str, RankedList], config: FusionConfig, query: str = ""
) -> tuple[Candidate, ...]:
    """Merge the lists, each cut to `config.depths`, with `config.method`; every fused candidate
    carries its full breakdown. `query` is the user's question (learned fusion reads its length)."""
    ranked = tuple(lists.values()) if isinstance(lists, Mapping) else tuple(lists)
    return FUSION.get(config.method)(cut_to_depths(ranked, config.depths), config, query)


__all__ = [
    "FUSION",
    "convex",
    "dbsf",
    "fuse",
    "learned",
    "passthrough",
    "relative_score",
    "rrf",
    "weighted_rrf",
]
