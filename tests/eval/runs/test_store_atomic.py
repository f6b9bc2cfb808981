"""Runs are stored atomically, with what they were scored on, and their traces come back."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from stored_runs import make_run

from eval.runs.history import list_rows
from eval.runs.store import TRACES_FILE, load_run, load_trace, save_run
from rag.trace import StageRecord, Trace


def test_a_run_killed_while_writing_leaves_nothing_in_the_list(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_run(tmp_path, "bm25", {"q1": 0.5})

    def killed(*_args: object, **_kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(pd.DataFrame, "to_parquet", killed)
    with pytest.raises(KeyboardInterrupt):
        make_run(tmp_path, "hybrid", {"q1": 0.7})
    assert [p.name for p in tmp_path.iterdir()] == [list_rows(tmp_path)[0].id]
    # a folder a killed process left half written (kill -9: no clean-up ran) is skipped
    half = tmp_path / ".tmp-20991231T000000000000Z-dense-00000000-1"
    half.mkdir()
    (half / "run.json").write_text("{")
    broken = tmp_path / "20991231T000000000000Z-broken"
    broken.mkdir()
    (broken / "run.json").write_text("{not json")
    assert [r.label for r in list_rows(tmp_path)] == ["bm25"]


def test_the_record_names_what_the_run_was_scored_on(tmp_path: Path) -> None:
    folder = make_run(tmp_path, "hybrid", {"q1": 0.5, "q2": None}, collection="mine",
                      judgments="12 judgments, last 2026-12-01")
    info = json.loads((folder / "run.json").read_text())
    assert info["schema"] == 2 and info["id"] == folder.name
    assert len(info["config_hash"]) == 12 and info["user"] == "ada"
    assert info["testset"]["hash"] == "tset0000" and info["testset"]["judgments"].startswith("12")
    assert info["git_commit"] is None or len(info["git_commit"]) >= 40
    run = load_run(folder)
    values = run.metric_values("ndcg@10")
    assert values["q1"] == 0.5 and values.isna()["q2"]
    with pytest.raises(KeyError, match="has no metric 'mrr@10'"):
        run.metric_values("mrr@10")


def test_orphaned_when_the_collection_is_gone(tmp_path: Path) -> None:
    from rag.paths import collections_root

    (collections_root() / "kept").mkdir(parents=True, exist_ok=True)
    make_run(tmp_path, "a", {"q1": 0.5}, collection="kept")
    make_run(tmp_path, "b", {"q1": 0.5}, collection="deleted-long-ago")
    marks = {r.label: r.orphaned for r in list_rows(tmp_path)}
    assert marks == {"a": False, "b": True}
    assert load_run(list_rows(tmp_path, collection="deleted-long-ago")[0].path).preset == "b"


def test_traces_are_kept_per_question(tmp_path: Path) -> None:
    trace = Trace(query="where is it", preset="p")
    trace.add(StageRecord(stage="retrieve", settings={"depth": 10}, wall_ms=1.5))
    info = {"summary": {"preset": "p"}, "dataset": {"hash": "h"}, "config": {}}
    folder = save_run(info, [{"qid": "q1", "metrics": {"ndcg@10": 1.0}}], tmp_path,
                      {"q1": trace})
    assert (folder / TRACES_FILE).is_file()
    back = load_trace(folder, "q1")
    assert back is not None and back.query == "where is it"
    assert back.records[0].stage == "retrieve" and back.records[0].settings == {"depth": 10}
    assert load_trace(folder, "q2") is None
