"""`python -m eval calibrate-abstention --qa FILE --preset P --out P_calibrated.yaml`
`python -m eval calibrate-abstention --collection NAME --qa SET --preset P --out P_calibrated.yaml`

Fits the abstain bar of a preset on a QA set that has answerable and unanswerable questions
(rows with "answerable": false): every question runs once, then each candidate bar is replayed;
prints the trade-off curve (answer rate on answerable vs abstain rate on unanswerable), the
chosen bar and its out-of-fold estimate with 95% CIs, and writes a preset override YAML that
extends P with the bar (`--curve FILE.json` keeps the whole curve).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from tqdm import tqdm

from eval.scoring.abstention import METRICS
from eval.scoring.calibration import SIGNALS, calibrate, calibration_items, override_yaml
from eval.testsets.store import resolve_qa
from rag.config import load_preset, parse_set_options, with_overrides
from rag.paths import SAMPLES_DIR


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("calibrate-abstention", help="fit a preset's abstain bar",
                                   description=__doc__)
    parser.add_argument("--qa", required=True,
                        help="QA file (.jsonl / .csv), or with --collection a test set stored "
                             "with it")
    parser.add_argument("--collection", metavar="NAME", default=None,
                        help="ask the questions of this existing collection (its embedder and "
                             "index) instead of --corpus")
    parser.add_argument("--corpus", type=Path, default=SAMPLES_DIR,
                        help="documents folder or BEIR folder the questions are asked of")
    parser.add_argument("--preset", required=True, help="preset name or YAML path")
    parser.add_argument("--out", required=True, type=Path, help="preset override YAML to write")
    parser.add_argument("--signal", choices=sorted(SIGNALS), default="evidence")
    parser.add_argument("--min-answer-rate", type=float, default=0.85,
                        help="answer at least this share of answerable questions (default 0.85)")
    parser.add_argument("--folds", type=int, default=5, help="folds of the out-of-fold estimate")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--curve", type=Path, default=None, help="write the curve as JSON here")
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)


def run(args: argparse.Namespace) -> int:
    qa = resolve_qa(args.collection, args.qa)
    config = with_overrides(load_preset(args.preset), parse_set_options(args.set))
    with tqdm(total=len(qa.items), desc=f"{config.name}: answering", unit="q") as bar:
        items = calibration_items(qa, config, args.signal, args.corpus,
                                  progress=lambda done, _: bar.update(done - bar.n),
                                  collection=args.collection)
    result = calibrate(items, config.abstain, args.signal, args.min_answer_rate, args.folds,
                       args.seed, args.resamples)
    print(f"{'bar':>10}  answer rate (answerable)  abstain rate (unanswerable)")
    step = max(1, len(result.curve) // 25)
    for p in [*result.curve[::step], result.chosen]:
        mark = "  <- chosen" if p is result.chosen else ""
        bar_text = "off" if p.threshold is None else f"{p.threshold:.4f}"
        print(f"{bar_text:>10}  {p.answer_rate:24.3f}  {p.abstain_rate:27.3f}{mark}")
    cv = result.cross_validated
    print(f"out of fold ({args.folds} folds): " + "  ".join(
        f"{k} {v['value']:.3f} [{v['ci95'][0]:.3f}, {v['ci95'][1]:.3f}]"
        for k, v in cv.items() if k in METRICS and v["value"] is not None))
    args.out.write_text(override_yaml(args.preset, config, result, str(args.qa)), encoding="utf-8")
    if args.curve is not None:
        args.curve.write_text(json.dumps(result.as_json(), indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}" + (f" and {args.curve}" if args.curve else ""))
    return 0
