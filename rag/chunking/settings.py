"""Chunking section of a config: a strategy name and its parameters, checked by the strategy."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator


class ChunkingConfig(BaseModel):
    """`params` are validated by the named strategy's own settings model (see rag.chunking)."""

    model_config = ConfigDict(extra="forbid")

    strategy: str = "recursive"
    params: dict[str, Any] = Field(default_factory=lambda: {"size": 512, "overlap": 50})

    @model_validator(mode="after")
    def _check_params(self) -> ChunkingConfig:
        from rag.chunking import strategy_settings  # late: strategies import this module

        strategy_settings(self.strategy, self.params)  # raises naming the field and the rule
        return self
