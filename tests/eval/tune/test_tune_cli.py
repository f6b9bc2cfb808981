"""`python -m eval tune` end to end on the 20-query sample (hashing embedder): the report's
out-of-fold scores come from each fold's choice on the other folds, and the exported preset
loads and reproduces the in-sample score through `eval run`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval.cli import main
from eval.data.beir import load_beir
from eval.runs.sweep import GridAxis, run_sweep
from eval.tune.protocol import split_folds
from rag.config import load_preset
from rag.paths import PROJECT_ROOT

SAMPLE = PROJECT_ROOT / "datasets" / "beir_sample"


@pytest.fixture
def space(tmp_path: Path) -> Path:
    path = tmp_path / "space.yaml"
    path.write_text("settings:\n  fusion.k: [1, 60, 1000]\n  fusion.method: [rrf, dbsf]\n")
    return path


def test_tune_reports_out_of_fold_choices_and_exports_a_preset_that_reproduces_them(
    tmp_path: Path, space: Path, hashing_presets: None, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert main(["tune", "--dataset", str(SAMPLE), "--preset", "hybrid", "--space", str(space),
                 "--folds", "4", "--trials", "10", "--final", "--out", str(out),
                 "--resamples", "200", "--metrics", "ndcg@10", "recall@10"]) == 0
    report = json.loads((out / "tune.json").read_text())
    printed = capsys.readouterr().out
    assert "out-of-fold ndcg@10" in printed and "optimism" in printed
    assert report["protocol"]["search"] == "grid"  # 6 points <= 10 trials

    # the same six points scored independently by a sweep over the same cached lists
    dataset = load_beir(SAMPLE)
    sweep = run_sweep(dataset, load_preset("hybrid"),
                      [GridAxis("fusion.k", (1, 60, 1000)), GridAxis("fusion.method",
                                                                     ("rrf", "dbsf"))],
                      ["ndcg@10"], n_resamples=10)
    per_point = [(dict(p.overrides), p.run.scores["ndcg@10"].values) for p in sweep.points]
    rows = [json.loads(line) for line in (out / "perquery.jsonl").read_text().splitlines()]
    folds = split_folds(sorted(dataset.queries), 4, 0)
    assert sorted(r["qid"] for r in rows) == sorted(dataset.queries)  # each query once
    for i, test in enumerate(folds):
        train = [q for q in dataset.queries if q not in test]
        best = max(per_point, key=lambda pv: sum(pv[1][q] for q in train))  # first of ties
        assert report["folds"][i]["chosen"] == best[0]
        for row in rows:
            if row["qid"] in test:
                assert row["fold"] == i and row["point"] == best[0]
                assert row["metrics"]["ndcg@10"] == pytest.approx(best[1][row["qid"]])
    assert report["optimism"] == pytest.approx(
        report["in_sample"]["metrics"]["ndcg@10"] - report["out_of_fold"]["metrics"]["ndcg@10"])
    assert set(report["paired_tests"]) == {"default", "bm25", "dense"}
    assert report["best_single_retriever"] in ("bm25", "dense")

    preset = Path(report["final_preset"])
    config = load_preset(preset)
    assert config.name == "hybrid-tuned"
    assert {"fusion.k": config.fusion.k, "fusion.method": config.fusion.method} == \
        report["in_sample"]["point"]
    again = tmp_path / "again.json"
    assert main(["run", "--dataset", str(SAMPLE), "--preset", str(preset), "--out", str(again),
                 "--no-store", "--metrics", "ndcg@10", "--resamples", "10"]) == 0
    scored = json.loads(again.read_text())["runs"][0]["metrics"]["ndcg@10"]
    assert scored == pytest.approx(report["in_sample"]["metrics"]["ndcg@10"])


def test_a_bad_space_fails_before_any_search(
    tmp_path: Path, hashing_presets: None, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("settings:\n  fusion.kk: [1, 2]\n")
    assert main(["tune", "--dataset", str(SAMPLE), "--preset", "hybrid", "--space", str(bad),
                 "--out", str(tmp_path / "o")]) == 2
    assert "fusion.kk" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_without_a_space_tune_searches_the_presets_own_fusion(
    tmp_path: Path, hashing_presets: None, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert main(["tune", "--dataset", str(SAMPLE), "--preset", "hybrid", "--folds", "2",
                 "--trials", "4", "--out", str(out), "--resamples", "20",
                 "--metrics", "ndcg@10"]) == 0
    assert "no --space: tuning hybrid's fusion (rrf): fusion.method, fusion.k, retrieval.depth" \
        in capsys.readouterr().out
    settings = json.loads((out / "tune.json").read_text())["space"]["settings"]
    assert settings["fusion.method"] == {"choices": ["rrf"]}  # the preset's method, its k
    assert settings["fusion.k"]["low"] == 1 and settings["retrieval.depth"]["choices"]
    # a preset with one list has no fusion to tune: the error says what to give instead
    assert main(["tune", "--dataset", str(SAMPLE), "--preset", "bm25",
                 "--out", str(tmp_path / "o")]) == 2
    assert "give --space" in capsys.readouterr().err and not (tmp_path / "o").exists()
