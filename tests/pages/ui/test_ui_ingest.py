"""The ingest progress text: counts, then an ETA from the rate so far."""

from __future__ import annotations

import time

from pages.ui.ingest import eta


def test_eta_counts_then_extrapolates_the_rate() -> None:
    assert eta(time.perf_counter(), 0, 40) == "0/40"
    text = eta(time.perf_counter() - 10.0, 10, 40)  # 1 s per item so far, 30 to go
    assert text.startswith("10/40 · ETA ") and 29 <= int(text.split()[-2]) <= 31
