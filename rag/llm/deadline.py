"""LLM time per query, shared out by stage. The pipeline runner starts the query's deadline
(generation.deadline_s) and gives each stage its own: an LLM stage before generation gets its share
of the deadline (generation.budget.shares) but never the part reserved for generation
(generation.budget.generation_reserve); generation gets everything left; a stage after it gets its
share of what is left. Every LLM call made while a stage runs reads what is left of the stage's
budget, so retries, backoff and slow servers can never cost more; each call's time is added to the
stage's use, which the trace shows beside the budget. Also the secret redactor for LLM output."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass


@dataclass(frozen=True)
class Deadline:
    seconds: float  # the allowance, for messages
    at: float  # time.monotonic() when it passes
    label: str = ""  # how messages name it (default: the query's deadline)

    def remaining(self) -> float:
        return self.at - time.monotonic()

    def describe(self) -> str:
        return self.label or f"query deadline of {self.seconds:g} s"


@dataclass
class StageUse:
    """What a stage's LLM calls took: filled while the stage runs (one per stage run)."""

    calls: int = 0
    used_s: float = 0.0


_QUERY: ContextVar[Deadline | None] = ContextVar("rag_llm_query_deadline", default=None)
_CURRENT: ContextVar[Deadline | None] = ContextVar("rag_llm_deadline", default=None)
_USE: ContextVar[StageUse | None] = ContextVar("rag_llm_stage_use", default=None)


@contextmanager
def llm_deadline(seconds: float) -> Iterator[Deadline]:
    """Start the deadline for the LLM calls made inside; an outer one already running wins
    (a query's slices share the query's deadline)."""
    outer = _QUERY.get()
    if outer is not None:
        yield outer
        return
    deadline = Deadline(seconds, time.monotonic() + seconds)
    tokens = (_QUERY.set(deadline), _CURRENT.set(deadline))
    try:
        yield deadline
    finally:
        _CURRENT.reset(tokens[1])
        _QUERY.reset(tokens[0])


def current_deadline() -> Deadline | None:
    return _CURRENT.get()


def allowance(stage: str, share: float, reserve: float, before_generation: bool
              ) -> tuple[float, float] | None:
    """(seconds this stage may spend, the query's seconds left) under the running query deadline;
    None when no deadline runs. Generation gets all that is left, and never less than its reserve
    (a call that ends a little after its stage's deadline does not eat into it)."""
    query = _QUERY.get()
    if query is None:
        return None
    left = max(0.0, query.remaining())
    if stage == "generate":  # its reserve holds even when an earlier call ended late
        return max(left, reserve * query.seconds), left
    spendable = left - reserve * query.seconds if before_generation else left
    return max(0.0, min(share * query.seconds, spendable)), left


@contextmanager
def stage_budget(stage: str, seconds: float | None, setting: str) -> Iterator[StageUse]:
    """Run one stage with its own LLM deadline of `seconds` (None: the query's, if any) and
    count what its calls take; `setting` names the setting messages point at."""
    use = StageUse()
    use_token = _USE.set(use)
    token = None
    if seconds is not None:
        label = f"LLM budget of {seconds:.3g} s for stage {stage} ({setting})"
        token = _CURRENT.set(Deadline(seconds, time.monotonic() + seconds, label))
    try:
        yield use
    finally:
        if token is not None:
            _CURRENT.reset(token)
        _USE.reset(use_token)


def record_call(seconds: float) -> None:
    """Add one call's time to the running stage's use (nothing outside a stage)."""
    use = _USE.get()
    if use is not None:
        use.calls += 1
        use.used_s += seconds


@contextmanager
def without_deadline() -> Iterator[None]:
    """No deadline for the calls made inside, and none of their time counted to the stage (work
    done once for many queries, such as a judge check, is not one query's to pay for)."""
    tokens = (_CURRENT.set(None), _USE.set(None))
    try:
        yield
    finally:
        _USE.reset(tokens[1])
        _CURRENT.reset(tokens[0])


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
