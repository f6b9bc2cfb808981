"""Evaluate-page figures and tables: CI bands, wins/losses, ceilings, results and trace tables."""

from __future__ import annotations

from types import MappingProxyType

import pytest

from eval.data.shapes import BeirDataset
from eval.diagnostics.ceiling import Ceiling
from eval.diagnostics.ceiling_report import ANY, CeilingReport
from eval.runs.evalset_runner import ScoredRun
from eval.runs.preset_run import QueryOutcome, summarize
from eval.runs.sweep import SweepPoint
from eval.scoring.compare import QueryDelta
from pages.ui.eval_figures import ceiling_chart, metric_intervals, sweep_curves, wins_losses
from pages.ui.eval_tables import candidates_frame, results_frame, stage_candidates, stage_frame
from rag.chunking.base import Chunk
from rag.config import load_preset
from rag.index.hits import Candidate, RankedList, RetrieverHit
from rag.retrieve.search import Retrieved
from rag.retrieve.stage import FuseOutput
from rag.trace import StageRecord, Trace

QRELS = {f"q{i}": {"a": 1} for i in range(6)}
DATASET = BeirDataset("t", {"a": {"title": "", "text": "a"}, "x": {"title": "", "text": "x"}},
                      {q: q for q in QRELS}, QRELS, "0")


def _run(label: str, hits: int, failed: int = 0):
    """`hits` queries rank the relevant document first, the rest second; `failed` raise."""
    outcomes = [QueryOutcome(q, {}, 1.0, "boom") if i < failed else
                QueryOutcome(q, {"a": 2.0 if i < hits else 0.5, "x": 1.0}, 1.0)
                for i, q in enumerate(QRELS)]
    return summarize(label, DATASET, outcomes, ["mrr@10"], n_resamples=200)


def _points(key: str, values: list, series: list | None = None) -> list[SweepPoint]:
    combos = [(v, s) for s in (series or [None]) for v in values]
    return [SweepPoint({key: v, **({"w": s} if s is not None else {})}, _run("p", 1 + i % 5))
            for i, (v, s) in enumerate(combos)]


def test_numeric_sweeps_draw_a_band_per_series_and_go_log_over_wide_ranges() -> None:
    fig = sweep_curves(_points("fusion.k", [1, 10, 100], series=["a", "b"]), "fusion.k",
                       "mrr@10", series="w")
    bands = [t for t in fig.data if t.fill == "toself"]
    lines = [t for t in fig.data if t.mode == "lines+markers"]
    assert len(bands) == len(lines) == 2 and [t.name for t in lines] == ["a", "b"]
    assert len(bands[0].x) == 6  # out along the upper bound, back along the lower
    assert fig.layout.xaxis.type == "log"
    assert list(fig.layout.xaxis.ticktext) == ["1", "10", "100"]  # labelled in full
    wide = sweep_curves(_points("fusion.k", [2, 20, 200]), "fusion.k", "mrr@10")
    assert list(wide.layout.xaxis.ticktext) == ["2", "20", "200"]  # never "2" for all three
    narrow = sweep_curves(_points("fusion.k", [40, 60]), "fusion.k", "mrr@10")
    assert narrow.layout.xaxis.type != "log"


def test_non_numeric_sweeps_use_error_bars_on_a_category_axis() -> None:
    values = [{"bm25": 0.6, "dense": 0.4}, {"bm25": 0.4, "dense": 0.6}]
    fig = sweep_curves(_points("fusion.weights", values), "fusion.weights", "mrr@10")
    (trace,) = fig.data
    assert list(trace.x) == ["bm25 0.6, dense 0.4", "bm25 0.4, dense 0.6"]
    assert trace.error_y.array is not None and fig.layout.xaxis.type == "category"


def test_wins_and_losses_split_the_queries_by_outcome() -> None:
    deltas = [QueryDelta("q1", "one", 0.5, 1.0), QueryDelta("q2", "two", 1.0, 0.5),
              QueryDelta("q3", "three", 1.0, 1.0), QueryDelta("q4", "four", 0.2, 0.9)]
    fig = wins_losses(deltas, "A", "B", "mrr@10")
    counts = {t.name: len(t.x) for t in fig.data}
    assert counts == {"B better (2)": 2, "A better (1)": 1, "tied (1)": 1}  # says whose
    assert fig.layout.xaxis.title.text == "A mrr@10"


