"""Retrieval, fusion and post-retrieval sections."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator


class FilterConfig(BaseModel):
    """Payload filters applied inside the index (Qdrant) and to sparse results alike."""

    model_config = ConfigDict(extra="forbid")

    sources: list[str] = Field(default_factory=list)
    doc_types: list[str] = Field(default_factory=list)
    levels: list[str] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    owner: str | None = None  # a user sees public chunks and their own private ones


class RetrievalConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    retrievers: list[Literal["bm25", "dense"]] = Field(default_factory=lambda: ["bm25", "dense"])
    depth: int = Field(100, ge=1, le=10_000)  # over-fetch per retriever before fusion
    top_k: int = Field(10, ge=1, le=1000)
    filters: FilterConfig = Field(default_factory=FilterConfig)

    @model_validator(mode="after")
    def _check(self) -> RetrievalConfig:
        if not self.retrievers:
            raise ValueError("retrievers must name at least one of: bm25, dense")
        if self.top_k > self.depth:
            raise ValueError(f"top_k ({self.top_k}) must not exceed depth ({self.depth})")
        return self


FusionMethod = Literal["rrf", "weighted_rrf", "relative_score", "dbsf", "convex", "none"]


class FusionConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    method: FusionMethod = "rrf"
    k: int = Field(60, ge=1, le=10_000)  # RRF constant (Cormack et al. 2009)
    weights: dict[str, float] = Field(default_factory=lambda: {"bm25": 0.5, "dense": 0.5})
    alpha: float = Field(0.5, ge=0, le=1)  # weight of dense in relative-score / convex fusion
    normalization: Literal["minmax", "zscore"] = "minmax"


class PostprocessConfig(BaseModel):
    """Optional post-retrieval steps from the seeds; all off by default."""

    model_config = ConfigDict(extra="forbid")

    threshold: float | None = None  # IntelliDocs 0.3, adaptive (002) 0.40
    threshold_fallback_n: int = Field(0, ge=0)  # keep this many when nothing passes
    content_penalties: bool = False  # glossary -30%, TOC -50%, image credits -40% (002)
    time_window_hours: float | None = None  # EchoMind 24h / 48h / 1w
    time_decay_half_life_days: float | None = None
    tag_boost: dict[str, float] = Field(default_factory=dict)
    dedupe_threshold: float | None = None  # drop near-duplicates above this cosine (0.95)
