"""Ingest into one collection: parsed Documents → (redaction) → chunks → vectors → the writer.

Only new or changed documents are chunked and embedded: one with the same source, content hash
and owner/visibility/tags as the listed copy adds nothing. The steps here know nothing of locks
or journals; rag.index.writer makes the result durable.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from rag.chunking import get_chunker
from rag.chunking.base import Chunk
from rag.documents.base import Document
from rag.documents.sanitize import redact_document
from rag.embed import Embedder, get_embedder
from rag.index.payload import Access
from rag.index.reconcile import Repair
from rag.index.writer import CollectionWriter, OnProgress

if TYPE_CHECKING:
    from rag.settings.pipeline import PipelineConfig

_EMBED_SLICE = 64  # chunks per progress step while embedding


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


def chunk_documents(
    documents: Sequence[Document], config: PipelineConfig
) -> tuple[list[Document], list[tuple[Document, Chunk]]]:
    """The documents as the collection keeps them (PII redacted when the config says so), and
    each of them with each of its chunks."""
    if config.documents.redact_pii:
        documents = [redact_document(d, config.documents) for d in documents]
    chunker = get_chunker(config.chunking.strategy, config.chunking.params)
    return list(documents), [(doc, chunk) for doc in documents for chunk in chunker.chunk(doc)]


def embed_texts(
    texts: list[str],
    config: PipelineConfig,
    embedder: Embedder | None = None,
    progress: bool = True,
    on_progress: OnProgress | None = None,
) -> np.ndarray:
    """Passage vectors for `texts` with `embedder` (default: the config's embedding model);
    `on_progress("embedding", done, total)` every few dozen chunks."""
    if embedder is None:
        text_embedder = get_embedder(config.embedding)
        text_embedder.show_progress = progress
        embedder = text_embedder
    if on_progress is None:
        return embedder.embed_documents(texts)
    # steps of similar lengths (longest first), so no step pads short chunks to a long one;
    # the vectors go back to the chunks' order
    order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
    vectors = np.empty((len(texts), embedder.dim), dtype=np.float32)
    for start in range(0, len(texts), _EMBED_SLICE):
        step = order[start : start + _EMBED_SLICE]
        vectors[step] = embedder.embed_documents([texts[i] for i in step])
        on_progress("embedding", min(start + _EMBED_SLICE, len(texts)), len(texts))
    return vectors


def add_documents(
    writer: CollectionWriter,
    documents: Sequence[Document],
    config: PipelineConfig,
    *,
    access: Access | None = None,
    embedder: Embedder | None = None,
    progress: bool = True,
    on_progress: OnProgress | None = None,
) -> IngestSummary:
    """Chunk, embed and index new or changed documents; a changed one replaces all of its old
    chunks. `on_progress(phase, done, total)` follows "embedding" and "indexing" chunk by chunk."""
    catalogue = writer.catalogue
    access = access or Access()
    with writer.writing():
        started = time.perf_counter()
        config = catalogue.pinned(config)  # the graph recorded (or, when new, chosen) embeds
        catalogue.check_compatible(config)
        known = catalogue.manifest.documents
        by_source = {d.metadata.source: d for d in documents}  # the last copy of a source wins
        unchanged = tuple(  # same content and same owner/visibility/tags: nothing to write
            s
            for s, d in by_source.items()
            if s in known
            and known[s].content_hash == d.metadata.content_hash
            and known[s].access == access.key
        )
        todo = [d for s, d in by_source.items() if s not in unchanged]
        if not catalogue.manifest.settings:
            catalogue.fix_settings(config)
        todo, pairs = chunk_documents(todo, config)
        texts = [chunk.text for _, chunk in pairs]
        # BM25 vectors and payloads are made in a second thread while this one embeds (the
        # model's threads leave the interpreter free); progress reports stay on this thread
        with ThreadPoolExecutor(1, thread_name_prefix="ingest-prepare") as pool:
            prepared = pool.submit(writer.prepare, pairs, access)
            vectors = embed_texts(texts, config, embedder, progress, on_progress) if pairs else None
            written = writer.write(todo, prepared.result(), vectors, access, progress=progress,
                                   on_progress=on_progress)
    return IngestSummary(
        collection=catalogue.name,
        added=tuple(d.metadata.source for d in todo if d.metadata.source not in known),
        replaced=tuple(d.metadata.source for d in todo if d.metadata.source in known),
        unchanged=unchanged,
        chunks_added=written.chunks_added,
        chunks_removed=written.chunks_removed,
        seconds=time.perf_counter() - started,
        repair=writer.last_repair,
    )
