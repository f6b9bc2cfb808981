"""int8 options against fp32 on a CPU without VNNI, emulated: accuracy only, in three steps.

    python -m benchmarks.int8_novnni native --corpus C.jsonl --work DIR
    qemu-x86_64 -cpu Haswell $(python -c 'import sys; print(sys.executable)') \
        -m benchmarks.int8_novnni emulated --work DIR --option int8-smooth-u8u8
    python -m benchmarks.int8_novnni report --work DIR --out FILE.json --qemu-cpu Haswell

Options: the recipes of benchmarks/int8_quant.py, and SHIPPED, the graphs the product itself
builds (rag/embed/onnx_build.py's built_minilm, copied into DIR): `int8-smooth-u8`, which `auto`
tries where `int8-smooth` is rejected. The report gives each graph's md5, so it shows which
recipe a shipped graph is.

`native` builds the int8 options of benchmarks/int8_quant.py into DIR (or reuses them), picks the
texts (the self-check's PROBE_TEXTS plus a few short Debian passages: emulation runs at about a
second per token) and embeds them natively with fp32 and every option. `emulated` embeds the
same texts with one option under qemu user-mode emulation: qemu answers CPUID for the CPU it is
told to be (Haswell: AVX2, no AVX-512, no VNNI), so onnxruntime picks the kernels a CPU without
VNNI runs. /proc/cpuinfo is not emulated (it still shows the host), so the proof that the
kernels changed is onnxruntime's own behaviour: the u8s8 MatMulInteger probe of
rag/embed/cpu_check.py, recorded in each run. Vectors are saved after each slice of 8, so a run
cut short keeps what it did. `report` compares each option with fp32 computed natively.
Emulated timings mean nothing; only accuracy is measured.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from benchmarks.int8_quant import OPTIONS, _backend, build
from rag.embed.cpu_check import FLOORS, PROBE_TEXTS, products_exact, u8s8_products_exact
from rag.embed.embedder import l2_normalize
from rag.embed.onnx_minilm import OnnxMiniLMBackend, token_sorted_slices
from rag.settings.embedding import EmbeddingConfig

SHORT_TOKENS = 48  # passages at most this long: emulation costs about a second per token
SHIPPED = ("int8-smooth-u8", "int8-smooth-rows")  # product builds run as options (module doc)


_CPUID_CODE = bytes.fromhex(  # push rbx; eax=edi; ecx=esi; r8=rdx; cpuid; store eax..edx at r8; pop rbx; ret
    "53" "89f8" "89f1" "4989d0" "0fa2" "418900" "41895804" "41894808" "4189500c" "5b" "c3")


def cpuid_identity() -> dict[str, object]:
    """The CPU as the CPUID instruction reports it (what onnxruntime reads; under qemu the
    emulated CPU, unlike /proc/cpuinfo): brand string and the int8-relevant feature bits."""
    import ctypes
    import mmap

    page = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    page.write(_CPUID_CODE)
    address = ctypes.addressof(ctypes.c_char.from_buffer(page))
    call = ctypes.CFUNCTYPE(None, ctypes.c_uint32, ctypes.c_uint32,
                            ctypes.POINTER(ctypes.c_uint32))(address)

    def regs(leaf: int, sub: int = 0) -> list[int]:
        out = (ctypes.c_uint32 * 4)()
        call(leaf, sub, out)
        return list(out)

    brand = b"".join(int(r).to_bytes(4, "little") for leaf in range(0x80000002, 0x80000005)
                     for r in regs(leaf)).rstrip(b"\0").decode(errors="replace").strip()
    _, ebx7, ecx7, _ = regs(7)
    eax71 = regs(7, 1)[0]
    return {"brand": brand, "avx2": bool(ebx7 >> 5 & 1), "avx512f": bool(ebx7 >> 16 & 1),
            "avx512bw": bool(ebx7 >> 30 & 1), "avx512_vnni": bool(ecx7 >> 11 & 1),
            "avx_vnni": bool(eax71 >> 4 & 1)}


def u8u8_products_exact() -> bool:
    """cpu_check's u8u8 probe (uint8 weights: 255 x 255 pair sums need 17 bits)."""
    return products_exact(unsigned_weights=True)


