"""Runs are stored with config, dataset hash and versions, and read back query by query."""

from __future__ import annotations

from pathlib import Path

from eval.runs.store import list_runs, load_run, package_versions, save_run


def _info(preset: str) -> dict:
    return {
        "summary": {"preset": preset, "n_queries": 2, "failed": 1, "metrics": {"ndcg@10": 0.5}},
        "dataset": {"name": "tiny", "hash": "abcdef0123456789"},
        "config": {"fusion": {"k": 60}},
    }


ROWS = [
    {"qid": "q1", "query": "a", "metrics": {"ndcg@10": 1.0}, "latency_ms": 2.0, "error": None,
     "ranking": [["d1", 3.0]]},
    {"qid": "q2", "query": "b", "metrics": {"ndcg@10": None}, "latency_ms": 1.0,
     "error": "RuntimeError: boom", "ranking": []},
]


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    folder = save_run(_info("hybrid"), ROWS, root=tmp_path)
    assert folder.parent == tmp_path and "hybrid" in folder.name and "abcdef01" in folder.name
    run = load_run(folder)
    assert run.preset == "hybrid"
    assert run.info["config"] == {"fusion": {"k": 60}}
    assert run.info["dataset"]["hash"] == "abcdef0123456789"
    assert run.info["versions"]["numpy"] and run.info["versions"]["python"]
    table = run.per_query
    assert list(table["qid"]) == ["q1", "q2"]
    assert table.loc[0, "metric:ndcg@10"] == 1.0
    assert table.loc[1, "error"] == "RuntimeError: boom"


def test_list_runs_newest_first(tmp_path: Path) -> None:
    first = save_run(_info("bm25"), ROWS, root=tmp_path)
    second = save_run(_info("dense"), ROWS, root=tmp_path)
    (tmp_path / "stray").mkdir()
    assert list_runs(tmp_path) == [second, first]


def test_package_versions_report_absent_packages_as_none() -> None:
    versions = package_versions(["numpy", "surely-not-installed-pkg"])
    assert versions["numpy"] and versions["surely-not-installed-pkg"] is None
