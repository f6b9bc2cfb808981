"""`python -m benchmarks tune --dataset DIR --preset hybrid --space eval/spaces/fusion.yaml
--trials 50 --folds 5 --out FILE.json`: a cross-validated tune next to one plain run
(benchmarks.tune_cost); --dataset/--preset/--resamples are shared with bench sweep."""

from __future__ import annotations

import argparse
from pathlib import Path

from benchmarks.tune_cost import run_tune_cost, summary_lines
from eval.cli.run import limit_queries
from eval.data.beir import load_beir
from eval.tune.space import SPACES_DIR, load_space
from rag.config import load_preset

DEFAULT_SPACE = SPACES_DIR / "fusion.yaml"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("tune (bench tune)")
    group.add_argument("--space", type=Path, default=DEFAULT_SPACE, help="space YAML")
    group.add_argument("--folds", type=int, default=5)
    group.add_argument("--trials", type=int, default=50)


def run(args: argparse.Namespace) -> int:
    if args.dataset is None:
        raise SystemExit("bench tune needs --dataset DIR (a BEIR folder)")
    base = load_preset(args.preset)
    dataset = limit_queries(load_beir(args.dataset), args.max_queries)
    cost = run_tune_cost(dataset, base, load_space(args.space, base), args.space.name,
                         args.folds, args.trials, args.resamples)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(cost.to_json(), encoding="utf-8")
    print("\n".join([*summary_lines(cost), f"wrote {args.out}"]))
    return 0
