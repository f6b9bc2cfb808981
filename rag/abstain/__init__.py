"""Abstention: the pipeline's decision to decline rather than answer, and answer relevance."""

from __future__ import annotations

from rag.lazy_exports import lazy_exports

_EXPORTS = {  # what pages and eval read from this package, loaded on first use
    "AbstainDecision": "rag.abstain.stage",
}

__getattr__ = lazy_exports(__name__, _EXPORTS)

__all__ = sorted(_EXPORTS)
