"""`python -m benchmarks ingest_speed --corpus C.jsonl --out FILE.json`: the whole `python -m rag
ingest` of N real passages vs in-process fp32 sentence-transformers encode of them
(benchmarks.ingest_speed). Options: --ingest-passages (1,000), --ingest-rounds (3),
--ingest-work (a scratch folder, emptied first), --ingest-checkout LABEL=PATH (another checkout
timed in the same rounds: a before/after under the same load), --no-bytecode-cache."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--ingest-passages", type=int, default=1000,
                        help="ingest_speed: passages written as files and ingested")
    parser.add_argument("--ingest-rounds", type=int, default=3,
                        help="ingest_speed: interleaved rounds of each side (best and median kept)")
    parser.add_argument("--ingest-work", type=Path, default=Path("/tmp/rag-ingest-speed"),
                        help="ingest_speed: scratch folder for the files and data folders (emptied)")
    parser.add_argument("--ingest-checkout", action="append", default=[], metavar="LABEL=PATH",
                        help="ingest_speed: another checkout whose ingest runs in the same rounds "
                             "(e.g. before=/tmp/main-before), repeatable")
    parser.add_argument("--no-bytecode-cache", action="store_true",
                        help="ingest_speed: compile every module in every ingest process")


def _checkout(item: str) -> tuple[str, Path]:
    label, sep, path = item.partition("=")
    if not sep or not label or not Path(path).is_dir():
        raise ValueError(f"--ingest-checkout {item!r}: expected LABEL=PATH to a checkout folder")
    return label, Path(path)


def run(args: argparse.Namespace) -> int:
    from benchmarks.ingest_speed import ingest_speed, summary_line

    if args.corpus is None:
        raise SystemExit("bench ingest_speed needs --corpus (a BEIR corpus.jsonl)")
    command = " ".join(["python -m benchmarks", *sys.argv[1:]])
    result = ingest_speed(args.corpus, args.ingest_work, passages=args.ingest_passages,
                          rounds=args.ingest_rounds, bytecode_cache=not args.no_bytecode_cache,
                          command=command, others=dict(_checkout(item) for item in args.ingest_checkout))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"{summary_line(result)}\nwrote {args.out}")
    return 0
