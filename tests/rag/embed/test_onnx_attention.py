"""QAttention split into int8 QKV products + ONNX's Attention (rag/embed/onnx_attention.py): the
split graph computes what QAttention did, padded tokens included (they weigh nothing), and the
rows build's graph has no QAttention left. The real model's cosine to fp32: test_onnx_build.py."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from rag.embed.onnx_attention import split_attention

B, T, HIDDEN, HEADS = 2, 10, 64, 4


def _qattention_graph(w: np.ndarray, bias: np.ndarray) -> onnx.ModelProto:
    """x -> DynamicQuantizeLinear -> QAttention (int8 weights per column, a [B, T] 0/1 mask) ->
    ReduceMax over the hidden axis (axes as an attribute, opset 17's form)."""
    w_scale = np.abs(w).max(axis=0) / 127.0
    w_q = np.clip(np.round(w / w_scale), -127, 127).astype(np.int8)
    inits = [numpy_helper.from_array(w_q, "w_q"), numpy_helper.from_array(bias, "bias"),
             numpy_helper.from_array(w_scale.astype(np.float32), "w_scale"),
             numpy_helper.from_array(np.zeros(w.shape[1], np.int8), "w_zero")]
    nodes = [
        helper.make_node("DynamicQuantizeLinear", ["x"], ["x_q", "x_scale", "x_zero"], name="dql"),
        helper.make_node("QAttention", ["x_q", "w_q", "bias", "x_scale", "w_scale", "mask",
                                        "x_zero", "w_zero"], ["y"], name="qatt",
                         domain="com.microsoft", num_heads=HEADS),
        helper.make_node("ReduceMax", ["y"], ["peak"], name="peak", axes=[2], keepdims=1),
    ]
    graph = helper.make_graph(
        nodes, "qattention",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [B, T, HIDDEN]),
         helper.make_tensor_value_info("mask", TensorProto.INT32, [B, T])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None),
         helper.make_tensor_value_info("peak", TensorProto.FLOAT, None)], inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                   helper.make_opsetid("com.microsoft", 1)])


def _attention_in_numpy(q: np.ndarray, k: np.ndarray, v: np.ndarray,
                        mask: np.ndarray) -> np.ndarray:
    """fp64 multi-head attention of the given projections, keys where mask == 0 left out."""
    heads = [a.astype(np.float64).reshape(B, T, HEADS, -1).transpose(0, 2, 1, 3) for a in (q, k, v)]
    scores = heads[0] @ heads[1].transpose(0, 1, 3, 2) / np.sqrt(HIDDEN // HEADS)
    scores = np.where(mask[:, None, None, :] > 0, scores, -np.inf)
    p = np.exp(scores - scores.max(axis=-1, keepdims=True))
    p /= p.sum(axis=-1, keepdims=True)
    return (p @ heads[2]).transpose(0, 2, 1, 3).reshape(B, T, HIDDEN)


@pytest.fixture
def case() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(5)
    x = rng.standard_normal((B, T, HIDDEN)).astype(np.float32)
    w = (rng.standard_normal((HIDDEN, 3 * HIDDEN)) / HIDDEN**0.5).astype(np.float32)
    bias = (rng.standard_normal(3 * HIDDEN) * 0.1).astype(np.float32)
    mask = np.ones((B, T), np.int32)
    mask[1, 6:] = 0  # the second text is 6 tokens, padded to 10
    return x, w, bias, mask


def _run(model: onnx.ModelProto, x: np.ndarray, mask: np.ndarray) -> list[np.ndarray]:
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, {"x": x, "mask": mask})


def test_the_split_graph_computes_what_qattention_did(case: tuple[np.ndarray, ...]) -> None:
    x, w, bias, mask = case
    model = _qattention_graph(w, bias)
    before, _ = _run(model, x, mask)
    split_attention(model)
    ops = [node.op_type for node in model.graph.node]
    assert "QAttention" not in ops and ops.count("Attention") == 1
    assert ops.count("MatMulIntegerToFloat") == 3
    after, peak = _run(model, x, mask)  # opset 23: the ReduceMax runs with its axes as an input
    real = mask.astype(bool)
    assert np.allclose(after[real], before[real], atol=1e-5, rtol=1e-4)
    assert np.allclose(peak[..., 0], after.max(axis=-1))


def test_padded_tokens_weigh_nothing(case: tuple[np.ndarray, ...]) -> None:
    """The Attention node against numpy attention of the very q, k, v the graph's int8 products
    made (so the check holds whatever this CPU's int8 kernels compute, VNNI or not)."""
    x, w, bias, mask = case
    model = _qattention_graph(w, bias)
    split_attention(model)
    model.graph.output.extend(helper.make_tensor_value_info(f"qatt_{part}", TensorProto.FLOAT, None)
                              for part in "qkv")
    got, _, q, k, v = _run(model, x, mask)
    masked = _attention_in_numpy(q, k, v, mask)
    unmasked = _attention_in_numpy(q, k, v, np.ones_like(mask))
    real = mask.astype(bool)
    err = np.abs(got - masked)[real].max()
    assert err < 1e-4
    assert np.abs(unmasked - masked)[1, :6].max() > 100 * err  # the mask matters here


def test_a_qattention_whose_mask_cannot_be_traced_is_refused(case: tuple[np.ndarray, ...]) -> None:
    _, w, bias, _ = case
    model = _qattention_graph(w, bias)
    model.graph.input[1].CopyFrom(helper.make_tensor_value_info("mask", TensorProto.INT32, [B]))
    with pytest.raises(ValueError, match="mask"):
        split_attention(model)  # a 1-D mask index of unknown origin: no [batch, tokens] mask
