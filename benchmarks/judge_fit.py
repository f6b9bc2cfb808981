"""What refitting the learned judge costs: features of a whole pool (BM25 and dense similarity
included), then fitting the judge with its 5-fold cross-validation on N labels, as the Judge
page does after each key (issue 35 asks for at most 60 s for 300 labels on two cores).

    python -m benchmarks.judge_fit --dataset datasets/build/beir_debian --labels 300 \\
        --out benchmarks/results/judging/judge_fit_beir_debian.json

`--feedback fb` (or fbr, fbk, fba) adds benchmarks.judging_feedback's relevance-feedback
features, their TF-IDF similarities recomputed in every repeat (judge6, development only).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

import numpy as np

from benchmarks.judging_feedback import clear_cache, feedback_features
from eval.data.evalsets import load_eval_set
from eval.judging.features import context_features, item_features
from eval.judging.learned_judge import LearnedJudge, cross_validate
from eval.judging.pool import DEFAULT_SYSTEMS
from eval.judging.sim_runs import labelled_pool
from eval.judging.simulate import run_strategy
from rag.config import load_preset
from rag.embed import get_embedder


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dataset", required=True)
    parser.add_argument("--labels", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--feedback", choices=("fb", "fbr", "fbk", "fba"))
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    pool, truth = labelled_pool(load_eval_set(args.dataset), DEFAULT_SYSTEMS, 10)
    started = time.perf_counter()
    features = item_features(pool, get_embedder(load_preset("dense").embedding))
    features_s = time.perf_counter() - started
    judged, _ = run_strategy(pool, truth, features.matrix, "judge_uncertainty",
                             args.labels / len(pool), 0)
    idx = list(judged)
    y = [judged[i] for i in idx]
    seconds = []
    for _ in range(args.repeats):
        started = time.perf_counter()
        x = np.column_stack([features.matrix, context_features(pool, judged)])
        if args.feedback:
            clear_cache()  # a fresh pool's similarities, as at the first refit
            x = np.column_stack([x, feedback_features(pool, judged, args.feedback)])
        cross_validate(x[idx], y, [pool.items[i].qid for i in idx])
        LearnedJudge().fit(x[idx], y).probabilities(x)
        seconds.append(time.perf_counter() - started)
    report = {"dataset": args.dataset, "feedback": args.feedback, "pool_size": len(pool),
              "labels": len(idx),
              "relevant": int(sum(y)), "features_s (first, embeddings cached after)":
              round(features_s, 2), "fit_with_cv_s": {"median": round(statistics.median(seconds), 3),
                                                      "max": round(max(seconds), 3)},
              "load_average_1m": round(os.getloadavg()[0], 1)}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
