"""Ceiling diagnostics: recall any retriever reached at each depth, and the oracle reranker nDCG."""

from __future__ import annotations

from types import MappingProxyType

import pytest

from eval.data.shapes import BeirDataset
from eval.diagnostics.ceiling import OracleMemo, ceiling, recall_at_depth
from eval.runs.candidates import QueryLists
from eval.runs.preset_run import QueryOutcome, summarize
from rag.chunking.base import Chunk
from rag.index.hits import Candidate, RankedList

QRELS = {"q1": {"a": 2, "b": 1, "z": 1}, "q2": {"c": 1}}
DATASET = BeirDataset("t", {d: {"title": "", "text": d} for d in "abcxyz"},
                      {"q1": "one", "q2": "two"}, QRELS, "0" * 64)


def _list(name: str, docs: str) -> RankedList:
    return RankedList(name, tuple(Candidate(Chunk(f"{d}#0", d, 0, 1, d), 1.0 / (i + 1))
                                  for i, d in enumerate(docs)))


def test_recall_at_depth_unions_retrievers_and_caps_at_searched_depth() -> None:
    cached = [
        QueryLists("q1", MappingProxyType({"bm25": _list("bm25", "xaybc"),
                                           "dense": _list("dense", "bxxxx")}), 1.0),
        QueryLists("q2", MappingProxyType({}), 1.0, error="boom"),  # failed: not counted
    ]
    recall = recall_at_depth(QRELS, cached, depths=(1, 2, 10))
    # depth 1: x (bm25) + b (dense) -> 1 of 3; depth 2: + a -> 2 of 3; 10 is capped at 5
    assert recall == pytest.approx({1: 1 / 3, 2: 2 / 3, 5: 2 / 3})


def test_oracle_reorders_the_final_documents_by_relevance() -> None:
    outcomes = [QueryOutcome("q1", {"x": 3.0, "b": 2.0, "a": 1.0}, 1.0),
                QueryOutcome("q2", {"c": 1.0}, 1.0)]
    run = summarize("t", DATASET, outcomes, ["ndcg@10"], n_resamples=10)
    result = ceiling(QRELS, [], run, k=10)
    assert result.actual_ndcg == pytest.approx(run.summary.metrics["ndcg@10"])
    assert result.actual_ndcg < result.oracle_ndcg < 1.0  # z was never retrieved
    assert result.n_queries == 2 and result.recall_at_depth == {}


def test_a_shared_oracle_memo_gives_each_run_its_own_oracle() -> None:
    # sweep points share the memo: a query's oracle depends only on the relevant docs it found
    first = summarize("t", DATASET, [QueryOutcome("q1", {"x": 3.0, "b": 2.0, "a": 1.0}, 1.0),
                                     QueryOutcome("q2", {"c": 1.0}, 1.0)], ["ndcg@10"], 10)
    second = summarize("t", DATASET, [QueryOutcome("q1", {"a": 3.0, "x": 2.0}, 1.0),
                                      QueryOutcome("q2", {"y": 1.0}, 1.0)], ["ndcg@10"], 10)
    memo: OracleMemo = {}
    shared = [ceiling(QRELS, [], run, k=10, memo=memo).oracle_ndcg for run in (first, second)]
    alone = [ceiling(QRELS, [], run, k=10).oracle_ndcg for run in (first, second)]
    assert shared == alone and alone[0] > alone[1]  # the second found neither b nor c
    # the definition: every retrieved document re-ranked by its true relevance
    ideal = summarize("t", DATASET, [QueryOutcome("q1", {"a": 2.0, "x": 0.0}, 1.0),
                                     QueryOutcome("q2", {"y": 0.0}, 1.0)], ["ndcg@10"], 10)
    assert alone[1] == pytest.approx(ideal.summary.metrics["ndcg@10"])
