"""The composite pipeline config: one typed section per stage, in the order a query meets them.

Each section lives in its own module beside this one (rag/settings/<section>.py) and imports
nothing of rag/ but other sections; a stage package imports only its own section. Names a
section holds (a chunking strategy, a reranker, a fusion method) are checked against their
registries when the stage is built and when a preset is loaded (rag.config), never here.
"""

from __future__ import annotations

import math
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from rag.settings.abstain import AbstainConfig
from rag.settings.chunking import ChunkingConfig
from rag.settings.context import ContextConfig
from rag.settings.documents import DocumentsConfig
from rag.settings.embedding import EmbeddingConfig
from rag.settings.generation import GenerationConfig
from rag.settings.grounding import GroundingConfig
from rag.settings.index import IndexConfig
from rag.settings.query import QueryConfig
from rag.settings.rerank import RerankConfig
from rag.settings.retrieval import FusionConfig, PostprocessConfig, RetrievalConfig


class PipelineConfig(BaseModel):
    """A whole pipeline: the stage sections in the order a query meets them."""

    model_config = ConfigDict(extra="forbid")

    name: str = "custom"
    description: str = ""
    documents: DocumentsConfig = Field(default_factory=DocumentsConfig)
    chunking: ChunkingConfig = Field(default_factory=ChunkingConfig)
    embedding: EmbeddingConfig = Field(default_factory=EmbeddingConfig)
    index: IndexConfig = Field(default_factory=IndexConfig)
    query: QueryConfig = Field(default_factory=QueryConfig)
    retrieval: RetrievalConfig = Field(default_factory=RetrievalConfig)
    fusion: FusionConfig = Field(default_factory=FusionConfig)
    postprocess: PostprocessConfig = Field(default_factory=PostprocessConfig)
    rerank: RerankConfig = Field(default_factory=RerankConfig)
    context: ContextConfig = Field(default_factory=ContextConfig)
    generation: GenerationConfig = Field(default_factory=GenerationConfig)
    grounding: GroundingConfig = Field(default_factory=GroundingConfig)
    abstain: AbstainConfig = Field(default_factory=AbstainConfig)

    @model_validator(mode="before")
    @classmethod
    def _finite_numbers(cls, raw: Any) -> Any:
        """NaN and infinity pass pydantic's bounds (every comparison with NaN is false) and then
        silently drop or keep everything; no setting means them, so they are refused by name."""
        if all_finite(raw):  # the common case, without building every leaf's dotted path
            return raw
        bad = [f"{path} is {'NaN' if math.isnan(value) else 'infinite'}" for path, value in _leaves(raw)
               if isinstance(value, float) and not math.isfinite(value)]
        if bad:
            raise ValueError(f"{', '.join(bad)}: every setting must be a finite number")
        return raw


def all_finite(raw: Any) -> bool:
    """No float leaf of nested dicts and lists is NaN or infinite (every config derivation
    checks this: a sweep derives one per grid point)."""
    if isinstance(raw, float):
        return math.isfinite(raw)
    if isinstance(raw, dict):
        return all(all_finite(value) for value in raw.values())
    if isinstance(raw, (list, tuple)):
        return all(all_finite(value) for value in raw)
    return True


def _leaves(raw: Any, prefix: str = "") -> list[tuple[str, Any]]:
    """(dotted path, value) of every leaf of nested dicts and lists."""
    if isinstance(raw, dict):
        return [leaf for key, value in raw.items() for leaf in _leaves(value, f"{prefix}{key}.")]
    if isinstance(raw, (list, tuple)):
        return [leaf for i, value in enumerate(raw) for leaf in _leaves(value, f"{prefix}{i}.")]
    return [(prefix.rstrip("."), raw)]
