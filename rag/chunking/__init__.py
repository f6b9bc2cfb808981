"""Chunking strategies: one module each, one registry (rag.chunking.registry).
`get_chunker(name, params)` builds one."""

from __future__ import annotations

# Importing a strategy module registers it; this package imports them all.
from rag.chunking import (  # noqa: F401
    doc_type,
    faq,
    fixed,
    hierarchical,
    markdown,
    parent_child,
    recursive,
    semantic,
    sentence,
    token,
    whole,
)
from rag.chunking.base import Chunk, Chunker
from rag.chunking.registry import STRATEGIES, get_chunker, strategy_settings

__all__ = ["STRATEGIES", "Chunk", "Chunker", "get_chunker", "strategy_settings"]
