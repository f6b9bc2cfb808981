"""How much of the machine other processes used while a benchmark phase ran.

The load average cannot say: a bench that keeps both cores busy itself reads as load 2. Here the
machine's busy CPU time (/proc/stat) minus this process's own CPU time over the phase, divided by
the phase's wall time, is the number of cores other processes kept busy (0 on a quiet machine).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

_STAT = Path("/proc/stat")


def _busy_seconds() -> float | None:
    """CPU seconds the whole machine has spent busy since boot (Linux), else None."""
    try:
        fields = [int(v) for v in _STAT.read_text().splitlines()[0].split()[1:]]
    except (OSError, ValueError, IndexError):
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


class OtherLoad:
    """`with OtherLoad() as other: ...` then `other.cores`: other processes' busy cores."""

    cores: float | None = None

    def __enter__(self) -> OtherLoad:
        self._start = (time.perf_counter(), _busy_seconds(), time.process_time())
        return self

    def __exit__(self, *exc: object) -> None:
        wall0, busy0, own0 = self._start
        busy1, wall = _busy_seconds(), time.perf_counter() - wall0
        if busy0 is not None and busy1 is not None and wall > 0:
            others = (busy1 - busy0) - (time.process_time() - own0)
            self.cores = round(max(0.0, others / wall), 2)
