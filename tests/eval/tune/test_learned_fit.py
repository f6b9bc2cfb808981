"""Tuning a learning fusion method: the learned fusion is trained per fold on training queries
only (eval/tune/fitting.py), and `--final` exports a preset whose model file travels with it.
Runs once the learned fusion (eval.runs.learned_fusion) is in the tree."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from eval.cli import main
from eval.data.shapes import Qrels
from eval.runs.candidates import QueryLists
from eval.tune import fitting
from rag.config import PipelineConfig, load_preset
from rag.index import Collection
from rag.paths import PROJECT_ROOT

pytest.importorskip("eval.runs.learned_fusion")
SAMPLE = PROJECT_ROOT / "datasets" / "beir_sample"


def test_learned_fusion_is_fitted_on_training_queries_only_and_exported_with_its_model(
    tmp_path: Path, hashing_presets: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    fitted_on: list[set[str]] = []
    real = fitting.FITTERS["learned"]

    def recording(config: PipelineConfig, heads: Sequence[QueryLists], qrels: Qrels,
                  collection: Collection) -> PipelineConfig:
        fitted_on.append({h.qid for h in heads})
        return real(config, heads, qrels, collection)

    monkeypatch.setitem(fitting.FITTERS, "learned", recording)
    space = tmp_path / "space.yaml"
    space.write_text("settings:\n  fusion.method: [learned]\n")  # every fold must fit it
    out = tmp_path / "out"
    assert main(["tune", "--dataset", str(SAMPLE), "--preset", "hybrid", "--space", str(space),
                 "--folds", "4", "--trials", "2", "--final", "--out", str(out),
                 "--resamples", "50", "--metrics", "ndcg@10"]) == 0
    report = json.loads((out / "tune.json").read_text())
    rows = [json.loads(line) for line in (out / "perquery.jsonl").read_text().splitlines()]
    everything = {r["qid"] for r in rows}
    assert sum(s == everything for s in fitted_on) <= 2  # only the in-sample and final fits
    learned = [f for f in report["folds"] if f["chosen"]["fusion.method"] == "learned"]
    assert len(learned) == 4
    for fold in learned:
        test = {r["qid"] for r in rows if r["fold"] == fold["fold"]}
        assert everything - test in fitted_on  # its model was trained on the other folds
    config = load_preset(Path(report["final_preset"]))
    assert Path(config.fusion.model).parent == out
