"""Where a streaming run's stages report: the context stage announces the sources and the
generate stage each token through the current `StreamSink` (rag.streaming.StreamingRun sets it
in its worker thread). Here, below both stages, so neither imports the runner's streaming."""

from __future__ import annotations

from contextvars import ContextVar
from typing import Protocol

from rag.outputs.context import BuiltContext


class StreamSink(Protocol):
    def context_ready(self, context: BuiltContext) -> None: ...

    def token(self, text: str) -> None: ...


# Set only inside a StreamingRun's worker thread; stages report to it when present.
SINK: ContextVar[StreamSink | None] = ContextVar("rag_stream_sink", default=None)
