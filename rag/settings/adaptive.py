"""Settings of the adaptive router stage ("adapt"): what the query's route changes downstream.

Kept apart from rag.query.adaptive_router so rag.settings.query can hold it without import cycles.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class AdaptiveConfig(BaseModel):
    """Off by default: the understand stage's route is then only reported, never acted on.

    - strategies: Adaptive's router — DENSE_ONLY (top 5, no rerank), HYBRID (top 10),
      FUSION (top 20, every expansion), TWO_STAGE (hybrid + rerank), HIERARCHICAL (top 20,
      document expansion) set the retrievers, expansions, top_k and rerank of the run;
    - two_stage: a query naming exact identifiers (quotes, versions, codes) takes TWO_STAGE;
    - level_filter: Vexora's `getLevelFilterForQueryType` — search only the chunk levels that
      suit the query type (paragraph for facts, section/document for broad questions);
    - summarize_path: Axiom — a summarize request builds its context from the whole top
      document in order instead of the top chunks.
    """

    model_config = ConfigDict(extra="forbid")

    enabled: bool = False
    strategies: bool = True
    two_stage: bool = True
    level_filter: bool = False
    summarize_path: bool = False