def test_metric_intervals_plot_each_run_with_its_ci() -> None:
    runs = [ScoredRun(n, load_preset("bm25"), _run(n, h)) for n, h in (("low", 1), ("high", 5))]
    (trace,) = metric_intervals(runs, "mrr@10").data
    assert list(trace.x) == ["low", "high"] and trace.y[0] < trace.y[1]
    low, high = runs[0].run.summary.ci95["mrr@10"]
    assert trace.error_y.arrayminus[0] == pytest.approx(trace.y[0] - low)
    table = results_frame(runs)
    assert list(table["run"]) == ["low", "high"]
    assert table["mrr@10"].iloc[1] > table["mrr@10"].iloc[0]
    assert table["mrr@10 95% CI"].iloc[0] == f"[{low:.3f}, {high:.3f}]"


def test_results_show_failures_and_na_intervals() -> None:
    run = ScoredRun("broken", load_preset("bm25"), _run("broken", 0, failed=6))
    row = results_frame([run]).iloc[0]
    assert row["failed"] == 6 and row["mrr@10 95% CI"] == "n/a"


def test_ceiling_chart_shows_each_list_the_union_and_oracle_vs_actual() -> None:
    recall = {ANY: {10: 0.8, 50: 1.0}, "bm25": {10: 0.6, 50: 0.9}, "dense": {10: 0.7, 50: 0.8}}
    report = CeilingReport("hybrid", 50, recall, 0.9,
                           Ceiling(MappingProxyType(recall[ANY]), 10, 0.95, 0.7, 20))
    fig = ceiling_chart(report)
    names = [t.name for t in fig.data]
    assert names[:3] == [ANY, "bm25", "dense"] and "kept by post-steps" in names
    bars = next(t for t in fig.data if t.type == "bar")
    assert list(bars.y) == [0.7, 0.95]
    assert fig.layout.xaxis.type == "log" and list(fig.layout.xaxis.ticktext) == ["10", "50"]
    assert fig.layout.modebar.orientation == "v"  # the toolbar stays off the titles


def _candidate(chunk_id: str, doc: str, rank: int) -> Candidate:
    hit = RetrieverHit("bm25", rank, 3.0 / rank)
    return Candidate(Chunk(chunk_id, doc, 0, 4, "text"), 1.0 / rank,
                     hits=MappingProxyType({"bm25": hit}),
                     stage_scores=MappingProxyType({"fusion": 1.0 / rank}))


def test_trace_tables_list_stages_and_mark_relevant_candidates() -> None:
    fused = (_candidate("a#0", "a", 1), _candidate("x#0", "x", 2))
    trace = Trace("q", "hybrid", [
        StageRecord("retrieve", output=Retrieved(MappingProxyType({"bm25": RankedList("bm25", fused)}))),
        StageRecord("fuse", output=FuseOutput("rrf", fused), wall_ms=0.25),
        StageRecord("rerank", "skipped", reason="rerank.enabled is false"),
    ])
    stages = stage_frame(trace)
    assert list(stages["stage"]) == ["retrieve", "fuse", "rerank"]
    assert list(stages["candidates"].fillna(0)) == [2, 2, 0]
    assert stages["note"].iloc[2] == "rerank.enabled is false"
    exported = Trace.from_json(trace.to_json())  # drill-down works on saved traces too
    assert [c.chunk_id for c in stage_candidates(exported, "retrieve")] == ["a#0", "x#0"]
    assert stage_candidates(exported, "fuse") == stage_candidates(trace, "fuse") == fused
    table = candidates_frame(stage_candidates(trace, "fuse"), lambda c: c.doc_id == "a")
    assert list(table["relevant"]) == [True, False]
    assert list(table["bm25 rank"]) == [1, 2] and "fusion" in table.columns
