"""What a format parser returns, the Parser protocol, and the registry keyed by file extension."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType
from typing import Any, Protocol

from rag.records.document import PageSpan
from rag.registry import Registry


@dataclass(frozen=True)
class ParsedText:
    """Format-specific result; rag.documents.parse adds hashing, ids and the detected type."""

    text: str
    title: str | None = None  # None: the caller falls back to the file name
    pages: tuple[PageSpan, ...] = ()
    encoding: str | None = None
    modified: datetime | None = None  # date stored inside the file, if any
    extra: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))


class Parser(Protocol):
    """Raw bytes of one file (and its name, for messages) in; text out, or DocumentError."""

    def __call__(self, data: bytes, name: str) -> ParsedText: ...


PARSERS: Registry[Parser] = Registry("document parser")


def join_pages(page_texts: list[str], separator: str = "\n\n") -> tuple[str, tuple[PageSpan, ...]]:
    """Join page texts; each PageSpan covers exactly its page's text (separators belong to none)."""
    parts: list[str] = []
    spans: list[PageSpan] = []
    offset = 0
    for number, page_text in enumerate(page_texts, start=1):
        if parts:
            parts.append(separator)
            offset += len(separator)
        parts.append(page_text)
        spans.append(PageSpan(number, offset, offset + len(page_text)))
        offset += len(page_text)
    return "".join(parts), tuple(spans)


def first_line(text: str, max_chars: int = 120) -> str | None:
    """The first non-blank line if it is short enough to be a title."""
    for line in text.splitlines():
        line = line.strip()
        if line:
            return line if len(line) <= max_chars else None
    return None
