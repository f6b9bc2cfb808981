"""Chunking strategies: one module each, one registry. `get_chunker(name, params)` builds one."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError

from rag.chunking.base import Chunk, Chunker
from rag.registry import Registry

# name -> (settings model, factory taking the validated settings)
STRATEGIES: Registry[tuple[type[BaseModel], Any]] = Registry("chunking")


def strategy_settings(name: str, params: dict[str, Any]) -> BaseModel:
    """Validate `params` against strategy `name`'s settings; errors name the field and rule."""
    settings_cls, _ = STRATEGIES.get(name)
    try:
        return settings_cls.model_validate(params)
    except ValidationError as exc:
        problems = "; ".join(
            f"params.{'.'.join(str(p) for p in e['loc']) or name}: "
            f"{e['msg'].removeprefix('Value error, ')}"
            for e in exc.errors()
        )
        raise ValueError(f"chunking strategy {name!r}: {problems}") from None


def get_chunker(name: str, params: dict[str, Any] | None = None) -> Chunker:
    settings = strategy_settings(name, params or {})
    _, factory = STRATEGIES.get(name)
    return factory(settings)


__all__ = ["Chunk", "Chunker", "STRATEGIES", "get_chunker", "strategy_settings"]
