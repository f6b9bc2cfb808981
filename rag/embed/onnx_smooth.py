"""The `int8-smooth` build of all-MiniLM-L6-v2: int8 where it keeps fp32's quality.

Plain dynamic int8 (the `int8` variant) quantizes each activation with one scale for the whole
batch, and a few hidden channels carry values ~14x the median, so every other channel loses most
of its 256 levels; that costs 0.02 dense nDCG@10 on the Debian set. Two changes fix most of it:

1. SmoothQuant (Xiao et al. 2023) on the inputs of the QKV, attention-output and FFN-input
   products: per input channel k, s_k = max|X_k|^a / max|W_k|^(1-a) with a = 0.8; the graph
   divides X by s (one Mul) and W's row k is multiplied by s_k, so the product is unchanged in
   exact arithmetic while the activation's outlier channels shrink before quantization.
   max|X_k| comes from a calibration run of the fp32 graph, shipped as `minilm_act_max.npz`
   (`python -m rag.embed.onnx_calibrate P/corpus.jsonl`: the first 128 passages of
   `datasets/build_passages.py`'s /usr/share/doc corpus, not the evaluation set).
2. The FFN-output product, whose input (GELU output) has outlier tokens rather than channels,
   becomes MatMulNBits with 8-bit weights in blocks of 128 and accuracy_level 4: its activations
   are quantized per row and block, not per batch. The embeddings stay fp32.

Products are found by role, not by exporter node names: Attention nodes (QKV), and MatMuls by
weight shape (384x384 attention output, 384x1536 FFN input, 1536x384 FFN output), the n-th of
each role being layer n.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from rag.embed.onnx_graph import replace_nodes

ACT_MAX_FILE = Path(__file__).with_name("minilm_act_max.npz")
ALPHA = 0.8
NBITS_BLOCK = 128
_HIDDEN, _FFN = 384, 1536
_ROLES = {(_HIDDEN, _HIDDEN): "attn_out", (_HIDDEN, _FFN): "ffn_in", (_FFN, _HIDDEN): "ffn_out"}


def _roles(model: Any) -> dict[str, Any]:
    """'<role>.<layer>' -> the node computing that product (weights are initializers)."""
    from onnx import numpy_helper

    shapes = {i.name: tuple(numpy_helper.to_array(i).shape) for i in model.graph.initializer}
    found: dict[str, Any] = {}
    counts: dict[str, int] = {}
    for node in model.graph.node:
        role = "qkv" if node.op_type == "Attention" else None
        if node.op_type == "MatMul" and len(node.input) > 1:
            role = _ROLES.get(shapes.get(node.input[1], ()))
        if role:
            found[f"{role}.{counts.get(role, 0)}"] = node
            counts[role] = counts.get(role, 0) + 1
    if sorted(counts.values()) != [6] * 4:
        raise ValueError(f"expected 6 layers of QKV / attention output / FFN products, got {counts}")
    return found


def calibrate(fused: Path, texts: Sequence[str], tokenizer: Path) -> dict[str, np.ndarray]:
    """Per-channel max |input| of every smoothed product over `texts` (run once; see module doc)."""
    import onnx
    import onnxruntime as ort
    from tokenizers import Tokenizer

    model = onnx.load(str(fused))
    inputs = {key: node.input[0] for key, node in _roles(model).items() if "ffn_out" not in key}
    for name in set(inputs.values()):
        model.graph.output.append(onnx.helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT, None))
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    tok = Tokenizer.from_file(str(tokenizer))
    tok.enable_truncation(max_length=256)
    tok.enable_padding()
    names = sorted(set(inputs.values()))
    peak: dict[str, np.ndarray] = {}
    for start in range(0, len(texts), 16):
        encoded = tok.encode_batch(list(texts[start : start + 16]))
        ids = np.asarray([e.ids for e in encoded], dtype=np.int64)
        mask = np.asarray([e.attention_mask for e in encoded], dtype=np.int64)
        outs = session.run(names, {"input_ids": ids, "attention_mask": mask,
                                   "token_type_ids": np.zeros_like(ids)})
        for name, out in zip(names, outs, strict=True):
            batch_peak = np.abs(out).reshape(-1, out.shape[-1]).max(axis=0)
            peak[name] = np.maximum(peak.get(name, 0.0), batch_peak)
    return {key: peak[name].astype(np.float32) for key, name in inputs.items()}


def build_smooth_int8(fused: Path, out: Path, work: Path, *, reduce_range: bool = False,
                      unsigned_weights: bool = False, rows: bool = False,
                      split: bool = True) -> None:
    """fused fp32 graph -> smoothed, mixed int8 graph (module doc), written to `out`.
    `reduce_range` / `unsigned_weights`: rag/embed/onnx_build.py's `_quantize`. `rows`: the
    FFN-output products as int8 with per-row activations instead of MatMulNBits, the LayerNorm
    unfused, GELU in its tanh form (`int8-smooth-rows`, rag/embed/onnx_rowquant.py) and, with
    `split` (off only to measure the old graph), QAttention split into int8 QKV products and
    ONNX's Attention (rag/embed/onnx_attention.py)."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    act_max = dict(np.load(ACT_MAX_FILE))
    model = onnx.load(str(fused))
    _smooth(model, act_max)
    smoothed = work / "smoothed.onnx"
    onnx.save(model, str(smoothed))
    ffn_out = [node.name for key, node in _roles(model).items() if key.startswith("ffn_out")]
    quantized = work / "quantized.onnx"
    weights = QuantType.QUInt8 if unsigned_weights else QuantType.QInt8
    quantize_dynamic(str(smoothed), str(quantized), weight_type=weights, per_channel=True,
                     reduce_range=reduce_range, op_types_to_quantize=["MatMul", "Attention"],
                     nodes_to_exclude=ffn_out,
                     # fused ops (Attention, SkipLayerNorm) defeat shape inference: say float
                     extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT})
    model = onnx.load(str(quantized))
    if rows:
        from rag.embed.onnx_attention import split_attention
        from rag.embed.onnx_rowquant import rows_quantized, tanh_gelu, unfuse_skip_layer_norm

        rows_quantized(model, set(ffn_out))
        unfuse_skip_layer_norm(model)
        tanh_gelu(model)
        if split:
            split_attention(model)
    else:
        _ffn_out_to_nbits(model, set(ffn_out))
    onnx.save(model, str(out))


