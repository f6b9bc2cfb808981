"""Scores-only fusion: chunk_id -> fused score, with no Candidates and no breakdowns.

A sweep re-fuses every query's cached lists at every grid point and then reads only the ranking;
building each fused candidate's hits and contributions (fusion.base.assemble) was most of a
point's cost. A twin here computes each chunk's score from the same terms, summed the same way
(math.fsum), and `ranked_ids` orders them like `assemble` (score descending, ties by chunk_id), so
the ranking equals `fuse(...)`'s for the same lists and config (tests/rag/retrieve/
test_fusion_scores.py checks it over every registered twin). A method without a twin is simply
re-fused in full by its caller.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

from rag.registry import Registry
from rag.retrieve.base import retriever_family
from rag.retrieve.fusion.base import list_weight
from rag.retrieve.settings import FusionConfig

# list name -> its chunk ids best first (a list's RankedList reduced to what RRF reads)
IdLists = Mapping[str, Sequence[str]]
ScoresFn = Callable[[IdLists, FusionConfig], dict[str, float]]

# FusionConfig.method -> its scores-only twin (only methods that rank by list positions so far)
FUSION_SCORES: Registry[ScoresFn] = Registry("scores-only fusion")


def cut_ids(lists: IdLists, depth: int, depths: Mapping[str, int]) -> dict[str, Sequence[str]]:
    """Each list cut to `depth` (the retrieval depth), then to its fusion depth in `depths` (by
    name, else retriever family) like fusion.base.cut_to_depths."""
    out = {}
    for name, ids in lists.items():
        own = depths.get(name, depths.get(retriever_family(name)))
        out[name] = ids[: depth if own is None else min(depth, own)]
    return out


def _reciprocal_terms(lists: IdLists, k: int, weights: Mapping[str, float] | None
                      ) -> dict[str, float]:
    """Sum over lists of w / (k + rank), each chunk at its first rank in a list (fusion.base.pool);
    w = 1 without weights. Terms are computed as rrf_terms / weighted_terms compute them."""
    if k < 1:
        raise ValueError(f"RRF k must be >= 1, got {k}")
    terms: dict[str, list[float]] = {}
    for name, ids in lists.items():
        weight = None if weights is None else list_weight(weights, name)
        seen: set[str] = set()
        for rank, cid in enumerate(ids, start=1):
            if cid in seen:
                continue
            seen.add(cid)
            term = 1.0 / (k + rank)
            terms.setdefault(cid, []).append(term if weight is None else weight * term)
    if len(lists) <= 2:  # one IEEE addition is correctly rounded: a + b == fsum([a, b])
        return {cid: parts[0] + parts[1] if len(parts) == 2 else parts[0]
                for cid, parts in terms.items()}
    return {cid: math.fsum(parts) for cid, parts in terms.items()}


@FUSION_SCORES.register("rrf")
def rrf_scores(lists: IdLists, config: FusionConfig) -> dict[str, float]:
    """RRF (Cormack, Clarke & Büttcher 2009) scores, as fusion.rrf computes them."""
    return _reciprocal_terms(lists, config.k, None)


@FUSION_SCORES.register("weighted_rrf")
def weighted_rrf_scores(lists: IdLists, config: FusionConfig) -> dict[str, float]:
    """Weighted RRF scores (per list name or family), as fusion.weighted_rrf computes them."""
    return _reciprocal_terms(lists, config.k, config.weights)


def ranked_ids(scores: Mapping[str, float], top_k: int | None = None) -> list[str]:
    """Chunk ids best first, ties by chunk_id (fusion.base.assemble's order), the first top_k."""
    order = sorted([(-score, cid) for cid, score in scores.items()])  # no key calls: tuples
    return [cid for _, cid in (order if top_k is None else order[:top_k])]
