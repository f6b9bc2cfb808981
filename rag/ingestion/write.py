"""Ingest stage `write`: the chunks, their vectors and the documents' kept text into the index,
crash-safe (rag.index.writer: write-ahead record, upsert, BM25, kept text, manifest commit, old
points deleted)."""

from __future__ import annotations

from dataclasses import dataclass

from rag.index.payload import Access
from rag.ingestion.embed import EmbedOutput
from rag.ingestion.redact import RedactOutput
from rag.ingestion.registry import INGEST_STAGES, ingest_env, target
from rag.stages import PipelineState, StageEnv, StageInput, StageResult, StageSpec


@dataclass(frozen=True)
class WriteOutput:
    """What the index now holds that it did not, by source."""

    index: str
    added: tuple[str, ...]
    replaced: tuple[str, ...]
    unchanged: tuple[str, ...]
    chunks_added: int
    chunks_removed: int
    repair: str = ""  # what an earlier, interrupted write left and this one undid

    def describe(self) -> str:
        repair = f"; {self.repair}" if self.repair else ""
        return (f"{self.index}: {len(self.added)} added, {len(self.replaced)} replaced, "
                f"{len(self.unchanged)} unchanged; {self.chunks_added} chunks added, "
                f"{self.chunks_removed} removed{repair}")


def run(state: PipelineState, env: StageEnv) -> StageResult:
    ingest = ingest_env(env)
    todo = state.artifact("redact", RedactOutput)
    embedded = state.artifact("embed", EmbedOutput)
    assert todo is not None and embedded is not None  # required inputs: the runner checked them
    assert embedded.prepared is not None  # the embed stage always prepares, also for no chunks
    writer = target(ingest)
    known = writer.catalogue.manifest.documents
    documents = list(todo.todo)
    written = writer.write(documents, embedded.prepared, embedded.embedded,
                           ingest.access or Access(), progress=ingest.progress,
                           on_progress=ingest.on_progress)
    repair = writer.last_repair
    output = WriteOutput(
        writer.catalogue.name,
        tuple(d.metadata.source for d in documents if d.metadata.source not in known),
        tuple(d.metadata.source for d in documents if d.metadata.source in known),
        todo.unchanged, written.chunks_added, written.chunks_removed,
        "" if repair is None else str(repair),
    )  # fmt: skip
    return StageResult(state, output, inputs={"documents": len(documents),
                                              "vectors": embedded.vectors})


INGEST_STAGES.add("write", StageSpec("write", run, WriteOutput, settings=lambda c: c.index,
                                     inputs=(StageInput("redact", RedactOutput, required=True),
                                             StageInput("embed", EmbedOutput, required=True))))
