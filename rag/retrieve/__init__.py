"""Retrieval: ranked lists from the collection, fusion, post-retrieval steps.

    lists = retrieve_candidates(query, config, collection)   # runs models; cached
    result = fuse_and_filter(lists, config, query=query)     # pure and fast: fused, steps, top

Exports load lazily (PEP 562): `rag.config` imports `rag.retrieve.settings`, which must not pull
in modules that need `rag.config` themselves.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "Candidate": "rag.retrieve.base",
    "RankedList": "rag.retrieve.base",
    "RetrieverHit": "rag.retrieve.base",
    "SearchQuery": "rag.retrieve.base",
    "as_candidates": "rag.retrieve.base",
    "FUSION": "rag.retrieve.fusion",
    "fuse": "rag.retrieve.fusion",
    "FusionResult": "rag.retrieve.fuse_filter",
    "fuse_and_filter": "rag.retrieve.fuse_filter",
    "select_top": "rag.retrieve.fuse_filter",
    "POST_STEPS": "rag.retrieve.post",
    "postprocess": "rag.retrieve.post",
    "clear_candidate_cache": "rag.retrieve.search",
    "candidate_vectors": "rag.retrieve.search",
    "retrieve_candidates": "rag.retrieve.search",
    "retrieve_lists": "rag.retrieve.search",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'rag.retrieve' has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name]), name)
