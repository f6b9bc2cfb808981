"""Ceiling diagnostics: does a miss come from retrieval or from ranking?

- recall at depth: the share of a query's relevant documents that at least one retriever's list
  holds within its first n chunks (n = 10, 50, 100, 1000, capped at the depth searched). If it
  is low, no fusion or reranking can help: fix retrieval (depth, chunking, model).
- oracle nDCG@k: the nDCG@k a perfect reranker would reach by reordering the run's final
  documents by their true relevance. A large gap between oracle and actual nDCG says the right
  documents are there but badly ordered: fix fusion or reranking.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from eval.data.shapes import Qrels
from eval.runs.candidates import QueryLists
from eval.runs.preset_run import PresetRun
from eval.scoring.metrics import evaluate

DEPTHS = (10, 50, 100, 1000)


@dataclass(frozen=True)
class Ceiling:
    """Mean recall at each depth any retriever reached, and oracle vs actual nDCG@k."""

    recall_at_depth: Mapping[int, float]
    k: int
    oracle_ndcg: float
    actual_ndcg: float
    n_queries: int


def recall_at_depth(
    qrels: Qrels, cached: Sequence[QueryLists], depths: Sequence[int] = DEPTHS
) -> dict[int, float]:
    """{n: mean over queries of |relevant docs in any list's first n| / |relevant docs|}."""
    searched = max((len(r.candidates) for q in cached for r in q.lists.values()), default=0)
    usable = sorted({min(n, searched) for n in depths if searched}) or []
    totals = dict.fromkeys(usable, 0.0)
    counted = 0
    for item in cached:
        relevant = {d for d, rel in qrels.get(item.qid, {}).items() if rel > 0}
        if item.error is not None or not relevant:
            continue
        counted += 1
        for n in usable:
            found = {c.chunk.doc_id for r in item.lists.values() for c in r.candidates[:n]}
            totals[n] += len(found & relevant) / len(relevant)
    return {n: total / counted for n, total in totals.items()} if counted else {}


# (qid, k, the relevant documents a run found) -> that query's oracle nDCG@k
OracleMemo = dict[tuple[str, int, frozenset[str]], float]


def oracle_ndcg(qrels: Qrels, run: PresetRun, k: int = 10,
                memo: OracleMemo | None = None) -> tuple[float, float]:
    """(oracle, actual) mean nDCG@k over the run's scored queries. A query's oracle depends only
    on which relevant documents the run found, so `memo` lets sweep points that found the same
    ones share it."""
    key = f"ndcg@{k}"
    memo = {} if memo is None else memo
    oracle_values = []
    for o in run.outcomes:
        if o.error is not None or o.qid not in qrels:
            continue  # as evaluate: a query without qrels is not scored
        judged = qrels[o.qid]
        # only the run's relevant documents: scored by relevance they rank above every other,
        # which add no gain, so leaving those out changes no nDCG
        found = frozenset(d for d in o.ranking if judged.get(d, 0) > 0)
        if (o.qid, k, found) not in memo:
            memo[o.qid, k, found] = evaluate(
                qrels, {o.qid: {d: float(judged[d]) for d in found}}, [key])[key].values[o.qid]
        oracle_values.append(memo[o.qid, k, found])
    oracle = math.fsum(oracle_values) / len(oracle_values) if oracle_values else math.nan
    actual = run.scores[key] if key in run.scores else evaluate(
        qrels, {o.qid: o.ranking for o in run.outcomes if o.error is None}, [key])[key]
    return oracle, actual.mean


def ceiling(
    qrels: Qrels, cached: Sequence[QueryLists], run: PresetRun, k: int = 10,
    depths: Sequence[int] = DEPTHS, recall: Mapping[int, float] | None = None,
    memo: OracleMemo | None = None,
) -> Ceiling:
    """`recall` = recall_at_depth(qrels, cached, depths) when known (sweep points share it, and
    `memo` their queries' oracle nDCG)."""
    oracle, actual = oracle_ndcg(qrels, run, k, memo)
    recall = recall if recall is not None else recall_at_depth(qrels, cached, depths)
    return Ceiling(recall, k, oracle, actual, sum(o.error is None for o in run.outcomes))
