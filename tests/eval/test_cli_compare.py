"""`python -m eval runs list` and `python -m eval compare` on stored runs (the regression gate)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from stored_runs import make_run

from eval.cli import main


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    base = {f"q{i:02d}": 0.8 for i in range(40)}
    make_run(tmp_path, "bm25", base, collection="docs")
    make_run(tmp_path, "hybrid", {q: 0.5 if i < 20 else 0.8 for i, q in enumerate(base)},
             collection="docs", config={"name": "hybrid", "fusion": {"k": 10}})
    make_run(tmp_path, "dense", {"q00": 1.0}, collection="other", testset="set-b")
    return tmp_path


def test_runs_list_filters_and_prints_json(runs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["runs", "list", "--runs-dir", str(runs), "--collection", "docs", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["label"] for r in rows] == ["hybrid", "bm25"]
    assert rows[0]["testset"]["name"] == "set-a" and rows[0]["orphaned"] is True
    assert main(["runs", "list", "--runs-dir", str(runs), "--qa", "set-b"]) == 0
    text = capsys.readouterr().out
    assert "dense" in text and "bm25" not in text and "1 run(s)" in text


def test_compare_gate_exit_codes_and_regressed_questions(
    runs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    common = ["--runs-dir", str(runs), "--collection", "docs", "--qa", "set-a"]
    assert main(["compare", "bm25-data", "latest", *common, "--fail-on-regression", "0.05"]) == 1
    out = capsys.readouterr().out
    assert "REGRESSION" in out and "fusion.k: 60 -> 10" in out
    assert "regressed by more than 0.05 (20)" in out and "q00" in out
    assert main(["compare", "latest", "bm25-data", *common, "--fail-on-regression", "0.05"]) == 0
    assert "no regression" in capsys.readouterr().out
    assert main(["compare", "best", "latest", *common, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["baseline"]["label"] == "bm25" and report["metrics"][0]["diff"] < 0
    assert len(report["worse"]) == 20 and "gate" not in report


def test_compare_unknown_run_is_one_clear_error(
    runs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["compare", "nope", "latest", "--runs-dir", str(runs)]) == 2
    assert "no stored run 'nope'" in capsys.readouterr().err


def test_compare_across_test_sets_says_so(runs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", "dense-data", "bm25-data", "--runs-dir", str(runs)]) == 0
    assert "NOT COMPARABLE: different test sets (set-b vs set-a)" in capsys.readouterr().out
