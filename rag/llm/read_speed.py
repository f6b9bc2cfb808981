"""How fast an endpoint reads a prompt and writes an answer, measured on the streamed calls it has
answered in this process: prompt characters per second until the first token, answer characters
per second after it. A small local model on two cores reads a few hundred characters a second,
so a long context can use up generation's whole budget before the first word; knowing both
speeds lets the generate stage send less context instead of timing out (rag.generate.fit_time)."""

from __future__ import annotations

import threading
from collections import deque
from typing import Literal

KEEP = 8  # the most recent measurements per endpoint: the server's load changes
MIN_CHARS = {"reading": 400, "writing": 40}  # less is mostly latency, not reading or writing

Activity = Literal["reading", "writing"]
_lock = threading.Lock()
_speeds: dict[tuple[str, str, Activity], deque[float]] = {}


def record(activity: Activity, base_url: str, model: str, chars: int, seconds: float) -> None:
    """One streamed call's speed at reading its prompt or writing its answer (ignored when there
    were too few characters to tell)."""
    if chars < MIN_CHARS[activity] or seconds <= 0:
        return
    with _lock:
        _speeds.setdefault((base_url, model, activity), deque(maxlen=KEEP)).append(chars / seconds)


def chars_per_second(activity: Activity, base_url: str, model: str) -> float | None:
    """The slowest of the recent measurements, or None before any: a local server's speed swings
    with the machine's load, and planning for a fast moment is what runs into the deadline."""
    with _lock:
        seen = _speeds.get((base_url, model, activity))
        return min(seen) if seen else None


def forget() -> None:
    """Drop every measurement (tests; a server restarted on other hardware)."""
    with _lock:
        _speeds.clear()
