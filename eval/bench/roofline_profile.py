"""Where an onnx graph's time goes, by op type: onnxruntime's profiler over a real ingest's calls.

The onnx backend itself encodes the texts (its tokenizer, slices, two workers, pooling), with its
session swapped for one made from the same options plus `enable_profiling`; the profile's kernel
times are summed per op type (seconds of thread time over both workers). Op types are split into
matrix products and the rest. The fused attention ops (Attention, QAttention) count as products:
they hold the QKV projection and Q K^T / softmax(.) V, and their softmax and masking are thus
credited to the products, which can only flatter the bound built on this split.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rag.embed.onnx_build import BuiltVariant, built_minilm
from rag.embed.onnx_minilm import OnnxMiniLMBackend
from rag.embed.settings import EmbeddingConfig

MATMUL_OPS = frozenset({
    "MatMul", "FusedMatMul", "Gemm", "MatMulInteger", "MatMulIntegerToFloat",
    "DynamicQuantizeMatMul", "MatMulNBits", "QGemm", "Attention", "QAttention",
})


@dataclass(frozen=True)
class OpProfile:
    variant: str
    wall_seconds: float  # the profiled encode, both workers
    workers: int
    op_seconds: dict[str, float]  # kernel time per op type, summed over both workers' threads
    matmul_seconds: float
    other_seconds: float

    @property
    def other_share(self) -> float:
        """Share of the graph's kernel time that is not a matrix product."""
        total = self.matmul_seconds + self.other_seconds
        return self.other_seconds / total if total else 0.0


def op_seconds(profile_json: Path) -> dict[str, float]:
    """Kernel seconds per op type from an onnxruntime profile file."""
    totals: dict[str, float] = defaultdict(float)
    for event in json.loads(profile_json.read_text(encoding="utf-8")):
        if event.get("cat") == "Node" and str(event.get("name", "")).endswith("_kernel_time"):
            totals[event["args"]["op_name"]] += event["dur"] / 1e6
    return dict(sorted(totals.items(), key=lambda kv: -kv[1]))


def profile_variant(variant: BuiltVariant, texts: Sequence[str], batch_size: int) -> OpProfile:
    """Profile the onnx backend embedding `texts` longest first, in ingest batches."""
    import onnxruntime as ort

    cfg = EmbeddingConfig(backend="onnx", onnx_variant=variant, batch_size=batch_size)
    backend = OnnxMiniLMBackend(cfg)
    options = backend.session.get_session_options()
    with tempfile.TemporaryDirectory() as tmp:
        options.enable_profiling = True
        options.profile_file_prefix = str(Path(tmp) / variant)
        backend.session = ort.InferenceSession(str(built_minilm(variant)[0]), options,
                                               providers=["CPUExecutionProvider"])
        order = sorted(texts, key=len, reverse=True)
        start = time.perf_counter()
        for i in range(0, len(order), batch_size):
            backend.encode(order[i : i + batch_size])
        wall = time.perf_counter() - start
        per_op = op_seconds(Path(backend.session.end_profiling()))
    matmul = sum(s for op, s in per_op.items() if op in MATMUL_OPS)
    return OpProfile(variant=variant, wall_seconds=round(wall, 3), workers=backend.workers,
                     op_seconds={op: round(s, 3) for op, s in per_op.items()},
                     matmul_seconds=round(matmul, 3),
                     other_seconds=round(sum(per_op.values()) - matmul, 3))
