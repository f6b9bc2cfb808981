"""A named collection: Qdrant points (dense + sparse vectors, payloads), a BM25 index and a manifest."""

from __future__ import annotations

import contextlib
import logging
import re
import shutil
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np
from tqdm.auto import tqdm

from rag.chunking import get_chunker
from rag.chunking.base import Chunk
from rag.documents.base import Document
from rag.documents.sanitize import redact_document
from rag.embed import Embedder, get_embedder
from rag.index import journal
from rag.index.document_texts import DocumentTexts
from rag.index.filters import Filter, build_filter, visibility_filter
from rag.index.manifest import (
    DocumentEntry,
    IncompatibleConfigError,
    Manifest,
    embedding_mismatch,
    index_settings,
    now_iso,
    settings_diff,
    settings_hash,
)
from rag.index.payload import Access, chunk_from_payload, chunk_payload
from rag.index.qdrant_store import Point, QdrantStore
from rag.index.reconcile import Repair, reconcile
from rag.index.settings import IndexConfig
from rag.index.sparse import BM25Params, SparseContext, SparseIndex, get_sparse_index
from rag.index.sparse.vectors import document_vector
from rag.index.store_lease import exclusive
from rag.index.tokenizer import Tokenizer
from rag.paths import data_dir
from rag.retrieve.base import Candidate, RankedList, RetrieverHit
from rag.retrieve.settings import FilterConfig

if TYPE_CHECKING:  # rag.config imports rag.index.settings
    from rag.config import PipelineConfig

_log = logging.getLogger(__name__)
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
INDEX_MARK = ".ix-"  # derived index names: "<collection>.ix-<settings hash>" (derived.py)
_UPSERT_BATCH = 256
_EMBED_SLICE = 64  # chunks per progress step while embedding
OnProgress = Callable[[str, int, int], None]  # (phase, done, total)


class CollectionNotFoundError(ValueError):
    """No collection by that name; the message lists the ones that exist."""


@dataclass(frozen=True)
class IngestSummary:
    """What one `add_documents` call did, by source."""

    collection: str
    added: tuple[str, ...]
    replaced: tuple[str, ...]
    unchanged: tuple[str, ...]
    chunks_added: int
    chunks_removed: int
    seconds: float
    repair: Repair | None = None  # what an earlier, interrupted write left and this one fixed


def collections_root() -> Path:
    return data_dir() / "collections"


