"""`python -m benchmarks retrieval|embed|ingest_speed|roofline|sweep|privacy|scale|tune|llm-replies|
llm-speed … --out FILE.json`: benchmarks."""

from __future__ import annotations

import argparse
from pathlib import Path

from benchmarks import BenchSettings, run_retrieval_bench
from benchmarks.cli import embed as bench_embed
from benchmarks.cli import ingest_speed as bench_ingest_speed
from benchmarks.cli import llm_replies as bench_llm_replies
from benchmarks.cli import roofline as bench_roofline
from benchmarks.cli import scale as bench_scale
from benchmarks.cli import sweep as bench_sweep
from benchmarks.cli import tune as bench_tune
from benchmarks.retrieval import summary_lines


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m benchmarks",
                                     description="research benchmarks, written as JSON")
    parser.add_argument("suite", choices=["retrieval", "embed", "ingest_speed", "roofline", "sweep",
                                          "privacy", "scale", "tune", "llm-replies", "llm-speed"],
                        help="which benchmark")
    parser.add_argument("--corpus", type=Path, help="BEIR corpus.jsonl (retrieval)")
    parser.add_argument("--queries", type=Path, help="BEIR queries.jsonl (retrieval)")
    parser.add_argument("--out", type=Path, required=True, help="where to write the JSON")
    parser.add_argument("--max-passages", type=int, help="use only the first N passages")
    parser.add_argument("--max-queries", type=int, default=200)
    parser.add_argument(
        "--embed-texts",
        type=int,
        default=1000,
        help="passages for the embedding throughput comparison (retrieval, embed, roofline)",
    )
    parser.add_argument("--embed-rounds", type=int, default=2)
    parser.add_argument(
        "--embed-variants",
        help="embed: other onnx graphs timed in the same rounds, e.g. fp32,int8-weights",
    )
    parser.add_argument(
        "--hybrid-passages", type=int, help="passages indexed for the hybrid latency (default: all)"
    )
    parser.add_argument(
        "--embedding-backend",
        choices=["sentence-transformers", "onnx", "fastembed", "hashing"],
        default="sentence-transformers",
        help="embedder of the hybrid collection (retrieval, scale)",
    )
    parser.add_argument("--depth", type=int, default=100, help="candidates per retriever")
    parser.add_argument("--k", type=int, default=60, help="RRF k")
    bench_sweep.add_arguments(parser)
    bench_scale.add_arguments(parser)
    bench_tune.add_arguments(parser)
    bench_roofline.add_arguments(parser)
    bench_llm_replies.add_arguments(parser)
    bench_ingest_speed.add_arguments(parser)
    return parser


def run(args: argparse.Namespace) -> int:
    if args.suite == "sweep":
        return bench_sweep.run(args)
    if args.suite == "privacy":
        return _privacy(args)
    if args.suite == "embed":
        return bench_embed.run(args)
    if args.suite == "ingest_speed":
        return bench_ingest_speed.run(args)
    if args.suite == "roofline":
        return bench_roofline.run(args)
    if args.suite == "scale":
        return bench_scale.run(args)
    if args.suite == "tune":
        return bench_tune.run(args)
    if args.suite == "llm-replies":
        return bench_llm_replies.run(args)
    if args.suite == "llm-speed":
        return bench_llm_replies.run_speed(args)
    if args.corpus is None or args.queries is None:
        raise SystemExit("bench retrieval needs --corpus and --queries")
    settings = BenchSettings(
        max_passages=args.max_passages,
        max_queries=args.max_queries,
        embed_texts=args.embed_texts,
        embed_rounds=args.embed_rounds,
        hybrid_passages=args.hybrid_passages,
        embedding_backend=args.embedding_backend,
        depth=args.depth,
        k=args.k,
    )
    result = run_retrieval_bench(args.corpus, args.queries, settings)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(result.to_json(), encoding="utf-8")
    print("\n".join([*summary_lines(result), f"wrote {args.out}"]))
    return 0


def _privacy(args: argparse.Namespace) -> int:
    from benchmarks.privacy import run_privacy_bench
    from benchmarks.privacy import summary_lines as privacy_lines

    if args.corpus is None or args.queries is None:
        raise SystemExit("bench privacy needs --corpus and --queries")
    result = run_privacy_bench(args.corpus, args.queries, args.max_queries, args.depth)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(result.to_json(), encoding="utf-8")
    print("\n".join([*privacy_lines(result), f"wrote {args.out}"]))
    return 0
