"""Documents in: parsers by extension, document-type detection and PII, batch ingest.

Public API: parse_file, parse_bytes, ingest_paths, ingest_uploads, detect_doc_type, find_pii, redact.
Exports load lazily (PEP 562): the query path needs `Document` (via rag.chunking) but none of the
parsers, whose libraries (pypdf, python-pptx, python-docx, bs4) take seconds to import.
"""

from __future__ import annotations

from rag.lazy_exports import lazy_exports

_EXPORTS = {
    "Document": "rag.records.document",
    "DocumentMetadata": "rag.records.document",
    "IngestLine": "rag.records.document",
    "IngestReport": "rag.records.document",
    "PageSpan": "rag.records.document",
    "DocTypeResult": "rag.documents.doctype",
    "detect_doc_type": "rag.documents.doctype",
    "DocumentError": "rag.documents.errors",
    "ingest_paths": "rag.documents.ingest",
    "ingest_uploads": "rag.documents.ingest",
    "SUPPORTED_EXTENSIONS": "rag.documents.parse",
    "parse_bytes": "rag.documents.parse",
    "parse_file": "rag.documents.parse",
    "PII_KINDS": "rag.documents.pii",
    "PiiMatch": "rag.documents.pii",
    "Redaction": "rag.documents.pii",
    "find_pii": "rag.documents.pii",
    "redact": "rag.documents.pii",
    "DocumentsConfig": "rag.settings.documents",
    "describe_counts": "rag.documents.pii",
    "expand_paths": "rag.documents.ingest",
}

__all__ = sorted(_EXPORTS)

__getattr__ = lazy_exports(__name__, _EXPORTS)
