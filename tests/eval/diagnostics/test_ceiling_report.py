"""Ceiling report: recall per list beside their union, what post-steps kept, and the verdict."""

from __future__ import annotations

import math
from types import MappingProxyType

import pytest

from eval.data.shapes import BeirDataset
from eval.diagnostics.ceiling import Ceiling
from eval.diagnostics.ceiling_report import ANY, CeilingReport, final_recall, per_list_recall, report
from eval.runs.candidates import QueryLists
from eval.runs.evalset_runner import ScoredRun
from eval.runs.preset_run import QueryOutcome, summarize
from rag.chunking.base import Chunk
from rag.config import load_preset, with_overrides
from rag.index.hits import Candidate, RankedList

QRELS = {"q1": {"a": 2, "b": 1, "c": 1}, "q2": {"d": 1}}
DATASET = BeirDataset("t", {d: {"title": "", "text": d} for d in "abcdxyz"},
                      {"q1": "one", "q2": "two"}, QRELS, "0" * 64)


def _list(name: str, docs: str) -> RankedList:
    return RankedList(name, tuple(Candidate(Chunk(f"{d}#0", d, 0, 1, d), 1.0 / (i + 1))
                                  for i, d in enumerate(docs)))


def _lists(qid: str, **lists: str) -> QueryLists:
    return QueryLists(qid, MappingProxyType({n: _list(n, docs) for n, docs in lists.items()}), 1.0)


CACHED = [_lists("q1", bm25="xaybz", dense="cxxxx"), _lists("q2", bm25="xyzxd", dense="xxxxx")]


def _scored(rankings: dict[str, dict[str, float]], depth: int = 5) -> ScoredRun:
    outcomes = [QueryOutcome(q, r, 1.0) for q, r in rankings.items()]
    run = summarize("t", DATASET, outcomes, ["ndcg@10"], n_resamples=10)
    config = with_overrides(load_preset("hybrid"), {"retrieval.depth": depth,
                                                    "retrieval.top_k": depth})
    return ScoredRun("t", config, run)


def test_recall_of_each_list_and_of_their_union() -> None:
    recall = per_list_recall(QRELS, CACHED, depths=(1, 2, 5))
    # q1: bm25 finds a at 2 and b at 4; dense finds c at 1.  q2: only bm25 finds d, at 5.
    assert recall["bm25"] == pytest.approx({1: 0.0, 2: 1 / 6, 5: (2 / 3 + 1) / 2})
    assert recall["dense"] == pytest.approx({1: 1 / 6, 2: 1 / 6, 5: 1 / 6})
    assert recall[ANY] == pytest.approx({1: 1 / 6, 2: 1 / 3, 5: 1.0})


def test_final_recall_counts_what_the_run_returned_over_judged_queries() -> None:
    run = _scored({"q1": {"a": 1.0, "x": 0.5}, "q2": {"d": 1.0}}).run
    assert final_recall(QRELS, run) == pytest.approx((1 / 3 + 1) / 2)
    assert math.isnan(final_recall({}, run))


def test_report_oracle_bounds_the_run_and_blames_ranking_when_order_is_wrong() -> None:
    # every relevant unit is returned, but below the irrelevant ones
    scored = _scored({"q1": {"x": 9.0, "y": 8.0, "c": 3.0, "b": 2.0, "a": 1.0},
                      "q2": {"x": 2.0, "d": 1.0}})
    result = report("t", QRELS, CACHED, scored)
    assert result.final_recall == 1.0
    assert result.ceiling.oracle_ndcg == pytest.approx(1.0)
    assert result.ceiling.actual_ndcg < 0.7
    verdict = result.verdict()
    assert verdict.bottleneck == "ranking"
    assert verdict.ranking_gap == pytest.approx(1.0 - result.ceiling.actual_ndcg)


def _report(recall_at_pool: float, final: float, oracle: float, actual: float) -> CeilingReport:
    ceiling = Ceiling(MappingProxyType({10: recall_at_pool}), 10, oracle, actual, 20)
    return CeilingReport("t", 10, {ANY: {10: recall_at_pool}}, final, ceiling)


@pytest.mark.parametrize(
    ("recall", "final", "oracle", "actual", "expected", "says"),
    [
        (0.5, 0.5, 0.55, 0.5, "retrieval", "Fix retrieval"),  # lists never had half of them
        (1.0, 0.5, 0.55, 0.5, "filtering", "Fix filtering"),  # lists had them; post-steps cut
        (1.0, 1.0, 1.0, 0.6, "ranking", "Fix ranking"),
        (1.0, 1.0, 0.99, 0.985, "none", "Near the ceiling"),
    ],
)
def test_verdict_names_the_biggest_gap(
    recall: float, final: float, oracle: float, actual: float, expected: str, says: str
) -> None:
    verdict = _report(recall, final, oracle, actual).verdict()
    assert verdict.bottleneck == expected
    assert verdict.message.startswith(says)
    assert verdict.retrieval_gap == pytest.approx(1 - oracle)
    assert verdict.ranking_gap == pytest.approx(oracle - actual)


def test_verdict_without_scored_queries_says_so() -> None:
    verdict = _report(math.nan, math.nan, math.nan, math.nan).verdict()
    assert verdict.bottleneck == "none" and "nothing to diagnose" in verdict.message
