"""Grounding section: per-sentence support checks, thresholds and retry (Axiom, Adaptive, Vexora)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

# How the ambiguous middle band is settled: an embedding check offline, the LLM when an endpoint
# exists ("auto"), or left as "ambiguous" ("none").
ModelCheck = Literal["auto", "embedding", "llm", "none"]


class GroundingConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    enabled: bool = False
    # Axiom: score = word overlap * 0.6 + trigram overlap * 0.4; >= 0.8 grounded, < 0.3 not.
    word_weight: float = Field(0.6, ge=0, le=1)
    trigram_weight: float = Field(0.4, ge=0, le=1)
    grounded_at: float = Field(0.8, ge=0, le=1)
    ungrounded_below: float = Field(0.3, ge=0, le=1)
    # A number in the claim that appears nowhere in the context makes it unsupported (a cheap
    # entity-level consistency check, after Nan et al. 2021): catches swapped figures and dates.
    check_numbers: bool = True
    model_check: ModelCheck = "auto"
    embedding_threshold: float = Field(0.6, ge=-1, le=1)  # cosine at/above which a sentence is supported
    # An answer is grounded when at least this share of its checked sentences is supported.
    answer_grounded_at: float = Field(0.8, ge=0, le=1)
    max_retries: int = Field(2, ge=0, le=5)  # Axiom: regenerate with feedback up to 2 times
    require_citations: bool = True  # Vexora output guardrail: answers must cite [Source N]

    @model_validator(mode="after")
    def _check(self) -> GroundingConfig:
        if self.ungrounded_below > self.grounded_at:
            raise ValueError("ungrounded_below must not exceed grounded_at")
        if abs(self.word_weight + self.trigram_weight - 1.0) > 1e-6:
            raise ValueError("word_weight + trigram_weight must add up to 1")
        return self
