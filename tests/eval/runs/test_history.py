"""The run history: filters, not-comparable marks, and latest / best / id resolution."""

from __future__ import annotations

from pathlib import Path

import pytest
from stored_runs import make_run

from eval.runs.history import list_rows, resolve


def test_newest_first_filtered_and_marked(tmp_path: Path) -> None:
    old = make_run(tmp_path, "bm25", {"q1": 0.2}, collection="docs")
    make_run(tmp_path, "hybrid", {"q1": 0.4}, collection="docs", testset="set-b",
             testset_hash="other")
    relabelled = make_run(tmp_path, "dense", {"q1": 0.9}, collection="docs",
                          testset_hash="relabelled")
    new = make_run(tmp_path, "hybrid", {"q1": 0.3}, collection="docs", data_hash="newdocs0",
                   testset_hash="relabelled")
    rows = list_rows(tmp_path, collection="docs", qa="set-a")
    assert [r.path for r in rows] == [new, relabelled, old]
    assert rows[0].comparable and not rows[1].comparable and not rows[2].comparable
    assert "different documents" in rows[1].why_not
    assert "changed (questions or labels)" in rows[2].why_not
    assert [r.label for r in list_rows(tmp_path, preset="hybrid")] == ["hybrid", "hybrid"]
    assert list_rows(tmp_path, collection="nothing") == []


def test_latest_best_id_and_folder(tmp_path: Path) -> None:
    a = make_run(tmp_path, "bm25", {"q1": 0.2, "q2": 0.4})
    b = make_run(tmp_path, "dense", {"q1": 0.9, "q2": 0.9})
    c = make_run(tmp_path, "hybrid", {"q1": 0.5, "q2": 0.5})
    make_run(tmp_path, "other", {"q1": 1.0}, testset="set-z")
    assert resolve("latest", tmp_path, qa="set-a") == c
    assert resolve("best", tmp_path, qa="set-a") == b
    assert resolve("best", tmp_path, qa="set-a", preset="bm25") == a
    assert resolve(str(a), tmp_path) == a
    assert resolve(a.name, tmp_path) == a
    assert resolve("-dense-", tmp_path) == b
    with pytest.raises(LookupError, match="names 4 runs"):
        resolve("Z-", tmp_path)  # every id holds 'Z-': ambiguous
    with pytest.raises(LookupError, match="no stored run 'nope'"):
        resolve("nope", tmp_path)
    with pytest.raises(LookupError, match="no stored run for collection 'gone'"):
        resolve("latest", tmp_path, collection="gone")


def test_best_ignores_runs_on_other_labels(tmp_path: Path) -> None:
    make_run(tmp_path, "lucky", {"q1": 1.0}, testset_hash="easier-old-labels")
    fair = make_run(tmp_path, "fair", {"q1": 0.4})
    assert resolve("best", tmp_path, qa="set-a") == fair
