"""int8-smooth-rows with QAttention (the old graph) against the same build with its attention split
into int8 QKV products + ONNX's Attention op (rag/embed/onnx_attention.py), on the ingest's chunks.

    PYTHONPATH=. nice -n 10 python benchmarks/attention_split.py --docs /tmp/ingw-rows4/docs \
        --out benchmarks/results/attention_split_debian1000.json

Both graphs come from the same fused export: the new one is the cached `int8-smooth-rows` build,
the old one is rebuilt here with `split=False`. Each embeds the chunks `rag ingest DOCS` makes
(default preset) through the onnx backend itself (`encode_all`: token-sorted slices of 4, two
one-thread workers), its session swapped per graph. Reported: cosine to fp32 (min, mean) of both;
process CPU seconds of whole passes, old and new interleaved (order alternating) for `--rounds`;
one profiled pass each (kernel thread-seconds by op type); and the fp32 attention core alone
(QAttention's MultiHeadAttention sibling vs Attention, 4 texts x 12 heads, one thread), the
reason for the op chosen. The machine is shared: load averages are recorded.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.ingest_graph_profile import chunk_texts, fp32_reference, normed, session_for
from benchmarks.roofline_profile import op_seconds
from rag.embed.onnx_build import DISABLED_OPTIMIZERS, _export, _fuse, built_minilm
from rag.embed.onnx_minilm import OnnxMiniLMBackend
from rag.settings.embedding import EmbeddingConfig

VARIANT = "int8-smooth-rows"


def _session(model: Path, profile_prefix: str | None = None) -> Any:
    return session_for(model, list(DISABLED_OPTIMIZERS[VARIANT]), 1, profile_prefix)


def _old_graph(work: Path) -> Path:
    from rag.embed.local_models import minilm_folder
    from rag.embed.onnx_smooth import build_smooth_int8

    _export(minilm_folder(), work / "exported.onnx")
    _fuse(work / "exported.onnx", work / "fused.onnx")
    build_smooth_int8(work / "fused.onnx", work / "old.onnx", work, rows=True, split=False)
    return work / "old.onnx"


def core_ops(lengths: tuple[int, ...] = (90, 200), rounds: int = 3) -> dict[str, Any]:
    """ms per call of the fp32 attention core alone: MultiHeadAttention (1-D mask index, the
    kernel QAttention shares) vs Attention (opset 23, additive [B, 1, T, T] mask bias)."""
    import onnxruntime as ort
    from onnx import TensorProto, helper

    b, heads, size = 4, 12, 32
    qkv = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [b, None, heads * size]) for n in "qkv"]
    graphs = {
        "MultiHeadAttention": (helper.make_node(
            "MultiHeadAttention", ["q", "k", "v", "", "m"], ["y"], domain="com.microsoft",
            num_heads=heads), helper.make_tensor_value_info("m", TensorProto.INT32, [b]), 17),
        "Attention": (helper.make_node(
            "Attention", ["q", "k", "v", "m"], ["y"], q_num_heads=heads, kv_num_heads=heads),
            helper.make_tensor_value_info("m", TensorProto.FLOAT, [b, 1, None, None]), 23),
    }
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    sessions = {}
    for name, (node, mask, opset) in graphs.items():
        graph = helper.make_graph([node], name, [*qkv, mask],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset),
                                                        helper.make_opsetid("com.microsoft", 1)])
        sessions[name] = ort.InferenceSession(model.SerializeToString(), options,
                                              providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(0)
    out: dict[str, Any] = {}
    for length in lengths:
        feeds = {n: rng.standard_normal((b, length, heads * size)).astype(np.float32) for n in "qkv"}
        lens = np.array([length] * (b - 1) + [length - 5], np.int32)
        bias = np.where(np.arange(length)[None, :] < lens[:, None], 0.0, -10000.0)
        masks = {"MultiHeadAttention": lens,
                 "Attention": np.broadcast_to(bias.astype(np.float32)[:, None, None, :],
                                              (b, 1, length, length)).copy()}
        ys = {name: s.run(None, {**feeds, "m": masks[name]})[0] for name, s in sessions.items()}
        best = {name: float("inf") for name in sessions}
        for _ in range(rounds):
            for name, s in sessions.items():
                started = time.process_time()
                for _ in range(40):
                    s.run(None, {**feeds, "m": masks[name]})
                best[name] = min(best[name], (time.process_time() - started) / 40 * 1e3)
        out[f"tokens_{length}"] = {
            "ms_per_call_best": {k: round(v, 3) for k, v in best.items()},
            "max_abs_diff": float(np.abs(ys["Attention"] - ys["MultiHeadAttention"]).max()),
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    load_before = [round(x, 2) for x in os.getloadavg()]
    texts = chunk_texts(args.docs)
    ref = fp32_reference(texts)
    backend = OnnxMiniLMBackend(EmbeddingConfig(backend="onnx", onnx_variant=VARIANT))
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        graphs = {"qattention": _old_graph(work), "split": built_minilm(VARIANT)[0]}
        sessions = {name: _session(path) for name, path in graphs.items()}
        vectors, cosines = {}, {}
        for name, session in sessions.items():
            backend.session = session
            vectors[name] = normed(backend.encode_all(texts))
            cos = (vectors[name] * ref).sum(axis=1)
            cosines[name] = {"min": round(float(cos.min()), 5), "mean": round(float(cos.mean()), 5)}
        cpu: dict[str, list[float]] = {name: [] for name in sessions}
        loads = []
        for r in range(args.rounds):
            for name in (list(sessions) if r % 2 == 0 else list(sessions)[::-1]):
                backend.session = sessions[name]
                started = time.process_time()
                backend.encode_all(texts)
                cpu[name].append(round(time.process_time() - started, 2))
            loads.append(round(os.getloadavg()[0], 2))
        profiles = {}
        for name, path in graphs.items():
            backend.session = _session(path, str(work / name))
            backend.encode_all(texts)
            _, per_op = op_seconds(Path(backend.session.end_profiling()), 1)
            profiles[name] = {"kernel_seconds_total": round(sum(per_op.values()), 2),
                              "op_seconds": per_op}
    median = {name: float(np.median(v)) for name, v in cpu.items()}
    result = {
        "command": "PYTHONPATH=. nice -n 10 python benchmarks/attention_split.py --docs "
                   f"{args.docs} --out {args.out} --rounds {args.rounds}",
        "chunks": len(texts),
        "load_average_before": load_before,
        "cosine_to_fp32": cosines,
        "cosine_old_vs_new_min": round(float((vectors["qattention"] * vectors["split"])
                                             .sum(axis=1).min()), 6),
        "embed_cpu_s": cpu,
        "embed_cpu_s_median": median,
        "cpu_change": round(median["split"] / median["qattention"] - 1, 4),
        "load_1min_per_round": loads,
        "profiles": profiles,
        "attention_core_ops": core_ops(),
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
    }
    args.out.write_text(json.dumps(result, indent=1), encoding="utf-8")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
