"""`python -m rag ingest`: parse, chunk, embed, index; a report of added/unchanged/replaced/skipped."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from rag.cli import main
from rag.index import delete_collection, open_collection


@pytest.fixture
def preset(tmp_path: Path) -> Path:
    path = tmp_path / "fast.yaml"
    path.write_text(
        "embedding:\n  backend: fastembed\nchunking:\n  params: {size: 200, overlap: 0}\n"
    )
    return path


def test_ingest_reports_each_outcome_and_reingest_is_idempotent(
    tmp_path: Path, preset: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "apt.txt").write_text("APT resolves dependencies and downloads packages.")
    (docs / "ssh.md").write_text("# SSH\n\nKeys let you log in without a password.")
    (docs / "broken.pdf").write_bytes(b"this is not a pdf")
    name = f"cli-{uuid.uuid4().hex[:8]}"
    args = ["ingest", str(docs), "--collection", name, "--preset", str(preset)]

    assert main(args) == 0
    first = capsys.readouterr().out
    assert "2 added, 0 replaced, 0 unchanged, 1 skipped" in first
    assert "skipped: " in first and "broken.pdf" in first

    assert main(args) == 0
    assert "0 added, 0 replaced, 2 unchanged" in capsys.readouterr().out

    (docs / "apt.txt").write_text("APT now speaks Esperanto.")
    assert main(args) == 0
    assert "0 added, 1 replaced, 1 unchanged" in capsys.readouterr().out
    texts = [c.text for c in open_collection(name).chunks()]
    assert "APT now speaks Esperanto." in texts and len(texts) == 2
    delete_collection(name)


def test_ingest_with_another_preset_fills_that_presets_index_too(
    tmp_path: Path, preset: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a.txt").write_text("Swap space extends memory.")
    name = f"cli-{uuid.uuid4().hex[:8]}"
    assert (
        main(["ingest", str(tmp_path / "a.txt"), "--collection", name, "--preset", str(preset)])
        == 0
    )
    capsys.readouterr()
    other = tmp_path / "other.yaml"
    other.write_text("embedding:\n  backend: fastembed\nindex:\n  sparse_backend: rank-bm25\n")
    (tmp_path / "b.txt").write_text("Cron runs jobs on a schedule.")
    code = main(["ingest", str(tmp_path), "--collection", name, "--preset", str(other)])
    out = capsys.readouterr().out
    assert code == 0 and "1 added, 0 replaced, 1 unchanged" in out
    assert f"index {name}.ix-" in out and "2 documents indexed" in out  # the preset's own index
    assert open_collection(name).manifest.chunk_count == 2  # and the collection's, as it was built
    delete_collection(name)
