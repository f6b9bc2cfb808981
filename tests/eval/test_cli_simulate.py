"""`python -m eval simulate-judging` on the bundled BEIR sample (two systems, hashing embedder):
the report holds every figure the issue names, per strategy and budget, and both baselines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval.cli import main
from rag.paths import PROJECT_ROOT


@pytest.mark.usefixtures("hashing_presets")
def test_simulate_judging_writes_every_figure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("RAG_WORKBENCH_DATA", str(tmp_path / "data"))
    out = tmp_path / "sim.json"
    argv = ["simulate-judging", "--dataset", str(PROJECT_ROOT / "datasets" / "beir_sample"),
            "--systems", "bm25,dense", "--budget", "0.2", "0.5", "--strategy", "bandit", "mtf",
            "--seed", "0", "1", "--no-dense", "--out", str(out)]
    assert main(argv) == 0
    report = json.loads(out.read_text())
    assert report["systems"] == ["bm25", "dense"] and report["depth"] == 10
    assert report["pool_size"] > 0 and report["questions"] == 20
    for figures in (report["strategies"]["bandit"]["0.2"], report["strategies"]["mtf"]["0.5"],
                    report["baselines"]["random_unjudged_nonrelevant"]["0.2"],
                    report["baselines"]["random_bpref"]["0.5"]):
        seed = figures["seeds"]["1"]
        assert {"tau", "tau_ci95", "separated_pairs_kept", "max_abs_error", "judgments",
                "pool_size", "relevant_found"} <= set(seed)
        assert seed["pool_size"] == report["pool_size"]
    half = report["strategies"]["bandit"]["0.5"]["seeds"]["0"]["judgments"]
    assert half == round(0.5 * report["pool_size"])
    cached = list((tmp_path / "data").rglob("beir_sample-*.json"))
    assert len(cached) == 2  # each system's run kept for the next strategy, budget or seed
    assert main([*argv[:-1], str(tmp_path / "again.json")]) == 0
    assert "running bm25" not in capsys.readouterr().err.split("wrote")[-1]


def test_an_unknown_strategy_is_a_clear_error(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate-judging", "--dataset", "x", "--strategy", "nope", "--out",
                 str(tmp_path / "x.json")]) != 0
    assert "unknown judging order strategy 'nope'; valid:" in capsys.readouterr().err
    assert not (tmp_path / "x.json").exists()
