"""`python -m benchmarks scale` on tiny sizes (hashing embedder): one point per size, measured
in its own process, with the JSON and chart written. The real sizes never run in tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.cli import main

WORDS = "apt dpkg kernel module service journal package mirror backup rsync cron shell".split()


def _write_corpus(folder: Path, n: int) -> tuple[Path, Path]:
    corpus, queries = folder / "corpus.jsonl", folder / "queries.jsonl"
    corpus.write_text("".join(
        json.dumps({"_id": f"p{i}", "text": " ".join(WORDS[(i + j) % len(WORDS)] for j in range(12))
                    + f" passage {i}"}) + "\n" for i in range(n)))
    queries.write_text("".join(json.dumps({"_id": f"q{i}", "text": f"{WORDS[i]} {WORDS[i + 1]}"})
                               + "\n" for i in range(4)))
    return corpus, queries


def _bench(tmp_path: Path, corpus: Path, queries: Path, sizes: str, *more: str) -> int:
    return main(["scale", "--corpus", str(corpus), "--queries", str(queries),
                 "--sizes", sizes, "--embedding-backend", "hashing", "--max-queries", "4",
                 "--work", str(tmp_path / "work"), "--out", str(tmp_path / "scale.json"), *more])


@pytest.mark.slow  # two child processes build collections
def test_each_size_is_one_point_with_every_figure(tmp_path: Path) -> None:
    corpus, queries = _write_corpus(tmp_path, 30)
    assert _bench(tmp_path, corpus, queries, "20,10") == 0
    points = json.loads((tmp_path / "scale.json").read_text())["points"]
    assert [p["passages"] for p in points] == [10, 20]
    small, large = points
    assert large["disk_bytes"] > small["disk_bytes"] > 0
    assert small["encoded"] == 10 and small["cache_hits"] == 0
    assert large["encoded"] == 10 and large["cache_hits"] == 10  # the shared cache, reported
    for point in points:
        assert point["ingest_seconds"] >= point["embed_seconds"] >= 0
        assert point["rss_mb"] > 0 and point["queries"] == 4
        assert point["hybrid"]["p95_ms"] >= point["hybrid"]["p50_ms"] > 0
    assert "plotly" in (tmp_path / "scale.html").read_text()


def test_a_size_beyond_the_corpus_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus, queries = _write_corpus(tmp_path, 5)
    assert _bench(tmp_path, corpus, queries, "10") != 0
    assert "--sizes asks for 10 passages" in capsys.readouterr().err
    assert not (tmp_path / "scale.json").exists()


def test_an_unknown_onnx_variant_is_refused_before_any_collection_is_built(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus, queries = _write_corpus(tmp_path, 5)
    with pytest.raises(SystemExit, match=r"--onnx-variant 'int4': expected one of .*int8.*fp32"):
        _bench(tmp_path, corpus, queries, "5", "--onnx-variant", "int4")
    assert not (tmp_path / "work").exists() and not (tmp_path / "scale.json").exists()
