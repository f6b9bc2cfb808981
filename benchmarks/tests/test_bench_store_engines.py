"""`python -m benchmarks scale --engines edge,local-mode` on a tiny corpus (hashing embedder):
both embedded engines measured side by side through the product's ingest and search, each in
its own process, with every passage ingested and the private share recorded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_bench_scale import _bench, _write_corpus


def test_engines_are_measured_side_by_side(tmp_path: Path) -> None:
    corpus, queries = _write_corpus(tmp_path, 40)
    assert _bench(tmp_path, corpus, queries, "40", "--engines", "edge,local-mode") == 0
    report = json.loads((tmp_path / "scale.json").read_text())
    points = {p["engine"]: p for p in report["points"]}
    assert set(points) == {"edge", "local-mode"}
    for point in points.values():
        assert point["passages"] == 40 and point["private"] == 6  # 1 in 7: 0, 7, …, 35
        assert point["queries"] == 4 and point["dense_filtered"]["n"] == 4
        assert point["hybrid_filtered"]["p50_ms"] >= point["dense_filtered"]["p50_ms"] * 0.5
    assert points["edge"]["index_build_seconds"] > 0 and points["local-mode"]["index_build_seconds"] == 0
    assert report["command"].startswith("python -m benchmarks scale") and len(report["notes"]) == 2


def test_an_unknown_engine_is_refused_before_anything_runs(tmp_path: Path) -> None:
    corpus, queries = _write_corpus(tmp_path, 10)
    with pytest.raises(SystemExit, match="expected some of edge, local-mode"):
        _bench(tmp_path, corpus, queries, "10", "--engines", "edge,chroma")
    assert not (tmp_path / "work").exists()


def test_reuse_searches_the_collection_an_earlier_run_built(tmp_path: Path) -> None:
    corpus, queries = _write_corpus(tmp_path, 30)
    assert _bench(tmp_path, corpus, queries, "30", "--engines", "edge") == 0
    built = json.loads((tmp_path / "scale.json").read_text())["points"][0]
    assert _bench(tmp_path, corpus, queries, "30", "--engines", "edge", "--reuse") == 0
    report = json.loads((tmp_path / "scale.json").read_text())
    reused = report["points"][0]
    assert built["ingest_seconds"] > 0 and reused["ingest_seconds"] is None
    assert reused["index_build_seconds"] is None and reused["peak_rss_mb"] is None
    assert reused["passages"] == 30 and reused["private"] == built["private"] == 5
    assert reused["cpu_hybrid_filtered"]["n"] == 4 and "--reuse" in report["command"]
    assert "reused" in report["notes"][0]
    (tmp_path / "work" / "edge-30" / "marker").write_text("left by an earlier run")
    assert _bench(tmp_path, corpus, queries, "30", "--engines", "edge") == 0  # without: rebuilt
    rebuilt = json.loads((tmp_path / "scale.json").read_text())["points"][0]
    assert rebuilt["ingest_seconds"] > 0 and rebuilt["embed_seconds"] is not None
    assert not (tmp_path / "work" / "edge-30" / "marker").exists()  # in a fresh data folder
