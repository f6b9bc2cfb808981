"""Ingest-time PII redaction (EchoMind): a new Document whose text is redacted.

Page spans are moved with the text so `page_of` stays right; the original text is not kept.
"""

from __future__ import annotations

import bisect
import dataclasses
from types import MappingProxyType

from rag.documents.pii import redact
from rag.records.document import Document, PageSpan
from rag.settings.documents import DocumentsConfig


def redact_document(document: Document, config: DocumentsConfig | None = None) -> Document:
    """`document` with every PII match replaced by `[REDACTED_<KIND>]`, pages remapped."""
    redaction = redact(document.text, config=config)
    if not redaction.matches:
        return document
    # Offset shift after each replaced match: new = old + shift of the last match ending before it.
    ends, shifts, shift = [], [], 0
    for match in redaction.matches:
        shift += len(f"[REDACTED_{match.kind.upper()}]") - (match.end - match.start)
        ends.append(match.end)
        shifts.append(shift)

    def moved(offset: int) -> int:
        i = bisect.bisect_right(ends, offset)
        return offset + (shifts[i - 1] if i else 0)

    pages = tuple(PageSpan(p.page, moved(p.start), moved(p.end)) for p in document.metadata.pages)
    extra = dict(document.metadata.extra) | {
        "redaction_level": redaction.level,
        "redacted_matches": len(redaction.matches),
    }
    metadata = dataclasses.replace(document.metadata, pages=pages, extra=MappingProxyType(extra))
    return dataclasses.replace(document, text=redaction.text, metadata=metadata)
