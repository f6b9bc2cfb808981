"""No fusion: a single retriever's list passes through with its breakdown filled in."""

from __future__ import annotations

from collections.abc import Sequence

from rag.records.hits import Candidate, RankedList
from rag.retrieve.fusion.base import (
    FUSION,
    Pool,
    assemble,
    pool,
    raw_scores,
)
from rag.settings.retrieval import FusionConfig


def passthrough(lists: Sequence[RankedList]) -> tuple[Candidate, ...]:
    """The one list as it is: score = the retriever's raw score (fusion method "none")."""
    found = pool(lists)
    return assemble(found, passthrough_terms(found))


def passthrough_terms(found: Pool) -> dict[str, dict[str, float]]:
    """The single list's raw scores; more than one list is an error."""
    if len(found.names) > 1:
        names = ", ".join(found.names)
        raise ValueError(f"fusion 'none' takes exactly one list, got {len(found.names)}: {names}")
    return {name: raw_scores(found, name) for name in found.names}


@FUSION.register("none")
def _from_config(
    lists: Sequence[RankedList], config: FusionConfig, query: str
) -> tuple[Candidate, ...]:
    return passthrough(lists)
