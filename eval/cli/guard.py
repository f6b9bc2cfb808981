"""`python -m eval guard [--attacks F] [--benign F] [--queries BEIR_QUERIES] [--preset P] [--out F.json]`

Runs the query guard over an attack set and a benign set and prints the block rate and the
false-positive rate with Wilson 95% intervals, per split, category and language, and every miss.
The default sets (datasets/guard_*.jsonl) were in view while the detectors were written: both of
their splits are development data. The held-out set, written blind after the detectors were frozen:
  python -m eval guard --attacks datasets/guard_heldout_2026_11/attacks.jsonl \
      --benign datasets/guard_heldout_2026_11/benign.jsonl --out eval/results/guard_heldout_2026_11.json"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from eval.scoring.guard import ATTACKS, BENIGN, load_prompts, score_guard
from rag.config import load_preset


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("guard", help="block rate and false-positive rate of the query guard",
                                   description=__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--attacks", type=Path, default=ATTACKS, help="attack prompts (JSONL)")
    parser.add_argument("--benign", type=Path, default=BENIGN, help="benign questions (JSONL)")
    parser.add_argument("--queries", type=Path, action="append", default=[],
                        help="BEIR queries.jsonl of real questions, scored as benign too (repeatable)")
    parser.add_argument("--preset", help="take query.guard settings from this preset (default: defaults)")
    parser.add_argument("--out", type=Path, help="write the scores as JSON here")


def run(args: argparse.Namespace) -> int:
    cfg = load_preset(args.preset).query.guard if args.preset else None
    benign = load_prompts(args.benign) + tuple(
        prompt for path in args.queries for prompt in load_prompts(path, split=path.parent.name))
    score = score_guard(load_prompts(args.attacks), benign, cfg)
    for split, rate in score.block_rate.items():
        print(f"attacks blocked   {split:>8}: {rate}")
    for split, rate in score.false_positive_rate.items():
        print(f"benign blocked    {split:>8}: {rate}")
    for title, rates in (("attack category", score.by_category), ("attack language", score.by_language),
                         ("benign category", score.benign_by_category),
                         ("benign language", score.benign_by_language)):
        for name, rate in rates.items():
            print(f"  {title} {name:<22} {rate}")
    for prompt in score.missed:
        print(f"missed  [{prompt.split}/{prompt.category}] {prompt.text!r}")
    for prompt, reason in score.false_alarms:
        print(f"false alarm [{prompt.split}] {prompt.text!r}: {reason}")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(score.as_json(), indent=1, ensure_ascii=False) + "\n")
        print(f"wrote {args.out}")
    return 0
