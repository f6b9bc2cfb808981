"""Rank-position fusion (RRF, weighted RRF) as arrays: the one implementation of their math.

A sweep re-fuses every query's cached lists at every grid point and then reads only the ranking;
building each fused candidate's hits and contributions was most of a point's cost. Here the lists
of many queries are pooled once into one set of arrays (`pool_batch`); a method in FUSION_SCORES
then fuses all of them at any depth with a few array operations. A pipeline run's fusion
(`reciprocal_candidates`, which rrf.py and weighted_rrf.py register in FUSION) is the same arrays
for one query, with each fused chunk's hits and per-list contributions read off them: a view, not
a second computation. Scores are summed as math.fsum sums them (where no query has more than two
lists, a single IEEE addition, which is correctly rounded too), and `best_first` orders chunks by
score, ties by chunk_id. A method without arrays here (relative score, DBSF, convex, learned) is
re-fused in full by its caller.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from rag.records.hits import Candidate, RankedList, RetrieverHit, retriever_family
from rag.registry import Registry
from rag.retrieve.fusion.base import list_weight, pool
from rag.settings.retrieval import FusionConfig


@dataclass(frozen=True)
class PooledIds:
    """Queries' lists over one pool of chunk ids, query after query. Within a query the ids
    are sorted, so pool order is chunk_id order (assemble's tie break). Each list name holds,
    over all queries, the pool index and 1-based rank of each chunk's first occurrence in
    that query's list (fusion.base.pool keeps the first)."""

    queries: tuple[str, ...]
    ids: tuple[str, ...]
    owner: np.ndarray  # pool index -> position of its query in `queries`
    lists: Mapping[str, tuple[np.ndarray, np.ndarray]]  # name -> (pool index, rank)
    most_lists: int  # the most lists one query has


def pool_batch(queries: Mapping[str, Mapping[str, Sequence[str]]]) -> PooledIds:
    """Pool each query's lists of chunk ids (best first), once for a whole sweep."""
    ids: list[str] = []
    owner: list[int] = []
    index: dict[str, list[int]] = {}
    rank: dict[str, list[int]] = {}
    for position, lists in enumerate(queries.values()):
        pool = sorted({cid for ranked in lists.values() for cid in ranked})
        where = {cid: len(ids) + i for i, cid in enumerate(pool)}
        ids.extend(pool)
        owner.extend([position] * len(pool))
        for name, ranked in lists.items():
            indices, ranks = index.setdefault(name, []), rank.setdefault(name, [])
            seen: set[str] = set()
            for place, cid in enumerate(ranked, start=1):
                if cid not in seen:
                    seen.add(cid)
                    indices.append(where[cid])
                    ranks.append(place)
    arrays = {name: (np.asarray(index[name], dtype=np.int64), np.asarray(rank[name], dtype=np.int64))
              for name in index}
    return PooledIds(tuple(queries), tuple(ids), np.asarray(owner, dtype=np.int64), arrays,
                     max((len(lists) for lists in queries.values()), default=0))


def pool_ids(lists: Mapping[str, Sequence[str]]) -> PooledIds:
    """One query's lists pooled (a batch of one)."""
    return pool_batch({"": lists})


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
    """Scores over the pool; `present` marks the chunks some cut list holds (the fused ones);
    `terms`: per list, each chunk's additive term (0 where the cut list lacks it)."""

    scores: np.ndarray
    present: np.ndarray
    terms: Mapping[str, np.ndarray] = field(default_factory=dict)


# (pooled lists, depth read per list, config) -> fused scores over the pool
ScoresFn = Callable[[PooledIds, Mapping[str, int], FusionConfig], Fused]

# FusionConfig.method -> its scores-only twin (only methods that rank by list positions so far)
FUSION_SCORES: Registry[ScoresFn] = Registry("scores-only fusion")


def _summed(columns: Sequence[np.ndarray], size: int, most_lists: int) -> np.ndarray:
    """Per chunk, math.fsum of its terms (0 where a list lacks it), as assemble sums them."""
    if most_lists <= 2:  # at most two non-zero terms: a + b (+ 0.0 …) is correctly rounded
        total = np.zeros(size)
        for column in columns:
            total = total + column
        return total
    return np.array([math.fsum(terms) for terms in zip(*columns, strict=True)], dtype=float)


def _reciprocal(pooled: PooledIds, read: Mapping[str, int], k: int,
                weights: Mapping[str, float] | None) -> Fused:
    """Per list w / (k + rank) (w = 1 without weights), summed over lists."""
    if k < 1:
        raise ValueError(f"RRF k must be >= 1, got {k}")
    size = len(pooled.ids)
    present = np.zeros(size, dtype=bool)
    columns: dict[str, np.ndarray] = {}
    for name, (index, rank) in pooled.lists.items():
        weight = None if weights is None else list_weight(weights, name)
        kept = rank <= read[name]
        term = 1.0 / (k + rank[kept])
        column = np.zeros(size)
        column[index[kept]] = term if weight is None else weight * term
        present[index[kept]] = True
        columns[name] = column
    return Fused(_summed(list(columns.values()), size, pooled.most_lists), present, columns)


@FUSION_SCORES.register("rrf")
def rrf_scores(pooled: PooledIds, read: Mapping[str, int], config: FusionConfig) -> Fused:
    """RRF (Cormack, Clarke & Büttcher 2009): score(d) = sum over lists of 1 / (k + rank(d))."""
    return _reciprocal(pooled, read, config.k, None)


@FUSION_SCORES.register("weighted_rrf")
def weighted_rrf_scores(pooled: PooledIds, read: Mapping[str, int], config: FusionConfig
                        ) -> Fused:
    """Weighted RRF: score(d) = sum of w_list / (k + rank(d)), weights per list name or family."""
    return _reciprocal(pooled, read, config.k, config.weights)


def best_first(pooled: PooledIds, fused: Fused, top_k: int | None = None) -> list[np.ndarray]:
    """Per query (in `pooled.queries` order), the pool indices of its fused chunks best first,
    ties by chunk_id (assemble's order), the first top_k."""
    found = np.flatnonzero(fused.present)
    owner = pooled.owner[found]
    order = np.lexsort((found, -fused.scores[found], owner))
    ranked, owners = found[order], owner[order]
    bounds = np.searchsorted(owners, np.arange(len(pooled.queries) + 1))
    return [ranked[lo:hi if top_k is None else min(hi, lo + top_k)]
            for lo, hi in itertools.pairwise(bounds.tolist())]


def reciprocal_candidates(lists: Sequence[RankedList], k: int,
                          weights: Mapping[str, float] | None = None) -> tuple[Candidate, ...]:
    """RRF (weights None) or weighted RRF over one query's lists, as Candidates best first: the
    array scores above, with each chunk's hits (rank, raw score, 1 / (k + rank)) and per-list
    contributions, which sum to its score, read off them."""
    found = pool(lists)  # each chunk once with its rank and raw score per list; names unique
    pooled = pool_ids({ranked.retriever: [c.chunk.chunk_id for c in ranked.candidates]
                       for ranked in lists})
    read = {ranked.retriever: len(ranked.candidates) for ranked in lists}
    fused = _reciprocal(pooled, read, k, weights)
    (order,) = best_first(pooled, fused)
    out = []
    for i in order.tolist():
        cid = pooled.ids[i]
        hits = {name: RetrieverHit(name, place[0], place[1], 1.0 / (k + place[0]))
                for name in found.names if (place := found.placed[name].get(cid)) is not None}
        score = float(fused.scores[i])
        out.append(Candidate(
            chunk=found.chunks[cid], score=score, hits=MappingProxyType(hits),
            contributions=MappingProxyType({name: float(fused.terms[name][i]) for name in found.names}),
            stage_scores=MappingProxyType({"fusion": score})))
    return tuple(out)
