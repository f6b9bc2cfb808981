"""The one way a collection changes: under its cross-process write lock, after reconciling what a
killed writer left (rag.index.reconcile), with the write-ahead record (rag.index.journal) naming
every chunk id in flight until the manifest commits.

The writer takes chunks already embedded (rag.index.ingest chunks and embeds); it tokenizes for
BM25 itself, since the collection's tokenizer is an index setting. What needs no vectors (BM25
tokens and vectors, payloads) is `prepare`d apart, so it can run while the model embeds.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from rag.index import journal
from rag.index.catalogue import MANIFEST_FILE, Catalogue
from rag.index.document_texts import DocumentTexts
from rag.index.manifest import DocumentEntry, Manifest, now_iso
from rag.index.payload import Access, chunk_payload
from rag.index.qdrant_store import Point
from rag.index.reconcile import Repair, reconcile
from rag.index.sparse import BM25Params
from rag.index.sparse.vectors import document_vector
from rag.index.store_lease import exclusive
from rag.records.chunk import Chunk
from rag.records.document import Document

WRITE_LOCK = ".write.lock"
_UPSERT_BATCH = 256
OnProgress = Callable[[str, int, int], None]  # (phase, done, total)


@dataclass(frozen=True)
class Written:
    """What one `write` changed."""

    chunks_added: int
    chunks_removed: int


@dataclass(frozen=True)
class PreparedChunks:
    """What a write derives from the chunks alone: their BM25 tokens, BM25 sparse vectors (term
    weights normalised by `avgdl`) and payloads, in the order of `pairs`."""

    pairs: list[tuple[Document, Chunk]]
    tokens: list[list[str]]
    avgdl: float
    sparse: list[tuple[tuple[int, ...], tuple[float, ...]]]
    payloads: list[dict[str, Any]]


def create_manifest(directory: Path, name: str) -> None:
    """An empty manifest for a new collection; two first ingests at once: the second finds it."""
    manifest = directory / MANIFEST_FILE
    with exclusive(directory / WRITE_LOCK, f"collection {name!r}"):
        if not manifest.exists():
            Manifest.new(name).save(manifest)


class CollectionWriter:
    """Owns a catalogue's write lock; every method that changes the collection runs inside
    `writing()` (`write` and `remove_document` assume it is held)."""

    def __init__(self, catalogue: Catalogue) -> None:
        self.catalogue = catalogue
        self.last_repair: Repair | None = None  # what the last `writing()` found and undid

    @contextlib.contextmanager
    def writing(self) -> Iterator[None]:
        """Exclusive write access across processes; the manifest is current inside the block."""
        cat = self.catalogue
        with exclusive(cat.directory / WRITE_LOCK, f"collection {cat.name!r}"):
            cat.reload()  # another writer may have finished while this one waited
            self.last_repair = reconcile(cat)  # what a killed writer left, undone
            yield

    def prepare(self, pairs: list[tuple[Document, Chunk]], access: Access) -> PreparedChunks:
        """Everything `write` derives from `pairs` without their vectors. Changes nothing, so it
        may run in another thread while the vectors are computed (it also loads the BM25
        backend's modules then, which its save needs)."""
        cat = self.catalogue
        tokens = cat.tokenizer.many([chunk.text for _, chunk in pairs])
        lengths = [len(t) for t in tokens]
        avgdl = cat.manifest.sparse_avgdl or float(np.mean(lengths) if lengths else 0.0) or 1.0
        cfg = cat.index_config()
        params, now = BM25Params(cfg.k1, cfg.b), time.time()
        sparse = [document_vector(toks, avgdl, params) for toks in tokens]
        payloads = [
            chunk_payload(doc, chunk, access,
                          doc.metadata.modified.timestamp() if doc.metadata.modified else now)
            for doc, chunk in pairs
        ]
        if pairs:
            cat.sparse.load_modules()
        return PreparedChunks(pairs, tokens, avgdl, sparse, payloads)

    def write(
        self,
        documents: list[Document],
        prepared: PreparedChunks,
        vectors: np.ndarray | None,
        access: Access,
        *,
        progress: bool = True,
        on_progress: OnProgress | None = None,
    ) -> Written:
        """Replace `documents` (new or changed) by their `prepared` chunks with `vectors`,
        crash-safe: record the intent, upsert, BM25, keep the text, commit the manifest, delete
        the old."""
        cat = self.catalogue
        known = cat.manifest.documents
        pairs, tokens = prepared.pairs, prepared.tokens
        new_ids = {c.chunk_id for _, c in pairs}
        old_ids = [
            c
            for d in documents
            if d.metadata.source in known
            for c in known[d.metadata.source].chunk_ids
        ]
        stale = [c for c in old_ids if c not in new_ids]  # ids a changed file kept were overwritten
        if documents:  # the write-ahead record comes first: readers hide what it names until the commit
            journal.record(cat.directory, journal.WriteIntent(tuple(new_ids), tuple(stale)))
        if vectors is not None:  # nothing new: no model is loaded at all
            with cat.store.session():  # one hold of the store for the whole upsert
                self._write_points(prepared, vectors, progress, on_progress)
        cat.sparse.remove(stale)
        cat.sparse.add([c.chunk_id for _, c in pairs], tokens)
        cat.sparse.save()
        if cat.keeps_texts:  # before the commit: a listed document always has its text
            DocumentTexts(cat.directory).put(documents, access)
        self._record(documents, pairs, access)  # the commit: the manifest now lists them
        cat.store.delete(stale)
        journal.clear(cat.directory)
        return Written(len(pairs), len(stale))

    def _write_points(
        self,
        prepared: PreparedChunks,
        vectors: np.ndarray,
        progress: bool,
        on_progress: OnProgress | None,
    ) -> None:
        cat = self.catalogue
        if not cat.store.exists():
            cat.store.create(int(vectors.shape[1]))
        if not cat.manifest.dim:
            cat.manifest = replace(cat.manifest, dim=int(vectors.shape[1]),
                                   sparse_avgdl=prepared.avgdl)
        points = [
            Point(chunk.chunk_id, vector, indices, values, payload)
            for (_, chunk), vector, (indices, values), payload
            in zip(prepared.pairs, vectors, prepared.sparse, prepared.payloads, strict=True)
        ]
        from tqdm.auto import tqdm  # late: tqdm.auto pulls asyncio, which a query never needs

        with tqdm(
            total=len(points), desc=f"indexing {cat.name}", unit="chunk", disable=not progress
        ) as bar:
            for start in range(0, len(points), _UPSERT_BATCH):
                batch = points[start : start + _UPSERT_BATCH]
                cat.store.upsert(batch)
                bar.update(len(batch))
                if on_progress is not None:
                    on_progress("indexing", start + len(batch), len(points))

    def _record(
        self, documents: list[Document], pairs: list[tuple[Document, Chunk]], access: Access
    ) -> None:
        cat = self.catalogue
        chunk_ids: dict[str, list[str]] = {d.doc_id: [] for d in documents}
        for doc, chunk in pairs:
            chunk_ids[doc.doc_id].append(chunk.chunk_id)
        entries = dict(cat.manifest.documents)
        stamp = now_iso()
        for doc in documents:
            meta = doc.metadata
            ids = tuple(chunk_ids[doc.doc_id])
            entries[meta.source] = DocumentEntry(
                doc.doc_id, meta.source, meta.title, meta.content_hash, ids, stamp, access.key
            )
        cat.manifest = cat.manifest.with_documents(entries)
        cat.save_manifest()

    def remove_document(self, source: str) -> int:
        """Take one document (by source) and all of its chunks out; returns the chunks removed."""
        cat = self.catalogue
        entry = cat.manifest.documents.get(source)
        if entry is None:
            known = ", ".join(sorted(cat.manifest.documents)) or "(none)"
            raise KeyError(f"collection {cat.name!r} has no document {source!r}; it has: {known}")
        ids = list(entry.chunk_ids)
        journal.record(cat.directory, journal.WriteIntent((), tuple(ids)))
        cat.manifest = cat.manifest.with_documents(
            {s: d for s, d in cat.manifest.documents.items() if s != source}
        )
        cat.save_manifest()  # the commit: from here on the chunks are not listed
        cat.store.delete(ids)
        cat.sparse.remove(ids)
        cat.sparse.save()
        journal.clear(cat.directory)
        if cat.keeps_texts:
            DocumentTexts(cat.directory).remove(source)
        return len(ids)
