"""Convex combination of normalized scores."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from rag.records.hits import Candidate, RankedList
from rag.retrieve.fusion.base import (
    FUSION,
    Pool,
    alpha_weights,
    assemble,
    min_max,
    pool,
    raw_scores,
    z_score,
)
from rag.settings.retrieval import FusionConfig

NORMALIZERS = {"minmax": min_max, "zscore": z_score}
Terms = dict[str, dict[str, float]]


def convex_terms(
    found: Pool, alpha: float, normalization: str
) -> tuple[Terms, Terms, dict[str, float]]:
    """(normalized scores, weighted terms, the term of a list that missed a chunk), per list."""
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha must lie in [0, 1], got {alpha}")
    if normalization not in NORMALIZERS:
        raise ValueError(
            f"normalization must be one of {sorted(NORMALIZERS)}, got {normalization!r}"
        )
    normalize = NORMALIZERS[normalization]
    weights = alpha_weights(found.names, alpha)
    normalized = {name: normalize(raw_scores(found, name)) for name in found.names}
    terms = {
        name: {cid: weights[name] * v for cid, v in normalized[name].items()}
        for name in found.names
    }
    absent = {
        name: weights[name] * min(normalized[name].values())
        for name in found.names
        if normalized[name]
    }
    return normalized, terms, absent


def convex(
    lists: Sequence[RankedList],
    alpha: float = 0.5,
    normalization: Literal["minmax", "zscore"] = "minmax",
) -> tuple[Candidate, ...]:
    """alpha * norm(dense) + (1 - alpha) * norm(lexical) (Bruch, Gai & Ingber 2023, "An Analysis
    of Fusion Functions for Hybrid Retrieval"); a chunk a list missed gets that list's lowest
    normalized score, so being absent is never better than being retrieved last."""
    found = pool(lists)
    normalized, terms, absent = convex_terms(found, alpha, normalization)
    return assemble(found, terms, normalized=normalized, absent=absent)


@FUSION.register("convex")
def _from_config(
    lists: Sequence[RankedList], config: FusionConfig, query: str
) -> tuple[Candidate, ...]:
    return convex(lists, alpha=config.alpha, normalization=config.normalization)
