"""`python -m benchmarks scale --corpus C.jsonl --queries Q.jsonl --sizes 1000,10000 --out F.json`:
a collection per size, measured in its own process (benchmarks.scale); the chart is written next
to the JSON as F.html. Options of benchmarks.cli."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import get_args

from pydantic import ValidationError

from benchmarks.scale import run_scale, summary_lines, to_json
from benchmarks.scale_chart import scale_figure
from rag.embed.settings import EmbeddingConfig, OnnxVariant


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("scale (bench scale)")
    group.add_argument("--sizes", default="1000,10000,50000",
                       help="passages per collection, comma-separated")
    group.add_argument("--onnx-variant", default="",
                       help="the onnx backend's graph (embedding.onnx_variant; default: its default)")
    group.add_argument("--work", type=Path, default=Path("/tmp/rag-bench-scale"),
                       help="folder for the collections (one data folder per size)")


def run(args: argparse.Namespace) -> int:
    if args.corpus is None or args.queries is None:
        raise SystemExit("bench scale needs --corpus and --queries (datasets/build_passages.py)")
    try:
        sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    except ValueError:
        raise SystemExit(f"--sizes {args.sizes!r}: expected numbers, e.g. 1000,10000") from None
    if args.onnx_variant:
        try:  # refused here, before any child process builds a collection
            EmbeddingConfig(onnx_variant=args.onnx_variant)
        except ValidationError:
            raise SystemExit(f"--onnx-variant {args.onnx_variant!r}: expected one of "
                             f"{', '.join(get_args(OnnxVariant))}") from None
    points = run_scale(args.corpus, args.queries, sizes, args.embedding_backend,
                       args.max_queries, args.work, args.onnx_variant)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(to_json(points, args.corpus), encoding="utf-8")
    chart = args.out.with_suffix(".html")
    scale_figure(points, f"Scale curve: {args.corpus.parent.name}").write_html(chart)
    print("\n".join([*summary_lines(points), f"wrote {args.out} and {chart}"]))
    return 0
