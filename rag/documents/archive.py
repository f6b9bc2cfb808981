"""Zip containers (.docx, .pptx, .xlsx and anything else starting with a zip header) are checked
before a parser opens them: total expanded size and compression ratio, from the zip's own
directory. Python's zipfile never inflates an entry past its declared size (a lie ends in a CRC
error), so checking declared sizes bounds the work a parser can be made to do (zip bombs)."""

from __future__ import annotations

import io
import zipfile

from rag.documents.errors import DocumentError
from rag.settings.documents import DocumentsConfig

ZIP_MAGIC = b"PK\x03\x04"
_MB = 1024 * 1024


def _size(size: int) -> str:
    return f"{size / _MB:,.1f} MB" if size >= _MB else f"{size / 1024:,.0f} KB"


def check_archive(data: bytes, config: DocumentsConfig) -> None:
    """Raise DocumentError when the archive would expand past `max_expanded_bytes` or any entry
    (or the whole) is compressed more than `max_compression_ratio` times. Non-zip data passes."""
    if not data.startswith(ZIP_MAGIC):
        return
    try:
        entries = zipfile.ZipFile(io.BytesIO(data)).infolist()
    except (zipfile.BadZipFile, ValueError):
        return  # the format parser reports a broken package in its own words
    expanded = sum(e.file_size for e in entries)
    if expanded > config.max_expanded_bytes:
        raise DocumentError(
            f"archive expands to {_size(expanded)} (from {_size(len(data))}), limit "
            f"{_size(config.max_expanded_bytes)}: possibly a zip bomb",
            "if the file is genuine, raise documents.max_expanded_bytes or split the document",
        )
    ratio = expanded / max(1, sum(e.compress_size for e in entries))
    worst = max(entries, key=lambda e: e.file_size / max(1, e.compress_size), default=None)
    worst_ratio = worst.file_size / max(1, worst.compress_size) if worst else 0.0
    if max(ratio, worst_ratio if worst and worst.file_size > _MB else 0.0) > config.max_compression_ratio:
        name = f" ({worst.filename} {worst_ratio:,.0f}x)" if worst and worst_ratio > ratio else ""
        raise DocumentError(
            f"archive is compressed {max(ratio, worst_ratio):,.0f}x{name}, limit "
            f"{config.max_compression_ratio:g}x: possibly a zip bomb",
            "if the file is genuine, raise documents.max_compression_ratio",
        )
