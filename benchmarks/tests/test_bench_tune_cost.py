"""`eval bench tune` times a cross-validated tune against one plain run and writes JSON whose
figures agree with each other (no timing is asserted: the machine is shared)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.cli import main
from rag.paths import PROJECT_ROOT


@pytest.mark.usefixtures("hashing_presets")
def test_bench_tune_writes_a_consistent_report(tmp_path: Path) -> None:
    space = tmp_path / "space.yaml"
    space.write_text("settings:\n  fusion.k: {low: 1, high: 100}\n")
    out = tmp_path / "bench.json"
    assert main(["tune", "--dataset", str(PROJECT_ROOT / "datasets" / "beir_sample"),
                 "--preset", "hybrid", "--space", str(space), "--folds", "2", "--trials", "3",
                 "--resamples", "50", "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["folds"] == 2 and report["trials"] == 3 and report["n_queries"] == 20
    assert report["ratio"] == pytest.approx(report["tune_s"] / report["plain_s"])
    # 3 searches (2 folds + all) of 3 trials over at most 20 queries, plus the baselines
    assert 0 < report["tail_runs"] <= 3 * 3 * 20 + 4 * 20
    assert report["retrieval_s"] + report["rescoring_s"] <= report["tune_s"]
