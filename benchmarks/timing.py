"""Latency summaries: nearest-rank percentiles over per-call wall times."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True)
class Latency:
    p50_ms: float
    p95_ms: float
    mean_ms: float
    n: int


def percentile(samples: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a non-empty sample."""
    ordered = sorted(samples)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


def summarize(samples_ms: list[float]) -> Latency:
    if not samples_ms:
        return Latency(0.0, 0.0, 0.0, 0)
    return Latency(
        p50_ms=round(percentile(samples_ms, 50), 3),
        p95_ms=round(percentile(samples_ms, 95), 3),
        mean_ms=round(sum(samples_ms) / len(samples_ms), 3),
        n=len(samples_ms),
    )


def time_each(fn: Callable[[T], R], items: Iterable[T]) -> tuple[list[float], list[R]]:
    """Wall milliseconds of `fn(item)` for each item, and what each call returned."""
    samples: list[float] = []
    results: list[R] = []
    for item in items:
        start = time.perf_counter()
        results.append(fn(item))
        samples.append((time.perf_counter() - start) * 1000)
    return samples, results


def seconds(fn: Callable[[], T]) -> tuple[T, float]:
    start = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - start
