"""`python -m benchmarks sweep --dataset DIR --preset hybrid --points 20 --out FILE.json`: the
cost of a fusion sweep next to one plain run (benchmarks.sweep_cost); options of benchmarks.cli."""

from __future__ import annotations

import argparse
from pathlib import Path

from benchmarks.sweep_cost import run_sweep_cost, summary_lines
from eval.cli.run import limit_queries
from eval.data.beir import load_beir
from rag.config import load_preset


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("sweep (bench sweep)")
    group.add_argument("--dataset", type=Path, help="BEIR folder to sweep on")
    group.add_argument("--preset", default="hybrid", help="preset of the plain run and the sweeps")
    group.add_argument("--points", type=int, default=20, help="grid points per sweep (even)")
    group.add_argument("--repeats", type=int, default=7,
                       help="timed rounds, plain and sweeps interleaved; medians and minimums kept")
    group.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples per run")


def run(args: argparse.Namespace) -> int:
    if args.dataset is None:
        raise SystemExit("bench sweep needs --dataset DIR (a BEIR folder)")
    dataset = limit_queries(load_beir(args.dataset), args.max_queries)
    command = (f"python -m benchmarks sweep --dataset {args.dataset} --preset {args.preset} "
               f"--points {args.points} --repeats {args.repeats} --resamples {args.resamples} "
               + (f"--max-queries {args.max_queries} " if args.max_queries else "")
               + f"--out {args.out}")
    cost = run_sweep_cost(dataset, load_preset(args.preset), args.points, args.repeats,
                          n_resamples=args.resamples, command=command)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(cost.to_json(), encoding="utf-8")
    print("\n".join([*summary_lines(cost), f"wrote {args.out}"]))
    return 0
