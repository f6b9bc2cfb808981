"""How the run store scales: listing N stored runs (the Runs page and `eval runs list`) and
comparing two runs of M questions (`eval compare`), on runs written by eval.runs.store.save_run.

    PYTHONPATH=. python benchmarks/runs_scale.py --runs 2000 --questions 10000 \
        --out benchmarks/results/runs_scale.json

The runs are synthetic (random per-query metrics, the hybrid preset's real config, 50 questions
each for the listing), written to a temporary folder. Listing is timed cold (the first listing
after writing, as a fresh process sees it; the OS cache is warm) and warm (median of 5); a
comparison is timed from the two run folders to the finished comparison: reading both
per-query tables, the config diff, paired tests of every metric (10,000 sign flips, 2,000
bootstrap resamples) and the questions sorted by change. Goals (issue #37): listing 2,000 runs
≤ 1 s, comparing two runs of 10,000 questions ≤ 2 s.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from eval.runs.history import list_rows
from eval.runs.run_compare import compare_runs
from eval.runs.store import load_run, save_run
from rag.config import load_preset

METRICS = ("ndcg@10", "recall@10", "recall@100", "mrr@10", "map@100")


def _info(label: str, config: dict[str, Any], values: np.ndarray) -> dict[str, Any]:
    means = values.mean(axis=0)
    return {
        "summary": {"preset": label, "n_queries": len(values), "failed": 0,
                    "metrics": {m: float(v) for m, v in zip(METRICS, means, strict=True)},
                    "ci95": {m: [float(v) - 0.05, float(v) + 0.05]
                             for m, v in zip(METRICS, means, strict=True)},
                    "latency_ms": {"p50": 12.0, "p95": 30.0}},
        "dataset": {"name": "bench", "hash": "d" * 64, "data_hash": "d" * 64},
        "testset": {"name": "bench-set", "hash": "t" * 64, "labels": "human-judged",
                    "judgments": None, "collection": "bench"},
        "collection": "bench", "config": config, "label": label, "user": "bench",
    }


def _rows(values: np.ndarray) -> list[dict[str, Any]]:
    return [{"qid": f"q{i:05d}", "query": f"question number {i}",
             "metrics": {m: float(v) for m, v in zip(METRICS, row, strict=True)},
             "latency_ms": 12.0, "error": None, "ranking": [[f"d{i}", 1.0]]}
            for i, row in enumerate(values)]


def _timed(fn: Any, repeats: int) -> tuple[float, list[float], list[float]]:
    """Median wall seconds, each call's wall seconds and each call's CPU seconds (this process,
    every thread): on a shared machine the wall time includes waiting for a core."""
    times, cpu = [], []
    for _ in range(repeats):
        started, started_cpu = time.perf_counter(), time.process_time()
        fn()
        times.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
    return statistics.median(times), times, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=2000)
    parser.add_argument("--questions", type=int, default=10_000)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    config = load_preset("hybrid").model_dump(mode="json")
    with tempfile.TemporaryDirectory(prefix="runs-scale-") as tmp:
        listing_root, big_root = Path(tmp) / "many", Path(tmp) / "big"
        started = time.perf_counter()
        for i in range(args.runs):
            values = rng.random((50, len(METRICS)))
            save_run(_info(f"p{i % 7}", {**config, "fusion": {**config["fusion"], "k": i % 90}},
                           values), _rows(values), listing_root)
        write_s = time.perf_counter() - started
        started = time.perf_counter()
        listed = list_rows(listing_root)
        cold_s = time.perf_counter() - started
        warm_s, warm, warm_cpu = _timed(lambda: list_rows(listing_root), 5)
        assert len(listed) == args.runs

        base_values = rng.random((args.questions, len(METRICS)))
        cand_values = np.clip(base_values + rng.normal(0.01, 0.1, base_values.shape), 0, 1)
        a = save_run(_info("base", config, base_values), _rows(base_values), big_root)
        b = save_run(_info("cand", {**config, "fusion": {**config["fusion"], "k": 30}},
                           cand_values), _rows(cand_values), big_root)
        load_before = os.getloadavg()[0]
        compare_s, compares, compare_cpu = _timed(
            lambda: compare_runs(load_run(a), load_run(b), "ndcg@10"), 3)
        result = compare_runs(load_run(a), load_run(b), "ndcg@10")
    report = {
        "command": " ".join(["PYTHONPATH=. python", *sys.argv]),
        "machine": {"cpus": os.cpu_count(), "load_avg_1m_at_end": round(os.getloadavg()[0], 2)},
        "listing": {"runs": args.runs, "cold_s": round(cold_s, 3), "warm_median_s": round(warm_s, 3),
                    "warm_s": [round(t, 3) for t in warm],
                    "warm_cpu_s": [round(t, 3) for t in warm_cpu], "goal_s": 1.0,
                    "writing_all_s": round(write_s, 1)},
        "compare": {"questions": args.questions, "metrics": len(METRICS),
                    "median_s": round(compare_s, 3), "runs_s": [round(t, 3) for t in compares],
                    "cpu_s": [round(t, 3) for t in compare_cpu],
                    "load_avg_1m_before": round(load_before, 2),
                    "goal_s": 2.0, "config_changes": [c.path for c in result.config],
                    "changed_questions": len(result.questions),
                    "ndcg@10_diff": result.metric_diff("ndcg@10").diff,
                    "ndcg@10_p": result.metric_diff("ndcg@10").p_value},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"listing {args.runs} runs: cold {cold_s:.3f} s, warm {warm_s:.3f} s (goal 1 s); "
          f"comparing two runs of {args.questions} questions: {compare_s:.3f} s (goal 2 s) "
          f"-> {args.out}")


if __name__ == "__main__":
    main()
