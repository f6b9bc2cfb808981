"""Context building: parent/document expansion, compression, de-duplication, ordering, token budget."""

from __future__ import annotations

from rag.lazy_exports import lazy_exports

_EXPORTS = {  # what pages and eval read from this package, loaded on first use
    "BuiltContext": "rag.outputs.context",
    "COMPRESSORS": "rag.context.compress",
    "ContextBlock": "rag.outputs.context",
    "EXPANSIONS": "rag.context.expand",
    "ORDERINGS": "rag.context.order",
    "TokenBudget": "rag.outputs.context",
    "screen_chunks": "rag.context.screen",
}

__getattr__ = lazy_exports(__name__, _EXPORTS)

__all__ = sorted(_EXPORTS)
