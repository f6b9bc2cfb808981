"""`python -m rag chunk`: JSON and table output, and one clear error line with exit code 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rag.cli import main
from rag.documents import parse_file

TEXT = (
    "# Guide\n\nFirst part. It has sentences.\n\n## Install\n\nRun the installer. Then restart.\n"
)


@pytest.fixture
def md_file(tmp_path: Path) -> Path:
    path = tmp_path / "guide.md"
    path.write_text(TEXT, encoding="utf-8")
    return path


def test_json_chunks_are_exact_spans(md_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "chunk",
            str(md_file),
            "--strategy",
            "recursive",
            "--set",
            "size=40",
            "--set",
            "overlap=0",
            "--json",
        ]
    )
    rows = json.loads(capsys.readouterr().out)
    text = parse_file(md_file).text
    assert code == 0 and len(rows) > 1
    assert {"id", "start", "end", "text", "parent_id", "level"} <= set(rows[0])
    assert all(r["text"] == text[r["start"] : r["end"]] and len(r["text"]) <= 40 for r in rows)


def test_nested_set_reaches_parent_child_and_routes(
    md_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(
        [
            "chunk",
            str(md_file),
            "--strategy",
            "parent_child",
            "--set",
            "parent_size=60",
            "--set",
            "parent_overlap=0",
            "--set",
            "child_size=30",
            "--set",
            "child_overlap=0",
            "--json",
        ]
    )
    rows = json.loads(capsys.readouterr().out)
    parents = {r["id"] for r in rows if r["level"] == "parent"}
    assert parents and all(r["parent_id"] in parents for r in rows if r["level"] == "child")
    main(
        [
            "chunk",
            str(md_file),
            "--strategy",
            "doc_type",
            "--set",
            "user.params.max_size=30",
            "--set",
            "user.params.min_size=0",
            "--json",
        ]
    )
    rows = json.loads(capsys.readouterr().out)
    assert max(len(r["text"]) for r in rows) <= 30


def test_table_output(md_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["chunk", str(md_file), "--strategy", "markdown"]) == 0
    out = capsys.readouterr().out
    assert "strategy markdown" in out and "coverage 100.0%" in out
    assert "## Install" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--strategy", "nope"], "unknown chunking strategy 'nope'; valid: doc_type"),
        (["--set", "overlap=600"], "params.overlap: overlap (600) must be smaller than size (512)"),
        (
            ["--strategy", "fixed", "--set", "bogus=1"],
            "params.bogus: Extra inputs are not permitted",
        ),
        (["--set", "size"], "--set expects key=value"),
    ],
)
def test_bad_input_is_one_line_and_exit_code_2(
    md_file: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    assert main(["chunk", str(md_file), *args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["chunk", str(tmp_path / "missing.md")]) == 2
    assert "missing.md: file not found" in capsys.readouterr().err


def test_runs_as_a_module(md_file: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "rag", "chunk", str(md_file), "--preset", "hybrid", "--json"],
        capture_output=True,
        text=True,
        check=False,
        cwd=Path(__file__).resolve().parents[3],
    )
    assert result.returncode == 0, result.stderr
    assert [r["level"] for r in json.loads(result.stdout)] == ["chunk"]
