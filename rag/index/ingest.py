"""Ingest into one index: parsed Documents → (redaction) → chunks → vectors → the writer.

The steps (redact, chunk, embed) are the ingest stages' work (rag.ingestion); `add_documents`
runs those stages. Only new or changed documents are chunked and embedded: one with the same
source, content hash and owner/visibility/tags as the listed copy adds nothing. The steps here
know nothing of locks or journals; rag.index.writer makes the result durable.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from rag.chunking import get_chunker
from rag.documents.sanitize import redact_document
from rag.embed import Embedder, get_embedder
from rag.index.payload import Access
from rag.index.reconcile import Repair
from rag.index.writer import CollectionWriter, OnProgress
from rag.records.chunk import Chunk
from rag.records.document import Document

if TYPE_CHECKING:
    from rag.settings.pipeline import PipelineConfig

# The ingest pipeline's stages sit above rag.index (they run on rag.pipeline's runner, which
# reads indexes), so the index names the module that runs them and imports it on first use,
# as rag.stages.STAGE_MODULES does for the query's stages.
INGEST_PIPELINE = "rag.ingestion.run"

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
    # the rag.trace.Trace of the ingest stages that did it (rag.trace sits above rag.index)
    trace: object | None = field(default=None, compare=False)


def redact_documents(documents: Sequence[Document], config: PipelineConfig) -> list[Document]:
    """The documents as the collection keeps them: PII redacted when the config says so."""
    if config.documents.redact_pii:
        return [redact_document(d, config.documents) for d in documents]
    return list(documents)


def chunk_pairs(documents: Sequence[Document], config: PipelineConfig) -> list[tuple[Document, Chunk]]:
    """Each document with each of its chunks, by the config's chunking strategy."""
    chunker = get_chunker(config.chunking.strategy, config.chunking.params)
    return [(doc, chunk) for doc in documents for chunk in chunker.chunk(doc)]


def chunk_documents(
    documents: Sequence[Document], config: PipelineConfig
) -> tuple[list[Document], list[tuple[Document, Chunk]]]:
    """The documents as the collection keeps them (PII redacted when the config says so), and
    each of them with each of its chunks (the redact and chunk stages' work, in one call)."""
    kept = redact_documents(documents, config)
    return kept, chunk_pairs(kept, config)


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
    what: str = "",
) -> IngestSummary:
    """Chunk, embed and index new or changed documents; a changed one replaces all of its old
    chunks. `on_progress(phase, done, total)` follows "embedding" and "indexing" chunk by chunk.
    The work runs as the ingest pipeline's stages (rag.ingestion.run.write_documents; `what`
    says where the documents came from); the summary carries their trace."""
    pipeline = importlib.import_module(INGEST_PIPELINE)
    summary: IngestSummary = pipeline.write_documents(
        writer, documents, config, access=access, embedder=embedder, progress=progress,
        on_progress=on_progress, what=what)
    return summary
