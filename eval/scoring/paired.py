"""Paired tests of several metrics at once, for comparing two stored runs of many queries.

The same tests as eval.scoring.stats.paired_test — a two-sided randomization (sign-flip) test
with the +1 correction (Smucker, Allan & Carterette 2007; Phipson & Smyth 2010) and a percentile
bootstrap CI of the mean difference (Efron & Tibshirani 1993) — drawn so that every metric shares
one set of random signs and one set of resamples: each block of draws becomes a matrix, and one
matrix product gives that block's resampled means for all metrics. Signs come from random bytes
(8 per byte) and resamples as per-query counts (a bincount of the drawn indices), so two runs of
10,000 queries compare in well under a second (benchmarks/runs_scale.py).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from threadpoolctl import threadpool_limits

from eval.scoring.stats import Interval, PairedComparison

_CELLS = 4_000_000  # draws per block (resamples x queries): ~32 MB of float64


def _block_sizes(n_resamples: int, n: int) -> list[int]:
    step = max(1, _CELLS // max(n, 1))
    return [min(step, n_resamples - s) for s in range(0, n_resamples, step)]


def _sign_means(diffs: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """(n_resamples, metrics): means of the differences with each query's sign flipped at
    random. With bits b in {0, 1} the flipped sum is 2 b.d - sum(d); the product runs in float32
    (a cast of 0/1 bits is 10x cheaper than a float64 sign matrix)."""
    n = diffs.shape[0]
    small = diffs.astype(np.float32)
    total = diffs.sum(axis=0)
    out = []
    for size in _block_sizes(n_resamples, n):
        raw = np.frombuffer(rng.bytes(size * ((n + 7) // 8)), dtype=np.uint8)
        bits = np.unpackbits(raw.reshape(size, -1), axis=1, count=n).astype(np.float32)
        out.append((2.0 * (bits @ small).astype(np.float64) - total) / n)
    return np.concatenate(out)


def _bootstrap_means(diffs: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """(n_resamples, metrics): means of resamples (with replacement) of the queries, each
    resample as per-query counts; the product in float32 (counts are small integers, exact)."""
    n = diffs.shape[0]
    small = diffs.astype(np.float32)
    out = []
    for size in _block_sizes(n_resamples, n):
        drawn = rng.integers(0, n, size=(size, n), dtype=np.int64)
        drawn += (np.arange(size, dtype=np.int64) * n)[:, None]
        counts = np.bincount(drawn.ravel(), minlength=size * n).reshape(size, n)
        out.append((counts.astype(np.float32) @ small).astype(np.float64) / n)
    return np.concatenate(out)


def paired_tests(
    a: np.ndarray, b: np.ndarray, n_resamples: int = 10_000, confidence: float = 0.95,
    seed: int = 0, ci_resamples: int = 2000,
) -> list[PairedComparison]:
    """B minus A for each column (metric) of two (queries x metrics) arrays aligned by query:
    the p-value from `n_resamples` sign flips, the CI from `ci_resamples` bootstrap resamples
    (2,000 is the usual floor for a 95 % percentile interval, Efron & Tibshirani 1993 ch. 19).
    A query NaN in either run is left out of that metric; metrics with the same queries left
    out share their draws."""
    if a.shape != b.shape or a.ndim != 2:
        raise ValueError(f"two (queries x metrics) arrays of one shape, got {a.shape}, {b.shape}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    finite = np.isfinite(a) & np.isfinite(b)
    results: list[PairedComparison | None] = [None] * a.shape[1]
    groups: dict[bytes, list[int]] = {}
    for col in range(a.shape[1]):
        groups.setdefault(np.packbits(finite[:, col]).tobytes(), []).append(col)
    for cols in groups.values():
        rows = finite[:, cols[0]]
        va, vb = a[rows][:, cols], b[rows][:, cols]
        for col, comparison in zip(cols, _tests(va, vb, n_resamples, ci_resamples, confidence, seed),
                                   strict=True):
            results[col] = comparison
    return [r for r in results if r is not None]


def _tests(va: np.ndarray, vb: np.ndarray, n_resamples: int, ci_resamples: int,
           confidence: float, seed: int) -> Sequence[PairedComparison]:
    n, m = va.shape
    if n == 0:
        nan = Interval(math.nan, math.nan)
        return [PairedComparison(0, math.nan, math.nan, math.nan, nan, math.nan,
                                 "randomization", n_resamples, 0, 0) for _ in range(m)]
    diffs = vb - va
    observed = diffs.mean(axis=0)
    rng = np.random.default_rng(seed)
    # products of a tall matrix by a few columns gain nothing from BLAS threads, and on a busy
    # machine those threads wait for each other (0.75 vs 1.5 s for 10,000 questions at load 15)
    with threadpool_limits(1, user_api="blas"):
        flipped = _sign_means(diffs, n_resamples, rng)
        boot = _bootstrap_means(diffs, ci_resamples, rng)
    # float32 products: a flip as extreme as the observed mean is counted within a tolerance
    # (conservative: a near tie counts as extreme)
    tolerance = 1e-12 + 1e-5 * np.abs(diffs).mean(axis=0)
    extreme = (np.abs(flipped) >= np.abs(observed) - tolerance).sum(axis=0)
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(boot, [tail, 100 - tail], axis=0)
    return [PairedComparison(
        n=n, mean_a=float(va[:, j].mean()), mean_b=float(vb[:, j].mean()),
        diff=float(observed[j]), ci=Interval(float(low[j]), float(high[j])),
        p_value=float((extreme[j] + 1) / (n_resamples + 1)), method="randomization",
        n_resamples=n_resamples, wins=int((diffs[:, j] > 0).sum()),
        losses=int((diffs[:, j] < 0).sum()),
    ) for j in range(m)]
