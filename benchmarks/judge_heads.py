"""Design check for judge (b) on a DEV set only (never a reported one): the labels
judge_uncertainty collects at the budget, and several heads over the frozen MiniLM
cross-encoder's pair vector cross-validated by question on them, beside the feature judge.

    python -m benchmarks.judge_heads --dataset datasets/build/beir_dev_harden --budget 0.2 \\
        --out benchmarks/results/judging/dev/judge_heads_harden.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from eval.data.evalsets import load_eval_set
from eval.judging.cross_judge import pool_vectors
from eval.judging.features import PAIR_NAMES, context_features, item_features
from eval.judging.learned_judge import cross_validate
from eval.judging.pool import DEFAULT_SYSTEMS
from eval.judging.sim_runs import labelled_pool
from eval.judging.simulate import run_strategy
from rag.config import load_preset
from rag.embed import get_embedder


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dataset", required=True)
    parser.add_argument("--budget", type=float, default=0.2)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    evalset = load_eval_set(args.dataset)
    pool, truth = labelled_pool(evalset, list(DEFAULT_SYSTEMS), 10, {})
    features = item_features(pool, get_embedder(load_preset("dense").embedding))
    judged, _ = run_strategy(pool, truth, features.matrix, "judge_uncertainty", args.budget, 0)
    idx = list(judged)
    y = [judged[i] for i in idx]
    groups = [pool.items[i].qid for i in idx]
    v = pool_vectors(pool)
    sims = v[:, -len(PAIR_NAMES):]
    x = np.column_stack([features.matrix, context_features(pool, judged)])
    variants = {
        "features (a)": (x, "logistic"),
        "cross: full pair vector, balanced CV head": (v, "balanced_logistic_cv"),
        "cross: 4 similarities, balanced CV head": (sims, "balanced_logistic_cv"),
        "cross: 4 similarities, logistic": (sims, "logistic"),
        "features + 4 similarities, logistic": (np.column_stack([x, sims]), "logistic"),
    }
    report = {"set": evalset.name, "budget": args.budget, "labels": len(idx),
              "relevant": int(sum(y)), "heads": {}}
    for name, (matrix, model) in variants.items():
        a = cross_validate(matrix[idx], y, groups, model)
        report["heads"][name] = a.as_json() if a else None
        print(name, a)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
