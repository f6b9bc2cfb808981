"""Collections for the seed systems: each preset searches its own collection of a document set,
built with its own chunking and index settings; presets that share those settings share one."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from rag.config import PipelineConfig, with_overrides
from rag.documents.base import Document
from rag.index import Collection, index_settings, open_collection, settings_hash


def documents_key(documents: Sequence[Document]) -> str:
    """A short hash of a document set (their content hashes), for naming its collections."""
    digest = hashlib.sha256("\n".join(sorted(d.metadata.content_hash for d in documents)).encode())
    return digest.hexdigest()[:8]


def system_collection_name(config: PipelineConfig, documents: Sequence[Document], label: str = "sys"
                           ) -> str:
    """Presets with the same index settings over the same documents share one collection."""
    return f"{label}-{documents_key(documents)}-{settings_hash(index_settings(config))[:10]}"


def system_collection(config: PipelineConfig, documents: Sequence[Document], label: str = "sys",
                      progress: bool = False) -> tuple[PipelineConfig, Collection]:
    """`config` pointed at a collection of `documents` built with its own chunking and index
    settings (built on first use; later calls only add what is missing)."""
    name = system_collection_name(config, documents, label)
    config = with_overrides(config, {"index.collection": name})
    collection = open_collection(name, create=True)
    missing = [d for d in documents if d.metadata.source not in collection.manifest.documents]
    if missing:
        collection.add_documents(missing, config, progress=progress)
    return config, collection