def native(corpus: Path, work: Path, passages_n: int) -> None:
    """Build the options (kept in `work`), pick the texts, embed them natively with each."""
    from rag.embed.onnx_build import built_minilm

    with corpus.open(encoding="utf-8") as lines:
        passages = [json.loads(line)["text"] for line in lines]
    fused = built_minilm("fp32")[0]
    fp32 = _backend(build_fp32(fused, work))
    if (work / "texts.json").is_file():  # an earlier run's texts: new options join its results
        texts = json.loads((work / "texts.json").read_text(encoding="utf-8"))["texts"]
        _embed_natively(work, texts, fp32, fused)
        return
    counts = _token_counts(fp32, passages)
    short = [p for p, c in zip(passages, counts, strict=True) if c <= SHORT_TOKENS]
    step = max(1, len(short) // passages_n)  # spread over the corpus, not its first file
    texts = [*PROBE_TEXTS, *short[::step][:passages_n]]
    (work / "texts.json").write_text(json.dumps({"probe": len(PROBE_TEXTS), "texts": texts,
                                                 "tokens": _token_counts(fp32, texts)}, indent=1))
    _embed_natively(work, texts, fp32, fused)


def _embed_natively(work: Path, texts: list[str], fp32: OnnxMiniLMBackend, fused: Path) -> None:
    np.save(work / "native-fp32.npy", fp32.encode(texts))
    for name in (*OPTIONS, *SHIPPED):
        np.save(work / f"native-{name}.npy", _option_backend(name, _folder(name, fused, work)).encode(texts))
        print(f"native {name} done", file=sys.stderr)


def _folder(name: str, fused: Path, work: Path) -> Path:
    """`name`'s model folder in `work`: an int8_quant recipe, or a copy of a shipped build."""
    if name in OPTIONS:
        return build(name, fused, work)
    import shutil

    from rag.embed.local_models import minilm_folder
    from rag.embed.onnx_build import built_minilm

    folder = work / name
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(built_minilm(name)[0], folder / "model.onnx")  # type: ignore[arg-type]
    shutil.copy(minilm_folder() / "tokenizer.json", folder / "tokenizer.json")
    return folder


def _option_backend(name: str, folder: Path) -> OnnxMiniLMBackend:
    """A shipped build runs as the product runs it (by variant: its session options too, e.g.
    int8-smooth-rows' unfused LayerNorm); an int8_quant recipe from its folder."""
    if name in SHIPPED:
        return OnnxMiniLMBackend(EmbeddingConfig(backend="onnx", onnx_variant=name, cache=False))
    return _backend(folder)


def _token_counts(backend: OnnxMiniLMBackend, texts: list[str]) -> list[int]:
    """Tokens per text, as the backend counts them to cut its slices (truncated at 256)."""
    return [len(e.ids) for e in backend.tokenizer.encode_batch(texts)]


def build_fp32(fused: Path, work: Path) -> Path:
    """A model folder holding the fused fp32 graph (what the self-check compares with)."""
    import shutil

    from rag.embed.local_models import minilm_folder

    folder = work / "fp32"
    folder.mkdir(parents=True, exist_ok=True)
    if not (folder / "model.onnx").is_file():
        shutil.copy(fused, folder / "model.onnx")
    shutil.copy(minilm_folder() / "tokenizer.json", folder / "tokenizer.json")
    return folder


def emulated(work: Path, name: str) -> None:
    """Embed the texts with `name` in this process (run it under qemu), slice by slice."""
    meta = json.loads((work / "texts.json").read_text(encoding="utf-8"))
    texts: list[str] = meta["texts"]
    backend = _option_backend(name, work / name)
    out = np.full((len(texts), backend.dim), np.nan, dtype=np.float32)
    state = {"option": name, "u8s8_products_exact": u8s8_products_exact(),
             "u8u8_products_exact": u8u8_products_exact(), "done": 0, "seconds": 0.0}
    started = time.perf_counter()
    # the same slices the backend would run the whole list as, so each slice's dynamic
    # quantization sees the same texts as the native run; shortest first, so a run cut short
    # by the clock still has some texts done
    for part in reversed(token_sorted_slices(meta["tokens"], 8)):
        out[part] = backend.encode([texts[i] for i in part])
        state["done"] = int(np.isfinite(out[:, 0]).sum())
        state["seconds"] = round(time.perf_counter() - started, 1)
        np.save(work / f"emulated-{name}.npy", out)
        (work / f"emulated-{name}.json").write_text(json.dumps(state), encoding="utf-8")
        print(json.dumps(state), file=sys.stderr, flush=True)


def _stats(vectors: np.ndarray, reference: np.ndarray) -> dict[str, float]:
    cosines = (l2_normalize(vectors) * l2_normalize(reference)).sum(axis=1)
    return {"min": round(float(cosines.min()), 5), "mean": round(float(cosines.mean()), 5)}


def report(work: Path, qemu_cpu: str, command: str) -> dict[str, object]:
    """Each option's cosine to natively computed fp32, natively and under emulation."""
    import onnxruntime

    meta = json.loads((work / "texts.json").read_text(encoding="utf-8"))
    probe_n = int(meta["probe"])
    fp32 = np.load(work / "native-fp32.npy")
    rows = []
    for name in (*OPTIONS, *SHIPPED):
        model = work / name / "model.onnx"
        row: dict[str, object] = {
            "option": name, "shipped": name in SHIPPED,
            "model_md5": hashlib.md5(model.read_bytes()).hexdigest() if model.is_file() else None,
        }
        emulated_probe: dict[str, float] | None = None
        for where in ("native", "emulated"):
            path = work / f"{where}-{name}.npy"
            if not path.is_file():
                continue
            vectors = np.load(path)
            done = np.isfinite(vectors[:, 0])
            part: dict[str, object] = {"texts": int(done.sum())}
            if done[:probe_n].all():
                part["probe"] = _stats(vectors[:probe_n], fp32[:probe_n])
            if done[probe_n:].any():
                rest = np.flatnonzero(done[probe_n:]) + probe_n
                part["passages"] = _stats(vectors[rest], fp32[rest])
            part["all"] = _stats(vectors[done], fp32[done])
            if where == "emulated":
                part.update(json.loads((work / f"emulated-{name}.json").read_text()))
                part.pop("option", None)
                emulated_probe = part.get("probe")  # type: ignore[assignment]
            row[where] = part
        floor = FLOORS.get(name if name in SHIPPED else OPTIONS[name][0])
        if floor is not None and emulated_probe:
            row["recipe_floor"] = floor
            row["meets_floor_without_vnni"] = emulated_probe["min"] >= floor
        rows.append(row)
    qemu = subprocess.run(["qemu-x86_64", "--version"], capture_output=True, text=True)
    under_qemu = subprocess.run(  # CPUID as onnxruntime sees it under the same emulation
        ["qemu-x86_64", "-cpu", qemu_cpu, sys.executable, "-m", "benchmarks.int8_novnni",
         "cpuid", "--work", str(work)], capture_output=True, text=True, check=True)
    return {
        "command": command, "qemu": qemu.stdout.splitlines()[0] if qemu.stdout else "",
        "qemu_cpu": qemu_cpu, "cpuid_emulated": json.loads(under_qemu.stdout),
        "cpuid_native": cpuid_identity(), "host_machine": platform.machine(),
        "onnxruntime": onnxruntime.__version__,
        "texts": len(meta["texts"]), "probe_texts": probe_n,
        "passages": len(meta["texts"]) - probe_n, "tokens": meta["tokens"],
        "reference": "fp32 fused graph, computed natively (not under emulation)",
        "note": "qemu user-mode emulation: CPUID says Haswell (AVX2, no AVX-512, no VNNI), so "
                "onnxruntime runs the kernels of a CPU without VNNI (u8s8_products_exact false "
                "under emulation, true natively). Speed under emulation means nothing: only "
                "accuracy is measured here.",
        "load_average": [round(x, 2) for x in os.getloadavg()], "options": rows,
    }  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=["native", "emulated", "report", "cpuid"])
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--corpus", type=Path, help="native: passages (BEIR corpus.jsonl)")
    parser.add_argument("--passages", type=int, default=4, help="native: short passages added")
    parser.add_argument("--option", choices=[*OPTIONS, *SHIPPED],
                        help="emulated: the option to run")
    parser.add_argument("--out", type=Path, help="report: the results file")
    parser.add_argument("--qemu-cpu", default="Haswell", help="report: the -cpu given to qemu")
    parser.add_argument("--command", default="", help="report: the commands run, to record")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    if args.step == "cpuid":
        print(json.dumps(cpuid_identity()))
    elif args.step == "native":
        if args.corpus is None:
            parser.error("native needs --corpus")
        native(args.corpus, args.work, args.passages)
    elif args.step == "emulated":
        if args.option is None:
            parser.error("emulated needs --option")
        emulated(args.work, args.option)
    else:
        if args.out is None:
            parser.error("report needs --out")
        result = report(args.work, args.qemu_cpu, args.command)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
