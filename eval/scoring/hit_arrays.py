"""eval.scoring.metrics' definitions for many queries at once, over arrays of relevant hits.

A sweep scores every query at every grid point; per query in Python (sort the ranking, find the
hits, sum) that was most of a point's cost. Here a run is given as its relevant hits only —
(query, 0-based rank, gain) in query-then-rank order, the same `hits` eval.scoring.metrics
reads — and each metric is a few array operations for all queries. Values are bit-for-bit
those of eval.scoring.metrics.query_metrics: the discounts are math.log2's (one table), each
query's sums are running sums in rank order (np.cumsum adds left to right, as `sum` does), and
ideal DCG and relevant counts are computed per query once by `QueryConstants` with the per-query
code's own expressions. tests/eval/scoring/test_hit_arrays.py checks equality on random runs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from eval.data.shapes import Qrels, Results
from eval.scoring.metrics import MetricSpec, trec_ranking


@dataclass(frozen=True)
class RunHits:
    """A run's relevant hits over `n_queries` queries, sorted by query then rank; `retrieved`
    is each query's ranking length (the cutoff of a metric without @k)."""

    query: np.ndarray  # int64, query position of each hit
    rank: np.ndarray  # int64, 0-based rank of the hit in its query's trec ranking
    gain: np.ndarray  # int64, relevance (> 0)
    retrieved: np.ndarray  # int64 per query


@dataclass
class QueryConstants:
    """What a query's metrics need besides its hits, for queries in a fixed order: relevant
    counts, and ideal DCG@k computed once per (query, k) and kept (sweep points share them)."""

    judged: Sequence[Mapping[str, int]]
    n_rel: np.ndarray = field(init=False)
    _ideal: dict[tuple[int, int], float] = field(default_factory=dict, init=False)

    def __post_init__(self) -> None:
        self.n_rel = np.array([sum(r > 0 for r in j.values()) for j in self.judged],
                              dtype=np.int64)

    def ideal(self, q: int, k: int) -> float:
        """eval.scoring.metrics._ndcg's idcg for query `q` at cutoff k."""
        if (q, k) not in self._ideal:
            ideal = sorted((r for r in self.judged[q].values() if r > 0), reverse=True)[:k]
            self._ideal[q, k] = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
        return self._ideal[q, k]


_DISCOUNTS: list[float] = []


def _discounts(n: int) -> np.ndarray:
    """math.log2(i + 2) for i < n, as the per-query code computes them."""
    while len(_DISCOUNTS) < n:
        _DISCOUNTS.append(math.log2(len(_DISCOUNTS) + 2))
    return np.array(_DISCOUNTS[:n])


def _running_sums(query: np.ndarray, terms: np.ndarray, n_queries: int) -> np.ndarray:
    """Per query, its terms summed left to right (as Python's sum); 0.0 with no terms."""
    out = np.zeros(n_queries)
    if not terms.size:
        return out
    starts = np.searchsorted(query, np.arange(n_queries))
    ends = np.searchsorted(query, np.arange(n_queries), side="right")
    width = int((ends - starts).max())
    padded = np.zeros((n_queries, width))  # trailing 0.0 terms change no running sum
    padded[query, np.arange(query.size) - starts[query]] = terms
    has = ends > starts
    out[has] = np.cumsum(padded[has], axis=1)[:, -1]
    return out


def hit_metrics(hits: RunHits, constants: QueryConstants, specs: Sequence[MetricSpec]
                ) -> dict[str, np.ndarray]:
    """Every metric of `specs` for every query (eval.scoring.metrics definitions), by key."""
    n = len(constants.judged)
    out = {}
    for spec in specs:
        if spec.k is None:
            cut = np.maximum(hits.retrieved, 1)
        else:
            cut = np.full(n, spec.k, dtype=np.int64)
        inside = hits.rank < cut[hits.query]
        query, rank, gain = hits.query[inside], hits.rank[inside], hits.gain[inside]
        found = np.bincount(query, minlength=n)
        if spec.name == "ndcg":
            terms = gain / _discounts(int(rank.max()) + 1 if rank.size else 0)[rank]
            ideal = np.array([constants.ideal(q, int(k)) for q, k in enumerate(cut.tolist())])
            dcg = _running_sums(query, terms, n)
            safe = np.where(ideal > 0, ideal, 1.0)
            out[spec.key] = np.where(ideal > 0, dcg / safe, 0.0)
        elif spec.name == "recall":
            rel = constants.n_rel
            out[spec.key] = np.where(rel > 0, found / np.maximum(rel, 1), 0.0)
        elif spec.name == "precision":
            out[spec.key] = found / cut
        elif spec.name in ("mrr", "hit"):
            first = np.full(n, -1, dtype=np.int64)
            first[query[::-1]] = rank[::-1]  # the last write per query is its first hit
            reached = first >= 0
            value = 1.0 / (np.maximum(first, 0) + 1) if spec.name == "mrr" else np.ones(n)
            out[spec.key] = np.where(reached, value, 0.0)
        elif spec.name == "map":
            starts = np.searchsorted(query, np.arange(n))
            count = np.arange(query.size) - starts[query] + 1  # found so far, 1-based
            total = _running_sums(query, count / (rank + 1), n)
            rel = constants.n_rel
            out[spec.key] = np.where(rel > 0, total / np.maximum(rel, 1), 0.0)
        else:
            raise ValueError(f"no array form for metric {spec.key!r}")
    return out


def run_hits(qrels: Qrels, results: Results, qids: Sequence[str]) -> RunHits:
    """The relevant hits of `results` for `qids` (each in qrels), ranked as trec_ranking ranks
    them: the reference way in, for rankings held as dicts."""
    query: list[int] = []
    rank: list[int] = []
    gain: list[int] = []
    retrieved = []
    for q, qid in enumerate(qids):
        ranking = trec_ranking(results[qid])
        retrieved.append(len(ranking))
        judged = qrels[qid]
        for i, doc in enumerate(ranking):
            if (g := judged.get(doc, 0)) > 0:
                query.append(q)
                rank.append(i)
                gain.append(g)
    return RunHits(np.array(query, dtype=np.int64), np.array(rank, dtype=np.int64),
                   np.array(gain, dtype=np.int64), np.array(retrieved, dtype=np.int64))
