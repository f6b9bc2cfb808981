"""parse_file / parse_bytes: stable ids, metadata, typed errors."""

from __future__ import annotations

import hashlib
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from rag.documents import DocumentError, DocumentsConfig, parse_bytes, parse_file

DATA = b"# Title\r\n\r\nBody text.\r\n"


def test_doc_id_is_stable_and_depends_on_name_and_content() -> None:
    first = parse_bytes("Notes 2024.md", DATA)
    assert first.doc_id == parse_bytes("Notes 2024.md", DATA).doc_id
    assert first.doc_id.startswith("notes-2024-")
    assert first.doc_id != parse_bytes("other.md", DATA).doc_id
    assert first.doc_id != parse_bytes("Notes 2024.md", DATA + b"more").doc_id


def test_doc_id_ignores_the_folder(tmp_path: Path) -> None:
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "same.md").write_bytes(DATA)
    assert parse_file(tmp_path / "a" / "same.md").doc_id == parse_file(tmp_path / "b" / "same.md").doc_id


def test_metadata_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "guide.md"
    path.write_bytes(DATA)
    os.utime(path, (1_700_000_000, 1_700_000_000))
    doc = parse_file(path)
    meta = doc.metadata
    assert doc.text == "# Title\n\nBody text.\n"  # CRLF normalized
    assert meta.source == str(path)
    assert meta.title == "Title"
    assert meta.format == "md"
    assert meta.encoding == "utf-8"
    assert meta.content_hash == hashlib.sha256(DATA).hexdigest()  # of the raw bytes
    assert meta.modified == datetime.fromtimestamp(1_700_000_000, tz=UTC)
    assert meta.doc_type == "USER" and meta.doc_type_reason
    assert meta.extra["pii_density"] == 0.0


def test_size_is_checked_against_the_config(tmp_path: Path) -> None:
    path = tmp_path / "big.txt"
    path.write_bytes(b"x" * 3000)
    with pytest.raises(DocumentError) as caught:
        parse_file(path, DocumentsConfig(max_bytes=2048))
    assert caught.value.problem == "file is 3 KB, limit 2 KB"
    assert parse_file(path, DocumentsConfig(max_bytes=4096)).text == "x" * 3000


def test_unknown_extension_lists_the_supported_ones() -> None:
    with pytest.raises(DocumentError, match=r"unsupported file type '\.odt'") as caught:
        parse_bytes("x.odt", b"data")
    assert ".pdf" in caught.value.action and ".docx" in caught.value.action
    with pytest.raises(DocumentError, match="no extension"):
        parse_bytes("README", b"data")


def test_extension_match_is_case_insensitive() -> None:
    assert parse_bytes("SHOUT.TXT", b"hello").metadata.format == "txt"
