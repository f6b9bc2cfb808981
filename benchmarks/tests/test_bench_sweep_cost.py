"""`python -m benchmarks sweep`: the grids it times and the JSON it writes (no timing asserts)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from benchmarks.cli import main
from benchmarks.sweep_cost import k_values, sweep_grids
from rag.paths import PROJECT_ROOT

SAMPLE = PROJECT_ROOT / "datasets" / "beir_sample"


def test_k_values_are_distinct_and_span_the_range() -> None:
    for n in (2, 10, 20, 50):
        values = k_values(n)
        assert len(values) == n and values == sorted(set(values))
        assert values[0] == 1 and values[-1] == 1000


def test_grids_have_the_asked_number_of_points() -> None:
    grids = sweep_grids(20)
    for axes in grids.values():
        assert math.prod(len(a.values) for a in axes) == 20
    weighted = {a.key: a.values for a in grids["weighted_rrf_k_x_weights"]}
    assert weighted["fusion.method"] == ("weighted_rrf",) and len(weighted["fusion.weights"]) == 2
    with pytest.raises(ValueError, match="even"):
        sweep_grids(7)


@pytest.mark.slow  # indexes the BEIR sample once (shared with the other eval tests)
def test_bench_sweep_writes_figures_and_ratios(tmp_path: Path) -> None:
    out = tmp_path / "sweep_cost.json"
    assert main(["sweep", "--dataset", str(SAMPLE), "--points", "4", "--repeats", "2",
                 "--resamples", "20", "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["dataset"] == "beir_sample" and report["preset"] == "hybrid"
    assert report["n_queries"] > 0 and report["repeats"] == 2
    assert set(report["policy"]) == {"plain", "sweep"} and report["target_ratio"] == 1.3
    assert len(report["load_average"]) == 2 and all(len(a) == 3 for a in report["load_average"])
    assert len(report["plain_samples_s"]) == 2
    assert report["plain_min_s"] == min(report["plain_samples_s"])
    assert len(report["round_load_average"]) == 2
    assert report["command"].startswith("python -m benchmarks sweep --dataset ")
    assert f"--out {out}" in report["command"] and "--repeats 2" in report["command"]
    assert min(report["plain_samples_s"]) > 0
    assert report["plain_s"] == pytest.approx(sum(report["plain_samples_s"]) / 2)  # median of 2
    assert set(report["sweeps"]) == {"weighted_rrf_k_x_weights", "rrf_k"}
    for sweep in report["sweeps"].values():
        assert sweep["points"] == 4 and len(sweep["samples_s"]) == 2
        assert math.prod(len(v) for v in sweep["grid"].values()) == 4
        assert 0 < sweep["retrieval_s"] and 0 < sweep["rescoring_s"]
        assert sweep["retrieval_s"] + sweep["rescoring_s"] <= max(sweep["samples_s"])
        assert sweep["ratio"] == pytest.approx(sweep["total_s"] / report["plain_s"])
        assert sweep["paired_ratio"] > 0
        assert sweep["min_total_s"] == min(sweep["samples_s"])
        assert sweep["min_ratio"] == pytest.approx(sweep["min_total_s"] / report["plain_min_s"])
        assert sweep["per_point_ms"] == pytest.approx(sweep["rescoring_s"] / 4 * 1000)
        assert len(sweep["cpu_samples_s"]) == 2 and min(sweep["cpu_samples_s"]) > 0
        assert sweep["cpu_ratio"] == pytest.approx(
            sum(sweep["cpu_samples_s"]) / sum(report["plain_cpu_samples_s"]))  # medians of 2
        assert sweep["cpu_paired_ratio"] > 0
    assert len(report["plain_cpu_samples_s"]) == 2
    assert report["plain_cpu_s"] == pytest.approx(sum(report["plain_cpu_samples_s"]) / 2)


def test_bench_sweep_needs_a_dataset(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="--dataset"):
        main(["sweep", "--out", str(tmp_path / "x.json")])
