"""Groundedness: per-sentence support (lexical, embedding, LLM), citation check, confidence."""

from __future__ import annotations

from rag.lazy_exports import lazy_exports

_EXPORTS = {  # what pages and eval read from this package, loaded on first use
    "GroundedAnswer": "rag.outputs.grounding",
    "SentenceCheck": "rag.outputs.grounding",
}

__getattr__ = lazy_exports(__name__, _EXPORTS)

__all__ = sorted(_EXPORTS)
