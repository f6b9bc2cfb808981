"""Talking to an OpenAI-compatible endpoint: the client (retries, breaker, fallback, structured replies),
per-stage LLM deadlines, the judge check, reply usability counts and a local server."""

from __future__ import annotations

from rag.lazy_exports import lazy_exports

_EXPORTS = {  # what pages and eval read from this package, loaded on first use
    "ConnectedLLM": "rag.llm.local_server",
    "Message": "rag.llm.base",
    "connected_llm": "rag.llm.local_server",
}

__getattr__ = lazy_exports(__name__, _EXPORTS)

__all__ = sorted(_EXPORTS)
