"""How fast an endpoint reads a prompt and writes an answer, measured on the streamed calls it has
answered: prompt characters per second until the first token, answer characters per second after
it. A small local model on two cores reads a few hundred characters a second, so a long context
can use up generation's whole budget before the first word; knowing both speeds lets the generate
stage send less context instead of timing out (rag.generate.fit_time).

The measurements are kept in the data folder, so a new process (each `rag query`, the app after a
restart) plans its first call with what earlier ones measured instead of sending the whole context.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Literal

from rag.paths import cache_dir

KEEP = 8  # the most recent measurements per endpoint: the server's load changes
MIN_CHARS = {"reading": 400, "writing": 40}  # less is mostly latency, not reading or writing

Activity = Literal["reading", "writing"]
_lock = threading.Lock()


def _file() -> Path:
    return cache_dir("llm") / "speeds.json"


def _key(activity: Activity, base_url: str, model: str) -> str:
    return f"{activity}|{base_url}|{model}"


def _load() -> dict[str, list[float]]:
    try:
        data = json.loads(_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):  # none yet, or a file another process left half-written
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: [float(x) for x in v if isinstance(x, (int, float)) and x > 0]
            for k, v in data.items() if isinstance(v, list)}


def record(activity: Activity, base_url: str, model: str, chars: int, seconds: float) -> None:
    """One streamed call's speed at reading its prompt or writing its answer (ignored when there
    were too few characters to tell)."""
    if chars < MIN_CHARS[activity] or seconds <= 0:
        return
    with _lock:
        speeds = _load()
        key = _key(activity, base_url, model)
        speeds[key] = [*speeds.get(key, []), chars / seconds][-KEEP:]
        target = _file()
        temporary = target.with_name(f"{target.name}.{os.getpid()}.{threading.get_ident()}")
        temporary.write_text(json.dumps(speeds), encoding="utf-8")
        os.replace(temporary, target)  # readers see the old file or the new one, never half


def chars_per_second(activity: Activity, base_url: str, model: str) -> float | None:
    """The slowest of the recent measurements, or None before any: a local server's speed swings
    with the machine's load, and planning for a fast moment is what runs into the deadline."""
    with _lock:
        seen = _load().get(_key(activity, base_url, model))
    return min(seen) if seen else None


def forget() -> None:
    """Drop every measurement (tests; a server restarted on other hardware)."""
    with _lock:
        _file().unlink(missing_ok=True)
