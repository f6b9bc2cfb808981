"""Where an onnx graph's time goes, by op type: onnxruntime's profiler over a real ingest's calls.

The onnx backend itself encodes the texts (its tokenizer, slices, two workers, pooling), with its
session swapped for one made from the same options plus `enable_profiling`; the profile's kernel
times are summed per op type (seconds of thread time over both workers). Op types are split into
matrix products and the rest. The fused attention ops (Attention, QAttention) count as products:
they hold the QKV projection and Q K^T / softmax(.) V, and their softmax and masking are thus
credited to the products here; `softmax_seconds` measures the attention softmax on its own.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rag.embed.onnx_build import BuiltVariant, built_minilm
from rag.embed.onnx_minilm import OnnxMiniLMBackend
from rag.settings.embedding import EmbeddingConfig

MATMUL_OPS = frozenset({
    "MatMul", "FusedMatMul", "Gemm", "MatMulInteger", "MatMulIntegerToFloat",
    "DynamicQuantizeMatMul", "MatMulNBits", "QGemm", "Attention", "QAttention",
})


@dataclass(frozen=True)
class OpProfile:
    variant: str
    wall_seconds: float  # one profiled pass, both workers (the slowest pass)
    workers: int
    passes: int
    op_seconds: dict[str, float]  # kernel time per op type and pass, each kernel at its fastest
    op_seconds_as_run: dict[str, float]  # the same, as the passes ran (mean)
    matmul_seconds: float
    other_seconds: float

    @property
    def other_share(self) -> float:
        """Share of the graph's kernel time that is not a matrix product."""
        total = self.matmul_seconds + self.other_seconds
        return self.other_seconds / total if total else 0.0


def op_seconds(profile_json: Path, passes: int = 1) -> tuple[dict[str, float], dict[str, float]]:
    """Kernel seconds per op type of one pass, from an onnxruntime profile of `passes` identical
    passes: (each kernel at its fastest, the mean pass as run).

    "At its fastest": every run of one node on one input shape is the same work, so each counts
    at the least time any of them took — other processes' bursts of load are discounted as the
    kernel ceilings discount them (best of several)."""
    runs: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    for event in json.loads(profile_json.read_text(encoding="utf-8")):
        if event.get("cat") == "Node" and str(event.get("name", "")).endswith("_kernel_time"):
            args = event["args"]
            key = (args["op_name"], event["name"], json.dumps(args.get("input_type_shape")))
            runs[key].append(event["dur"] / 1e6)
    fastest: dict[str, float] = defaultdict(float)
    as_run: dict[str, float] = defaultdict(float)
    for (op, _, _), durations in runs.items():
        fastest[op] += min(durations) * len(durations) / passes
        as_run[op] += sum(durations) / passes

    def by_cost(totals: dict[str, float]) -> dict[str, float]:
        return {op: round(s, 3) for op, s in sorted(totals.items(), key=lambda kv: -kv[1])}

    return by_cost(fastest), by_cost(as_run)


def profile_variant(variant: BuiltVariant, texts: Sequence[str], batch_size: int,
                    passes: int = 2) -> OpProfile:
    """Profile the onnx backend embedding `texts` longest first, in ingest batches, `passes`
    times."""
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
        wall = 0.0
        for _ in range(passes):
            start = time.perf_counter()
            for i in range(0, len(order), batch_size):
                backend.encode(order[i : i + batch_size])
            wall = max(wall, time.perf_counter() - start)
        per_op, as_run = op_seconds(Path(backend.session.end_profiling()), passes)
    matmul = sum(s for op, s in per_op.items() if op in MATMUL_OPS)
    return OpProfile(variant=variant, wall_seconds=round(wall, 3), workers=backend.workers,
                     passes=passes, op_seconds=per_op, op_seconds_as_run=as_run,
                     matmul_seconds=round(matmul, 3),
                     other_seconds=round(sum(per_op.values()) - matmul, 3))


def softmax_seconds(shapes: Sequence[tuple[int, int]], heads: int, layers: int,
                    budget_s: float = 0.05) -> float:
    """Thread seconds of the attention softmax over every call's (batch, heads, T, T) scores, at
    the cost of onnxruntime's Softmax kernel (one thread), `layers` times per call.

    The fused attention ops run the same MLAS softmax inside; the profile cannot split it from
    their products, so it is measured on its own here.
    """
    import numpy as np
    import onnxruntime as ort
    from onnx import TensorProto, helper

    scores = ["batch", heads, "tokens", "tokens"]
    graph = helper.make_graph([helper.make_node("Softmax", ["S"], ["P"], axis=-1)], "softmax",
                              [helper.make_tensor_value_info("S", TensorProto.FLOAT, scores)],
                              [helper.make_tensor_value_info("P", TensorProto.FLOAT, scores)])
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(
        helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString(),
        options, providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(0)
    total = 0.0
    for (batch, tokens), calls in Counter(shapes).items():
        feed = {"S": rng.standard_normal((batch, heads, tokens, tokens), dtype=np.float32)}
        session.run(None, feed)  # warm-up: allocation of the output
        best, spent = float("inf"), 0.0
        while spent < budget_s or best == float("inf"):  # best of a few: other load is noise
            start = time.perf_counter()
            session.run(None, feed)
            took = time.perf_counter() - start
            best, spent = min(best, took), spent + took
        total += best * layers * calls
    return total


def layernorm_costs(hidden: int, tokens: int, budget_s: float = 0.3) -> dict[str, float]:
    """Nanoseconds per element of residual add + bias + LayerNorm over (tokens x hidden), one
    thread: onnxruntime's fused SkipLayerNormalization (what the graphs run) and the same as
    Add, Add, LayerNormalization with graph optimizations off (so they are not fused back)."""
    import numpy as np
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper

    inits = [numpy_helper.from_array(np.ones(hidden, dtype=np.float32), "gamma"),
             numpy_helper.from_array(np.zeros(hidden, dtype=np.float32), "beta"),
             numpy_helper.from_array(np.zeros(hidden, dtype=np.float32), "bias")]
    graphs = {
        "SkipLayerNormalization": [helper.make_node(
            "SkipLayerNormalization", ["X", "S", "gamma", "beta", "bias"], ["Y"],
            domain="com.microsoft", epsilon=1e-12)],
        "Add + LayerNormalization": [
            helper.make_node("Add", ["X", "S"], ["R"]), helper.make_node("Add", ["R", "bias"], ["Z"]),
            helper.make_node("LayerNormalization", ["Z", "gamma", "beta"], ["Y"], axis=-1,
                             epsilon=1e-12)],
    }
    rng = np.random.default_rng(0)
    feed = {name: rng.standard_normal((1, tokens, hidden), dtype=np.float32) for name in "XS"}
    costs = {}
    for name, nodes in graphs.items():
        io = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [1, tokens, hidden])
              for n in ("X", "S", "Y")]
        model = helper.make_model(helper.make_graph(nodes, "ln", io[:2], io[2:], inits),
                                  opset_imports=[helper.make_opsetid("", 17),
                                                 helper.make_opsetid("com.microsoft", 1)])
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        session = ort.InferenceSession(model.SerializeToString(), options,
                                       providers=["CPUExecutionProvider"])
        session.run(None, feed)
        best, spent = float("inf"), 0.0
        while spent < budget_s:
            start = time.perf_counter()
            session.run(None, feed)
            took = time.perf_counter() - start
            best, spent = min(best, took), spent + took
        costs[name] = round(best / (tokens * hidden) * 1e9, 3)
    return costs
