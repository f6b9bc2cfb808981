"""Chunking section of a config: a strategy name and its parameters, checked by the strategy.

Also the shared base and validators of the per-strategy settings models (one per strategy module).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, model_validator


class ChunkingConfig(BaseModel):
    """`params` are validated by the named strategy's own settings model (see rag.chunking)."""

    model_config = ConfigDict(extra="forbid")

    strategy: str = "recursive"
    params: dict[str, Any] = Field(default_factory=lambda: {"size": 512, "overlap": 50})

    @model_validator(mode="after")
    def _check_params(self) -> ChunkingConfig:
        from rag.chunking.registry import strategy_settings  # late: strategies import this module

        strategy_settings(self.strategy, self.params)  # raises naming the field and the rule
        return self


class StrategySettings(BaseModel):
    """Base of every strategy's settings: unknown keys are errors, values never change later."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def smaller_than(field: str, value: int, info: ValidationInfo) -> int:
    """Field-validator body: `value` must be smaller than the already-validated `field`."""
    other = info.data.get(field)
    if other is not None and value >= other:
        raise ValueError(f"{info.field_name} ({value}) must be smaller than {field} ({other})")
    return value


def at_most(field: str, value: int, info: ValidationInfo) -> int:
    """Field-validator body: `value` must not exceed the already-validated `field`."""
    other = info.data.get(field)
    if other is not None and value > other:
        raise ValueError(f"{info.field_name} ({value}) must not exceed {field} ({other})")
    return value
