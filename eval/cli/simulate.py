"""`python -m eval simulate-judging (--dataset BEIR_DIR | --collection NAME --qa SET)
[--systems bm25,dense,…] [--depth 10] --budget 0.2 [--strategy NAME …] [--seed S …] --out FILE.json`

Judging simulated on a fully labelled set (eval.judging.simulate): the full labels play the
person, each strategy spends the budget (a share of the depth pool), the learned judge fills the
rest. FILE.json holds per strategy and budget (each seed, their mean and worst case): tau (with
a bootstrap 95 % CI), separated_pairs_kept, max_abs_error, judgments, pool_size, relevant_found,
and the same for two baselines at the same budget (a random sample with unjudged = not relevant,
and bpref). The systems' runs are kept on disk (eval.judging.sim_runs) and reused.
`--dataset` also takes a QA file over the bundled sample documents (datasets/qa_samples.jsonl).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from eval.data.evalsets import EvalSet, load_eval_set
from eval.judging.features import item_features, with_pair_similarities
from eval.judging.learned_judge import MODELS
from eval.judging.pool import DEFAULT_SYSTEMS
from eval.judging.sim_runs import labelled_pool
from eval.judging.simulate import FILLS, baselines, reference, simulate
from eval.judging.strategies.base import STRATEGIES

DEFAULT_STRATEGIES = ("answer_seek", "judge_uncertainty", "ndcg_gain", "bandit", "mtf", "pool_order",
                      "random")
KEY_FIGURES = ("tau", "separated_pairs_kept", "max_abs_error", "relevant_found", "judgments")


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("simulate-judging", description=__doc__,
                                   help="how far a judging budget plus the learned judge ranks "
                                        "systems like the full labels")
    parser.add_argument("--dataset", help="a BEIR folder, or a QA file over the sample documents")
    parser.add_argument("--collection", metavar="NAME", help="a collection (with --qa)")
    parser.add_argument("--qa", metavar="SET", help="a test set stored with --collection, or a file")
    parser.add_argument("--systems", default=",".join(DEFAULT_SYSTEMS),
                        help="comma-separated presets (default: the eight of the Judge page)")
    parser.add_argument("--depth", type=int, default=10)
    parser.add_argument("--budget", type=float, nargs="+", default=[0.2],
                        help="shares of the depth pool a person judges (e.g. 0.1 0.2 0.3 0.5)")
    parser.add_argument("--strategy", nargs="+", default=list(DEFAULT_STRATEGIES),
                        help=f"judging orders (default: {', '.join(DEFAULT_STRATEGIES)})")
    parser.add_argument("--seed", type=int, nargs="+", default=[0])
    parser.add_argument("--model", default="logistic", choices=list(MODELS),
                        help="the learned judge's model")
    parser.add_argument("--fill", default="threshold", choices=list(FILLS),
                        help="how unjudged passages take the judge's probability: drawn "
                             "(sample), p >= 0.5 (threshold) or p as a graded gain (expected)")
    parser.add_argument("--pair-similarities", action="store_true",
                        help="add the frozen MiniLM cross-encoder's four question-passage "
                             "similarities (eval.judging.cross_judge) to the judge's features")
    parser.add_argument("--no-dense", action="store_true",
                        help="leave the dense-similarity feature out (no embedding model)")
    parser.add_argument("--out", type=Path, required=True)


def load_set(args: argparse.Namespace) -> tuple[EvalSet, dict[str, str]]:
    """The set and its reference answers (question id -> answer)."""
    if args.collection:
        from eval.runs.collection_sets import collection_eval_set
        from eval.testsets.store import resolve_qa
        from rag.index import open_collection

        if not args.qa:
            raise ValueError("--collection needs --qa SET")
        qa = resolve_qa(args.collection, args.qa)
        return (collection_eval_set(qa, open_collection(args.collection)),
                {i.qid: i.answer or "" for i in qa.items})
    if not args.dataset:
        raise ValueError("give --dataset BEIR_DIR (or a QA file), or --collection NAME --qa SET")
    evalset = load_eval_set(args.dataset)
    answers: dict[str, str] = {}
    if Path(args.dataset).is_file():
        from eval.data.beir import load_qa_file

        answers = {i.qid: i.answer or "" for i in load_qa_file(Path(args.dataset)).items}
    return evalset, answers


def _summary(per_seed: Mapping[int, Mapping[str, Any]]) -> dict[str, Any]:
    def values(key: str) -> list[float]:
        return [float(r[key]) for r in per_seed.values() if r.get(key) is not None]

    mean = {k: round(float(np.mean(values(k))), 4) if values(k) else None for k in KEY_FIGURES}
    worst = {"tau": min(values("tau"), default=None),
             "separated_pairs_kept": min(values("separated_pairs_kept"), default=None),
             "max_abs_error": max(values("max_abs_error"), default=None)}
    return {"mean": mean, "worst": worst, "seeds": {str(s): r for s, r in per_seed.items()}}


def run(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    for name in args.strategy:
        STRATEGIES.get(name)  # an unknown name fails before anything runs
    try:
        evalset, answers = load_set(args)
    except (ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    pool, truth = labelled_pool(evalset, systems, args.depth, answers,
                                lambda s: print(f"running {s} on {evalset.name}…",
                                                file=sys.stderr))
    embedder = None
    if not args.no_dense:
        from rag.config import load_preset
        from rag.embed import get_embedder

        embedder = get_embedder(load_preset("dense").embedding)
    features = item_features(pool, embedder)
    if args.pair_similarities:
        features = with_pair_similarities(pool, features)
    ref = reference(pool, truth, seed=0)
    runs: dict[str, dict[str, Any]] = {}
    base: dict[str, dict[str, Any]] = {}
    for budget in args.budget:
        key = f"{budget:g}"
        for name in args.strategy:
            per_seed = {seed: simulate(pool, truth, features.matrix, ref, name, budget, seed,
                                       args.model, args.fill) for seed in args.seed}
            runs.setdefault(name, {})[key] = _summary(per_seed)
            print(f"{name} @ {key}: {runs[name][key]['mean']}", file=sys.stderr)
        by_base: dict[str, dict[int, Any]] = {}
        for seed in args.seed:
            for bname, figures in baselines(pool, truth, ref, budget, seed).items():
                by_base.setdefault(bname, {})[seed] = figures
        for bname, per_seed in by_base.items():
            base.setdefault(bname, {})[key] = _summary(per_seed)
    full = ref.full.mean(axis=1)
    report = {
        "command": "python -m eval simulate-judging " + " ".join(sys.argv[2:] if
                                                                   sys.argv[1:2] == ["simulate-judging"]
                                                                   else sys.argv[1:]),
        "set": evalset.name, "unit": pool.unit, "systems": systems, "depth": args.depth,
        "questions": len(truth.queries), "pool_size": len(pool),
        "relevant_in_pool": int(truth.labels.sum()),
        "relevant_outside_pool": int(sum(truth.outside.values())),
        "full_labels": {
            "ndcg": {s: round(float(v), 4) for s, v in zip(systems, full, strict=True)},
            "split_half_tau": round(ref.split_half, 4),
            "separated_pairs": [[systems[a], systems[b]] for a, b in ref.pairs]},
        "features": list(features.names), "model": args.model, "fill": args.fill, "seeds": args.seed,
        "strategies": runs, "baselines": base,
        "seconds": round(time.perf_counter() - started, 1),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}", file=sys.stderr)
    return 0
