"""Index section: collection name, sparse backend and its tokenizer."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class TokenizerConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    pattern: str = r"(?u)\b\w\w+\b"
    lowercase: bool = True
    stopwords: Literal["english", "none"] = "english"
    stemming: bool = False


class IndexConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    collection: str = "default"
    sparse_backend: Literal["bm25s", "rank-bm25", "qdrant"] = "bm25s"
    tokenizer: TokenizerConfig = Field(default_factory=TokenizerConfig)
    k1: float = Field(1.5, gt=0)  # Robertson BM25 term-frequency saturation
    b: float = Field(0.75, ge=0, le=1)  # length normalization
