"""Rerank section (filled in by the reranking stage)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class RerankConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    enabled: bool = False
