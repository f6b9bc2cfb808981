"""The Document shape, now in rag.records.document (below every stage); kept so old imports work."""

from rag.records.document import (
    DocType,
    Document,
    DocumentMetadata,
    IngestLine,
    IngestReport,
    IngestStatus,
    PageSpan,
)

__all__ = [
    "DocType",
    "Document",
    "DocumentMetadata",
    "IngestLine",
    "IngestReport",
    "IngestStatus",
    "PageSpan",
]
