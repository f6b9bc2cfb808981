"""Two runs query by query: wins, losses, the paired test, where to drill down, relevance marks."""

from __future__ import annotations

from types import MappingProxyType

import pytest

from eval.data.evalsets import EvalSet
from eval.data.qa import Span
from eval.data.shapes import BeirDataset
from eval.runs.preset_run import PresetRun, QueryOutcome, summarize
from eval.scoring.compare import compare, is_relevant, query_deltas, ranked_queries
from rag.chunking.base import Chunk

QRELS = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 1}, "q4": {"d": 1}}
QUERIES = {"q1": "first", "q2": "second", "q3": "third", "q4": "fourth"}
DATASET = BeirDataset("t", {d: {"title": "", "text": d} for d in "abcdx"}, QUERIES, QRELS, "0")


def _run(name: str, on_top: str, failed: str = "") -> PresetRun:
    """Queries named in `on_top` rank their relevant document first (MRR 1), the others
    second, below x (MRR 0.5); queries in `failed` raise."""
    outcomes = [
        QueryOutcome(q, {}, 1.0, "boom") if q in failed.split() else
        QueryOutcome(q, {next(iter(QRELS[q])): 2.0 if q in on_top.split() else 0.5, "x": 1.0}, 1.0)
        for q in QUERIES
    ]
    return summarize(name, DATASET, outcomes, ["mrr@10"], n_resamples=10)


A = _run("a", "q1 q3")
B = _run("b", "q2 q3 q4")


def test_deltas_line_up_the_queries_biggest_change_first() -> None:
    deltas = query_deltas(A, B, "mrr@10", QUERIES)
    assert [d.qid for d in deltas] == ["q1", "q2", "q4", "q3"]
    assert [d.outcome for d in deltas] == ["loss", "win", "win", "tie"]
    assert deltas[0].a == 1.0 and deltas[0].b == 0.5 and deltas[0].query == "first"


def test_compare_is_the_paired_test_of_b_minus_a() -> None:
    test = compare(A, B, "mrr@10", n_resamples=200)
    assert (test.wins, test.losses, test.n) == (2, 1, 4)
    assert test.diff == pytest.approx((-0.5 + 0.5 + 0.0 + 0.5) / 4)


def test_an_unknown_metric_lists_the_ones_the_run_has() -> None:
    with pytest.raises(KeyError, match="it has: mrr@10"):
        query_deltas(A, B, "ndcg@10", QUERIES)


def test_queries_to_drill_into_come_worst_first_failed_ones_before_all() -> None:
    run = _run("c", "q1", failed="q3")
    assert ranked_queries(run, "mrr@10", QUERIES) == ["q3", "q2", "q4", "q1"]


def test_relevance_marks_by_document_or_by_span_overlap() -> None:
    chunk = Chunk("a#0", "a", 100, 200, "x")
    assert is_relevant(EvalSet(DATASET), "q1", chunk)
    assert not is_relevant(EvalSet(DATASET), "q2", chunk)
    spans = EvalSet(DATASET, MappingProxyType({"q1": (Span("a", 150, 400),),
                                               "q2": (Span("a", 200, 300),)}))
    assert is_relevant(spans, "q1", chunk)
    assert not is_relevant(spans, "q2", chunk)  # touches at 200, does not overlap
