"""The Judge page's simulation figure draws the current runs (simulate3_*.json) and falls back
to the older files only when no current run is there; the shipped current runs hold the
page's default judging order."""

from __future__ import annotations

import json
from pathlib import Path

from eval.judging.strategies.base import DEFAULT_STRATEGY
from pages.ui.judge_scores import RESULTS, simulation_results


def test_current_runs_win_over_older_files(tmp_path: Path) -> None:
    for name in ("simulate_a.json", "simulate_a_fill_sample.json"):
        (tmp_path / name).write_text("{}")
    assert [p.name for p in simulation_results(tmp_path)] == ["simulate_a.json"]
    (tmp_path / "simulate3_a.json").write_text("{}")
    assert [p.name for p in simulation_results(tmp_path)] == ["simulate3_a.json"]


def test_the_shipped_runs_measure_the_default_order() -> None:
    paths = simulation_results(RESULTS)
    assert paths and all(p.name.startswith("simulate3_") for p in paths)
    for p in paths:
        assert DEFAULT_STRATEGY in json.loads(p.read_text(encoding="utf-8"))["strategies"]
