"""Documents in: parsers by extension, document-type detection and PII (seed 001), batch ingest.

Public API: parse_file, parse_bytes, ingest_paths, ingest_uploads, detect_doc_type, find_pii, redact.
"""

from rag.documents.base import (
    Document,
    DocumentMetadata,
    IngestLine,
    IngestReport,
    PageSpan,
)
from rag.documents.doctype import DocTypeResult, detect_doc_type
from rag.documents.errors import DocumentError
from rag.documents.ingest import ingest_paths, ingest_uploads
from rag.documents.parse import SUPPORTED_EXTENSIONS, parse_bytes, parse_file
from rag.documents.pii import PII_KINDS, PiiMatch, Redaction, find_pii, redact
from rag.documents.settings import DocumentsConfig

__all__ = [
    "PII_KINDS",
    "SUPPORTED_EXTENSIONS",
    "DocTypeResult",
    "Document",
    "DocumentError",
    "DocumentMetadata",
    "DocumentsConfig",
    "IngestLine",
    "IngestReport",
    "PageSpan",
    "PiiMatch",
    "Redaction",
    "detect_doc_type",
    "find_pii",
    "ingest_paths",
    "ingest_uploads",
    "parse_bytes",
    "parse_file",
    "redact",
]
