"""Streaming a pipeline run to a UI: the run goes to a worker thread; the context stage announces
the sources and the generate stage each token through the current `StreamSink`
(rag.context.sink), so a page can
show sources first (IntelliDocs) and then the tokens as they arrive (`st.write_stream`)."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator
from typing import Literal

from rag.context.sink import SINK, StreamSink
from rag.outputs.context import BuiltContext
from rag.trace import Trace

__all__ = ["SINK", "Event", "StreamSink", "StreamingRun"]

Event = tuple[Literal["context"], BuiltContext] | tuple[Literal["token"], str] | tuple[Literal["done"], None]


class StreamingRun:
    """`run()` a pipeline call (e.g. `lambda: run_query(q, config)`) in a thread and watch it."""

    def __init__(self, run: Callable[[], Trace]) -> None:
        self._run = run
        self._events: queue.Queue[Event] = queue.Queue()
        self._trace: Trace | None = None
        self._error: BaseException | None = None
        self._done = False
        self._thread = threading.Thread(target=self._work, name="rag-stream", daemon=True)
        self._thread.start()

    # StreamSink, called from the worker thread
    def context_ready(self, context: BuiltContext) -> None:
        self._events.put(("context", context))

    def token(self, text: str) -> None:
        self._events.put(("token", text))

    def _work(self) -> None:
        SINK.set(self)
        try:
            self._trace = self._run()
        except Exception as exc:  # noqa: BLE001 - re-raised by trace(): nothing is swallowed
            self._error = exc
        finally:
            self._events.put(("done", None))

    # consumer side
    def sources(self) -> BuiltContext | None:
        """Block until the context is built (None if the run ended without one)."""
        while not self._done:
            event = self._events.get()
            if event[0] == "context":
                return event[1]
            if event[0] == "done":
                self._done = True
        return None

    def tokens(self) -> Iterator[str]:
        """Tokens until the run ends."""
        while not self._done:
            event = self._events.get()
            if event[0] == "token":
                yield str(event[1])
            elif event[0] == "done":
                self._done = True

    def trace(self) -> Trace:
        """The finished run's trace (re-raises what the run raised)."""
        for _ in self.tokens():
            pass
        self._thread.join()
        if self._error is not None:
            raise self._error
        assert self._trace is not None
        return self._trace
