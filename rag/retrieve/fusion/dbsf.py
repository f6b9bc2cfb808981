"""Distribution-based score fusion."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from rag.records.hits import Candidate, RankedList
from rag.retrieve.fusion.base import (
    FUSION,
    Pool,
    assemble,
    pool,
    raw_scores,
)
from rag.settings.retrieval import FusionConfig


def three_sigma(scores: Mapping[str, float]) -> dict[str, float]:
    """Map [mean - 3σ, mean + 3σ] to [0, 1] with the sample σ; one score or σ = 0 gives 0.5
    (as qdrant-client's distribution_based_score_fusion)."""
    if len(scores) < 2:
        return dict.fromkeys(scores, 0.5)
    values = list(scores.values())
    mean = math.fsum(values) / len(values)
    variance = math.fsum((v - mean) ** 2 for v in values) / (len(values) - 1)
    if variance == 0:
        return dict.fromkeys(scores, 0.5)
    low, span = mean - 3 * math.sqrt(variance), 6 * math.sqrt(variance)
    return {cid: (s - low) / span for cid, s in scores.items()}


def dbsf_terms(found: Pool) -> dict[str, dict[str, float]]:
    """Per list, chunk_id -> its three-sigma normalized score."""
    return {name: three_sigma(raw_scores(found, name)) for name in found.names}


def dbsf(lists: Sequence[RankedList]) -> tuple[Candidate, ...]:
    """DBSF: normalize each list by mean ± 3σ, then sum (Mazzeschi 2023; Qdrant Fusion.DBSF)."""
    found = pool(lists)
    normalized = dbsf_terms(found)
    return assemble(found, normalized, normalized=normalized)


@FUSION.register("dbsf")
def _from_config(
    lists: Sequence[RankedList], config: FusionConfig, query: str
) -> tuple[Candidate, ...]:
    return dbsf(lists)
