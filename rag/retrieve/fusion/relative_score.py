"""Relative score fusion."""

from __future__ import annotations

from collections.abc import Sequence

from rag.records.hits import Candidate, RankedList
from rag.retrieve.fusion.base import (
    FUSION,
    Pool,
    alpha_weights,
    assemble,
    min_max,
    pool,
    raw_scores,
)
from rag.settings.retrieval import FusionConfig

Terms = dict[str, dict[str, float]]


def relative_terms(found: Pool, alpha: float) -> tuple[Terms, Terms]:
    """(min-max normalized scores, alpha-weighted terms), per list."""
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha must lie in [0, 1], got {alpha}")
    weights = alpha_weights(found.names, alpha)
    normalized = {name: min_max(raw_scores(found, name)) for name in found.names}
    terms = {
        name: {cid: weights[name] * v for cid, v in normalized[name].items()}
        for name in found.names
    }
    return normalized, terms


def relative_score(lists: Sequence[RankedList], alpha: float = 0.5) -> tuple[Candidate, ...]:
    """Weaviate relativeScoreFusion: min-max each list to [0, 1], then alpha * vector +
    (1 - alpha) * BM25; a list missing a chunk adds 0 (Vexora: alpha = 0.3, 70 % BM25)."""
    found = pool(lists)
    normalized, terms = relative_terms(found, alpha)
    return assemble(found, terms, normalized=normalized)


@FUSION.register("relative_score")
def _from_config(
    lists: Sequence[RankedList], config: FusionConfig, query: str
) -> tuple[Candidate, ...]:
    return relative_score(lists, alpha=config.alpha)
