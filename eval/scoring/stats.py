"""Bootstrap confidence intervals and paired significance tests over per-query metric values.

- CIs: percentile bootstrap of the mean (Efron & Tibshirani 1993, ch. 13), seeded. Resampling
  indices depend only on (n, n_resamples, seed), so two configurations scored on the same queries
  in the same order are resampled identically: their intervals are paired.
- Paired tests (Smucker, Allan & Carterette 2007, "A comparison of statistical significance tests
  for IR evaluation"): the randomization (permutation) test flips the sign of each query's
  difference; the paired bootstrap test (Sakai 2006) resamples mean-shifted differences.
  Both report a two-sided p-value with the +1 correction (Phipson & Smyth 2010).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

TestMethod = Literal["randomization", "bootstrap"]
_BLOCK = 1000  # resamples per block: bounds memory at 1000 x n_queries floats
_KEPT_MAX = 1_000_000  # indices kept between calls (8 MB); larger draws are made per call


@dataclass(frozen=True)
class Interval:
    low: float
    high: float

    def as_list(self) -> list[float]:
        return [self.low, self.high]


@dataclass(frozen=True)
class PairedComparison:
    """B minus A on the queries both scored: mean difference, its CI, and a two-sided p-value."""

    n: int
    mean_a: float
    mean_b: float
    diff: float
    ci: Interval
    p_value: float
    method: TestMethod
    n_resamples: int
    wins: int  # queries where B > A
    losses: int  # queries where B < A


def _finite(values: Sequence[float]) -> np.ndarray:
    array = np.asarray(values, dtype=float)
    if not np.all(np.isfinite(array)):
        raise ValueError("values must be finite (failed queries are excluded before statistics)")
    return array


def _blocks(n_resamples: int) -> Iterator[int]:
    for start in range(0, n_resamples, _BLOCK):
        yield min(_BLOCK, n_resamples - start)


def _draw_indices(n: int, n_resamples: int, seed: int) -> Iterator[np.ndarray]:
    rng = np.random.default_rng(seed)
    for size in _blocks(n_resamples):
        yield rng.integers(0, n, size=(size, n))


@functools.lru_cache(maxsize=4)
def _kept_indices(n: int, n_resamples: int, seed: int) -> tuple[np.ndarray, ...]:
    """The same draws, kept: every metric of every sweep point resamples the same n queries
    with the same seed, so they are drawn once (read-only)."""
    blocks = tuple(_draw_indices(n, n_resamples, seed))
    for block in blocks:
        block.setflags(write=False)
    return blocks


def bootstrap_means(values: Sequence[float], n_resamples: int = 2000, seed: int = 0) -> np.ndarray:
    """Means of `n_resamples` resamples (with replacement) of `values`; seeded."""
    array = _finite(values)
    if array.size == 0:
        return np.full(n_resamples, math.nan)
    small = array.size * n_resamples <= _KEPT_MAX
    draws = (_kept_indices if small else _draw_indices)(array.size, n_resamples, seed)
    return np.concatenate([array[indices].mean(axis=1) for indices in draws])


def bootstrap_ci(
    values: Sequence[float], confidence: float = 0.95, n_resamples: int = 2000, seed: int = 0
) -> Interval:
    """Percentile bootstrap CI of the mean; (nan, nan) for no values."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    means = bootstrap_means(values, n_resamples, seed)
    if np.isnan(means).any():
        return Interval(math.nan, math.nan)
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return Interval(float(low), float(high))


# (confidence, n_resamples, seed, a column's values) -> its interval: sweep points often score a
# metric identically (recall@100 at every RRF k), and equal columns resample to equal intervals
CiMemo = dict[tuple[float, int, int, tuple[float, ...]], Interval]


