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
    _ideal_rows: dict[int, np.ndarray] = field(default_factory=dict, init=False)

    def __post_init__(self) -> None:
        self.n_rel = np.array([sum(r > 0 for r in j.values()) for j in self.judged],
                              dtype=np.int64)

    def ideals(self, k: int) -> np.ndarray:
        """ideal(q, k) of every query, kept per k."""
        if k not in self._ideal_rows:
            self._ideal_rows[k] = np.array([self.ideal(q, k) for q in range(len(self.judged))])
        return self._ideal_rows[k]

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


@dataclass(frozen=True)
class _Cut:
    """The hits within one cutoff, with each query's slice of them."""

    cut: np.ndarray  # per query
    query: np.ndarray
    rank: np.ndarray
    gain: np.ndarray
    starts: np.ndarray  # per query: its first hit's index (== ends when none)
    ends: np.ndarray

    @property
    def found(self) -> np.ndarray:
        return self.ends - self.starts


def _cut(hits: RunHits, n: int, k: int | None) -> _Cut:
    cut = np.maximum(hits.retrieved, 1) if k is None else np.full(n, k, dtype=np.int64)
    inside = hits.rank < cut[hits.query]
    query = hits.query[inside]
    every = np.arange(n)
    return _Cut(cut, query, hits.rank[inside], hits.gain[inside],
                np.searchsorted(query, every), np.searchsorted(query, every, side="right"))


def _running_sums(hits: _Cut, terms: np.ndarray) -> np.ndarray:
    """Per query, its terms summed left to right (as Python's sum); 0.0 with no terms."""
    out = np.zeros(hits.starts.size)
    if not terms.size:
        return out
    found = hits.found
    padded = np.zeros((found.size, int(found.max())))  # trailing 0.0 terms change no sum
    padded[hits.query, np.arange(terms.size) - hits.starts[hits.query]] = terms
    has = found > 0
    out[has] = np.cumsum(padded[has], axis=1)[:, -1]
    return out


def _per_rel(rel: np.ndarray, value: np.ndarray) -> np.ndarray:
    """value / relevant count, 0.0 for a query without relevant documents."""
    return np.where(rel > 0, value / np.maximum(rel, 1), 0.0)


def hit_metrics(hits: RunHits, constants: QueryConstants, specs: Sequence[MetricSpec]
                ) -> dict[str, np.ndarray]:
    """Every metric of `specs` for every query (eval.scoring.metrics definitions), by key."""
    n = len(constants.judged)
    cuts: dict[int | None, _Cut] = {}
    out = {}
    for spec in specs:
        if spec.k not in cuts:  # metrics at one cutoff share its hits
            cuts[spec.k] = _cut(hits, n, spec.k)
        c = cuts[spec.k]
        if spec.name == "ndcg":
            terms = c.gain / _discounts(int(c.rank.max()) + 1 if c.rank.size else 0)[c.rank]
            ideal = (constants.ideals(spec.k) if spec.k is not None else
                     np.array([constants.ideal(q, k) for q, k in enumerate(c.cut.tolist())]))
            safe = np.where(ideal > 0, ideal, 1.0)
            out[spec.key] = np.where(ideal > 0, _running_sums(c, terms) / safe, 0.0)
        elif spec.name == "recall":
            out[spec.key] = _per_rel(constants.n_rel, c.found)
        elif spec.name == "precision":
            out[spec.key] = c.found / c.cut
        elif spec.name in ("mrr", "hit"):
            reached = c.found > 0
            first = c.rank[np.minimum(c.starts, max(c.rank.size - 1, 0))] if c.rank.size else c.cut
            value = 1.0 / (first + 1) if spec.name == "mrr" else np.ones(n)
            out[spec.key] = np.where(reached, value, 0.0)
        elif spec.name == "map":
            count = np.arange(c.query.size) - c.starts[c.query] + 1  # found so far, 1-based
            out[spec.key] = _per_rel(constants.n_rel, _running_sums(c, count / (c.rank + 1)))
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
