"""Ingest stage `embed`: a passage vector per chunk, by the config's embedding model (no model
is loaded when there is nothing new). What the write needs besides the vectors — BM25 tokens
and vectors, payloads — is prepared in a second thread meanwhile: the model's threads leave
the interpreter free, so it costs the run no time."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
from pydantic import ConfigDict

from rag.index import ingest as steps
from rag.index.payload import Access
from rag.index.writer import CollectionWriter, PreparedChunks
from rag.ingestion.chunk import ChunkOutput
from rag.ingestion.registry import INGEST_STAGES, ingest_env, target
from rag.records.chunk import Chunk
from rag.records.document import Document
from rag.stages import PipelineState, StageEnv, StageInput, StageResult, StageSpec
from rag.trace import NOT_IN_TRACE


@dataclass(frozen=True)
class EmbedOutput:
    """Vectors made (and their width), by which model; the seconds the write's preparation
    took beside it."""

    model: str
    vectors: int
    dim: int
    prepare_s: float
    embedded: np.ndarray | None = field(default=None, metadata=NOT_IN_TRACE)
    prepared: PreparedChunks | None = field(default=None, metadata=NOT_IN_TRACE)

    __pydantic_config__: ClassVar[ConfigDict] = ConfigDict(arbitrary_types_allowed=True)  # JSON: counts

    def describe(self) -> str:
        if not self.vectors:
            return "nothing new to embed: no model loaded"
        return (f"{self.vectors} vectors × {self.dim} ({self.model}); BM25 and payloads "
                f"prepared beside it in {self.prepare_s:.2f} s")


def _timed_prepare(writer: CollectionWriter, pairs: list[tuple[Document, Chunk]],
                   access: Access) -> tuple[PreparedChunks, float]:
    started = time.perf_counter()
    return writer.prepare(pairs, access), time.perf_counter() - started


def run(state: PipelineState, env: StageEnv) -> StageResult:
    ingest = ingest_env(env)
    chunked = state.artifact("chunk", ChunkOutput)
    assert chunked is not None  # a required input: the runner checked it
    writer, access = target(ingest), ingest.access or Access()
    pairs = list(chunked.pairs)
    texts = [chunk.text for _, chunk in pairs]
    with ThreadPoolExecutor(1, thread_name_prefix="ingest-prepare") as pool:
        beside = pool.submit(_timed_prepare, writer, pairs, access)
        vectors = (steps.embed_texts(texts, env.config, ingest.embedder, ingest.progress,
                                     ingest.on_progress) if pairs else None)
        prepared, prepare_s = beside.result()
    model = env.config.embedding.model
    dim = 0 if vectors is None else int(vectors.shape[1])
    output = EmbedOutput(model, len(texts), dim, round(prepare_s, 3), vectors, prepared)
    reason = "" if pairs else "no new chunks: no model loaded"
    return StageResult(state, output, inputs={"chunks": len(texts)}, reason=reason)


INGEST_STAGES.add("embed", StageSpec("embed", run, EmbedOutput, settings=lambda c: c.embedding,
                                     inputs=(StageInput("chunk", ChunkOutput, required=True),)))
