"""The unfused LayerNorm of benchmarks/ingest_graph_levers.py (Add + bias Add + LayerNormalization)
computes what SkipLayerNormalization computes, bias included."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

from benchmarks.ingest_graph_levers import session, unfuse_skip_layer_norm


def _skip_ln_model() -> onnx.ModelProto:
    rng = np.random.default_rng(0)
    inits = [numpy_helper.from_array(rng.normal(size=16).astype(np.float32), name)
             for name in ("gamma", "beta", "bias")]
    node = helper.make_node("SkipLayerNormalization", ["x", "skip", "gamma", "beta", "bias"],
                            ["y"], name="sln", domain="com.microsoft", epsilon=1e-12)
    graph = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2, 3, 16]) for n in ("x", "skip")],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3, 16])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                   helper.make_opsetid("com.microsoft", 1)])


def _run(model: onnx.ModelProto, feeds: dict[str, np.ndarray], tmp_path, name: str,
         unfused: bool) -> tuple[np.ndarray, ort.InferenceSession]:
    path = tmp_path / name
    onnx.save(model, str(path))
    sess = session(path, unfused=unfused)
    return sess.run(None, feeds)[0], sess


def test_unfused_layer_norm_matches_skip_layer_norm(tmp_path) -> None:
    rng = np.random.default_rng(1)
    feeds = {n: rng.normal(size=(2, 3, 16)).astype(np.float32) * 3 for n in ("x", "skip")}
    fused = _skip_ln_model()
    unfused = _skip_ln_model()
    unfuse_skip_layer_norm(unfused)
    assert [n.op_type for n in unfused.graph.node] == ["Add", "Add", "LayerNormalization"]
    want, _ = _run(fused, feeds, tmp_path, "fused.onnx", unfused=False)
    got, _ = _run(unfused, feeds, tmp_path, "unfused.onnx", unfused=True)
    np.testing.assert_allclose(got, want, atol=1e-5)
    assert not np.allclose(want, feeds["x"])  # the op did something
