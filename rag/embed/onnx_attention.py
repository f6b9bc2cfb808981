"""The attention of `int8-smooth-rows` as three int8 products and ONNX's own Attention op instead
of onnxruntime's QAttention.

QAttention runs the QKV product in int8 (VNNI) and the attention core (per head QK^T, softmax,
AV) in fp32 with its own kernel; on the ingest's short slices (4 texts, 12 heads of 32, ~90
tokens) that core is most of its time. onnxruntime's kernel for the standard Attention op
(opset 23) runs the same fp32 core for ~20 % less CPU at these shapes, where its
MultiHeadAttention costs what QAttention does (benchmarks/attention_split.py). So each
QAttention becomes

    q, k, v = MatMulIntegerToFloat(x_q, W_q | W_k | W_v, ...)   the same uint8 input, the same
                                                                int8 weights per column, bias
    y = Attention(q, k, v, mask_bias)                           12 heads, scale 1/sqrt(32)

with mask_bias = (1 - attention_mask) * -10000 as [batch, 1, tokens, tokens], made once per run
from the model's attention mask (QAttention's own masking value), so padded tokens weigh nothing,
as before. The arithmetic is QAttention's: vectors match to float rounding. The graph moves to
opset 23, whose ReduceMax / ReduceMin take their axes as an input (opset 18's form).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rag.embed.onnx_graph import replace_nodes

OPSET = 23  # ai.onnx Attention
MASK_FILTER = -10000.0  # QAttention's value for masked scores
_REDUCES = ("ReduceMax", "ReduceMin", "ReduceSum", "ReduceMean")  # axes: attribute -> input at 18


def split_attention(model: Any) -> None:
    """Every QAttention of `model` -> MatMulIntegerToFloat x 3 + Attention (module doc), in place."""
    from onnx import helper, numpy_helper

    inits = {i.name: i for i in model.graph.initializer}
    producers = {out: node for node in model.graph.node for out in node.output}
    inputs = {i.name: i for i in model.graph.input}
    nodes: list[Any] = []
    masks: dict[str, str] = {}  # QAttention's mask input -> the additive bias made from it
    dropped: set[str] = set()

    def constant(name: str, value: np.ndarray) -> str:
        model.graph.initializer.append(numpy_helper.from_array(value, name))
        return name

    for node in model.graph.node:
        if node.op_type in _REDUCES and any(a.name == "axes" for a in node.attribute):
            nodes.append(_axes_as_input(node, constant))
            continue
        if node.op_type != "QAttention":
            nodes.append(node)
            continue
        args = [*node.input, *[""] * (9 - len(node.input))]
        x_q, w, bias, x_scale, w_scale, mask, x_zero, w_zero, past = args[:9]
        heads = next(a.i for a in node.attribute if a.name == "num_heads")
        if past or len(node.output) > 1 or any(a.name == "unidirectional" and a.i
                                               for a in node.attribute):
            raise ValueError(f"{node.name}: only encoder QAttention (no past, not causal) is split")
        weights = numpy_helper.to_array(inits[w])
        hidden = weights.shape[1] // 3
        parts = {"b": bias, "ws": w_scale, "wz": w_zero}
        arrays = {key: numpy_helper.to_array(inits[name]) if name else None
                  for key, name in parts.items()}
        qkv = []
        for j, part in enumerate("qkv"):
            cols = slice(hidden * j, hidden * (j + 1))
            p = f"{node.name}_{part}"
            w_part = constant(f"{p}_w", np.ascontiguousarray(weights[:, cols]))
            per_part = {key: "" if a is None else constant(
                f"{p}_{key}", np.ascontiguousarray(a[cols] if a.size > 1 else a))
                for key, a in arrays.items()}
            nodes.append(helper.make_node(
                "MatMulIntegerToFloat",
                [x_q, w_part, x_scale, per_part["ws"], x_zero, per_part["wz"], per_part["b"]],
                [p], name=p, domain="com.microsoft"))
            qkv.append(p)
        dropped.update(name for name in (w, bias, w_scale, w_zero) if name)
        attn_inputs = qkv
        if mask:
            if mask not in masks:
                masks[mask] = _mask_bias(_raw_mask(mask, producers, inputs), nodes, constant,
                                         f"attention_mask{len(masks)}")
            attn_inputs = [*qkv, masks[mask]]
        nodes.append(helper.make_node("Attention", attn_inputs, list(node.output),
                                      name=f"{node.name}_attention", q_num_heads=heads,
                                      kv_num_heads=heads))
    replace_nodes(model, nodes)
    used = {name for node in model.graph.node for name in node.input}
    for name in dropped - used:
        model.graph.initializer.remove(inits[name])
    for opset in model.opset_import:
        if opset.domain in ("", "ai.onnx"):
            opset.version = max(opset.version, OPSET)


def _raw_mask(mask: str, producers: dict[str, Any], inputs: dict[str, Any]) -> str:
    """The [batch, tokens] 0/1 mask behind QAttention's mask input: EmbedLayerNormalization's
    mask input where its 1-D mask index feeds QAttention (the fused BERT graph), or a 2-D graph
    input fed to QAttention as it is."""
    node = producers.get(mask)
    if node is not None and node.op_type == "EmbedLayerNormalization" and len(node.input) > 7:
        return str(node.input[7])
    given = inputs.get(mask)
    if given is not None and len(given.type.tensor_type.shape.dim) == 2:
        return mask
    raise ValueError(f"QAttention mask {mask!r}: expected EmbedLayerNormalization's mask index "
                     "or a [batch, tokens] graph input")


def _mask_bias(raw: str, nodes: list[Any], constant: Any, prefix: str) -> str:
    """Nodes making (1 - raw) * MASK_FILTER as [batch, 1, tokens, tokens] (Attention wants the
    query axis spelled out); returns the bias's name."""
    from onnx import TensorProto, helper

    one = constant(f"{prefix}_one", np.array(1.0, np.float32))
    fill = constant(f"{prefix}_filter", np.array(MASK_FILTER, np.float32))
    axes = constant(f"{prefix}_axes", np.array([1, 2], np.int64))
    i1, i2 = (constant(f"{prefix}_i{v}", np.array([v], np.int64)) for v in (1, 2))

    def op(kind: str, inputs: list[str], out: str, **attrs: Any) -> str:
        name = f"{prefix}_{out}"
        nodes.append(helper.make_node(kind, inputs, [name], name=name, **attrs))
        return name

    masked = op("Sub", [one, op("Cast", [raw], "float", to=TensorProto.FLOAT)], "masked")
    bias = op("Unsqueeze", [op("Mul", [masked, fill], "bias2d"), axes], "bias4d")  # [B, 1, 1, T]
    tokens = op("Slice", [op("Shape", [raw], "shape"), i1, i2], "tokens")
    target = op("Concat", [i1, i1, tokens, i1], "target", axis=0)  # [1, 1, T, 1]
    return op("Expand", [bias, target], "bias")  # [B, 1, T, T]


def _axes_as_input(node: Any, constant: Any) -> Any:
    """A reduce node with an `axes` attribute -> the same node with `axes` as its second input."""
    from onnx import helper

    axes = next(list(a.ints) for a in node.attribute if a.name == "axes")
    attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute if a.name != "axes"}
    name = constant(f"{node.name}_axes", np.array(axes, np.int64))
    return helper.make_node(node.op_type, [node.input[0], name], list(node.output),
                            name=node.name, **attrs)
