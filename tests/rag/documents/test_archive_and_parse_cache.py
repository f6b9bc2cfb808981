"""Zip containers are checked for expanded size and compression ratio before a parser inflates
them; parsed text is cached by content hash, so an unchanged file is never parsed twice."""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from rag.documents import ingest_paths, parse_file
from rag.documents.parsers import PARSERS
from rag.documents.parsers.base import ParsedText
from rag.settings.documents import DocumentsConfig


@pytest.fixture(autouse=True)
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAG_WORKBENCH_DATA", str(tmp_path / "data"))


def with_padding(package: bytes, megabytes: int) -> bytes:
    """The package plus one highly compressible entry of `megabytes` MB of zeros."""
    out = io.BytesIO(package)
    with zipfile.ZipFile(out, "a", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("word/media/padding.bin", b"\0" * (megabytes * 1024 * 1024))
    return out.getvalue()


def test_a_bomb_docx_is_skipped_with_what_to_do_and_the_batch_goes_on(
    tmp_path: Path, make_docx: Callable[..., bytes]
) -> None:
    good = make_docx(lambda d: d.add_paragraph("Debian installs from a netinst image."))
    (tmp_path / "good.docx").write_bytes(good)
    (tmp_path / "bomb.docx").write_bytes(with_padding(good, 5))  # ~1000x compressed, default limits
    report = ingest_paths([tmp_path / "good.docx", tmp_path / "bomb.docx"])
    assert [d.metadata.source.endswith("good.docx") for d in report.documents] == [True]
    (line,) = report.skipped
    assert line.source.endswith("bomb.docx")
    assert "zip bomb" in line.problem and "padding.bin" in line.problem
    assert "documents.max_compression_ratio" in line.action


def test_expanded_size_limit_names_the_sizes_and_the_setting(
    tmp_path: Path, make_docx: Callable[..., bytes]
) -> None:
    path = tmp_path / "big.docx"
    path.write_bytes(with_padding(make_docx(lambda d: d.add_paragraph("text")), 2))
    config = DocumentsConfig(max_expanded_bytes=1024 * 1024, max_compression_ratio=10_000)
    report = ingest_paths([path], config)
    assert re.search(r"expands to 2\.\d MB \(from \d+ KB\), limit 1\.0 MB", report.skipped[0].problem)
    assert "documents.max_expanded_bytes" in report.skipped[0].action


def test_an_ordinary_docx_passes_the_default_limits(tmp_path: Path, make_docx: Callable[..., bytes]) -> None:
    path = tmp_path / "fine.docx"
    path.write_bytes(make_docx(lambda d: [d.add_paragraph(f"Paragraph {i} about apt.") for i in range(200)]))
    assert "Paragraph 199" in parse_file(path).text


def counting_parser(monkeypatch: pytest.MonkeyPatch, extension: str) -> list[str]:
    """Wrap the registered parser of `extension`; the list collects the names it parsed."""
    calls: list[str] = []
    real = PARSERS.get(extension)

    def counted(data: bytes, name: str) -> ParsedText:
        calls.append(name)
        return real(data, name)

    monkeypatch.setitem(PARSERS._entries, extension, counted)
    return calls


def test_an_unchanged_file_is_parsed_once_and_a_changed_one_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, make_docx: Callable[..., bytes]
) -> None:
    calls = counting_parser(monkeypatch, ".docx")
    path = tmp_path / "notes.docx"
    path.write_bytes(make_docx(lambda d: d.add_paragraph("First version.")))
    first = parse_file(path)
    again = parse_file(path)
    assert len(calls) == 1
    assert (again.text, again.doc_id) == (first.text, first.doc_id)
    path.write_bytes(make_docx(lambda d: d.add_paragraph("Second version.")))
    assert parse_file(path).text == "Second version." and len(calls) == 2


def test_a_corrupt_cache_entry_is_a_miss_not_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = counting_parser(monkeypatch, ".csv")
    path = tmp_path / "rows.csv"
    path.write_text("name,size\napt,3\n")
    first = parse_file(path)
    for entry in (tmp_path / "data" / "cache" / "parsed").glob("*.json"):
        entry.write_text("{not json")
    assert parse_file(path).metadata.extra["columns"] == first.metadata.extra["columns"] == ("name", "size")
    assert len(calls) == 2
