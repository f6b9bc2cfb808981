"""One overall deadline for all LLM work of a query (generation.deadline_s): the pipeline runner
starts it, every LLM call made while it runs reads what is left, so retries, backoff and slow
servers together can never cost more than the deadline. Also the secret redactor for LLM output."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass


@dataclass(frozen=True)
class Deadline:
    seconds: float  # the setting, for messages
    at: float  # time.monotonic() when it passes

    def remaining(self) -> float:
        return self.at - time.monotonic()


_CURRENT: ContextVar[Deadline | None] = ContextVar("rag_llm_deadline", default=None)


@contextmanager
def llm_deadline(seconds: float) -> Iterator[Deadline]:
    """Start the deadline for the LLM calls made inside; an outer one already running wins
    (a query's slices share the query's deadline)."""
    outer = _CURRENT.get()
    if outer is not None:
        yield outer
        return
    deadline = Deadline(seconds, time.monotonic() + seconds)
    token = _CURRENT.set(deadline)
    try:
        yield deadline
    finally:
        _CURRENT.reset(token)


def current_deadline() -> Deadline | None:
    return _CURRENT.get()


@contextmanager
def without_deadline() -> Iterator[None]:
    """No deadline for the calls made inside (work done once for many queries, such as a judge
    check, is not one query's to pay for)."""
    token = _CURRENT.set(None)
    try:
        yield
    finally:
        _CURRENT.reset(token)


class Redactor:
    """Replaces secrets in streamed text. A secret can be split over tokens, so text that ends
    in the start of a secret is held back until more text (or the end) shows what it is; all
    other text passes at once, token for token."""

    MASK = "***"

    def __init__(self, secrets: Sequence[str]) -> None:
        self.secrets = sorted({s for s in secrets if s}, key=len, reverse=True)
        self._hold = max((len(s) for s in self.secrets), default=1) - 1
        self._buffer = ""

    def feed(self, text: str) -> str:
        """The text that is safe to emit now (maybe empty)."""
        self._buffer = self.redact(self._buffer + text)
        held = next((k for k in range(min(self._hold, len(self._buffer)), 0, -1)
                     if any(s.startswith(self._buffer[-k:]) for s in self.secrets)), 0)
        cut = len(self._buffer) - held
        out, self._buffer = self._buffer[:cut], self._buffer[cut:]
        return out

    def flush(self) -> str:
        out, self._buffer = self.redact(self._buffer), ""
        return out

    def redact(self, text: str) -> str:
        for secret in self.secrets:
            text = text.replace(secret, self.MASK)
        return text
