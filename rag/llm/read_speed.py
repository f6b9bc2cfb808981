"""How fast an endpoint reads a prompt, measured on the streamed calls it has answered in this
process: prompt characters per second until the first token. A small local model on two cores
reads a few thousand characters a second, so a long context can use up generation's whole budget
before the first word; knowing the speed lets the generate stage send less context instead of
timing out (rag.generate.fit_time)."""

from __future__ import annotations

import statistics
import threading
from collections import deque

KEEP = 8  # the most recent measurements per endpoint: the server's load changes
MIN_PROMPT_CHARS = 400  # a short prompt's first token is mostly latency, not reading

_lock = threading.Lock()
_speeds: dict[tuple[str, str], deque[float]] = {}


def record(base_url: str, model: str, prompt_chars: int, seconds_to_first_token: float) -> None:
    """One streamed call's reading speed (ignored when the prompt was too short to tell)."""
    if prompt_chars < MIN_PROMPT_CHARS or seconds_to_first_token <= 0:
        return
    with _lock:
        _speeds.setdefault((base_url, model), deque(maxlen=KEEP)).append(
            prompt_chars / seconds_to_first_token)


def chars_per_second(base_url: str, model: str) -> float | None:
    """The median measured speed, or None before any measurement."""
    with _lock:
        seen = _speeds.get((base_url, model))
        return statistics.median(seen) if seen else None


def forget() -> None:
    """Drop every measurement (tests; a server restarted on other hardware)."""
    with _lock:
        _speeds.clear()
