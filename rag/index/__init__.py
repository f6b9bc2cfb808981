"""Indexes: Qdrant dense + sparse vectors, BM25 backends, and collections with a manifest.

Exports load lazily (PEP 562): importing the package (e.g. for the ranked-list types in
hits.py) must not pull in Qdrant or the collection code.
"""

from __future__ import annotations

from rag.index.fastembed_hidden import hide_fastembed_from_qdrant_import
from rag.lazy_exports import lazy_exports

hide_fastembed_from_qdrant_import()  # before any submodule imports qdrant_client

_EXPORTS = {
    "Access": "rag.index.payload",
    "Collection": "rag.index.collection",
    "CollectionNotFoundError": "rag.index.collection",
    "IngestSummary": "rag.index.ingest",
    "Index": "rag.index.collection",
    "IndexRef": "rag.index.ref",
    "IndexSync": "rag.index.derived",
    "MissingDocumentTextError": "rag.index.derived",
    "needs_sync": "rag.index.derived",
    "resolve": "rag.index.derived",
    "DocumentTexts": "rag.index.document_texts",
    "describe_settings": "rag.index.manifest",
    "visible_kept_documents": "rag.index.visible",
    "delete_collection": "rag.index.derived",
    "list_collections": "rag.index.collection",
    "open_collection": "rag.index.collection",
    "IncompatibleConfigError": "rag.index.manifest",
    "Manifest": "rag.index.manifest",
    "index_settings": "rag.index.manifest",
    "settings_hash": "rag.index.manifest",
    "get_client": "rag.index.qdrant_store",
    "Tokenizer": "rag.index.tokenizer",
    "Candidate": "rag.records.hits",
    "StoreBusyError": "rag.index.store_lease",
    "check_name": "rag.index.collection",
    "derived_indexes": "rag.index.derived",
    "pinned_for": "rag.index.embedding_pin",
    "visible_entries": "rag.index.visible",
}

__all__ = sorted(_EXPORTS)

__getattr__ = lazy_exports(__name__, _EXPORTS)
