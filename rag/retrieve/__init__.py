"""Retrieval: ranked lists from the collection, fusion, post-retrieval steps.

Searching (search.retrieve_lists, cached), fusion, post-steps and top-k run as pipeline stages
(rag.retrieve.stage) through rag.pipeline, the one way stages are composed.

Exports load lazily (PEP 562): importing the package stays cheap, and a name loads its module
(fusion, search, the stages) on first use.
"""

from __future__ import annotations

from rag.lazy_exports import lazy_exports

_EXPORTS = {
    "Candidate": "rag.records.hits",
    "RankedList": "rag.records.hits",
    "RetrieverHit": "rag.records.hits",
    "SearchQuery": "rag.records.hits",
    "FUSION": "rag.retrieve.fusion",
    "fuse": "rag.retrieve.fusion",
    "POST_STEPS": "rag.retrieve.post",
    "postprocess": "rag.retrieve.post",
    "clear_candidate_cache": "rag.retrieve.search",
    "candidate_vectors": "rag.retrieve.search",
    "retrieve_lists": "rag.retrieve.search",
    "AuthorityResult": "rag.retrieve.authority",
    "FuseOutput": "rag.retrieve.stage",
    "PostprocessOutput": "rag.retrieve.stage",
    "Retrieved": "rag.retrieve.search",
    "SelectOutput": "rag.retrieve.stage",
}

__all__ = sorted(_EXPORTS)

__getattr__ = lazy_exports(__name__, _EXPORTS)
