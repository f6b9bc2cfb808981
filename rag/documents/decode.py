"""Bytes to text for plain-text formats: BOM-marked UTF-8/16/32, else UTF-8 with any byte that is
not UTF-8 read as latin-1 (and a warning saying how many and where)."""

from __future__ import annotations

import codecs
from dataclasses import dataclass
from types import MappingProxyType

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
_MAX_REPAIRS = 1000


@dataclass(frozen=True)
class DecodedText:
    text: str
    encoding: str
    warning: str = ""  # e.g. bytes that were not UTF-8 and were read as latin-1


def _utf8_then_latin1(data: bytes) -> tuple[str, int, int, bool]:
    """UTF-8 where it decodes, latin-1 for each byte that does not: (text, bytes read as
    latin-1, offset of the first, whether real multi-byte UTF-8 was seen). A mostly-UTF-8 file
    with a few latin-1 bytes keeps all its accented letters right instead of turning into
    mojibake. Past _MAX_REPAIRS bad spots the file is simply latin-1."""
    parts: list[str] = []
    position = bad = repairs = 0
    first = -1
    view = memoryview(data)  # slices without copying: the loop stays linear in the file size
    while True:
        try:
            parts.append(str(view[position:], "utf-8"))
            break
        except UnicodeDecodeError as exc:
            repairs += 1
            if repairs > _MAX_REPAIRS:
                return data.decode("latin-1"), sum(b > 0x7F for b in data), first, False
            parts.append(data[position:position + exc.start].decode("utf-8"))
            parts.append(data[position + exc.start:position + exc.end].decode("latin-1"))
            bad += exc.end - exc.start
            first = position + exc.start if first < 0 else first
            position += exc.end
    multibyte = any(not part.isascii() for part in parts[::2])  # the UTF-8 parts
    return "".join(parts), bad, first, multibyte


def looks_binary(data: bytes, sample: int = 65_536) -> bool:
    """Bytes, not text: a NUL, or more than 1% control bytes, in the first `sample` bytes
    (UTF-16/32 text is recognised by its byte-order mark and passes)."""
    if any(data.startswith(bom) for bom, _ in _BOMS):
        return False
    head = data[:sample]
    controls = sum(1 for b in head if b < 0x20 and chr(b) not in _ALLOWED_CONTROLS and b != 0x0D)
    return b"\0" in head or controls > _MAX_CONTROL_SHARE * max(1, len(head))


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
    warning = ""
    if encoding is None:
        text, bad, first, multibyte = _utf8_then_latin1(data)
        encoding = "utf-8" if not bad else "utf-8 + latin-1" if multibyte else "latin-1"
        if bad:
            line = data[:first].count(b"\n") + 1
            warning = (f"{bad} byte(s) are not UTF-8 (first on line {line}): read as latin-1; "
                       "re-save the file as UTF-8 if accented letters look wrong")
    share = _control_share(text)
    if share > _MAX_CONTROL_SHARE:
        raise DocumentError(
            f"file does not look like text ({share:.0%} control characters after decoding as {encoding})",
            "save it as UTF-8 text, or give it the extension of its real format",
        )
    return DecodedText(normalize_newlines(text), encoding, warning)


def decode_notes(decoded: DecodedText) -> MappingProxyType[str, object]:
    """The `extra` a text parser passes on: the decoding warning, when there is one (the ingest
    report shows ParsedText.extra["warnings"] beside the file)."""
    return MappingProxyType({"warnings": (decoded.warning,)} if decoded.warning else {})
