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
from rag.settings.embedding import EmbeddingConfig, OnnxVariant


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("scale (bench scale)")
    group.add_argument("--sizes", default="1000,10000,50000",
                       help="passages per collection, comma-separated")
    group.add_argument("--onnx-variant", default="",
                       help="the onnx backend's graph (embedding.onnx_variant; default: its default)")
    group.add_argument("--engines", default="",
                       help="compare embedded stores side by side instead (benchmarks.store_engines): "
                            "edge,local-mode")
    group.add_argument("--work", type=Path, default=Path("/tmp/rag-bench-scale"),
                       help="folder for the collections (one data folder per size)")
    group.add_argument("--reuse", action="store_true",
                       help="with --engines: search a collection an earlier run left in --work "
                            "instead of building it again (ingest/build figures are then null)")


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
    if args.engines:
        return _engines(args, sizes)
    points = run_scale(args.corpus, args.queries, sizes, args.embedding_backend,
                       args.max_queries, args.work, args.onnx_variant)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(to_json(points, args.corpus), encoding="utf-8")
    chart = args.out.with_suffix(".html")
    scale_figure(points, f"Scale curve: {args.corpus.parent.name}").write_html(chart)
    print("\n".join([*summary_lines(points), f"wrote {args.out} and {chart}"]))
    return 0


def _engines(args: argparse.Namespace, sizes: list[int]) -> int:
    from benchmarks.store_engines import ENGINES, run_engines
    from benchmarks.store_engines import summary_lines as engine_lines
    from benchmarks.store_engines import to_json as engines_json

    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    unknown = sorted(set(engines) - set(ENGINES))
    if unknown:
        raise SystemExit(f"--engines {','.join(unknown)}: expected some of {', '.join(ENGINES)}")
    points, notes = run_engines(args.corpus, args.queries, sizes, engines,
                                args.embedding_backend, args.max_queries, args.work,
                                reuse=args.reuse)
    command = (f"python -m benchmarks scale --corpus {args.corpus} --queries {args.queries} "
               f"--sizes {args.sizes} --engines {args.engines} --embedding-backend "
               f"{args.embedding_backend} --max-queries {args.max_queries} --work {args.work}"
               f"{' --reuse' if args.reuse else ''} --out {args.out}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(engines_json(points, notes, args.corpus, command), encoding="utf-8")
    print("\n".join([*engine_lines(points), *notes, f"wrote {args.out}"]))
    return 0
