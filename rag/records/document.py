"""The Document shape every parser returns, and the ingest report for a batch of files."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType
from typing import Any, Literal

DocType = Literal["SENSITIVE", "FAQ", "BOOK", "USER"]


@dataclass(frozen=True)
class PageSpan:
    """Page `page` (1-based) occupies `text[start:end]` of its document."""

    page: int
    start: int
    end: int


@dataclass(frozen=True)
class DocumentMetadata:
    source: str  # path or upload name the text came from
    title: str
    content_hash: str  # sha256 of the raw file bytes
    format: str  # pdf, docx, pptx, txt, md, csv, html
    modified: datetime | None = None
    pages: tuple[PageSpan, ...] = ()
    doc_type: DocType = "USER"
    doc_type_reason: str = ""
    encoding: str | None = None
    extra: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    # pickled as a plain dict (a mappingproxy cannot be): documents cross process boundaries
    # when a batch is parsed in worker processes (rag.documents.ingest)
    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "extra": dict(self.extra)}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state, extra=MappingProxyType(state["extra"]))


@dataclass(frozen=True)
class Document:
    doc_id: str  # stable: derived from source + content hash
    text: str
    metadata: DocumentMetadata

    def page_of(self, offset: int) -> int | None:
        """1-based page holding character `offset`, or None for page-less formats."""
        for span in self.metadata.pages:
            if span.start <= offset < span.end:
                return span.page
        return None


IngestStatus = Literal["ok", "skipped"]


@dataclass(frozen=True)
class IngestLine:
    """One row of an ingest report: what happened to one file and, if skipped, what to do."""

    source: str
    status: IngestStatus
    problem: str = ""
    action: str = ""
    doc_id: str | None = None
    chars: int = 0
    warnings: tuple[str, ...] = ()  # e.g. text in the file that addresses the assistant


@dataclass(frozen=True)
class IngestReport:
    documents: tuple[Document, ...]
    lines: tuple[IngestLine, ...]

    @property
    def skipped(self) -> tuple[IngestLine, ...]:
        return tuple(line for line in self.lines if line.status == "skipped")