class Collection:
    """Open with `open_collection(name)`; queries never mutate it, `add_documents` persists at once."""

    def __init__(self, name: str, directory: Path) -> None:
        self.name = name
        self.directory = directory
        self.manifest = Manifest.new(name)
        self._stamp: tuple[int, int] | None = None
        self.store = QdrantStore(name)
        self._sparse: SparseIndex | None = None
        self._tokenizer: Tokenizer | None = None
        self._private: tuple[Manifest, bool] | None = None  # holds_private, for this manifest
        self.last_repair: Repair | None = None
        self.refresh()

    # -- other processes ---------------------------------------------------------------------------
    @property
    def _manifest_path(self) -> Path:
        return self.directory / "manifest.json"

    def refresh(self) -> bool:
        """Re-read the manifest (and drop the loaded BM25 index) when another process or object
        changed it since; True when it did. Reads call this, so a long-lived process (the app)
        sees documents a CLI ingest added."""
        try:
            stat = self._manifest_path.stat()
        except FileNotFoundError:
            return False
        stamp = (stat.st_mtime_ns, stat.st_size)
        if stamp == self._stamp:
            return False
        self.manifest = Manifest.load(self._manifest_path)
        self._stamp = stamp
        self._sparse, self._tokenizer = None, None
        return True

    def writing(self) -> contextlib.AbstractContextManager[None]:
        """Exclusive write access across processes; the manifest is current inside the block."""
        return _writing(self)

    def _save_manifest(self) -> None:
        self.manifest.save(self._manifest_path)
        stat = self._manifest_path.stat()
        self._stamp = (stat.st_mtime_ns, stat.st_size)

    # -- settings ------------------------------------------------------------------------------
    def _index_config(self) -> IndexConfig:
        return IndexConfig.model_validate(self.manifest.settings.get("index", {}))

    @property
    def tokenizer(self) -> Tokenizer:
        if self._tokenizer is None:
            self._tokenizer = Tokenizer(self._index_config().tokenizer)
        return self._tokenizer

    @property
    def sparse(self) -> SparseIndex:
        if self._sparse is None:
            cfg = self._index_config()
            context = SparseContext(
                self.directory / "sparse", BM25Params(cfg.k1, cfg.b), self.store
            )
            self._sparse = get_sparse_index(cfg.sparse_backend, context)
            if self._sparse.damaged:
                self._refill_sparse(self._sparse)
        return self._sparse

    def _refill_sparse(self, sparse: SparseIndex) -> None:
        """A BM25 file that cannot be read is rebuilt in memory from the listed chunks' stored
        texts, so search stays right; the next write saves it again."""
        _log.warning("BM25 index of %r unreadable (%s): rebuilt from the stored chunk texts",
                     self.name, sparse.damaged)
        listed = sorted(self.manifest.chunk_ids)
        payloads = self.store.payloads(listed)
        self.add_stored_to_sparse([c for c in listed if c in payloads], payloads)

    def add_stored_to_sparse(self, chunk_ids: Sequence[str],
                             payloads: dict[str, dict[str, Any]]) -> None:
        """Index chunks in BM25 again from the texts their points store (`store.payloads`)."""
        self.sparse.add(chunk_ids, self.tokenizer.many([str(payloads[c]["text"]) for c in chunk_ids]))

    @property
    def keeps_texts(self) -> bool:
        """A collection keeps its documents' parsed text; its derived indexes read that copy."""
        return INDEX_MARK not in self.name

    @property
    def is_empty(self) -> bool:
        """Nothing indexed yet (the first ingest records the vector size)."""
        return self.manifest.dim == 0

    def check_compatible(self, config: PipelineConfig) -> None:
        """Raise IncompatibleConfigError naming each index-affecting field that differs."""
        if not self.manifest.settings:
            return  # an empty collection takes the settings of its first ingest
        wanted = index_settings(config)
        if settings_hash(wanted) == self.manifest.config_hash:
            return
        lines = "\n  ".join(settings_diff(self.manifest.settings, wanted))
        raise IncompatibleConfigError(
            f"collection {self.name!r} was built with other index settings "
            f"(hash {self.manifest.config_hash} vs {settings_hash(wanted)}):\n  {lines}\n"
            f"{embedding_mismatch(self.manifest.settings, wanted)}"
            f"use the preset it was built with, or ingest into a new collection"
        )

    # -- ingest -----------------------------------------------------------------------------------
    def add_documents(
        self,
        documents: Sequence[Document],
        config: PipelineConfig,
        *,
        access: Access | None = None,
        embedder: Embedder | None = None,
        progress: bool = True,
        on_progress: OnProgress | None = None,
    ) -> IngestSummary:
        """Chunk, embed and index new or changed documents; unchanged ones (same source and
        content hash) add nothing, and a changed one replaces all of its old chunks.
        `on_progress(phase, done, total)` follows "embedding" and "indexing" chunk by chunk."""
        with self.writing():
            return self._add_documents(documents, config, access, embedder, progress, on_progress)

    def _add_documents(
        self,
        documents: Sequence[Document],
        config: PipelineConfig,
        access: Access | None,
        embedder: Embedder | None,
        progress: bool,
        on_progress: OnProgress | None,
    ) -> IngestSummary:
        started = time.perf_counter()
        self.check_compatible(config)
        access = access or Access()
        known = self.manifest.documents
        by_source = {d.metadata.source: d for d in documents}  # the last copy of a source wins
        unchanged = tuple(  # same content and same owner/visibility/tags: nothing to write
            s
            for s, d in by_source.items()
            if s in known
            and known[s].content_hash == d.metadata.content_hash
            and known[s].access == access.key
        )
        skip = set(unchanged)
        todo = [d for s, d in by_source.items() if s not in skip]
        if not self.manifest.settings:
            self._fix_settings(config)
        if config.documents.redact_pii:
            todo = [redact_document(d, config.documents) for d in todo]
        chunker = get_chunker(config.chunking.strategy, config.chunking.params)
        pairs = [(doc, chunk) for doc in todo for chunk in chunker.chunk(doc)]
        texts = [chunk.text for _, chunk in pairs]
        tokens = self.tokenizer.many(texts)
        vectors = self._embed(texts, config, embedder, progress, on_progress) if pairs else None
        new_ids = {c.chunk_id for _, c in pairs}
        old_ids = [
            c
            for d in todo
            if d.metadata.source in known
            for c in known[d.metadata.source].chunk_ids
        ]
        stale = [c for c in old_ids if c not in new_ids]  # ids a changed file kept were overwritten
        if todo:  # the write-ahead record comes first: readers hide what it names until the commit
            journal.record(self.directory, journal.WriteIntent(tuple(new_ids), tuple(stale)))
        if vectors is not None:  # nothing new: no model is loaded at all
            with self.store.session():  # one hold of the store for the whole upsert
                self._write_points(pairs, vectors, tokens, access, progress, on_progress)
        self.sparse.remove(stale)
        self.sparse.add([c.chunk_id for _, c in pairs], tokens)
        self.sparse.save()
        if self.keeps_texts:  # before the commit: a listed document always has its text
            DocumentTexts(self.directory).put(todo, access)
        self._record(todo, pairs, access)  # the commit: the manifest now lists them
        self.store.delete(stale)
        journal.clear(self.directory)
        return IngestSummary(
            collection=self.name,
            added=tuple(d.metadata.source for d in todo if d.metadata.source not in known),
            replaced=tuple(d.metadata.source for d in todo if d.metadata.source in known),
            unchanged=unchanged,
            chunks_added=len(pairs),
            chunks_removed=len(stale),
            seconds=time.perf_counter() - started,
            repair=self.last_repair,
        )

    @staticmethod
    def _embed(
        texts: list[str],
        config: PipelineConfig,
        embedder: Embedder | None,
        progress: bool,
        on_progress: OnProgress | None,
    ) -> np.ndarray:
        if embedder is None:
            text_embedder = get_embedder(config.embedding)
            text_embedder.show_progress = progress
            embedder = text_embedder
        if on_progress is None:
            return embedder.embed_documents(texts)
        parts = []
        for start in range(0, len(texts), _EMBED_SLICE):
            parts.append(embedder.embed_documents(texts[start : start + _EMBED_SLICE]))
            on_progress("embedding", min(start + _EMBED_SLICE, len(texts)), len(texts))
        return np.concatenate(parts)

    def _fix_settings(self, config: PipelineConfig) -> None:
        """The first ingest fixes the collection's index settings (and so its tokenizer/backend)."""
        settings = index_settings(config)
        self.manifest = replace(
            self.manifest, settings=MappingProxyType(settings), config_hash=settings_hash(settings)
        )
        self._sparse, self._tokenizer = None, None

    def _write_points(
        self,
        pairs: list[tuple[Document, Chunk]],
        vectors: np.ndarray,
        tokens: list[list[str]],
        access: Access,
        progress: bool,
        on_progress: OnProgress | None = None,
    ) -> None:
        if not self.store.exists():
            self.store.create(int(vectors.shape[1]))
        avgdl = self.manifest.sparse_avgdl or float(np.mean([len(t) for t in tokens]) or 1.0)
        if not self.manifest.dim:
            self.manifest = replace(self.manifest, dim=int(vectors.shape[1]), sparse_avgdl=avgdl)
        cfg = self._index_config()
        params = BM25Params(cfg.k1, cfg.b)
        now = time.time()
        points = []
        for (doc, chunk), vector, toks in zip(pairs, vectors, tokens, strict=True):
            created = doc.metadata.modified.timestamp() if doc.metadata.modified else now
            indices, values = document_vector(toks, avgdl, params)
            payload = chunk_payload(doc, chunk, access, created)
            points.append(Point(chunk.chunk_id, vector, indices, values, payload))
        with tqdm(
            total=len(points), desc=f"indexing {self.name}", unit="chunk", disable=not progress
        ) as bar:
            for start in range(0, len(points), _UPSERT_BATCH):
                batch = points[start : start + _UPSERT_BATCH]
                self.store.upsert(batch)
                bar.update(len(batch))
                if on_progress is not None:
                    on_progress("indexing", start + len(batch), len(points))

    def _record(
        self, todo: list[Document], pairs: list[tuple[Document, Chunk]], access: Access
    ) -> None:
        chunk_ids: dict[str, list[str]] = {d.doc_id: [] for d in todo}
        for doc, chunk in pairs:
            chunk_ids[doc.doc_id].append(chunk.chunk_id)
        documents = dict(self.manifest.documents)
        stamp = now_iso()
        for doc in todo:
            meta = doc.metadata
            ids = tuple(chunk_ids[doc.doc_id])
            documents[meta.source] = DocumentEntry(
                doc.doc_id, meta.source, meta.title, meta.content_hash, ids, stamp, access.key
            )
        self.manifest = self.manifest.with_documents(documents)
        self._save_manifest()

    def remove_document(self, source: str) -> int:
        """Take one document (by source) and all of its chunks out; returns the chunks removed."""
        with self.writing():
            entry = self.manifest.documents.get(source)
            if entry is None:
                known = ", ".join(sorted(self.manifest.documents)) or "(none)"
                raise KeyError(f"collection {self.name!r} has no document {source!r}; it has: {known}")
            ids = list(entry.chunk_ids)
            journal.record(self.directory, journal.WriteIntent((), tuple(ids)))
            documents = {s: d for s, d in self.manifest.documents.items() if s != source}
            self.manifest = self.manifest.with_documents(documents)
            self._save_manifest()  # the commit: from here on the chunks are not listed
            self.store.delete(ids)
            self.sparse.remove(ids)
            self.sparse.save()
            journal.clear(self.directory)
            if self.keeps_texts:
                DocumentTexts(self.directory).remove(source)
            return len(ids)

    def disk_bytes(self) -> int:
        """Bytes on disk: the collection folder (manifest, BM25) plus its embedded Qdrant points."""
        from rag.index.qdrant_store import qdrant_location  # late: server mode has no folder

        folders = [self.directory, Path(qdrant_location()) / "collection" / self.name]
        derived = self.directory / "indexes"  # each derived index counts its own bytes
        return sum(f.stat().st_size for d in folders if d.is_dir() for f in d.rglob("*")
                   if f.is_file() and not f.is_relative_to(derived))

    # -- reading ----------------------------------------------------------------------------------
    def chunks(self) -> list[Chunk]:
        """Every chunk the manifest lists (any owner's), in document then offset order."""
        self.refresh()
        if self.is_empty:
            return []
        listed = self.manifest.chunk_ids
        chunks = [chunk_from_payload(p) for p in self.store.scroll() if p.get("chunk_id") in listed]
        return sorted(chunks, key=lambda c: (c.doc_id, c.start, c.chunk_id))

    def get_chunk(self, chunk_id: str) -> Chunk:
        self.refresh()
        listed = not self.is_empty and chunk_id in self.manifest.chunk_ids
        payloads = self.store.payloads([chunk_id]) if listed else {}
        if chunk_id not in payloads:
            raise KeyError(f"collection {self.name!r} has no chunk {chunk_id!r}")
        return chunk_from_payload(payloads[chunk_id])

    def holds_private(self) -> bool:
        """Whether any point is private, read from the points themselves (never from a flag a
        crash could leave stale): counted once per manifest version, and taken as True while a
        write is pending, since its points may be arriving right now."""
        if journal.pending(self.directory) is not None:
            return True
        if self._private is None or self._private[0] is not self.manifest:
            found = self.store.count(visibility_filter("private")) > 0
            self._private = (self.manifest, found)
        return self._private[1]

    def _filter(self, filters: FilterConfig | None, since: float | None) -> Filter | None:
        intent = journal.pending(self.directory)
        hidden = sorted(intent.touched - self.manifest.chunk_ids) if intent else ()
        return build_filter(filters, since, privacy=self.holds_private(), hidden=hidden)

    def matching_ids(self, filters: FilterConfig | None) -> set[str] | None:
        """Ids of the chunks `filters` lets through (None: the filter excludes nothing)."""
        qfilter = self._filter(filters, None)
        if qfilter is None or self.is_empty:
            return None
        return {str(p["chunk_id"]) for p in self.store.scroll(qfilter, with_payload=False)}

    def vectors(self, chunk_ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored dense vectors of these chunks (no model runs); unknown ids are left out."""
        self.refresh()
        return {} if self.is_empty else self.store.dense_vectors(chunk_ids)

    def dense_search(
        self,
        query_vector: np.ndarray,
        depth: int,
        filters: FilterConfig | None = None,
        since: float | None = None,
    ) -> RankedList:
        """Cosine similarity in Qdrant's `dense` vector, filtered inside Qdrant."""
        self.refresh()
        if self.is_empty:
            return RankedList("dense", ())
        hits = self.store.search_dense(query_vector, depth, self._filter(filters, since))
        return _ranked("dense", self._listed([(h.score, h.payload) for h in hits]))

    def sparse_search(
        self,
        query: str,
        depth: int,
        filters: FilterConfig | None = None,
        since: float | None = None,
    ) -> RankedList:
        """BM25 over the collection's tokenizer with its sparse backend; raw BM25 scores."""
        self.refresh()
        if self.is_empty:
            return RankedList("bm25", ())
        hits = self.sparse.search(self.tokenizer(query), depth, self._filter(filters, since))
        payloads = self.store.payloads([h.chunk_id for h in hits])
        scored = [(h.score, payloads[h.chunk_id]) for h in hits if h.chunk_id in payloads]
        return _ranked("bm25", self._listed(scored))

    def _listed(self, scored: list[tuple[float, dict[str, Any]]]) -> list[tuple[float, dict[str, Any]]]:
        """Only chunks the manifest lists, whatever an older crash left in the store."""
        listed = self.manifest.chunk_ids
        return [(score, payload) for score, payload in scored if payload.get("chunk_id") in listed]


def _ranked(retriever: str, scored: list[tuple[float, dict[str, Any]]]) -> RankedList:
    candidates = tuple(
        Candidate(
            chunk=chunk_from_payload(payload),
            score=score,
            hits={retriever: RetrieverHit(retriever=retriever, rank=rank, raw_score=score)},
        )
        for rank, (score, payload) in enumerate(scored, start=1)
    )
    return RankedList(retriever, candidates)


def check_name(name: str) -> None:
    """A ValueError saying what a collection name may hold, unless `name` is one."""
    if not _NAME.match(name):
        raise ValueError(
            f"collection name {name!r} must start with a letter or digit and use only "
            f"letters, digits, '_', '-' or '.' (at most 64 characters)"
        )


def list_collections() -> list[str]:
    root = collections_root()
    return sorted(p.parent.name for p in root.glob("*/manifest.json")) if root.exists() else []


def open_collection(name: str, *, create: bool = False) -> Collection:
    """An existing collection, or (create=True) a new empty one."""
    check_name(name)
    directory = collections_root() / name
    manifest = directory / "manifest.json"
    if not manifest.exists():
        if not create:
            existing = ", ".join(list_collections()) or "(none yet)"
            raise CollectionNotFoundError(
                f"no collection {name!r}; existing: {existing}. Create one with "
                f"`python -m rag ingest PATH --collection {name}`"
            )
        with exclusive(directory / _WRITE_LOCK, f"collection {name!r}"):
            if not manifest.exists():  # two first ingests: the second finds the first's
                Manifest.new(name).save(manifest)
    return Collection(name, directory)


_WRITE_LOCK = ".write.lock"


@contextlib.contextmanager
def _writing(collection: Collection) -> Iterator[None]:
    with exclusive(collection.directory / _WRITE_LOCK, f"collection {collection.name!r}"):
        collection._stamp = None  # another writer may have finished while this one waited
        collection.refresh()
        collection.last_repair = reconcile(collection)  # what a killed writer left, undone
        yield


def delete_collection(name: str) -> None:
    from rag.index.derived import forget_derived  # late: derived.py builds on this module

    collection = open_collection(name)
    with collection.writing():
        forget_derived(collection)
        collection.store.drop()
        shutil.rmtree(collection.directory)
