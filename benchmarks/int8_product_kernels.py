"""One MiniLM-sized matrix product through onnxruntime's candidate kernels, one thread: fp32
MatMul, u8s8 and u8u8 DynamicQuantizeMatMul (dynamic per-tensor activations), a static
activation scale (QuantizeLinear + MatMulIntegerToFloat), and 8-bit MatMulNBits at accuracy
levels 4 and 0 — which of them is an integer kernel on this CPU (why int8-smooth-rows replaced
MatMulNBits, docs/embedding-cpu-check.md).

    PYTHONPATH=. nice -n 10 python benchmarks/int8_product_kernels.py \\
        --out benchmarks/results/int8_product_kernels.json

Shapes: [800, K] x [K, N] (a slice of 8 texts of 100 tokens), K x N = 1536 x 384 (FFN out) and
384 x 1536 (FFN in); random data; best CPU time of 15 runs; max error relative to fp32's peak.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

import numpy as np

ROWS = 800


def _session(nodes: list[Any], inits: list[Any], k: int, n: int) -> Any:
    import onnxruntime as ort
    from onnx import TensorProto, helper

    graph = helper.make_graph(nodes, "product",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [None, k])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None, n])],
                              inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                    helper.make_opsetid("com.microsoft", 1)])
    options = ort.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    return ort.InferenceSession(model.SerializeToString(), options,
                                providers=["CPUExecutionProvider"])


def kernels(w: np.ndarray, x: np.ndarray) -> dict[str, Any]:
    from onnx import helper
    from onnx.numpy_helper import from_array

    k, n = w.shape
    col = np.abs(w).max(axis=0) / 127.0
    w_s8 = np.round(w / col).astype(np.int8)

    def nbits(accuracy: int) -> Any:
        blocks = w.T.reshape(n, k // 128, 128)
        scale = np.abs(blocks).max(axis=2) / 127.0
        packed = (np.clip(np.round(blocks / scale[..., None]), -127, 127) + 128).astype(np.uint8)
        node = helper.make_node("MatMulNBits", ["x", "b", "s"], ["y"], domain="com.microsoft",
                                K=k, N=n, bits=8, block_size=128, accuracy_level=accuracy)
        return _session([node], [from_array(packed, "b"),
                                 from_array(scale.reshape(-1).astype(np.float32), "s")], k, n)

    def dqmm(weights: np.ndarray, zero: np.ndarray) -> Any:
        node = helper.make_node("DynamicQuantizeMatMul", ["x", "b", "s", "z"], ["y"],
                                domain="com.microsoft")
        return _session([node], [from_array(weights, "b"), from_array(col.astype(np.float32), "s"),
                                 from_array(zero, "z")], k, n)

    x_scale = np.array(np.abs(x).max() / 127.0, np.float32)
    static = _session(
        [helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"]),
         helper.make_node("MatMulIntegerToFloat", ["xq", "b", "xs", "s", "xz"], ["y"],
                          domain="com.microsoft")],
        [from_array(x_scale, "xs"), from_array(np.array(128, np.uint8), "xz"),
         from_array(w_s8, "b"), from_array(col.astype(np.float32), "s")], k, n)
    return {
        "fp32 MatMul": _session([helper.make_node("MatMul", ["x", "w"], ["y"])],
                                [from_array(w, "w")], k, n),
        "DynamicQuantizeMatMul u8s8": dqmm(w_s8, np.zeros(n, np.int8)),
        "DynamicQuantizeMatMul u8u8": dqmm((w_s8.astype(np.int16) + 128).astype(np.uint8),
                                           np.full(n, 128, np.uint8)),
        "static scale u8s8 (QuantizeLinear + MatMulIntegerToFloat)": static,
        "MatMulNBits 8-bit block 128, accuracy_level 4": nbits(4),
        "MatMulNBits 8-bit block 128, accuracy_level 0": nbits(0),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    shapes: dict[str, Any] = {}
    for k, n in ((1536, 384), (384, 1536)):
        w = (rng.standard_normal((k, n)) * 0.05).astype(np.float32)
        x = rng.standard_normal((ROWS, k)).astype(np.float32)
        exact = x @ w
        rows = {}
        for name, session in kernels(w, x).items():
            got = session.run(None, {"x": x})[0]
            best = float("inf")
            for _ in range(15):
                start = time.process_time()
                session.run(None, {"x": x})
                best = min(best, time.process_time() - start)
            rows[name] = {"ms": round(best * 1000, 2),
                          "max_error_rel": round(float(np.abs(got - exact).max() / np.abs(exact).max()), 4)}
        shapes[f"[{ROWS}, {k}] x [{k}, {n}]"] = rows
    command = f"PYTHONPATH=. nice -n 10 python benchmarks/int8_product_kernels.py --out {args.out}"
    result = {"command": command,
              "load_average": [round(v, 2) for v in os.getloadavg()], "products": shapes}
    args.out.write_text(json.dumps(result, indent=1), encoding="utf-8")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
