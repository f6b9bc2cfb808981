"""The Judge page's simulation figure draws the current runs (simulate5_*.json) and falls back
to the older files only when no current run is there; the shipped current runs hold the
page's default judging order (answer_seek) beside the selectable judge_uncertainty and
ndcg_gain, and the figure's legend marks the default's traces, not the other orders'."""

from __future__ import annotations

import json
from pathlib import Path

from eval.judging.sim_plot import LABELS, budget_figure
from eval.judging.strategies.base import DEFAULT_STRATEGY
from pages.ui.judge_scores import RESULTS, simulation_results


def test_current_runs_win_over_older_files(tmp_path: Path) -> None:
    for name in ("simulate_a.json", "simulate_a_fill_sample.json"):
        (tmp_path / name).write_text("{}")
    assert [p.name for p in simulation_results(tmp_path)] == ["simulate_a.json"]
    (tmp_path / "simulate5_a.json").write_text("{}")
    assert [p.name for p in simulation_results(tmp_path)] == ["simulate5_a.json"]


def test_the_shipped_runs_measure_the_default_order() -> None:
    paths = simulation_results(RESULTS)
    assert paths and all(p.name.startswith("simulate5_") for p in paths)
    for p in paths:
        strategies = json.loads(p.read_text(encoding="utf-8"))["strategies"]
        assert {DEFAULT_STRATEGY, "judge_uncertainty", "ndcg_gain"} <= set(strategies)


def test_the_figure_marks_the_default_orders_runs_as_default() -> None:
    fig = budget_figure(simulation_results(RESULTS)[:1])
    marked = {t.name for t in fig.data if t.name.endswith("(default)")}
    assert marked == {LABELS[DEFAULT_STRATEGY] + " (default)"}
    names = {t.name for t in fig.data}
    assert {LABELS["ndcg_gain"], LABELS["judge_uncertainty"]} <= names  # beside it, unmarked
