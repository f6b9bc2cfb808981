"""`python -m eval intents`: the router's accuracy on datasets/intents.csv at the calibrated
threshold and at a given one, printed and written as JSON (hashing embedder: no model load)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval.cli import main
from rag.config import load_preset
from rag.query.intent.evaluate import evaluate, load_labeled, semantic_scores
from rag.query.stage import semantic_router


def test_intents_writes_accuracy_per_threshold_that_matches_the_evaluator(
    tmp_path: Path, hashing_presets: None, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "intents.json"
    assert main(["intents", "--threshold", "0.99", "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    calibrated, given = report["runs"]
    assert given["threshold"] == 0.99 and calibrated["chosen_by"].startswith("leave-one-out")
    labeled = load_labeled()
    assert given["queries"] == len(labeled)
    config = load_preset("axiom")
    scores = semantic_scores(labeled, semantic_router(config.embedding))
    expected = evaluate(labeled, scores, 0.99, config.query.intent.default_intent).accuracy
    assert given["accuracy"] == pytest.approx(expected)
    assert sum(r["n"] for r in given["recall_by_intent"].values()) == len(labeled)
    assert "accuracy" in capsys.readouterr().out
