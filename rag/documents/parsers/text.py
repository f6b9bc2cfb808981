"""Plain text and Markdown: decoded as UTF-8/UTF-16 BOM/latin-1; text kept as written."""

from __future__ import annotations

import re

from rag.documents.decode import decode_notes, decode_text
from rag.documents.parsers.base import PARSERS, ParsedText, first_line

_ATX_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
_SETEXT_H1 = re.compile(r"^(\S.*)\n=+[ \t]*$", re.MULTILINE)


def markdown_title(text: str) -> str | None:
    """The first heading, ATX (`# Title`) or setext (`Title` over `===`), whichever comes first."""
    found = [m for m in (_ATX_HEADING.search(text), _SETEXT_H1.search(text)) if m]
    return min(found, key=lambda m: m.start()).group(1).strip() if found else None


@PARSERS.register(".txt")
def parse_txt(data: bytes, name: str) -> ParsedText:
    """The title is the first line when it is short enough to be one."""
    decoded = decode_text(data)
    return ParsedText(decoded.text, first_line(decoded.text, 100), encoding=decoded.encoding,
                      extra=decode_notes(decoded))


@PARSERS.register(".md")
def parse_markdown(data: bytes, name: str) -> ParsedText:
    """Markdown stays Markdown (heading-aware chunkers need the `#`s); the title is the first heading."""
    decoded = decode_text(data)
    return ParsedText(decoded.text, markdown_title(decoded.text), encoding=decoded.encoding,
                      extra=decode_notes(decoded))


PARSERS.add(".markdown", parse_markdown)
