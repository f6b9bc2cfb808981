"""`python -m eval sweep --dataset DIR --preset P --grid fusion.k=1,5,10 [--grid …] --out DIR`

Scores every point of the grid (the product of all --grid axes) on a BEIR folder. Retrieval runs
once per group of points that share their lists, at the deepest depth asked for, and is cached
on disk; each point only re-fuses and re-filters those lists. Writes OUT/sweep.json (every
point's metrics, CIs, latency, and the time spent retrieving vs re-scoring) and
OUT/perquery.jsonl (one line per point and query).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

from eval.cli.run import limit_queries
from eval.cli.runs import add_store_options
from eval.data.beir import load_beir
from eval.diagnostics.ceiling import Ceiling
from eval.runs.sweep import SweepResult, parse_grid, run_sweep
from eval.scoring.metrics import DEFAULT_METRICS, parse_metric
from rag.config import load_preset, parse_set_options, with_overrides


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("sweep", help="score a preset over a grid of config values",
                                   description=__doc__)
    parser.add_argument("--dataset", required=True, type=Path, help="BEIR folder")
    parser.add_argument("--preset", required=True, help="preset name or YAML path")
    parser.add_argument("--grid", action="append", required=True, metavar="KEY=V1,V2,…",
                        help="a config field and its values, e.g. fusion.k=1,5,10,60 or "
                             "'fusion.weights={bm25: 0.6, dense: 0.4},{bm25: 0.4, dense: 0.6}'")
    parser.add_argument("--out", required=True, type=Path, help="output folder")
    parser.add_argument("--split", default="test")
    parser.add_argument("--metrics", nargs="+", default=list(DEFAULT_METRICS))
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override a field of the preset before sweeping")
    parser.add_argument("--max-queries", type=int, default=None)
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-cache", action="store_true", help="search again, ignore the cache")
    add_store_options(parser)


def sweep_json(result: SweepResult, dataset_name: str, dataset_hash: str) -> dict[str, Any]:
    return {
        "preset": result.preset,
        "dataset": {"name": dataset_name, "hash": dataset_hash},
        "grid": {a.key: list(a.values) for a in result.axes},
        "points": [{"overrides": dict(p.overrides), **p.run.summary.as_json(),
                    "ceiling": _ceiling_json(p.ceiling)} for p in result.points],
        "timing_s": {"retrieval": result.retrieval_s, "rescoring": result.rescoring_s,
                     "lists_from_cache": result.from_cache},
    }


def _ceiling_json(ceiling: Ceiling | None) -> dict[str, Any] | None:
    if ceiling is None:
        return None
    return {"recall_at_depth": {str(n): r for n, r in ceiling.recall_at_depth.items()},
            f"oracle_ndcg@{ceiling.k}": ceiling.oracle_ndcg,
            f"ndcg@{ceiling.k}": ceiling.actual_ndcg}


def write_sweep(result: SweepResult, out: Path, payload: dict[str, Any],
                queries: dict[str, str]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "sweep.json").write_text(json.dumps(payload, indent=2) + "\n")
    with (out / "perquery.jsonl").open("w", encoding="utf-8") as handle:
        for index, point in enumerate(result.points):
            for row in point.run.per_query_rows(queries):
                row = {"point": index, "overrides": dict(point.overrides), **row}
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def run(args: argparse.Namespace) -> int:
    for metric in args.metrics:
        parse_metric(metric)
    axes = parse_grid(args.grid)
    base = load_preset(args.preset)
    if args.set:
        base = with_overrides(base, parse_set_options(args.set))
    dataset = limit_queries(load_beir(args.dataset, args.split), args.max_queries)
    result = run_sweep(dataset, base, axes, args.metrics, args.resamples, args.seed,
                       use_cache=not args.no_cache)
    payload = sweep_json(result, dataset.name, dataset.content_hash)
    write_sweep(result, args.out, payload, dict(dataset.queries))
    if not args.no_store:
        from eval.runs.identity import dataset_identity
        from eval.runs.record import store_sweep

        stored = store_sweep(result, base, dataset, dataset_identity(dataset),
                             metrics=args.metrics, user=args.user, root=args.runs_dir)
        print(f"stored {len(stored)} runs (one per point) under {stored[0].parent}",
              file=sys.stderr)
    first = args.metrics[0]
    for point in sorted(result.points, key=lambda p: -_or_low(p.run.summary.metrics[first])):
        settings = " ".join(f"{k}={v}" for k, v in point.overrides.items())
        print(f"{first} {point.run.summary.metrics[first]:.4f}  {settings}")
    print(f"retrieval {result.retrieval_s:.1f} s"
          f"{' (lists from cache)' if result.from_cache else ''}, "
          f"re-scoring {len(result.points)} points {result.rescoring_s:.1f} s -> {args.out}")
    return 0


def _or_low(value: float) -> float:
    return value if math.isfinite(value) else -math.inf
