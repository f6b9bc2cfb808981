"""Ingest stage `chunk`: the documents to index, cut by the config's chunking strategy (every
chunk keeps `text == document.text[start:end]`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from rag.index import ingest as steps
from rag.ingestion.redact import RedactOutput
from rag.ingestion.registry import INGEST_STAGES
from rag.records.chunk import Chunk
from rag.records.document import Document
from rag.stages import PipelineState, StageEnv, StageInput, StageResult, StageSpec
from rag.trace import NOT_IN_TRACE


@dataclass(frozen=True)
class ChunkOutput:
    """How many chunks, from how many documents, by which strategy; documents that gave none."""

    strategy: str
    documents: int
    chunks: int
    no_chunks: tuple[str, ...] = ()  # sources whose text gave no chunk (indexed with none)
    pairs: tuple[tuple[Document, Chunk], ...] = field(default=(), metadata=NOT_IN_TRACE)

    def describe(self) -> str:
        empty = f"; {len(self.no_chunks)} gave none" if self.no_chunks else ""
        return f"{self.chunks} chunks from {self.documents} document(s) ({self.strategy}){empty}"


def run(state: PipelineState, env: StageEnv) -> StageResult:
    todo = state.artifact("redact", RedactOutput)
    assert todo is not None  # a required input: the runner checked it
    pairs = steps.chunk_pairs(todo.todo, env.config)
    chunked = {doc.doc_id for doc, _ in pairs}
    empty = tuple(d.metadata.source for d in todo.todo if d.doc_id not in chunked)
    output = ChunkOutput(env.config.chunking.strategy, len(todo.todo), len(pairs), empty,
                         tuple(pairs))
    warnings = tuple(f"{source}: no chunk (no text to index)" for source in empty)
    return StageResult(state, output, inputs={"documents": len(todo.todo)}, warnings=warnings)


INGEST_STAGES.add("chunk", StageSpec("chunk", run, ChunkOutput, settings=lambda c: c.chunking,
                                     inputs=(StageInput("redact", RedactOutput, required=True),)))
