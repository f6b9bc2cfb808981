"""No fusion: a single retriever's list passes through with its breakdown filled in."""

from __future__ import annotations

from collections.abc import Sequence

from rag.retrieve.base import Candidate, RankedList
from rag.retrieve.fusion.base import FUSION, assemble, pool, raw_scores
from rag.retrieve.settings import FusionConfig


def passthrough(lists: Sequence[RankedList]) -> tuple[Candidate, ...]:
    """The one list as it is: score = the retriever's raw score (fusion method "none")."""
    if len(lists) > 1:
        names = ", ".join(ranked.retriever for ranked in lists)
        raise ValueError(f"fusion 'none' takes exactly one list, got {len(lists)}: {names}")
    found = pool(lists)
    terms = {name: raw_scores(found, name) for name in found.names}
    return assemble(found, terms)


@FUSION.register("none")
def _from_config(lists: Sequence[RankedList], config: FusionConfig) -> tuple[Candidate, ...]:
    return passthrough(lists)
