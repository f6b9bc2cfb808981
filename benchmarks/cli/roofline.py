"""`python -m benchmarks roofline --corpus C.jsonl --out FILE.json [--preset hybrid]`: the work,
the achieved rates, this machine's kernel ceilings and the best speed-up an int8 MiniLM could
reach over fp32 sentence-transformers on the same passages (benchmarks.roofline). Options of
benchmarks.cli: --embed-texts (1,000), --embed-rounds, --ceiling-budget."""

from __future__ import annotations

import argparse

from benchmarks.roofline import run_roofline, summary_lines, write
from eval.data.beir import load_corpus
from rag.config import load_preset


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("roofline (bench roofline)")
    group.add_argument("--ceiling-budget", type=float, default=0.5,
                       help="seconds of timing per kernel and shape for the GFLOP/s ceilings")


def run(args: argparse.Namespace) -> int:
    if args.corpus is None:
        raise SystemExit("bench roofline needs --corpus (a BEIR corpus.jsonl)")
    texts = [doc["text"] for doc in load_corpus(args.corpus).values()][: args.embed_texts]
    embedding = load_preset(args.preset).embedding
    if embedding.backend != "onnx":
        raise SystemExit(f"bench roofline measures the onnx ingest path; preset {args.preset!r} "
                         f"embeds with {embedding.backend!r}")
    result = run_roofline(texts, embedding, rounds=args.embed_rounds,
                          ceiling_budget_s=args.ceiling_budget)
    write(result, args.out, str(args.corpus), args.preset)
    print("\n".join([*summary_lines(result), f"wrote {args.out}"]))
    return 0
