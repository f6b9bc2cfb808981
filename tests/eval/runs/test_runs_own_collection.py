"""Runs on a collection's own judged test set record the set's hash, labels and judgments
version; deleting the collection leaves them readable, listed as orphaned and comparable."""

from __future__ import annotations

from pathlib import Path

import pytest
from own_collection import build_collection, sample_rows

from eval.cli import main as eval_main
from eval.judging.store import open_judging
from eval.runs.history import list_rows
from eval.runs.run_compare import compare_runs
from eval.runs.store import load_run
from eval.testsets.store import save_set
from rag.index.derived import delete_collection


@pytest.mark.usefixtures("hashing_presets")
def test_judged_set_runs_survive_their_collection(tmp_path: Path) -> None:
    name = build_collection(tmp_path)
    rows = [{**r, "provenance": {"method": "judged", "was": "mined"}} for r in sample_rows(n=3)]
    save_set(name, "checked", rows)
    judging = open_judging(name, "checked")
    judging.judge(rows[0]["id"], ("lumen-notes-faq.txt", 0, 10), "relevant", "ada")
    runs = tmp_path / "runs"
    assert eval_main(["run", "--collection", name, "--qa", "checked", "--preset", "bm25",
                      "--preset", "hybrid", "--out", str(tmp_path / "r.json"), "--resamples",
                      "20", "--runs-dir", str(runs), "--user", "ada"]) == 0
    rows_before = list_rows(runs, collection=name, qa="checked")
    assert [r.label for r in rows_before] == ["hybrid", "bm25"]
    test = rows_before[0].testset
    assert test["labels"] == "human-judged" and test["collection"] == name
    assert str(test["judgments"]).startswith("1 judgments")
    assert rows_before[0].data["user"] == "ada" and not rows_before[0].orphaned

    delete_collection(name)
    after = list_rows(runs, collection=name)
    assert [r.orphaned for r in after] == [True, True] and all(r.comparable for r in after)
    bm25, hybrid = (load_run(r.path) for r in reversed(after))
    comparison = compare_runs(bm25, hybrid)
    assert comparison.not_comparable == () and comparison.metric_diff("ndcg@10").n == 3
    assert bm25.trace(str(bm25.per_query["qid"].iloc[0])) is not None  # traces kept too
