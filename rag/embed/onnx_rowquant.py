"""Int8 products with activations quantized per row (token): the FFN-output product of
`int8-smooth-rows`, and the LayerNorm left unfused.

`int8-smooth` runs its FFN-output products as MatMulNBits (8-bit weights, activations quantized
per row and block) because their input, the GELU output, has outlier *tokens*: one scale for a
whole slice (DynamicQuantizeLinear) leaves ordinary tokens a few of 256 levels. But onnxruntime
has no int8 kernel for 8-bit MatMulNBits on x86: it dequantizes to fp32, so those six products
cost as much as fp32 ones, ~3x onnxruntime's u8s8 MatMulInteger (VNNI) on the same shapes
(benchmarks/results/ingest_graph_profile_debian1000.json). Here the same product is a
MatMulInteger whose uint8 activations get one scale and zero point per row, built from plain ops:

    x2 = x as [rows, K];  lo = min(min_k x2, 0), hi = max(max_k x2, 0)
    s = (hi - lo) / 255;  z = round(-lo / s);  q = QuantizeLinear(x2, s, z, axis 0)   (uint8)
    y = s * w_s * (MatMulInteger(q, W_q) - z * colsum(W_q))   then reshaped to x's rows

with W_q int8 per output column (symmetric, w_s = max|W_col| / 127). MatMulInteger takes one
zero point for all of A, so the per-row zero points are subtracted afterwards through the
weights' column sums (exact in integers). Per-row asymmetric uint8 keeps 256 levels for every
token, more than the per-block symmetric int8 of MatMulNBits per block of 128.

`unfuse_skip_layer_norm` rewrites SkipLayerNormalization as Add + LayerNormalization; the
session must be made with `disabled_optimizers=SESSION_DISABLED` or onnxruntime fuses it back at
load. Its fused kernel cost 1.16x the CPU of the unfused pair in this graph on this machine
(benchmarks/results/ingest_speed_debian1000_graph_levers.json).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rag.embed.onnx_graph import replace_nodes

SESSION_DISABLED = ("SkipLayerNormFusion",)  # onnxruntime optimizers the unfused graph needs off


def rows_quantized(model: Any, names: set[str]) -> None:
    """Each named fp32 MatMul (weights an initializer) -> the per-row int8 product (module doc)."""
    weights = {i.name: i for i in model.graph.initializer}
    nodes: list[Any] = []
    for node in model.graph.node:
        if node.name in names:
            w_init = weights[node.input[1]]
            nodes.extend(_row_product(model, node, w_init))
            model.graph.initializer.remove(w_init)
        else:
            nodes.append(node)
    replace_nodes(model, nodes)


def _row_product(model: Any, node: Any, w_init: Any) -> list[Any]:
    """The nodes computing `node`'s MatMul with per-row uint8 activations and int8 weights; their
    constants are added to `model`'s initializers."""
    from onnx import TensorProto, helper, numpy_helper

    w = numpy_helper.to_array(w_init).astype(np.float32)  # [K, N]
    k, n = w.shape
    w_scale = np.abs(w).max(axis=0) / 127.0
    w_scale[w_scale == 0] = 1.0
    w_q = np.clip(np.round(w / w_scale), -127, 127).astype(np.int8)
    p = f"{node.name}_rq"
    constants = {
        "w": w_q, "ws": w_scale.astype(np.float32),
        "colsum": w_q.astype(np.int64).sum(axis=0).astype(np.float32),  # exact below 2^24
        "2d": np.array([-1, k], np.int64), "n": np.array([n], np.int64),
        "flat": np.array([-1], np.int64), "start": np.array([0], np.int64),
        "end": np.array([-1], np.int64), "zero": np.array(0.0, np.float32),
        "inv255": np.array(1 / 255, np.float32), "tiny": np.array(1e-12, np.float32),
    }  # fmt: skip
    model.graph.initializer.extend(numpy_helper.from_array(v, f"{p}_{name}")
                                   for name, v in constants.items())
    nodes: list[Any] = []

    def op(kind: str, inputs: list[str], out: str, **attrs: Any) -> str:
        nodes.append(helper.make_node(kind, inputs, [f"{p}_{out}"], name=f"{p}_{out}", **attrs))
        return f"{p}_{out}"

    x, c = node.input[0], {name: f"{p}_{name}" for name in constants}
    x2 = op("Reshape", [x, c["2d"]], "x2")
    hi = op("Max", [op("ReduceMax", [x2], "max", axes=[1], keepdims=1), c["zero"]], "hi")
    lo = op("Min", [op("ReduceMin", [x2], "min", axes=[1], keepdims=1), c["zero"]], "lo")
    scale = op("Max", [op("Mul", [op("Sub", [hi, lo], "range"), c["inv255"]], "s0"), c["tiny"]],
               "s")  # [rows, 1]
    zero_f = op("Round", [op("Neg", [op("Div", [lo, scale], "lo_s")], "nlo")], "zf")
    s_1d = op("Reshape", [scale, c["flat"]], "s_1d")  # QuantizeLinear: 1-D per axis
    z_1d = op("Cast", [op("Reshape", [zero_f, c["flat"]], "zf_1d")], "z_1d", to=TensorProto.UINT8)
    q = op("QuantizeLinear", [x2, s_1d, z_1d], "q", axis=0)
    acc = op("Cast", [op("MatMulInteger", [q, c["w"]], "acc")], "accf", to=TensorProto.FLOAT)
    fixed = op("Sub", [acc, op("Mul", [zero_f, c["colsum"]], "zcol")], "fixed")
    y2 = op("Mul", [op("Mul", [fixed, scale], "ys"), c["ws"]], "y2")
    lead = op("Slice", [op("Shape", [x], "xshape"), c["start"], c["end"]], "lead")
    shape = op("Concat", [lead, c["n"]], "yshape", axis=0)
    nodes.append(helper.make_node("Reshape", [y2, shape], [node.output[0]], name=f"{p}_y"))
    return nodes


def tanh_gelu(model: Any) -> None:
    """BiasGelu (erf) -> FastGelu (same inputs): GELU's tanh form (Hendrycks & Gimpel 2016),
    within ~1e-3 of erf's, far below the int8 products' error; onnxruntime's kernel for it
    costs about half (benchmarks/results/ingest_graph_profile_debian1000.json)."""
    for node in model.graph.node:
        if node.op_type == "BiasGelu":
            node.op_type = "FastGelu"


def unfuse_skip_layer_norm(model: Any) -> None:
    """SkipLayerNormalization -> Add(x, bias) + Add(., skip) + LayerNormalization (same math)."""
    from onnx import helper

    nodes = []
    for node in model.graph.node:
        if node.op_type != "SkipLayerNormalization":
            nodes.append(node)
            continue
        eps = next(a.f for a in node.attribute if a.name == "epsilon")
        x, skip, gamma = node.input[0], node.input[1], node.input[2]
        beta = node.input[3] if len(node.input) > 3 else ""
        bias = node.input[4] if len(node.input) > 4 else ""
        if bias:
            nodes.append(helper.make_node("Add", [x, bias], [f"{node.name}_b"],
                                          name=f"{node.name}_bias"))
            x = f"{node.name}_b"
        nodes.append(helper.make_node("Add", [x, skip], [f"{node.name}_s"], name=f"{node.name}_add"))
        norm_inputs = [f"{node.name}_s", gamma, *([beta] if beta else [])]
        nodes.append(helper.make_node("LayerNormalization", norm_inputs, [node.output[0]],
                                      name=f"{node.name}_ln", axis=-1, epsilon=eps))
    replace_nodes(model, nodes)

