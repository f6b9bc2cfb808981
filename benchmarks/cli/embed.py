"""`python -m benchmarks embed --corpus C.jsonl --out FILE.json [--preset hybrid]`: the preset's
ingest embedder vs raw fp32 sentence-transformers on the same passages (benchmarks.embed_throughput).
Options of benchmarks.cli: --embed-texts (1,000), --embed-rounds, --embed-variants (other onnx
graphs timed in the same rounds, e.g. fp32,int8-weights)."""

from __future__ import annotations

import argparse

from benchmarks.embed_throughput import embed_throughput, summary_line, to_json
from eval.data.beir import load_corpus
from rag.config import load_preset


def run(args: argparse.Namespace) -> int:
    if args.corpus is None:
        raise SystemExit("bench embed needs --corpus (a BEIR corpus.jsonl)")
    texts = [doc["text"] for doc in load_corpus(args.corpus).values()][: args.embed_texts]
    embedding = load_preset(args.preset).embedding
    variants = [v for v in (args.embed_variants or "").split(",") if v]
    result = embed_throughput(texts, embedding, rounds=args.embed_rounds, variants=variants)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(to_json(result, str(args.corpus), args.preset), encoding="utf-8")
    print(f"{summary_line(result)}\nwrote {args.out}")
    return 0
