"""`python -m eval learned-fusion --dataset DIR --preset P --folds 5 --baseline dense --out FILE`

Measures learned fusion honestly: K-fold over queries, each query scored by a model fitted on
the other folds (eval.runs.learned_oof), against baseline presets on the same queries (paired
randomization test and bootstrap CI of the nDCG@10 difference), with the in-sample figure beside
it. Writes FILE (JSON: runs, comparisons, per-fold feature weights) and the model files to
FILE's folder (`<stem>.models/fold<i>.model.json`, `all.model.json`: fitted on every query —
the one to put in a preset as `fusion.model`).
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from eval.cli.run import limit_queries
from eval.data.beir import load_beir
from eval.runs.learned_oof import OutOfFold, out_of_fold
from eval.scoring.metrics import DEFAULT_METRICS
from rag.config import load_preset, parse_set_options, with_overrides


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("learned-fusion", help="out-of-fold learned fusion vs baselines",
                                   description=__doc__)
    parser.add_argument("--dataset", required=True, type=Path, help="BEIR folder")
    parser.add_argument("--preset", required=True, help="preset whose lists are fused")
    parser.add_argument("--baseline", action="append", default=[],
                        help="a preset to compare with (repeatable), e.g. dense")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override a field of the preset and of every baseline")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--C", type=float, default=1.0, dest="c",
                        help="inverse L2 strength of the logistic regression")
    parser.add_argument("--split", default="test")
    parser.add_argument("--max-queries", type=int, default=None)
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", required=True, type=Path, help="report JSON")


def report(result: OutOfFold, args: argparse.Namespace) -> dict[str, Any]:
    return {
        "dataset": str(args.dataset), "preset": args.preset, "overrides": args.set,
        "folds": args.folds, "seed": args.seed, "C": args.c,
        "learned_out_of_fold": result.learned.summary.as_json(),
        "learned_in_sample": result.in_sample.summary.as_json(),
        "baselines": {name: run.summary.as_json() for name, run in result.baselines.items()},
        "paired_ndcg@10_learned_minus": {name: {**asdict(cmp), "ci": cmp.ci.as_list()}
                                         for name, cmp in result.paired.items()},
        "fold_queries": [list(fold) for fold in result.folds],
        "fold_weights": [{"weights": m.weights(), "intercept": m.intercept,
                          "trained": dict(m.trained)} for m in result.models],
    }


def run(args: argparse.Namespace) -> int:
    overrides = parse_set_options(args.set)
    config = with_overrides(load_preset(args.preset), overrides)
    baselines = {name: with_overrides(load_preset(name), overrides) for name in args.baseline}
    dataset = limit_queries(load_beir(args.dataset, args.split), args.max_queries)
    model_dir = args.out.with_name(args.out.stem + ".models")
    result = out_of_fold(dataset, config, model_dir, baselines, args.folds, args.seed, args.c,
                         DEFAULT_METRICS, args.resamples)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report(result, args), indent=2) + "\n")
    learned = result.learned.summary
    print(f"learned, out of fold: nDCG@10 {learned.metrics['ndcg@10']:.4f} "
          f"{learned.ci95['ndcg@10']}; in sample "
          f"{result.in_sample.summary.metrics['ndcg@10']:.4f}")
    for name, cmp in result.paired.items():
        print(f"  vs {name} ({cmp.mean_a:.4f}): {cmp.diff:+.4f} [{cmp.ci.low:+.4f}, "
              f"{cmp.ci.high:+.4f}], p = {cmp.p_value:.4f}, {cmp.wins} better / {cmp.losses} worse")
    print(f"-> {args.out}; models in {model_dir}")
    return 0
