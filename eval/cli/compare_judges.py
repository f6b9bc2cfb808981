"""`python -m eval compare-judges (--dataset D | --collection NAME --qa SET) [--budget 0.2]
[--strategy judge_uncertainty] [--seed 0] [--folds 5] [--finetune] --out FILE.json`

The two learned judges of issue 35 on the same labels: the labels a person would give at the
budget (the set's full labels, in the strategy's order, as `simulate-judging` spends them), each
judge cross-validated by question on them: (a) logistic regression over cheap features
(eval.judging.learned_judge) and (b) MiniLM as a cross-encoder, frozen, with a class-balanced
head trained on the labels (eval.judging.cross_judge; `--finetune` also fine-tunes the whole
encoder, which costs CPU hours on a large pool). FILE.json: Cohen's κ, precision, recall of
"relevant", seconds, and the better one by κ (what the Judge page keeps).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from eval.cli.simulate import load_set
from eval.judging.cross_judge import cross_validate_finetune, cross_validate_head, pool_vectors
from eval.judging.cross_setup import TrainSettings
from eval.judging.features import context_features, item_features
from eval.judging.learned_judge import cross_validate
from eval.judging.pool import DEFAULT_SYSTEMS
from eval.judging.sim_runs import labelled_pool
from eval.judging.simulate import run_strategy


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("compare-judges", description=__doc__,
                                   help="feature judge vs fine-tuned cross-encoder, by CV")
    parser.add_argument("--dataset")
    parser.add_argument("--collection", metavar="NAME")
    parser.add_argument("--qa", metavar="SET")
    parser.add_argument("--systems", default=",".join(DEFAULT_SYSTEMS))
    parser.add_argument("--depth", type=int, default=10)
    parser.add_argument("--budget", type=float, default=0.2)
    parser.add_argument("--strategy", default="judge_uncertainty")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--finetune", action="store_true",
                        help="also fine-tune the whole encoder per fold (slow)")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", type=Path, required=True)


def run(args: argparse.Namespace) -> int:
    evalset, answers = load_set(args)
    systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    pool, truth = labelled_pool(evalset, systems, args.depth, answers)
    from rag.config import load_preset
    from rag.embed import get_embedder

    features = item_features(pool, get_embedder(load_preset("dense").embedding))
    judged, _ = run_strategy(pool, truth, features.matrix, args.strategy, args.budget, args.seed)
    idx = list(judged)
    y = [judged[i] for i in idx]
    groups = [pool.items[i].qid for i in idx]
    x = np.column_stack([features.matrix, context_features(pool, judged)])
    started = time.perf_counter()
    feature_judge = cross_validate(x[idx], y, groups, folds=args.folds, seed=args.seed)
    feature_s = time.perf_counter() - started
    print(f"feature judge: {feature_judge}", file=sys.stderr)
    started = time.perf_counter()
    vectors = pool_vectors(pool, args.threads)
    encode_s = time.perf_counter() - started
    started = time.perf_counter()
    head = cross_validate_head(vectors[idx], y, groups, args.folds, args.seed)
    head_s = time.perf_counter() - started
    print(f"cross-encoder (frozen + head): {head}", file=sys.stderr)
    results = {"logistic_features": {**(feature_judge.as_json() if feature_judge else {}),
                                     "seconds": round(feature_s, 2)},
               "cross_encoder": {**(head.as_json() if head else {}),
                                 "seconds_cv": round(head_s, 2),
                                 "seconds_encode_pool": round(encode_s, 1),
                                 "pool_pairs": len(pool)}}
    if args.finetune:
        pairs = [(pool.questions[pool.items[i].qid],
                  f"{pool.items[i].title}\n{pool.items[i].text}".strip(), judged[i]) for i in idx]
        tuned = cross_validate_finetune(pairs, groups, args.folds,
                                        TrainSettings(epochs=args.epochs, lr=3e-5,
                                                      seed=args.seed, threads=args.threads))
        results["cross_encoder_finetuned"] = {**(tuned[0].as_json() if tuned else {}),
                                              "seconds": round(tuned[1], 1) if tuned else None,
                                              "epochs": args.epochs}
    kappas = {k: v.get("kappa") for k, v in results.items() if v.get("kappa") is not None}
    report = {"set": evalset.name, "budget": args.budget, "strategy": args.strategy,
              "seed": args.seed, "labels": len(idx), "relevant": int(sum(y)),
              "judges": results, "better_by_kappa": max(kappas, key=kappas.get) if kappas
              else None}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(report, indent=1))
    return 0
