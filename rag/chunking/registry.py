"""The chunking registry: strategy name -> (settings model, factory). Strategy modules register
themselves here; importing rag.chunking imports them all, so the registry is full by then."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from rag.records.chunk import Chunker
from rag.registry import Registry

if TYPE_CHECKING:
    from rag.embed.base import Embedder

# name -> (settings model, factory taking the validated settings). A settings model with
# `needs_embedder = True` gets the embedder too: factory(settings, embedder=...).
STRATEGIES: Registry[tuple[type[BaseModel], Callable[..., Chunker]]] = Registry("chunking")


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


def kept_params(name: str, params: dict[str, Any]) -> dict[str, Any]:
    """The entries of `params` that strategy `name` takes (switching strategies keeps the shared
    ones, e.g. size and overlap, and drops the rest instead of failing on them)."""
    settings_cls, _ = STRATEGIES.get(name)
    return {k: v for k, v in params.items() if k in settings_cls.model_fields}


def get_chunker(
    name: str, params: dict[str, Any] | None = None, *, embedder: Embedder | None = None
) -> Chunker:
    """A ready chunker. `embedder` is used by strategies that embed (semantic); the others
    ignore it, so callers can always pass their shared one. Without it, MiniLM is loaded."""
    settings = strategy_settings(name, params or {})
    settings_cls, factory = STRATEGIES.get(name)
    if getattr(settings_cls, "needs_embedder", False):
        return factory(settings, embedder=embedder)
    return factory(settings)
