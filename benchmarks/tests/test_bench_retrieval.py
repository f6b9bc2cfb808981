"""`python -m benchmarks retrieval` on ~50 real passages: the JSON has every figure, and they are sane.

No timing is asserted (speed lives in the benchmark's JSON, not in tests).
"""

from __future__ import annotations

import argparse
import collections
import inspect
import json
import logging
import pathlib
import re
import sqlite3
from pathlib import Path

import pytest

from benchmarks.cli import main

SOURCES = (argparse, collections, json, logging, pathlib, re, sqlite3, inspect)


def _passages(words: int = 40, limit: int = 50) -> list[str]:
    """Real text: the standard library's module docs, in passages of `words` words."""
    tokens = " ".join(inspect.getdoc(m) or "" for m in SOURCES).split()
    return [" ".join(tokens[i : i + words]) for i in range(0, len(tokens) - words, words)][:limit]


def two_decimals(value: float) -> object:
    """A ratio as the bench stores it: rounded to two decimals (so within half a hundredth)."""
    return pytest.approx(value, rel=0.01, abs=0.006)


@pytest.mark.slow
def test_bench_writes_every_figure_on_a_small_corpus(tmp_path: Path) -> None:
    passages = _passages()
    corpus, queries, out = (
        tmp_path / "corpus.jsonl",
        tmp_path / "queries.jsonl",
        tmp_path / "b.json",
    )
    corpus.write_text(
        "".join(
            json.dumps({"_id": f"p{i}", "title": "", "text": t}) + "\n"
            for i, t in enumerate(passages)
        )
    )
    queries.write_text(
        "".join(
            json.dumps({"_id": f"q{i}", "text": " ".join(t.split()[5:10])}) + "\n"
            for i, t in enumerate(passages[:6])
        )
    )
    code = main(
        [
            "retrieval",
            "--corpus",
            str(corpus),
            "--queries",
            str(queries),
            "--out",
            str(out),
            "--embed-texts",
            "8",
            "--embed-rounds",
            "1",
            "--embedding-backend",
            "fastembed",
            "--depth",
            "20",
        ]
    )
    assert code == 0
    result = json.loads(out.read_text())
    assert result["passages"] == len(passages) >= 45 and result["queries"] == 6

    bm25 = result["bm25"]
    assert bm25["default_backend"] == "bm25s" and bm25["reference_backend"] == "rank-bm25"
    assert bm25["default_qps"] > 0 and bm25["reference_qps"] > 0
    assert bm25["ratio"] == two_decimals(bm25["default_qps"] / bm25["reference_qps"])
    assert bm25["top1_agreement"] == 1.0  # same tokens, same BM25: same best passage

    emb = result["embedding"]
    assert emb["texts"] == 8 and emb["model_id"] == "st:all-MiniLM-L6-v2"
    assert emb["max_abs_diff"] < 1e-4  # our pipeline returns the very vectors encode() does
    assert emb["ratio"] == two_decimals(emb["ours_texts_per_s"] / emb["raw_texts_per_s"])

    hybrid = result["hybrid"]
    assert hybrid["passages"] == len(passages) and hybrid["fusion"] == "rrf k=60"
    assert hybrid["latency"]["n"] == 6
    assert 0 < hybrid["latency"]["p50_ms"] <= hybrid["latency"]["p95_ms"]
    assert set(hybrid["stage_p50_ms"]) == {"embed_query", "dense", "bm25", "fuse"}

    refuse = result["refuse"]
    assert refuse["status"] == "measured" and refuse["lists"] == 2
    assert 0 < refuse["candidates_per_list"] <= len(passages)
    assert refuse["latency"]["n"] == refuse["repeats"] > 0
    assert refuse["fusion_only"]["n"] == refuse["repeats"]  # the reference, same process
    assert refuse["tail_vs_fusion_p50"] > 0


def test_bench_refuses_an_empty_query_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "c.jsonl").write_text(json.dumps({"_id": "a", "text": "some text"}) + "\n")
    (tmp_path / "q.jsonl").write_text("")
    code = main(
        [
            "retrieval",
            "--corpus",
            str(tmp_path / "c.jsonl"),
            "--queries",
            str(tmp_path / "q.jsonl"),
            "--out",
            str(tmp_path / "o.json"),
        ]
    )
    assert code == 2 and "needs passages and queries" in capsys.readouterr().err
