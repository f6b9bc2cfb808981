"""Bytes to text for plain-text formats: BOM-marked UTF-8/16/32, then strict UTF-8, then latin-1."""

from __future__ import annotations

import codecs
from dataclasses import dataclass

from rag.documents.errors import DocumentError

_BOMS: tuple[tuple[bytes, str], ...] = (
    # UTF-32 first: its little-endian BOM starts with UTF-16's.
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
# Latin-1 decodes any byte string, so binary junk is caught by its share of control characters.
_MAX_CONTROL_SHARE = 0.01
_ALLOWED_CONTROLS = frozenset("\t\n\f\v")


@dataclass(frozen=True)
class DecodedText:
    text: str
    encoding: str


def normalize_newlines(text: str) -> str:
    """CRLF and lone CR become LF, so offsets mean the same on every platform."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _control_share(text: str) -> float:
    if not text:
        return 0.0
    controls = sum(1 for ch in text if ch < " " and ch not in _ALLOWED_CONTROLS and ch != "\r")
    return controls / len(text)


def decode_text(data: bytes) -> DecodedText:
    """Decode and normalize newlines; raise DocumentError for bytes that are not text at all."""
    encoding = next((name for bom, name in _BOMS if data.startswith(bom)), None)
    if encoding is not None:
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError as exc:
            raise DocumentError(
                f"text starts with a {encoding} byte-order mark but does not decode ({exc.reason})",
                "re-save the file as UTF-8",
            ) from None
    else:
        try:
            text, encoding = data.decode("utf-8"), "utf-8"
        except UnicodeDecodeError:
            text, encoding = data.decode("latin-1"), "latin-1"
    share = _control_share(text)
    if share > _MAX_CONTROL_SHARE:
        raise DocumentError(
            f"file does not look like text ({share:.0%} control characters after decoding as {encoding})",
            "save it as UTF-8 text, or give it the extension of its real format",
        )
    return DecodedText(normalize_newlines(text), encoding)
