"""Context-building section: expansion, compression, de-duplication, ordering and token budget."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from rag.settings.enrich import GraphConfig, VerifyConfig

ExpansionName = Literal["none", "parent", "document", "summarize"]
CompressionName = Literal["none", "sentence_filter", "llm", "llm_select"]
OrderingName = Literal["rank", "sandwich", "document"]


class BudgetSplit(BaseModel):
    """Shares of the context window (Adaptive: system 10–15 %, history 10–15 %, chunks 55–60 %,
    generation 15–20 %). They must add up to 1."""

    model_config = ConfigDict(extra="forbid")

    system: float = Field(0.125, ge=0, le=1)
    history: float = Field(0.125, ge=0, le=1)
    chunks: float = Field(0.575, ge=0, le=1)
    generation: float = Field(0.175, ge=0, le=1)

    @model_validator(mode="after")
    def _sums_to_one(self) -> BudgetSplit:
        total = self.system + self.history + self.chunks + self.generation
        if abs(total - 1.0) > 1e-6:
            raise ValueError(f"budget shares must add up to 1, got {total:.3f}")
        return self


class ContextConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    enabled: bool = False
    top_k: int = Field(5, ge=1, le=200)  # candidates taken into the context (Axiom final k = 5)
    expansion: ExpansionName = "none"
    # Set for one query by a router (Adaptive's HIERARCHICAL route, through the run's overrides):
    # the expansion to use when `expansion` is "none".
    routed_expansion: ExpansionName | None = None
    # Document expansion (Vexora): top 3 documents scoring >= 0.3, at most 20 chunks each.
    expand_documents: int = Field(3, ge=1, le=50)
    expand_threshold: float = 0.3
    expand_max_chunks: int = Field(20, ge=1, le=1000)
    parent_max_chars: int = Field(1600, ge=100)  # EchoMind truncates parents at a word boundary
    compression: CompressionName = "none"
    dedupe_jaccard: float | None = Field(None, ge=0, le=1)  # drop sentences at/above this overlap
    ordering: OrderingName = "rank"
    # A passage the injection screen flags (rag.context.screen) is withheld from generation, or
    # kept inside the fenced sources with a marker ("fence").
    flagged_passages: Literal["withhold", "fence"] = "withhold"
    # No-RAG fallback (EchoMind): when no candidate scores at least this, answer without context.
    relevance_threshold: float | None = None
    context_window: int = Field(8000, ge=256)  # tokens (Adaptive's example window)
    budget: BudgetSplit = Field(default_factory=BudgetSplit)
    graph: GraphConfig = Field(default_factory=GraphConfig)  # the "graph" stage
    verify: VerifyConfig = Field(default_factory=VerifyConfig)  # the "verify" stage

    def routed(self) -> ContextConfig:
        """This section with the route's expansion when it expands nothing itself."""
        if self.routed_expansion is None or self.expansion != "none":
            return self
        return self.model_copy(update={"expansion": self.routed_expansion})
