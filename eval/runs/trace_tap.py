"""Keep the traces an eval run makes anyway, so a stored run can show any question's trace later.

The searchers of eval.runs.beir_index run every query through the pipeline and get a Trace; while
`keeping_traces()` is open they hand each one to `tap` (by query text), and the caller stores
them with the run. At most `limit` traces are kept (a run of 10,000 questions keeps the first
ones); a run that kept none shows a re-run trace instead, and says so.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar

from rag.trace import Trace

TRACE_LIMIT = 500  # ~45 kB a trace compressed (hybrid, depth 100): ~22 MB a run at most
_KEPT: ContextVar[tuple[dict[str, Trace], int] | None] = ContextVar("eval_trace_tap", default=None)


def tap(query: str, trace: Trace) -> None:
    """Called by the searchers after each query; does nothing unless traces are being kept."""
    kept = _KEPT.get()
    if kept is not None and (query in kept[0] or len(kept[0]) < kept[1]):
        kept[0][query] = trace


@contextmanager
def keeping_traces(limit: int = TRACE_LIMIT) -> Iterator[dict[str, Trace]]:
    """Collect query text -> trace while the block runs."""
    traces: dict[str, Trace] = {}
    token = _KEPT.set((traces, limit))
    try:
        yield traces
    finally:
        _KEPT.reset(token)


def by_qid(traces: Mapping[str, Trace], queries: Mapping[str, str]) -> dict[str, Trace]:
    """The kept traces keyed by question id."""
    return {qid: traces[text] for qid, text in queries.items() if text in traces}
