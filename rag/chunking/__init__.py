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
from rag.chunking.registry import STRATEGIES, get_chunker, strategy_settings
from rag.lazy_exports import lazy_exports
from rag.records.chunk import Chunk, Chunker

__all__ = ["STRATEGIES", "Chunk", "Chunker", "get_chunker", "strategy_settings"]

_EXPORTS = {  # what pages and eval read from this package, loaded on first use
    "ChunkStats": "rag.chunking.stats",
    "count_tokens": "rag.chunking.models",
    "stats_by_level": "rag.chunking.stats",
}

__getattr__ = lazy_exports(__name__, _EXPORTS)

__all__ += sorted(_EXPORTS)
