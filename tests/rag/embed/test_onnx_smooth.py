"""The int8-smooth recipe on a small MiniLM-shaped graph (six layers of fused Attention and the
three MatMul shapes, random weights): smoothing leaves the fp32 function unchanged, and the
quantized graph runs the int8 and 8-bit block kernels and stays close to fp32 where this CPU
multiplies int8 exactly (else the CPU check rejects it).
The real model's build: test_onnx_build.py (slow)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from rag.embed.cpu_check import (
    Probe,
    cpu_identity,
    decide,
    products_exact,
    u8s8_products_exact,
)
from rag.embed.onnx_smooth import _roles, _smooth, build_smooth_int8

HIDDEN, FFN, LAYERS = 384, 1536, 6


def _graph() -> onnx.ModelProto:
    """Each product followed by a LayerNormalization whose gain makes channel 7 an outlier, as
    MiniLM's LayerNorm gains do (and keeps the random network from blowing up)."""
    rng = np.random.default_rng(0)
    inits, nodes = [], []

    def tensor(name: str, value: np.ndarray) -> str:
        inits.append(numpy_helper.from_array(value.astype(np.float32), name))
        return name

    def normalized(node: onnx.NodeProto, width: int) -> str:
        gain = np.ones(width)
        gain[7] = 20.0
        nodes.append(node)
        out = f"{node.name}_ln"
        nodes.append(helper.make_node(
            "LayerNormalization", [node.output[0], tensor(f"{out}_gain", gain),
                                   tensor(f"{out}_bias", np.zeros(width))], [out], name=out, axis=-1,
        ))  # fmt: skip
        return out

    x = "x"
    for layer in range(LAYERS):
        qkv = tensor(f"qkv{layer}", rng.standard_normal((HIDDEN, 3 * HIDDEN)) / HIDDEN**0.5)
        bias = tensor(f"qkv_bias{layer}", np.zeros(3 * HIDDEN))
        x = normalized(helper.make_node("Attention", [x, qkv, bias], [f"att{layer}"],
                                        name=f"Attention_{layer}", domain="com.microsoft",
                                        num_heads=12), HIDDEN)
        for name, (k, n) in (("attn_out", (HIDDEN, HIDDEN)), ("ffn_in", (HIDDEN, FFN)),
                             ("ffn_out", (FFN, HIDDEN))):
            w = tensor(f"{name}{layer}", rng.standard_normal((k, n)) / k**0.5)
            x = normalized(helper.make_node("MatMul", [x, w], [f"{name}{layer}_out"],
                                            name=f"{name}_{layer}"), n)
    graph = helper.make_graph(
        nodes, "minilm-shaped",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "tokens", HIDDEN])],
        [helper.make_tensor_value_info(x, TensorProto.FLOAT, None)], inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                   helper.make_opsetid("com.microsoft", 1)])


def _run(model: onnx.ModelProto | Path, x: np.ndarray) -> np.ndarray:
    source = str(model) if isinstance(model, Path) else model.SerializeToString()
    session = ort.InferenceSession(source, providers=["CPUExecutionProvider"])
    return session.run(None, {"x": x})[0]


@pytest.fixture
def inputs() -> np.ndarray:
    x = np.random.default_rng(1).standard_normal((2, 16, HIDDEN)).astype(np.float32)
    x[..., 7] *= 20  # an outlier channel, as the real model's activations have
    return x


def test_products_are_found_by_role_layer_by_layer() -> None:
    roles = _roles(_graph())
    assert roles["qkv.0"].name == "Attention_0" and roles["ffn_out.5"].name == "ffn_out_5"
    assert len(roles) == 4 * LAYERS


def test_smoothing_moves_scale_into_the_weights_without_changing_the_function(
    inputs: np.ndarray,
) -> None:
    model = _graph()
    before = _run(model, inputs)
    act_max = {key: np.abs(inputs).reshape(-1, HIDDEN).max(axis=0) for key in _roles(model)
               if not key.startswith("ffn_out")}
    _smooth(model, act_max)
    assert sum(node.op_type == "Mul" for node in model.graph.node) == 3 * LAYERS
    assert np.allclose(_run(model, inputs), before, rtol=1e-3, atol=1e-3 * np.abs(before).max())


def test_the_build_runs_int8_and_block_kernels_and_stays_close(
    tmp_path: Path, inputs: np.ndarray
) -> None:
    fused, out = tmp_path / "fused.onnx", tmp_path / "model.onnx"
    onnx.save(_graph(), str(fused))
    build_smooth_int8(fused, out, tmp_path)
    ops = [node.op_type for node in onnx.load(str(out)).graph.node]
    assert ops.count("QAttention") == ops.count("MatMulNBits") == LAYERS
    assert ops.count("MatMulInteger") == 2 * LAYERS and "MatMul" not in ops
    ours, exact = _run(out, inputs).reshape(-1, HIDDEN), _run(fused, inputs).reshape(-1, HIDDEN)
    cosines = (ours * exact).sum(1) / np.linalg.norm(ours, axis=1) / np.linalg.norm(exact, axis=1)
    if u8s8_products_exact():  # VNNI: the int8 products are exact, so the graph stays close
        assert cosines.min() > 0.98
    else:  # no VNNI: products saturate (rows at cosine ~0.002), and the CPU check must say no
        probe = Probe(float(cosines.min()), int8_s=0.1, fp32_s=0.2, products_exact=False)
        verdict = decide("int8-smooth", probe, cpu_identity())
        assert not verdict.accepted and "saturate" in verdict.reason



def test_the_unsigned_weight_build_multiplies_u8u8_which_is_exact_on_every_cpu(
    tmp_path: Path,
) -> None:
    # int8-smooth-u8: the same graph with uint8 weights, whose products are exact with VNNI and
    # without (int8-smooth's u8s8 saturate without). Its embeddings: test_onnx_build.py (slow).
    # (No end-to-end cosine here: this random graph, smoothed with MiniLM's activation peaks,
    # drifts from fp32 layer by layer with either weight type; only the real model's is a test.)
    fused, out = tmp_path / "fused.onnx", tmp_path / "model.onnx"
    onnx.save(_graph(), str(fused))
    build_smooth_int8(fused, out, tmp_path, unsigned_weights=True)
    model = onnx.load(str(out))
    ops = [node.op_type for node in model.graph.node]
    assert ops.count("QAttention") == ops.count("MatMulNBits") == LAYERS
    assert ops.count("MatMulInteger") == 2 * LAYERS and "MatMul" not in ops
    weights = {i.name: i.data_type for i in model.graph.initializer}
    integer = [n for n in model.graph.node if n.op_type in ("MatMulInteger", "QAttention")]
    assert {weights[n.input[1]] for n in integer} == {TensorProto.UINT8}
    assert products_exact(unsigned_weights=True)
