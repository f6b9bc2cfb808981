"""int8 quantization options against fp32 on this CPU: accuracy (cosine to fp32) and speed.

`python -m benchmarks.int8_quant --corpus C.jsonl --out FILE.json [--texts 200] [--rounds 3]
[--work DIR]` (DIR keeps the builds, so a run under qemu evaluates the same graphs)

Builds, from the fused fp32 graph (rag/embed/onnx_build.py), the plain `int8` and the
`int8-smooth` recipes each with signed 8-bit weights (u8s8 products, what we ship), with
`reduce_range` (7-bit weights: pair sums of u8 x s7 products fit in int16, the usual advice
for CPUs without VNNI) and with unsigned weights (u8u8 products), then embeds the same passages
with each and with fp32. Run natively for speed and accuracy; run under `qemu-x86_64 -cpu
Haswell` (an AVX2 CPU without VNNI, emulated) for accuracy only: emulated timings mean nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from rag.embed.cpu_check import PROBE_TEXTS, cpu_identity, u8s8_products_exact
from rag.embed.embedder import l2_normalize
from rag.embed.local_models import minilm_folder
from rag.embed.onnx_build import _quantize, built_minilm
from rag.embed.onnx_minilm import OnnxMiniLMBackend
from rag.embed.onnx_smooth import build_smooth_int8
from rag.settings.embedding import EmbeddingConfig

# name -> (recipe, reduce_range, unsigned weights)
OPTIONS = {
    "int8": ("int8", False, False),
    "int8-reduce-range": ("int8", True, False),
    "int8-u8u8": ("int8", False, True),
    "int8-smooth": ("int8-smooth", False, False),
    "int8-smooth-reduce-range": ("int8-smooth", True, False),
    "int8-smooth-u8u8": ("int8-smooth", False, True),
}


def build(name: str, fused: Path, work: Path) -> Path:
    """A folder with `name`'s model.onnx and the tokenizer (an onnx backend model_path)."""
    recipe, reduce_range, unsigned = OPTIONS[name]
    folder = work / name
    if (folder / "model.onnx").is_file():  # built by an earlier run with the same --work
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(minilm_folder() / "tokenizer.json", folder / "tokenizer.json")
    if recipe == "int8":
        _quantize(fused, folder / "model.onnx", reduce_range=reduce_range, unsigned_weights=unsigned)
    else:
        scratch = folder / "scratch"
        scratch.mkdir(exist_ok=True)
        build_smooth_int8(fused, folder / "model.onnx", scratch, reduce_range=reduce_range,
                          unsigned_weights=unsigned)
        shutil.rmtree(scratch)
    return folder


def _backend(folder: Path) -> OnnxMiniLMBackend:
    return OnnxMiniLMBackend(EmbeddingConfig(backend="onnx", model_path=str(folder), cache=False))


def _best(backend: OnnxMiniLMBackend, texts: list[str], rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        backend.encode(texts)
        best = min(best, time.perf_counter() - started)
    return best


def run(corpus: Path, texts_n: int, rounds: int, names: list[str], work: Path) -> dict[str, object]:
    with corpus.open(encoding="utf-8") as lines:
        passages = [json.loads(line)["text"] for line in lines]
    step = max(1, len(passages) // texts_n)  # spread over the corpus, not its first file
    texts = passages[::step][:texts_n]
    fused = built_minilm("fp32")[0]
    load_before = os.getloadavg()
    fp32_folder = work / "fp32"
    fp32_folder.mkdir(parents=True, exist_ok=True)
    if not (fp32_folder / "model.onnx").is_file():
        shutil.copy(fused, fp32_folder / "model.onnx")
    shutil.copy(minilm_folder() / "tokenizer.json", fp32_folder / "tokenizer.json")
    exact = _backend(fp32_folder)
    reference = l2_normalize(exact.encode(texts))
    probe_reference = l2_normalize(exact.encode(list(PROBE_TEXTS)))
    fp32_s = _best(exact, texts, rounds) if rounds else float("nan")
    rows = []
    for name in names:
        started = time.perf_counter()
        backend = _backend(build(name, fused, work))
        built_s = time.perf_counter() - started
        cosines = (l2_normalize(backend.encode(texts)) * reference).sum(axis=1)
        probe = (l2_normalize(backend.encode(list(PROBE_TEXTS))) * probe_reference).sum(axis=1)
        seconds = _best(backend, texts, rounds) if rounds else float("nan")  # 0: accuracy only
        rows.append({
            "option": name, "min_cosine": round(float(cosines.min()), 5),
            "mean_cosine": round(float(cosines.mean()), 5),
            "p01_cosine": round(float(np.percentile(cosines, 1)), 5),
            "probe_min_cosine": round(float(probe.min()), 5),
            "seconds": round(seconds, 3) if rounds else None,
            "speedup_vs_fp32": round(fp32_s / seconds, 2) if rounds else None,
            "build_seconds": round(built_s, 1),
        })  # fmt: skip
        print(json.dumps(rows[-1]), file=sys.stderr)
    cpu = cpu_identity()
    import onnxruntime

    return {
        "command": " ".join(["python -m benchmarks.int8_quant", *sys.argv[1:]]),
        "corpus": str(corpus), "texts": len(texts), "rounds": rounds,
        "cpu_model": cpu.model, "cpu_int8_flags": list(cpu.flags),
        "u8s8_products_exact": u8s8_products_exact(),
        "emulated": os.environ.get("INT8_QUANT_EMULATED", ""),
        "machine": platform.machine(), "onnxruntime": onnxruntime.__version__,
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "fp32_seconds": round(fp32_s, 3) if rounds else None, "options": rows,
    }  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--texts", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3, help="timing rounds (0: accuracy only)")
    parser.add_argument("--options", default=",".join(OPTIONS))
    parser.add_argument("--work", type=Path, help="keep the builds here and reuse them")
    args = parser.parse_args()
    names = [n for n in args.options.split(",") if n]
    unknown = [n for n in names if n not in OPTIONS]
    if unknown:
        raise SystemExit(f"unknown --options {unknown}; valid: {', '.join(OPTIONS)}")
    if args.work is not None:  # kept: a second run (e.g. under qemu) reuses the builds
        result = run(args.corpus, args.texts, args.rounds, names, args.work)
    else:
        with tempfile.TemporaryDirectory(prefix="int8-quant-") as work:
            result = run(args.corpus, args.texts, args.rounds, names, Path(work))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
