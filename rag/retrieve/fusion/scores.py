"""Scores-only fusion: a fused score per chunk id, with no Candidates and no breakdowns.

A sweep re-fuses every query's cached lists at every grid point and then reads only the ranking;
building each fused candidate's hits and contributions (fusion.base.assemble) was most of a
point's cost. Here a query's lists are pooled once into arrays (`pool_ids`); a twin then fuses
them at any depth with a few array operations. Each chunk's score comes from the same terms as
the full method's, summed as `assemble` sums them (math.fsum: for one or two lists a single
IEEE addition, which is correctly rounded too), and `best_first` orders them as `assemble` does
(score descending, ties by chunk_id), so the ranking equals `fuse(...)`'s for the same lists
and config (tests/rag/retrieve/test_fusion_scores.py checks it over every registered twin).
A method without a twin is re-fused in full by its caller.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from rag.registry import Registry
from rag.retrieve.base import retriever_family
from rag.retrieve.fusion.base import list_weight
from rag.retrieve.settings import FusionConfig


@dataclass(frozen=True)
class PooledIds:
    """One query's lists over one pool of chunk ids. `ids` is sorted, so pool order is chunk_id
    order (assemble's tie break); each list holds, best first, the pool index and the 1-based
    rank of each chunk's first occurrence in it (fusion.base.pool keeps the first)."""

    ids: tuple[str, ...]
    lists: Mapping[str, tuple[np.ndarray, np.ndarray]]  # name -> (pool index, rank)


def pool_ids(lists: Mapping[str, Sequence[str]]) -> PooledIds:
    """Pool lists of chunk ids (best first), once per query."""
    ids = tuple(sorted({cid for ranked in lists.values() for cid in ranked}))
    where = {cid: i for i, cid in enumerate(ids)}
    pooled = {}
    for name, ranked in lists.items():
        seen: set[str] = set()
        index, rank = [], []
        for position, cid in enumerate(ranked, start=1):
            if cid not in seen:
                seen.add(cid)
                index.append(where[cid])
                rank.append(position)
        pooled[name] = (np.asarray(index, dtype=np.int64), np.asarray(rank, dtype=np.int64))
    return PooledIds(ids, pooled)


def cuts(pooled: PooledIds, depth: int, depths: Mapping[str, int]) -> dict[str, int]:
    """How deep each list is read: `depth` (the retrieval depth), then its fusion depth in
    `depths` (by name, else retriever family), as fusion.base.cut_to_depths cuts."""
    out = {}
    for name in pooled.lists:
        own = depths.get(name, depths.get(retriever_family(name)))
        out[name] = depth if own is None else min(depth, own)
    return out


@dataclass(frozen=True)
class Fused:
    """Scores over the pool; `present` marks the chunks some cut list holds (the fused ones)."""

    scores: np.ndarray
    present: np.ndarray


# (pooled lists, depth read per list, config) -> fused scores over the pool
ScoresFn = Callable[[PooledIds, Mapping[str, int], FusionConfig], Fused]

# FusionConfig.method -> its scores-only twin (only methods that rank by list positions so far)
FUSION_SCORES: Registry[ScoresFn] = Registry("scores-only fusion")


def _summed(columns: Sequence[np.ndarray], size: int) -> np.ndarray:
    """Per chunk, math.fsum of its terms (0 where a list lacks it), as assemble sums them."""
    if len(columns) == 2:  # one addition a + b (a + 0.0 == a) is correctly rounded
        return columns[0] + columns[1]
    if len(columns) == 1:
        return columns[0]
    if not columns:
        return np.zeros(size)
    return np.array([math.fsum(terms) for terms in zip(*columns, strict=True)], dtype=float)


def _reciprocal(pooled: PooledIds, read: Mapping[str, int], k: int,
                weights: Mapping[str, float] | None) -> Fused:
    """Per list w / (k + rank) (w = 1 without weights), computed as rrf_terms and
    weighted_terms compute them, summed over lists."""
    if k < 1:
        raise ValueError(f"RRF k must be >= 1, got {k}")
    size = len(pooled.ids)
    present = np.zeros(size, dtype=bool)
    columns = []
    for name, (index, rank) in pooled.lists.items():
        weight = None if weights is None else list_weight(weights, name)
        kept = int(np.searchsorted(rank, read[name], side="right"))
        term = 1.0 / (k + rank[:kept])
        column = np.zeros(size)
        column[index[:kept]] = term if weight is None else weight * term
        present[index[:kept]] = True
        columns.append(column)
    return Fused(_summed(columns, size), present)


@FUSION_SCORES.register("rrf")
def rrf_scores(pooled: PooledIds, read: Mapping[str, int], config: FusionConfig) -> Fused:
    """RRF (Cormack, Clarke & Büttcher 2009) scores, as fusion.rrf computes them."""
    return _reciprocal(pooled, read, config.k, None)


@FUSION_SCORES.register("weighted_rrf")
def weighted_rrf_scores(pooled: PooledIds, read: Mapping[str, int], config: FusionConfig
                        ) -> Fused:
    """Weighted RRF scores (per list name or family), as fusion.weighted_rrf computes them."""
    return _reciprocal(pooled, read, config.k, config.weights)


def best_first(fused: Fused, top_k: int | None = None) -> np.ndarray:
    """Pool indices of the fused chunks best first, ties by chunk_id (assemble's order)."""
    found = np.flatnonzero(fused.present)
    order = found[np.lexsort((found, -fused.scores[found]))]
    return order if top_k is None else order[:top_k]