def _smooth(model: Any, act_max: dict[str, np.ndarray]) -> None:
    from onnx import helper, numpy_helper

    weights = {i.name: i for i in model.graph.initializer}
    by_name = {node.name: key for key, node in _roles(model).items() if key in act_max}
    nodes = []  # the node list rebuilt in order, each Mul just before its product
    for node in model.graph.node:
        key = by_name.get(node.name)
        if key is not None:  # ffn_out has no entry: MatMulNBits instead
            w = numpy_helper.to_array(weights[node.input[1]])  # [in, out]
            x_peak = np.maximum(act_max[key], 1e-5)
            w_peak = np.maximum(np.abs(w).max(axis=1), 1e-5)
            s = (x_peak**ALPHA / w_peak ** (1 - ALPHA)).astype(np.float32)
            weights[node.input[1]].CopyFrom(numpy_helper.from_array(w * s[:, None], node.input[1]))
            inverse, smoothed = f"{node.name}_smooth_inv", f"{node.name}_smoothed"
            model.graph.initializer.append(numpy_helper.from_array(1 / s, inverse))
            nodes.append(helper.make_node("Mul", [node.input[0], inverse], [smoothed],
                                          name=f"{node.name}_smooth"))
            node.input[0] = smoothed
        nodes.append(node)
    replace_nodes(model, nodes)


def _ffn_out_to_nbits(model: Any, names: set[str]) -> None:
    """Each named MatMul -> MatMulNBits: symmetric 8-bit weights per block of NBITS_BLOCK inputs
    (stored unsigned, zero point 128), activations quantized per row and block (accuracy_level 4)."""
    from onnx import helper, numpy_helper

    weights = {i.name: i for i in model.graph.initializer}
    nodes = []
    for node in model.graph.node:
        if node.name not in names:
            nodes.append(node)
            continue
        source, w_init = node.input[0], weights.pop(node.input[1])
        w = numpy_helper.to_array(w_init).astype(np.float32)  # [K, N]
        k, n = w.shape
        blocks = w.T.reshape(n, k // NBITS_BLOCK, NBITS_BLOCK)
        scale = np.abs(blocks).max(axis=2) / 127.0
        scale[scale == 0] = 1.0
        packed = (np.clip(np.round(blocks / scale[..., None]), -127, 127) + 128).astype(np.uint8)
        b_name, s_name = f"{w_init.name}_q8", f"{w_init.name}_q8_scale"
        model.graph.initializer.extend([
            numpy_helper.from_array(packed, b_name),
            numpy_helper.from_array(scale.reshape(-1).astype(np.float32), s_name),
        ])  # fmt: skip
        nodes.append(helper.make_node(
            "MatMulNBits", [source, b_name, s_name], list(node.output), name=f"{node.name}_q8",
            domain="com.microsoft", K=k, N=n, bits=8, block_size=NBITS_BLOCK, accuracy_level=4,
        ))  # fmt: skip
        model.graph.initializer.remove(w_init)
    replace_nodes(model, nodes)

