"""Generation: the answerer (LLM or offline extractive), answer clean-up and whole-sentence quotes."""

from __future__ import annotations

from rag.lazy_exports import lazy_exports

_EXPORTS = {  # what pages and eval read from this package, loaded on first use
    "GenerateOutput": "rag.outputs.generated",
}

__getattr__ = lazy_exports(__name__, _EXPORTS)

__all__ = sorted(_EXPORTS)
