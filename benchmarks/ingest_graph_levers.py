"""Graph levers for issue 25's ingest (≥ 2× fp32 encode): CPU seconds of candidate int8-smooth
graphs on the ingest's own 2,275 chunks, and their cosine to our fp32 graph. An experiment, not
a shipped variant: no graph measured here is built by rag/embed/onnx_build.py or used by `auto`.

    PYTHONPATH=. nice -n 10 python benchmarks/ingest_graph_levers.py --docs /tmp/ingw-quiet/docs \
        --work /tmp/ifw-levers --out benchmarks/results/ingest_speed_debian1000_graph_levers.json

Candidates (each from the fp32 build, with rag/embed/onnx_smooth.py's own steps):
- `int8-smooth`: the shipped recipe, rebuilt here (fused SkipLayerNormalization);
- `+ unfused LN`: every SkipLayerNormalization replaced by Add (+ bias Add) + LayerNormalization,
  the session loaded with `disabled_optimizers=["SkipLayerNormFusion"]` (else onnxruntime fuses
  it back at load: measured, same CPU as the shipped graph);
- `+ unfused LN, FFN-out of layers 4-5 per-tensor int8`: those two MatMulNBits products become
  DynamicQuantizeMatMul (layers 0-3 kept per-block: chosen on /usr/share/doc passages of
  datasets/build_passages.py, not on this set).
The chunks are encoded as the backend does: token-sorted slices of 8, two one-thread workers.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from rag.embed.onnx_rowquant import unfuse_skip_layer_norm  # shipped in int8-smooth-rows


def build(fp32: Path, out: Path, work: Path, *, unfuse: bool, dynamic_ffn_out: set[int]) -> Path:
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    from rag.embed import onnx_smooth as smooth

    work.mkdir(parents=True, exist_ok=True)
    model = onnx.load(str(fp32))
    smooth._smooth(model, dict(np.load(smooth.ACT_MAX_FILE)))
    onnx.save(model, str(work / "smoothed.onnx"))
    roles = smooth._roles(model).items()
    ffn = {key: node.name for key, node in roles if key.startswith("ffn_out")}
    kept = [name for key, name in ffn.items() if int(key.split(".")[1]) not in dynamic_ffn_out]
    quantize_dynamic(str(work / "smoothed.onnx"), str(work / "q.onnx"),
                     weight_type=QuantType.QInt8, per_channel=True,
                     op_types_to_quantize=["MatMul", "Attention"], nodes_to_exclude=kept,
                     extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT})
    model = onnx.load(str(work / "q.onnx"))
    smooth._ffn_out_to_nbits(model, set(kept))
    if unfuse:
        unfuse_skip_layer_norm(model)
    onnx.save(model, str(out))
    return out


def session(path: Path, *, unfused: bool) -> Any:
    from rag.embed.onnx_minilm import open_session, session_options

    return open_session(path, ["SkipLayerNormFusion"] if unfused else [], session_options(1))


def encode(sess: Any, ids: list[np.ndarray]) -> np.ndarray:
    from rag.embed.onnx_minilm import SLICE, token_sorted_slices

    def run(rows: list[np.ndarray]) -> np.ndarray:
        width = max(len(r) for r in rows)
        tok = np.zeros((len(rows), width), np.int64)
        mask = np.zeros_like(tok)
        for k, r in enumerate(rows):
            tok[k, : len(r)], mask[k, : len(r)] = r, 1
        feeds = {"input_ids": tok, "attention_mask": mask, "token_type_ids": np.zeros_like(tok)}
        hidden = sess.run(None, feeds)[0]
        w = mask[..., None].astype(np.float32)
        return (hidden * w).sum(1) / w.sum(1)

    parts = token_sorted_slices([len(i) for i in ids], SLICE)
    out = np.empty((len(ids), 384), np.float32)
    with ThreadPoolExecutor(2) as pool:
        blocks = pool.map(run, [[ids[i] for i in p] for p in parts])
        for part, block in zip(parts, blocks, strict=True):
            out[part] = block
    return out / np.linalg.norm(out, axis=1, keepdims=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", type=Path, required=True)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    from tokenizers import Tokenizer

    from rag.config import PipelineConfig
    from rag.documents import ingest_paths
    from rag.embed.local_models import minilm_folder
    from rag.embed.onnx_build import built_minilm
    from rag.index.ingest import chunk_documents

    tok = Tokenizer.from_file(str(minilm_folder() / "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(max_length=256)
    docs = list(ingest_paths([args.docs]).documents)
    _, pairs = chunk_documents(docs, PipelineConfig())
    chunks = [c.text for _, c in pairs]
    ids = [np.asarray(e.ids, np.int64) for e in tok.encode_batch(chunks)]
    fp32 = built_minilm("fp32")[0]
    recipes = {  # name: (file, unfused LayerNorm, FFN-out layers at per-tensor int8)
        "int8-smooth (shipped recipe)": ("a.onnx", False, set()),
        "+ unfused LN": ("b.onnx", True, set()),
        "+ unfused LN, FFN-out 4-5 per-tensor int8": ("c.onnx", True, {4, 5}),
    }
    graphs = {name: (build(fp32, args.work / file, args.work / "w", unfuse=unfused,
                           dynamic_ffn_out=layers), unfused)
              for name, (file, unfused, layers) in recipes.items()}
    ref = encode(session(fp32, unfused=False), ids)
    sessions = {name: session(path, unfused=unfused) for name, (path, unfused) in graphs.items()}
    rows: dict[str, dict[str, Any]] = {n: {"wall_s": [], "cpu_s": [], "load_1min": []} for n in graphs}
    vectors: dict[str, np.ndarray] = {}
    for r in range(args.rounds):
        for name in list(graphs) if r % 2 == 0 else list(graphs)[::-1]:
            c0, w0 = time.process_time(), time.perf_counter()
            vectors[name] = encode(sessions[name], ids)
            rows[name]["wall_s"].append(round(time.perf_counter() - w0, 2))
            rows[name]["cpu_s"].append(round(time.process_time() - c0, 2))
            rows[name]["load_1min"].append(round(os.getloadavg()[0], 2))
    base = min(rows["int8-smooth (shipped recipe)"]["cpu_s"])
    for name, row in rows.items():
        cos = (vectors[name] * ref).sum(1)
        row.update(cpu_s_min=min(row["cpu_s"]),
                   cpu_vs_shipped=round(base / min(row["cpu_s"]), 3),
                   cosine_to_fp32_min=round(float(cos.min()), 4),
                   cosine_to_fp32_mean=round(float(cos.mean()), 5))
    result = {
        "command": "PYTHONPATH=. nice -n 10 python benchmarks/ingest_graph_levers.py --docs "
                   f"{args.docs} --work {args.work} --out {args.out}",
        "chunks": len(ids), "tokens": int(sum(map(len, ids))), "graphs": rows,
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
    }
    args.out.write_text(json.dumps(result, indent=1), encoding="utf-8")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
