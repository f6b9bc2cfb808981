"""Where issue 25's ingest embedding time goes: onnxruntime's profile by op type of each graph
over the ingest's own chunks, their cosine to fp32, and the slice size / worker layout effect.

    PYTHONPATH=. nice -n 10 python benchmarks/ingest_graph_profile.py --docs /tmp/ingw-quiet/docs \
        --out benchmarks/results/ingest_graph_profile_debian1000.json

The chunks are those `python -m rag ingest` makes of `--docs` (default preset), encoded by the
onnx backend itself (`encode_all`: token-sorted slices, two one-thread workers), with its session
swapped for one made from the same options plus `enable_profiling`. Kernel times are summed per
op type over both workers (thread seconds, as run). The layout runs (no profiler) take every
`--layout-step`-th chunk and vary the slice size and the workers; CPU seconds are the process's.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.roofline_profile import op_seconds
from rag.embed import onnx_minilm
from rag.embed.onnx_build import DISABLED_OPTIMIZERS, BuiltVariant, built_minilm
from rag.embed.onnx_minilm import OnnxMiniLMBackend, open_session, session_options
from rag.settings.embedding import EmbeddingConfig

LAYOUTS = ((2, 1, 8), (2, 1, 4), (2, 1, 16), (2, 1, 32), (1, 2, 8))  # workers, threads, slice


def chunk_texts(docs: Path) -> list[str]:
    """The texts `rag ingest DOCS` embeds with the default preset."""
    from rag.config import PipelineConfig
    from rag.documents import ingest_paths
    from rag.index.ingest import chunk_documents

    _, pairs = chunk_documents(list(ingest_paths([docs]).documents), PipelineConfig())
    return [chunk.text for _, chunk in pairs]


def session_for(model: Path, disabled: list[str], threads: int = 1,
                profile_prefix: str | None = None) -> Any:
    """A session as the backend makes it (rag.embed.onnx_minilm.session_options), with `threads`
    intra-op threads and, given a prefix, onnxruntime's profiler on."""
    options = session_options(threads)
    if profile_prefix:
        options.enable_profiling = True
        options.profile_file_prefix = profile_prefix
    return open_session(model, disabled, options)


def fp32_reference(texts: list[str]) -> np.ndarray:
    """The texts' unit vectors from the fp32 graph, as the backend encodes them."""
    return normed(OnnxMiniLMBackend(EmbeddingConfig(backend="onnx", onnx_variant="fp32"))
                  .encode_all(texts))


def _session(variant: str, threads: int, profile_prefix: str | None = None) -> Any:
    disabled = list(DISABLED_OPTIMIZERS.get(variant, ()))
    return session_for(built_minilm(variant)[0], disabled, threads,  # type: ignore[arg-type]
                       profile_prefix)


def normed(x: np.ndarray) -> np.ndarray:
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def profile(variant: BuiltVariant, texts: list[str], ref: np.ndarray) -> dict[str, Any]:
    backend = OnnxMiniLMBackend(EmbeddingConfig(backend="onnx", onnx_variant=variant))
    with tempfile.TemporaryDirectory() as tmp:
        backend.session = _session(variant, 1, str(Path(tmp) / variant))
        cpu0, wall0 = time.process_time(), time.perf_counter()
        vectors = normed(backend.encode_all(texts))
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
        _, per_op = op_seconds(Path(backend.session.end_profiling()), 1)
    total = sum(per_op.values())
    cos = (vectors * ref).sum(axis=1)
    return {
        "profiled_pass": {"wall_s": round(wall, 2), "cpu_s": round(cpu, 2),
                          "load_1min": round(os.getloadavg()[0], 2)},
        "kernel_seconds_total": round(total, 2),
        "op_seconds": per_op,
        "op_share": {op: round(s / total, 3) for op, s in per_op.items()},
        "cosine_to_fp32_min": round(float(cos.min()), 5),
        "cosine_to_fp32_mean": round(float(cos.mean()), 5),
    }


def layouts(variant: BuiltVariant, texts: list[str], rounds: int) -> list[dict[str, Any]]:
    backend = OnnxMiniLMBackend(EmbeddingConfig(backend="onnx", onnx_variant=variant))
    default_slice = onnx_minilm.SLICE
    rows = []
    for workers, threads, size in LAYOUTS:
        backend.session = _session(variant, threads)
        backend._pool = ThreadPoolExecutor(workers)
        onnx_minilm.SLICE = size  # encode_all reads the module's SLICE
        cpus, walls = [], []
        try:
            for _ in range(rounds):
                cpu0, wall0 = time.process_time(), time.perf_counter()
                backend.encode_all(texts)
                cpus.append(round(time.process_time() - cpu0, 2))
                walls.append(round(time.perf_counter() - wall0, 2))
        finally:
            onnx_minilm.SLICE = default_slice
        rows.append({"workers": workers, "intra_op_threads": threads, "slice": size,
                     "cpu_s": cpus, "wall_s": walls, "cpu_s_min": min(cpus),
                     "load_1min": round(os.getloadavg()[0], 2)})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--variants", default="int8-smooth,int8-smooth-rows")
    parser.add_argument("--layout-step", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    load_before = [round(x, 2) for x in os.getloadavg()]
    texts = chunk_texts(args.docs)
    ref = fp32_reference(texts)
    variants: list[BuiltVariant] = args.variants.split(",")
    result: dict[str, Any] = {
        "command": "PYTHONPATH=. nice -n 10 python benchmarks/ingest_graph_profile.py --docs "
                   f"{args.docs} --out {args.out} --variants {args.variants} "
                   f"--layout-step {args.layout_step} --rounds {args.rounds}",
        "chunks": len(texts), "layout_chunks": len(texts[:: args.layout_step]),
        "load_average_before": load_before,
        "profiles": {v: profile(v, texts, ref) for v in variants},
        "layouts": {v: layouts(v, texts[:: args.layout_step], args.rounds) for v in variants},
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
    }
    args.out.write_text(json.dumps(result, indent=1), encoding="utf-8")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
