"""`python -m benchmarks privacy` on a few passages: the JSON has every figure and the private
passage really switched the privacy clause on. No timing is asserted (speed lives in the JSON)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.cli import main

PASSAGES = ["APT resolves package dependencies from the archive.",
            "dpkg installs one package file without fetching dependencies.",
            "systemd restarts services that fail.", "rsync copies only changed parts of files.",
            "The package archive is mirrored worldwide."]


def test_bench_privacy_writes_every_figure(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAG_WORKBENCH_DATA", str(tmp_path / "data"))
    corpus, queries, out = tmp_path / "c.jsonl", tmp_path / "q.jsonl", tmp_path / "p.json"
    corpus.write_text("".join(json.dumps({"_id": f"p{i}", "text": t}) + "\n"
                              for i, t in enumerate(PASSAGES)))
    queries.write_text("".join(json.dumps({"_id": f"q{i}", "text": q}) + "\n"
                               for i, q in enumerate(["package archive", "restart services"])))
    assert main(["privacy", "--corpus", str(corpus), "--queries", str(queries),
                 "--out", str(out), "--depth", "5"]) == 0
    result = json.loads(out.read_text())
    assert result["passages"] == 5 and result["queries"] == 2
    for scope in ("public", "anonymous", "owner"):
        assert result[scope]["dense"]["n"] == result[scope]["bm25"]["n"] == 2
    assert result["count_private_ms"] > 0 and result["dense_ratio"] > 0
    assert "with the privacy clause" in capsys.readouterr().out
