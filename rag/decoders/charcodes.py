"""Character codes a model reads as text: decimal codes ("73 103 110 111 114 101 …", the ASCII
table a chatbot is asked to "decode and do") and binary octets ("01010010 01100101 …"). A run is
decoded when it is long enough to carry a message and reads as text (rag.decoders.base.readable):
a list of port numbers or a table of measurements decodes to control characters or digits, not
words, and is left alone."""

from __future__ import annotations

import re

from rag.decoders.base import DECODERS, Decoded, readable

# eight or more numbers apart by spaces, commas or semicolons
_DECIMAL = re.compile(r"(?<![\d.])(?:\d{1,5}[ ,;]+){7,}\d{1,5}(?![\d.])")
# six or more groups of 7-8 bits (a byte each)
_BINARY = re.compile(r"(?<![01])(?:[01]{7,8}[ ,]+){5,}[01]{7,8}(?![01])")


def _allowed(code: int) -> bool:
    """Printable ASCII, line breaks, Latin-1/Latin Extended, Greek and Cyrillic: the letters of
    the languages attacks are written in (a run of years, 1998 1999 …, falls outside them)."""
    return code in (9, 10) or 32 <= code <= 126 or 160 <= code <= 0x024F or 0x0370 <= code <= 0x04FF


def _chars(codes: list[int]) -> str | None:
    # a message has spaces between its words; a table of numbers that maps to letters has none
    if 32 not in codes or not all(map(_allowed, codes)):
        return None
    text = "".join(map(chr, codes))
    return text if readable(text) else None


def _decode(runs: list[str], base: int, view: str) -> tuple[Decoded, ...]:
    found: list[Decoded] = []
    for run in runs:
        plain = _chars([int(n, base) for n in re.findall(r"\d+", run)])
        if plain is not None:
            found.append(Decoded(view, "decoded", plain, f"{view} run of {len(run)} characters"))
    return tuple(found)


def decode_decimal(text: str) -> tuple[Decoded, ...]:
    """Decimal character codes: "73 103 110 111 114 101" → "Ignore"."""
    runs = [m.group() for m in _DECIMAL.finditer(text)]
    return _decode([r for r in runs if not _BINARY.fullmatch(r)], 10, "decimal")


def decode_binary(text: str) -> tuple[Decoded, ...]:
    """Binary octets: "01010010 01100101" → "Re"."""
    return _decode([m.group() for m in _BINARY.finditer(text)], 2, "binary")


DECODERS.add("decimal", decode_decimal)
DECODERS.add("binary", decode_binary)
