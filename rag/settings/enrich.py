"""Settings of the stages between retrieval and context building: entity-graph enrichment
(Vexora / Adaptive knowledge graph) and Self-RAG chunk verification (Adaptive)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

VerifyMethod = Literal["auto", "lexical", "llm"]


class GraphConfig(BaseModel):
    """An embedded entity graph stands in for Vexora's Neo4j: entities spotted in chunks, edges
    between entities mentioned in the same chunk, traversed from the query's entities."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = False
    max_depth: int = Field(2, ge=1, le=4)  # Vexora: Neo4j traversal max depth 2; Adaptive: 2-hop
    max_chunks: int = Field(5, ge=0, le=100)  # related chunks added to the candidates at most
    # Vexora walks from the query's entities only; Adaptive also from the retrieved chunks' (top n).
    seed_chunks: int = Field(0, ge=0, le=50)
    # An entity in more chunks than this is a hub ("Debian" in a Debian corpus): it links
    # everything to everything, so it is not walked through.
    max_entity_chunks: int = Field(50, ge=1)


class VerifyConfig(BaseModel):
    """Adaptive Self-RAG verification (Asai et al. 2023, ISREL): each context chunk is checked for
    relevance and dropped below `threshold`. Offline (`lexical`): the share of the query's
    content words the chunk contains; `llm`: a 0–10 grade from the chat model; `auto`: the LLM
    when an endpoint is configured, else lexical."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = False
    method: VerifyMethod = "auto"
    threshold: float = Field(0.3, ge=0, le=1)
    min_keep: int = Field(1, ge=0)  # keep the best this many even if they fail (0: may empty)
    max_passage_chars: int = Field(1200, ge=100)  # text shown to the LLM grader per chunk
