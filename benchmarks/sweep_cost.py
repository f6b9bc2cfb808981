"""What a fusion sweep costs next to one plain run, timed in one process on the same data.

Both sides start from the same state: the collection built and the embedding model loaded by an
untimed warm-up pass, so query embeddings come from the embedding disk cache (warm) on both
sides; the in-memory candidate cache is emptied before each side and the sweep's on-disk list
cache is off, so both pay their searches (cold candidates). The plain run searches every query
at the preset's depth, fuses and scores; the sweep searches once at the deepest depth, then
re-scores each point from those lists (eval.runs.sweep). Sides are interleaved per round (the
plain run first in even rounds, last in odd ones, so neither side always runs on a warmer
machine); medians and minimums of the rounds are both reported, with the load average of each
round: the machine is shared, and the minimum is the figure least disturbed by other work.

    python -m benchmarks sweep --dataset datasets/beir_sample --preset hybrid --points 20 \
        --repeats 7 --out benchmarks/results/bench_sweep_sample.json

CPU time (time.process_time, this process) is recorded beside wall time for both sides: on a
shared machine a run that waits for a core is slower on the wall clock, not in CPU time.
"""

from __future__ import annotations

import json
import os
import statistics
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np

from eval.data.shapes import BeirDataset
from eval.runs.beir_index import beir_collection, make_searcher
from eval.runs.preset_run import run_preset
from eval.runs.sweep import GridAxis, run_sweep
from eval.scoring.metrics import DEFAULT_METRICS
from rag.config import PipelineConfig

TARGET_RATIO = 1.3  # issue 25 (1.2 in issue 7): a 20-point sweep costs at most 1.3x one plain run
WEIGHTINGS = ({"bm25": 0.5, "dense": 0.5}, {"bm25": 0.4, "dense": 0.6})  # EchoMind: 0.6 dense
POLICY = {
    "plain": "collection built and model loaded before timing; query embeddings warm (disk "
             "embedding cache); candidate lists cold (searched: BM25 + vector search per query)",
    "sweep": "same warm embeddings; lists cold: searched once per query at the deepest depth "
             "(list disk cache off), then every point re-scored from them",
}


@dataclass(frozen=True)
class SweepTiming:
    """One sweep's grid and its median wall times (s); ratio = median total / median plain
    run; paired_ratio = the median over rounds of total / the same round's plain run;
    min_ratio = the fastest sweep / the fastest plain run."""

    grid: Mapping[str, list[Any]]
    points: int
    retrieval_s: float
    rescoring_s: float
    total_s: float
    per_point_ms: float
    ratio: float
    paired_ratio: float
    samples_s: tuple[float, ...]
    min_total_s: float = 0.0
    min_ratio: float = 0.0
    cpu_samples_s: tuple[float, ...] = ()  # this process's CPU time per round (time.process_time)
    cpu_ratio: float = 0.0  # median CPU time / the plain run's median CPU time
    cpu_paired_ratio: float = 0.0  # median over rounds of CPU time / that round's plain run's


@dataclass(frozen=True)
class SweepCost:
    dataset: str
    preset: str
    n_queries: int
    repeats: int
    plain_s: float
    plain_samples_s: tuple[float, ...]
    sweeps: Mapping[str, SweepTiming]
    load_average: tuple[tuple[float, float, float], ...] = ()  # os.getloadavg() before, after
    plain_min_s: float = 0.0
    round_load_average: tuple[float, ...] = ()  # 1-minute load average at the start of each round
    command: str = ""
    plain_cpu_samples_s: tuple[float, ...] = ()  # CPU time of each plain run (time.process_time)
    plain_cpu_s: float = 0.0  # their median

    def to_json(self) -> str:
        body = asdict(self)
        return json.dumps({**body, "target_ratio": TARGET_RATIO, "policy": POLICY}, indent=2) + "\n"


def k_values(n: int, high: int = 1000) -> list[int]:
    """n distinct RRF k values spread geometrically over [1, high] (k is an integer >= 1)."""
    values: list[int] = []
    for x in np.geomspace(1, high, n):
        values.append(max(round(float(x)), values[-1] + 1 if values else 1))
    return values


