"""Reranking: a scorer re-reads the fused candidates; policies turn its scores into a ranking.

`SCORERS` (rag.rerank.scorers) maps `rerank.method` to a factory; `build_scorer(cfg, chat)`
builds the configured one or raises RerankUnavailable naming the setting to change.
`rerank(query, candidates, cfg)` is the whole stage as a function (rag.rerank.rerank);
rag.rerank.stage plugs it into the pipeline.
"""

from __future__ import annotations

from rag.lazy_exports import lazy_exports
from rag.rerank.base import RerankUnavailable, Scorer
from rag.rerank.offline import offline_default
from rag.rerank.scorers import SCORERS, build_scorer
from rag.settings.rerank import RerankConfig

__all__ = ["SCORERS", "RerankConfig", "RerankUnavailable", "Scorer", "build_scorer", "offline_default"]

_EXPORTS = {  # what pages and eval read from this package, loaded on first use
    "NORMALIZERS": "rag.rerank.policies",
    "POLICIES": "rag.rerank.policies",
    "RerankResult": "rag.rerank.base",
}

__getattr__ = lazy_exports(__name__, _EXPORTS)

__all__ += sorted(_EXPORTS)