def _column_means(columns: Sequence[Sequence[float]], n_resamples: int, seed: int
                  ) -> list[np.ndarray]:
    """bootstrap_means of each column; columns of one length that keep their draws are
    resampled in one gather (np.take keeps each resample's values contiguous, so every mean is
    summed exactly as bootstrap_means sums it)."""
    arrays = [_finite(values) for values in columns]
    means: list[np.ndarray | None] = [None] * len(arrays)
    by_size: dict[int, list[int]] = {}
    for i, array in enumerate(arrays):
        if array.size and array.size * n_resamples <= _KEPT_MAX:
            by_size.setdefault(array.size, []).append(i)
        else:
            means[i] = bootstrap_means(array, n_resamples, seed)
    for size, members in by_size.items():
        stacked = np.stack([arrays[i] for i in members])
        blocks = [np.take(stacked, indices, axis=1).mean(axis=2)
                  for indices in _kept_indices(size, n_resamples, seed)]
        for row, mean in zip(members, np.concatenate(blocks, axis=1), strict=True):
            means[row] = mean
    return [m for m in means if m is not None]


def bootstrap_cis(
    columns: Sequence[Sequence[float]], confidence: float = 0.95, n_resamples: int = 2000,
    seed: int = 0, memo: CiMemo | None = None,
) -> list[Interval]:
    """bootstrap_ci of each column (every metric of a run), the same intervals, with one
    percentile call for all of them: a sweep scores every metric at every point. `memo` keeps
    intervals by column across calls (a sweep's points share one)."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    keys = [(confidence, n_resamples, seed, tuple(values)) for values in columns]
    known = {} if memo is None else memo
    todo = [i for i, key in enumerate(keys) if key not in known]
    means = _column_means([columns[i] for i in todo], n_resamples, seed)
    usable = [(i, m) for i, m in zip(todo, means, strict=True) if not np.isnan(m).any()]
    fresh = dict.fromkeys(todo, Interval(math.nan, math.nan))
    if usable:
        tail = (1 - confidence) / 2 * 100
        bounds = np.percentile(np.stack([m for _, m in usable]), [tail, 100 - tail], axis=1)
        for row, (i, _) in enumerate(usable):
            fresh[i] = Interval(float(bounds[0, row]), float(bounds[1, row]))
    if memo is not None:
        memo.update((keys[i], interval) for i, interval in fresh.items())
    return [fresh[i] if i in fresh else known[key] for i, key in enumerate(keys)]


def _randomization_p(diffs: np.ndarray, n_resamples: int, rng: np.random.Generator) -> float:
    observed = abs(diffs.mean())
    extreme = 0
    for size in _blocks(n_resamples):
        signs = rng.choice((-1.0, 1.0), size=(size, diffs.size))
        extreme += int(np.sum(np.abs((signs * diffs).mean(axis=1)) >= observed - 1e-12))
    return (extreme + 1) / (n_resamples + 1)


def _bootstrap_p(diffs: np.ndarray, n_resamples: int, rng: np.random.Generator) -> float:
    observed = abs(diffs.mean())
    shifted = diffs - diffs.mean()  # the null: no mean difference
    extreme = 0
    for size in _blocks(n_resamples):
        idx = rng.integers(0, diffs.size, size=(size, diffs.size))
        extreme += int(np.sum(np.abs(shifted[idx].mean(axis=1)) >= observed - 1e-12))
    return (extreme + 1) / (n_resamples + 1)


def paired_test(
    a: Mapping[str, float],
    b: Mapping[str, float],
    method: TestMethod = "randomization",
    n_resamples: int = 10_000,
    confidence: float = 0.95,
    seed: int = 0,
) -> PairedComparison:
    """Compare configuration B with A on their shared queries (per-query values keyed by qid)."""
    shared = sorted(a.keys() & b.keys())
    if not shared:
        raise ValueError("the two runs share no scored query")
    va = _finite([a[q] for q in shared])
    vb = _finite([b[q] for q in shared])
    diffs = vb - va
    rng = np.random.default_rng(seed)
    if method == "randomization":
        p_value = _randomization_p(diffs, n_resamples, rng)
    elif method == "bootstrap":
        p_value = _bootstrap_p(diffs, n_resamples, rng)
    else:
        raise ValueError(f"unknown test method {method!r}; valid: randomization, bootstrap")
    return PairedComparison(
        n=len(shared),
        mean_a=float(va.mean()),
        mean_b=float(vb.mean()),
        diff=float(diffs.mean()),
        ci=bootstrap_ci(diffs, confidence, min(n_resamples, 10_000), seed),
        p_value=p_value,
        method=method,
        n_resamples=n_resamples,
        wins=int(np.sum(diffs > 0)),
        losses=int(np.sum(diffs < 0)),
    )
