"""`python -m eval testset-quality FILE.jsonl [--sample N] [--seed S] [--out F.json]`

A test set's quality report (eval.testsets.quality): rows per rule, how much of each question's
wording its answer span repeats (lexical overlap, overall and per rule), and a seeded sample of
rows to read — question, rule and the start of its span — before the set is trusted."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from eval.data.qa import json_lines
from eval.testsets.quality import SAMPLE, describe, quality_report


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("testset-quality", description=__doc__,
                                   help="rows per rule, question/span overlap and a sample to read")
    parser.add_argument("file", type=Path, help="QA JSONL test set (mined, generated or judged)")
    parser.add_argument("--sample", type=int, default=SAMPLE, help=f"rows to read (default {SAMPLE})")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, help="also write the report as JSON here")


def run(args: argparse.Namespace) -> int:
    rows = [dict(row) for _, row in json_lines(args.file)]  # a bad line: DatasetError with its number
    report = quality_report(rows, args.sample, args.seed)
    print(describe(report))
    print(f"\nA sample of {len(report['sample']['rows'])} rows (seed {args.seed}):")
    for row in report["sample"]["rows"]:
        print(f"- [{row['rule']}, overlap {row['overlap']:.0%}] {row['question']}\n    "
              f"{row['span_start'][:160]}")
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n")
        print(f"wrote {args.out}")
    return 0
