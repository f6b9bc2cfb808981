"""Small bad inputs each get a clear line: random bytes named .html, a CSV with a few latin-1
bytes (read right, with a warning), broken and looping symbolic links, file names with control
characters (escaped in the CLI report); an ingest that ingests nothing exits non-zero."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from rag.cli import main
from rag.cli.ingest import printable
from rag.documents import ingest_paths, parse_bytes
from rag.index import list_collections


@pytest.fixture(autouse=True)
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAG_WORKBENCH_DATA", str(tmp_path / "data"))


def test_random_bytes_named_html_are_skipped_not_indexed(tmp_path: Path) -> None:
    path = tmp_path / "noise.html"
    path.write_bytes(random.Random(0).randbytes(4000))
    (line,) = ingest_paths([path]).skipped
    assert "does not look like HTML" in line.problem
    assert parse_bytes("page.html", b"<html><body><p>Real page</p></body></html>").text == "Real page"


def test_a_csv_with_a_few_latin1_bytes_keeps_both_encodings_right_and_warns(tmp_path: Path) -> None:
    path = tmp_path / "menu.csv"
    path.write_bytes("dish,price\ncafé crème,3\n".encode() + "gâteau,4\n".encode("latin-1"))
    report = ingest_paths([path])
    (document,) = report.documents
    assert "café crème" in document.text and "gâteau" in document.text
    assert document.metadata.encoding == "utf-8 + latin-1"
    (warning,) = report.lines[0].warnings
    assert "1 byte(s) are not UTF-8 (first on line 3)" in warning


@pytest.mark.skipif(os.name == "nt", reason="symbolic links")
def test_broken_and_looping_links_each_get_a_line_and_files_are_ingested_once(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / "a.txt").write_text("apt installs packages")
    (docs / "sub" / "up").symlink_to("..")
    (docs / "dangling.txt").symlink_to("missing.txt")
    (docs / "self.txt").symlink_to("self.txt")
    report = ingest_paths([docs])
    assert [d.metadata.source for d in report.documents] == [str(docs / "a.txt")]
    problems = {Path(line.source).name: line.problem for line in report.skipped}
    assert problems["dangling.txt"].startswith("broken symbolic link: its target 'missing.txt'")
    assert problems["self.txt"].startswith("symbolic link loop")
    assert problems["up"].startswith("symbolic link to a folder already walked")


def test_control_characters_in_names_are_escaped() -> None:
    assert printable("bad\x1b[31m\nname.txt") == "bad\\x1b[31m\\nname.txt"
    assert printable("café.txt") == "café.txt"


def test_ingest_of_a_missing_folder_or_only_bad_files_exits_1_and_creates_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ingest", str(tmp_path / "does_not_exist"), "--collection", "nothing"]) == 1
    assert "nothing ingested" in capsys.readouterr().out
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "empty\x1b[2J.txt").write_bytes(b"")
    (bad / "noise.html").write_bytes(b"\0\1\2" * 100)
    assert main(["ingest", str(bad), "--collection", "nothing"]) == 1
    out = capsys.readouterr().out
    assert "all 2 file(s) skipped" in out and "empty\\x1b[2J.txt" in out and "\x1b" not in out
    assert "nothing" not in list_collections()
