"""The `int8-smooth-rows` steps: a per-row int8 product matches the same quantization done in
numpy (so the per-row zero points are subtracted right) and keeps an outlier token from costing
the others their precision; the unfused LayerNorm computes what SkipLayerNormalization did; the
whole recipe on a MiniLM-shaped graph runs int8 products only; GELU's tanh form stays within
1e-3 of erf's. The real model's cosine to fp32, through the CPU check: test_onnx_build.py."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper
from test_onnx_smooth import HIDDEN, LAYERS, _graph, _run

from rag.embed.cpu_check import u8s8_products_exact
from rag.embed.onnx_rowquant import SESSION_DISABLED, rows_quantized, tanh_gelu, unfuse_skip_layer_norm
from rag.embed.onnx_smooth import build_smooth_int8

K, N = 256, 32


def _matmul(w: np.ndarray) -> onnx.ModelProto:
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"], name="ffn_out_0")], "one-product",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "tokens", K])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(w, "w")],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _rows_in_numpy(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The module doc's arithmetic, row by row, in float64."""
    w_scale = np.abs(w).max(axis=0) / 127.0
    w_q = np.clip(np.round(w / w_scale), -127, 127)
    rows = x.reshape(-1, K).astype(np.float64)
    lo, hi = np.minimum(rows.min(1, keepdims=True), 0), np.maximum(rows.max(1, keepdims=True), 0)
    s = (hi - lo) / 255
    z = np.round(-lo / s)
    q = np.clip(np.round(rows / s) + z, 0, 255)
    return ((q - z) @ w_q * s * w_scale).reshape(*x.shape[:-1], N)


@pytest.fixture
def product() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 12, K)).astype(np.float32)
    x[0, 3] *= 40  # one outlier token, as GELU's output has
    return x, (rng.standard_normal((K, N)) / K**0.5).astype(np.float32)


def test_a_per_row_product_is_the_per_row_quantization(
    product: tuple[np.ndarray, np.ndarray],
) -> None:
    x, w = product
    model = _matmul(w)
    rows_quantized(model, {"ffn_out_0"})
    ops = {node.op_type for node in model.graph.node}
    assert "MatMulInteger" in ops and "MatMul" not in ops
    got, want = _run(model, x), _rows_in_numpy(x, w)
    assert got.shape == (2, 12, N)
    if u8s8_products_exact():  # where the int8 products are exact, the arithmetic is the numpy's
        assert np.allclose(got, want, rtol=1e-4, atol=1e-4 * np.abs(want).max())


def test_an_outlier_token_leaves_the_other_rows_their_precision(
    product: tuple[np.ndarray, np.ndarray],
) -> None:
    x, w = product
    exact = x @ w
    ordinary = np.ones(x.shape[:2], bool)
    ordinary[0, 3] = False
    per_row = _rows_in_numpy(x, w)
    # one scale for the whole batch (what DynamicQuantizeLinear does) against one per row
    s = (x.max() - min(x.min(), 0)) / 255
    per_batch = (np.round(x / s) * s) @ (np.round(w / (np.abs(w).max(0) / 127)) * np.abs(w).max(0) / 127)
    err_row = np.abs(per_row - exact)[ordinary].mean()
    err_batch = np.abs(per_batch - exact)[ordinary].mean()
    assert err_row < err_batch / 5


def test_the_unfused_layer_norm_computes_what_the_fused_one_did() -> None:
    rng = np.random.default_rng(4)
    gamma, beta, bias = (rng.standard_normal(HIDDEN).astype(np.float32) for _ in range(3))
    graph = helper.make_graph(
        [helper.make_node("SkipLayerNormalization", ["x", "skip", "g", "b", "bias"], ["y"],
                          name="sln", domain="com.microsoft", epsilon=1e-12)], "sln",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2, 5, HIDDEN]) for n in ("x", "skip")],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(a, n) for a, n in ((gamma, "g"), (beta, "b"), (bias, "bias"))],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                    helper.make_opsetid("com.microsoft", 1)])
    feeds = {n: rng.standard_normal((2, 5, HIDDEN)).astype(np.float32) for n in ("x", "skip")}
    fused = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    unfuse_skip_layer_norm(model)
    assert [n.op_type for n in model.graph.node] == ["Add", "Add", "LayerNormalization"]
    unfused = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"],
                                   disabled_optimizers=list(SESSION_DISABLED))
    assert np.allclose(unfused.run(None, feeds)[0], fused.run(None, feeds)[0], atol=1e-4)


def test_the_rows_build_runs_int8_products_only(tmp_path: Path, inputs: np.ndarray) -> None:
    # (No end-to-end cosine here, as for the u8 build: this random graph, smoothed with MiniLM's
    # activation peaks, is chaotic: any two quantizations drift apart layer by layer. Its
    # arithmetic is the test above; the real model's cosine: test_onnx_build.py, slow.)
    fused, out = tmp_path / "fused.onnx", tmp_path / "model.onnx"
    onnx.save(_graph(), str(fused))
    build_smooth_int8(fused, out, tmp_path, rows=True)
    ops = [node.op_type for node in onnx.load(str(out)).graph.node]
    assert ops.count("MatMulInteger") == 3 * LAYERS
    # the attention split: int8 QKV products + ONNX's Attention (rag/embed/onnx_attention.py)
    assert "QAttention" not in ops and ops.count("Attention") == LAYERS
    assert ops.count("MatMulIntegerToFloat") == 3 * LAYERS
    assert "MatMulNBits" not in ops and "MatMul" not in ops
    got = _run(out, inputs)
    assert got.shape == inputs.shape and np.isfinite(got).all()


def test_gelu_in_its_tanh_form_stays_within_a_thousandth_of_erf() -> None:
    x = np.linspace(-6, 6, 1201, dtype=np.float32).reshape(1, 1, -1)
    bias = np.zeros(x.shape[-1], np.float32)
    graph = helper.make_graph(
        [helper.make_node("BiasGelu", ["x", "bias"], ["y"], name="g", domain="com.microsoft")],
        "gelu", [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x.shape))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(bias, "bias")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                    helper.make_opsetid("com.microsoft", 1)])
    erf = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    tanh_gelu(model)
    assert [n.op_type for n in model.graph.node] == ["FastGelu"]
    tanh = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    diff = np.abs(tanh.run(None, {"x": x})[0] - erf.run(None, {"x": x})[0])
    assert 0 < diff.max() < 1e-3


@pytest.fixture
def inputs() -> np.ndarray:
    x = np.random.default_rng(1).standard_normal((2, 16, HIDDEN)).astype(np.float32)
    x[..., 7] *= 20
    return x