def sweep_grids(points: int) -> dict[str, tuple[GridAxis, ...]]:
    """The two sweeps of the issue: weighted RRF (points/2 k values x 2 weightings) and RRF."""
    if points < 2 or points % 2:
        raise ValueError(f"--points must be an even number >= 2, got {points}")
    return {
        "weighted_rrf_k_x_weights": (
            GridAxis("fusion.method", ("weighted_rrf",)),
            GridAxis("fusion.k", tuple(k_values(points // 2))),
            GridAxis("fusion.weights", WEIGHTINGS),
        ),
        "rrf_k": (GridAxis("fusion.method", ("rrf",)), GridAxis("fusion.k", tuple(k_values(points)))),
    }


def _plain(dataset: BeirDataset, base: PipelineConfig, metrics: Sequence[str],
           n_resamples: int) -> tuple[float, float]:
    """(wall, CPU) seconds of one plain run."""
    start, cpu = time.perf_counter(), time.process_time()
    searcher = make_searcher(dataset, base, progress=False)
    run_preset(dataset, base.name, searcher, metrics, n_resamples)
    return time.perf_counter() - start, time.process_time() - cpu


def run_sweep_cost(
    dataset: BeirDataset,
    base: PipelineConfig,
    points: int = 20,
    repeats: int = 3,
    metrics: Sequence[str] = DEFAULT_METRICS,
    n_resamples: int = 1000,
    command: str = "",
) -> SweepCost:
    """Median and minimum wall time of a plain run and of each 20-point sweep, interleaved per
    round; `command` is recorded with the figures."""
    if repeats < 1:
        raise ValueError(f"repeats must be >= 1, got {repeats}")
    grids = sweep_grids(points)
    load_before = os.getloadavg()  # a shared machine: the load the ratios were measured under
    beir_collection(dataset, base)  # untimed: build the index if missing
    _plain(dataset, base, metrics, 10)  # untimed warm-up: model loaded, query embeddings cached
    plain: list[float] = []
    plain_cpu: list[float] = []
    loads: list[float] = []
    runs: dict[str, list[tuple[float, float, float]]] = {name: [] for name in grids}
    cpus: dict[str, list[float]] = {name: [] for name in grids}
    for round_ in range(repeats):
        loads.append(os.getloadavg()[0])
        if round_ % 2 == 0:
            _add(plain, plain_cpu, _plain(dataset, base, metrics, n_resamples))
        for name, axes in grids.items():
            start, cpu = time.perf_counter(), time.process_time()
            result = run_sweep(dataset, base, axes, metrics, n_resamples, use_cache=False)
            total = time.perf_counter() - start
            cpus[name].append(time.process_time() - cpu)
            runs[name].append((total, result.retrieval_s, result.rescoring_s))
        if round_ % 2 == 1:
            _add(plain, plain_cpu, _plain(dataset, base, metrics, n_resamples))
    sweeps = {name: _with_cpu(_timing(axes, runs[name], plain), cpus[name], plain_cpu)
              for name, axes in grids.items()}
    return SweepCost(dataset.name, base.name, len(dataset.queries), repeats,
                     statistics.median(plain), tuple(plain), sweeps,
                     (load_before, os.getloadavg()), min(plain), tuple(loads), command,
                     tuple(plain_cpu), statistics.median(plain_cpu))


def _add(wall: list[float], cpu: list[float], sample: tuple[float, float]) -> None:
    wall.append(sample[0])
    cpu.append(sample[1])


def _with_cpu(timing: SweepTiming, cpu: Sequence[float], plain_cpu: Sequence[float]
              ) -> SweepTiming:
    """The timing with CPU-time figures: on a shared machine, waiting for a core inflates wall
    time but not this process's CPU time."""
    paired = statistics.median(c / p for c, p in zip(cpu, plain_cpu, strict=True))
    return replace(timing, cpu_samples_s=tuple(cpu),
                   cpu_ratio=statistics.median(cpu) / statistics.median(plain_cpu),
                   cpu_paired_ratio=paired)


def _timing(axes: Sequence[GridAxis], samples: Sequence[tuple[float, float, float]],
            plain: Sequence[float]) -> SweepTiming:
    total, retrieval, rescoring = (statistics.median(column) for column in zip(*samples,
                                                                                strict=True))
    paired = statistics.median(s[0] / p for s, p in zip(samples, plain, strict=True))
    n = int(np.prod([len(a.values) for a in axes]))
    fastest = min(s[0] for s in samples)
    return SweepTiming({a.key: list(a.values) for a in axes}, n, retrieval, rescoring, total,
                       rescoring / n * 1000, total / statistics.median(plain), paired,
                       tuple(s[0] for s in samples), fastest, fastest / min(plain))


def summary_lines(cost: SweepCost) -> list[str]:
    lines = [(f"{cost.dataset}: {cost.n_queries} queries, preset {cost.preset}, "
              f"{cost.repeats} rounds: plain run median {cost.plain_s:.3f} s, min "
              f"{cost.plain_min_s:.3f} s, load average "
              f"{' -> '.join(f'{a[0]:.1f}' for a in cost.load_average)}")]
    for name, t in cost.sweeps.items():
        lines.append(f"  {name}: {t.points} points median {t.total_s:.3f} s (retrieval "
                     f"{t.retrieval_s:.3f} s, re-scoring {t.per_point_ms:.1f} ms/point) "
                     f"= {t.ratio:.2f}x plain, paired {t.paired_ratio:.2f}x, min "
                     f"{t.min_total_s:.3f} s = {t.min_ratio:.2f}x; CPU time {t.cpu_ratio:.2f}x, "
                     f"paired {t.cpu_paired_ratio:.2f}x (target <= {TARGET_RATIO}x)")
    return lines
