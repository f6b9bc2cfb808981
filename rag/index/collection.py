"""Indexes and collections: Qdrant points (dense + sparse vectors, payloads), a BM25 index and a
manifest.

Two types. An `Index` holds the chunks and vectors of one chunking/embedding settings hash. A
`Collection` is a set of documents: it is also its own first index, and it keeps the documents'
parsed text (document_texts.py) from which rag.index.derived builds an `Index` for any other
settings. Which of the two a caller holds is its type, never its name or attributes.

`Index` is a thin front over its parts, so callers hold one object:
- the catalogue (rag.index.catalogue): what it holds, its settings and dates, read-only;
- the writer (rag.index.writer): the write lock, the write-ahead journal and reconcile;
- search (rag.index.search): dense and BM25 ranked lists under filters;
- ingest (rag.index.ingest): redaction, chunking and embedding feeding the writer, run as the
  ingest pipeline's stages (rag.ingestion).
Derived indexes and deleting a collection with them live in rag.index.derived.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from rag.embed import Embedder
from rag.index.catalogue import INDEX_MARK, MANIFEST_FILE, Catalogue
from rag.index.document_texts import KeptTexts
from rag.index.ingest import IngestSummary, add_documents
from rag.index.payload import Access
from rag.index.reconcile import Repair
from rag.index.search import CollectionSearch
from rag.index.writer import CollectionWriter, OnProgress, create_manifest
from rag.paths import collections_root
from rag.records.document import Document
from rag.records.hits import RankedList
from rag.settings.retrieval import FilterConfig

if TYPE_CHECKING:
    from rag.settings.pipeline import PipelineConfig

__all__ = ["INDEX_MARK", "Collection", "CollectionNotFoundError", "Index", "IngestSummary", "OnProgress",
           "check_name", "collections_root", "list_collections", "open_collection", "open_working"]

WORKING_FILE = "working-index"  # in a working index's folder: what keeps it (open_working)
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


class CollectionNotFoundError(ValueError):
    """No collection by that name; the message lists the ones that exist."""


class Index(Catalogue):
    """Chunks and vectors for one settings hash; queries never mutate it, `add_documents`
    persists at once."""

    def __init__(self, name: str, directory: Path) -> None:
        super().__init__(name, directory)
        self.writer = CollectionWriter(self)
        self.search = CollectionSearch(self)

    @property
    def last_repair(self) -> Repair | None:
        return self.writer.last_repair

    # -- writing -----------------------------------------------------------------------------------
    def writing(self) -> contextlib.AbstractContextManager[None]:
        """Exclusive write access across processes; the manifest is current inside the block."""
        return self.writer.writing()

    def add_documents(
        self,
        documents: Sequence[Document],
        config: PipelineConfig,
        *,
        access: Access | None = None,
        embedder: Embedder | None = None,
        progress: bool = True,
        on_progress: OnProgress | None = None,
        what: str = "",
    ) -> IngestSummary:
        """Chunk, embed and index new or changed documents by the ingest pipeline's stages
        (rag.index.ingest.add_documents; `what`: where the documents came from, for its trace)."""
        return add_documents(self.writer, documents, config, access=access, embedder=embedder,
                             progress=progress, on_progress=on_progress, what=what)

    def remove_document(self, source: str) -> int:
        """Take one document (by source) and all of its chunks out; returns the chunks removed."""
        with self.writer.writing():
            return self.writer.remove_document(source)

    # -- searching ---------------------------------------------------------------------------------
    def holds_private(self) -> bool:
        return self.search.holds_private()

    def matching_ids(self, filters: FilterConfig | None) -> set[str] | None:
        return self.search.matching_ids(filters)

    def vectors(self, chunk_ids: Sequence[str]) -> dict[str, np.ndarray]:
        return self.search.vectors(chunk_ids)

    def dense_search(self, query_vector: np.ndarray, depth: int,
                     filters: FilterConfig | None = None, since: float | None = None) -> RankedList:
        return self.search.dense(query_vector, depth, filters, since)

    def sparse_search(self, query: str, depth: int, filters: FilterConfig | None = None,
                      since: float | None = None) -> RankedList:
        return self.search.sparse(query, depth, filters, since)


class Collection(Index):
    """A set of documents (open with `open_collection(name)`): its own index plus the parsed
    text of its documents, which every index derived from it reads (rag.index.derived)."""

    keeps_texts: ClassVar[bool] = True

    def kept_texts(self) -> KeptTexts:
        """Its documents' kept parsed text by doc_id (whole sentences for the answerer)."""
        return KeptTexts(self.directory, {entry.doc_id: source
                                          for source, entry in self.manifest.documents.items()})


def check_name(name: str) -> None:
    """A ValueError saying what a collection name may hold, unless `name` is one."""
    if not _NAME.match(name):
        raise ValueError(
            f"collection name {name!r} must start with a letter or digit and use only "
            f"letters, digits, '_', '-' or '.' (at most 64 characters)"
        )


def list_collections() -> list[str]:
    """The user's collections: working indexes (`open_working`) are never listed."""
    root = collections_root()
    found = root.glob(f"*/{MANIFEST_FILE}") if root.exists() else []
    return sorted(p.parent.name for p in found if not (p.parent / WORKING_FILE).exists())


def open_working(name: str, purpose: str) -> Collection:
    """A working index another tool keeps for itself (eval's index of a scored set: whose it
    is and why in `purpose`), created when new: it opens by name, but `list_collections` (the
    sidebar, a fresh session's pick) never lists it."""
    collection = open_collection(name, create=True)
    marker = collection.directory / WORKING_FILE
    if not marker.exists():
        marker.write_text(purpose + "\n", encoding="utf-8")
    return collection


def open_collection(name: str, *, create: bool = False) -> Collection:
    """An existing collection, or (create=True) a new empty one."""
    check_name(name)
    directory = collections_root() / name
    if not (directory / MANIFEST_FILE).exists():
        if not create:
            existing = ", ".join(list_collections()) or "(none yet)"
            raise CollectionNotFoundError(
                f"no collection {name!r}; existing: {existing}. Create one with "
                f"`python -m rag ingest PATH --collection {name}`"
            )
        create_manifest(directory, name)
    return Collection(name, directory)
