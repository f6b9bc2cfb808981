"""`python -m eval intents [--preset P] [--threshold T ...] [--out F.json]`

Scores the intent router's rules + semantic layers on the labelled queries of datasets/intents.csv
(none of them router exemplars) at the leave-one-out threshold calibrated on the exemplars alone,
and at any threshold given (Axiom's 0.85 was set for bge-small). The LLM layer is not scored."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rag.config import load_preset
from rag.query.intent.evaluate import (
    THRESHOLD_GRID,
    IntentEvaluation,
    calibrate,
    evaluate,
    load_labeled,
    semantic_scores,
)
from rag.query.stage import semantic_router


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("intents", help="accuracy of the intent router on datasets/intents.csv",
                                   description=__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--preset", default="axiom", help="embedding and intent settings from this preset")
    parser.add_argument("--threshold", type=float, action="append", default=[],
                        help="also score at this semantic threshold (repeatable)")
    parser.add_argument("--out", type=Path, help="write the scores as JSON here")


def _row(evaluation: IntentEvaluation, how: str) -> dict[str, object]:
    recall = {k: {"recall": r, "n": n} for k, (r, n) in evaluation.recall_by_intent().items()}
    return {"threshold": evaluation.threshold, "chosen_by": how, "accuracy": evaluation.accuracy,
            "queries": len(evaluation.predictions), "recall_by_intent": recall,
            "layers": evaluation.layer_counts()}


def run(args: argparse.Namespace) -> int:
    config = load_preset(args.preset)
    router = semantic_router(config.embedding)
    labeled = load_labeled()
    scores = semantic_scores(labeled, router)
    default = config.query.intent.default_intent
    calibrated, _ = calibrate(router, THRESHOLD_GRID, default)
    rows = [_row(evaluate(labeled, scores, calibrated, default), "leave-one-out on the exemplars")]
    rows += [_row(evaluate(labeled, scores, t, default), "given") for t in args.threshold]
    for row in rows:
        print(f"threshold {row['threshold']:.2f} ({row['chosen_by']}): accuracy {row['accuracy']:.3f} "
              f"on {row['queries']} queries")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        report = {"preset": args.preset, "embedding": config.embedding.model_dump(mode="json"), "runs": rows}
        args.out.write_text(json.dumps(report, indent=1) + "\n")
        print(f"wrote {args.out}")
    return 0
