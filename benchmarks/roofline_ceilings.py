"""What this machine's matrix-product kernels reach on MiniLM's shapes: measured GFLOP/s ceilings.

Each kernel multiplies an (M x k) activation by a (k x n) weight for every dense product of a
layer (QKV, attention output, FFN in, FFN out), with M = the tokens per call a path really runs.
Two ways to use the two cores are measured for onnxruntime: one session with two intra-op
threads, and two workers sharing a one-thread session (what the onnx backend does); torch runs
with two threads (the reference's setting). A rate is the best of a few timed chunks of calls,
which discounts bursts of other load; FLOPs are 2*M*k*n per call.

Kernels: fp32 (torch / oneDNN, onnxruntime MatMul), bf16 (torch, AVX-512 BF16), int8 (onnxruntime
MatMulInteger: uint8 x int8 -> int32, the VNNI kernel; DynamicQuantizeMatMul: fp32 in and out,
the activations quantized per call, what our int8 graphs run; torch's dynamically quantized
Linear, fbgemm).
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

TORCH_THREADS = 2


@dataclass(frozen=True)
class Ceiling:
    kernel: str
    precision: str  # fp32 | bf16 | int8
    threads: str  # "2 threads" | "2 workers x 1 thread"
    product: str
    m: int
    k: int
    n: int
    gflops: float


def _rate(call: Callable[[], object], flops: int, budget_s: float, workers: int = 1) -> float:
    """GFLOP/s of `call` (`workers` copies at once): best of 5 chunks of >= budget_s / 5 each."""
    call()  # warm-up: first-call allocations and kernel selection are not throughput
    start, repeats = time.perf_counter(), 1
    call()
    one = max(time.perf_counter() - start, 1e-6)
    repeats = max(1, int(budget_s / 5 / one))

    def chunk(_: int) -> None:
        for _ in range(repeats):
            call()

    best = float("inf")
    with ThreadPoolExecutor(workers) as pool:
        for _ in range(5):
            start = time.perf_counter()
            list(pool.map(chunk, range(workers)))
            best = min(best, time.perf_counter() - start)
    return workers * repeats * flops / best / 1e9


def _ort_session(op: str, m: int, k: int, n: int, threads: int) -> tuple[Any, dict[str, Any]]:
    """A one-node onnxruntime graph: `op` of an (m x k) input by a constant (k x n) weight."""
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    weight_int8 = numpy_helper.from_array(rng.integers(-127, 128, (k, n), dtype=np.int8), "W")
    if op == "MatMul":
        node = helper.make_node("MatMul", ["A", "W"], ["Y"])
        inits = [numpy_helper.from_array(rng.standard_normal((k, n), dtype=np.float32), "W")]
        types, feed = (TensorProto.FLOAT, TensorProto.FLOAT), rng.standard_normal((m, k),
                                                                                  dtype=np.float32)
    elif op == "MatMulInteger":
        node = helper.make_node("MatMulInteger", ["A", "W", "a_zero"], ["Y"])
        inits = [weight_int8, numpy_helper.from_array(np.array(128, dtype=np.uint8), "a_zero")]
        types, feed = (TensorProto.UINT8, TensorProto.INT32), rng.integers(0, 256, (m, k),
                                                                            dtype=np.uint8)
    else:  # DynamicQuantizeMatMul (com.microsoft), per-channel weight scales
        node = helper.make_node("DynamicQuantizeMatMul", ["A", "W", "scale", "zero"], ["Y"],
                                domain="com.microsoft")
        inits = [weight_int8, numpy_helper.from_array(np.full(n, 0.01, dtype=np.float32), "scale"),
                 numpy_helper.from_array(np.zeros(n, dtype=np.int8), "zero")]
        types, feed = (TensorProto.FLOAT, TensorProto.FLOAT), rng.standard_normal((m, k),
                                                                                  dtype=np.float32)
    graph = helper.make_graph([node], op, [helper.make_tensor_value_info("A", types[0], [m, k])],
                              [helper.make_tensor_value_info("Y", types[1], [m, n])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                    helper.make_opsetid("com.microsoft", 1)])
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")  # as the backend
    session = ort.InferenceSession(model.SerializeToString(), options,
                                   providers=["CPUExecutionProvider"])
    return session, {"A": feed}


_ORT_KERNELS = {"MatMul": "fp32", "MatMulInteger": "int8", "DynamicQuantizeMatMul": "int8"}


def _ort_ceilings(product: str, m: int, k: int, n: int, budget_s: float) -> list[Ceiling]:
    found = []
    for op, precision in _ORT_KERNELS.items():
        for threads, workers, label in ((2, 1, "2 threads"), (1, 2, "2 workers x 1 thread")):
            session, feed = _ort_session(op, m, k, n, threads)
            rate = _rate(lambda s=session, f=feed: s.run(None, f), 2 * m * k * n, budget_s,
                         workers)
            found.append(Ceiling(f"onnxruntime {op}", precision, label, product, m, k, n,
                                 round(rate, 1)))
    return found


def _torch_ceilings(product: str, m: int, k: int, n: int, budget_s: float) -> list[Ceiling]:
    import torch

    a, b = torch.randn(m, k), torch.randn(k, n)
    a16, b16 = a.bfloat16(), b.bfloat16()
    linear = torch.nn.Sequential(torch.nn.Linear(k, n, bias=False))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch.ao.quantization's deprecation notice
        quantized = torch.ao.quantization.quantize_dynamic(linear, {torch.nn.Linear},
                                                           dtype=torch.qint8)
    kernels: dict[str, tuple[str, Callable[[], object]]] = {
        "torch matmul": ("fp32", lambda: a @ b),
        "torch matmul bf16": ("bf16", lambda: a16 @ b16),
        "torch dynamic int8 Linear (fbgemm)": ("int8", lambda: quantized(a)),
    }
    with torch.inference_mode():
        return [Ceiling(name, precision, f"{TORCH_THREADS} threads", product, m, k, n,
                        round(_rate(call, 2 * m * k * n, budget_s), 1))
                for name, (precision, call) in kernels.items()]


def measure_ceilings(products: dict[str, tuple[int, int]], ms: Sequence[int],
                     budget_s: float = 0.5) -> list[Ceiling]:
    """Every kernel on every (m, product); `budget_s` of timing per kernel and shape."""
    import torch

    previous = torch.get_num_threads()
    torch.set_num_threads(TORCH_THREADS)
    try:
        found: list[Ceiling] = []
        for m in ms:
            for product, (k, n) in products.items():
                found += _torch_ceilings(product, m, k, n, budget_s)
                found += _ort_ceilings(product, m, k, n, budget_s)
        return found
    finally:
        torch.set_num_threads(previous)


def best_rates(ceilings: Sequence[Ceiling], precision: str) -> dict[tuple[int, str], Ceiling]:
    """The fastest kernel of `precision` for each (m, product)."""
    best: dict[tuple[int, str], Ceiling] = {}
    for c in ceilings:
        key = (c.m, c.product)
        if c.precision == precision and (key not in best or c.gflops > best[key].gflops):
            best[key] = c
    return best
