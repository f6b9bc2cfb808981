"""Chunking section of a config: a strategy name and its parameters, checked by the strategy.

Also the shared base and validators of the per-strategy settings models (one per strategy module).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo


class ChunkingConfig(BaseModel):
    """`params` are validated by the named strategy's own settings model when a chunker is built
    (rag.chunking.registry), and by rag.config when a preset is loaded or derived."""

    model_config = ConfigDict(extra="forbid")

    strategy: str = "recursive"
    params: dict[str, Any] = Field(default_factory=lambda: {"size": 512, "overlap": 50})


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
