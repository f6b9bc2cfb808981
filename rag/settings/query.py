"""Query-understanding section: guardrails, intent, classification, routing, rewriting, expansion,
spelling and the semantic cache. Each part has an offline form; LLM forms run when a chat model
is configured. Defaults are the seeds' numbers (named beside each)."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from rag.settings.adaptive import AdaptiveConfig

ExpansionMethod = Literal["multi_query", "hyde", "step_back", "rag_fusion"]


class GuardConfig(BaseModel):
    """Vexora input guardrails: injection patterns, length limits, sanitization, rate limit."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = True
    max_chars: int = Field(2000, ge=1)  # longer input is blocked (or truncated, below)
    on_too_long: Literal["block", "truncate"] = "block"
    block_injection: bool = True
    # The learned detector beside the patterns (rag.guard_model); None = the threshold the
    # training script chose on its validation split (rag/guard_model/detector.json).
    learned_detector: bool = True
    learned_threshold: float | None = Field(None, gt=0, lt=1)
    # The multilingual e5 detector (rag.guard_model.e5; either detector firing blocks); None = the
    # threshold its training script chose on validation (rag/guard_model/e5_detector.json).
    e5_detector: bool = True
    e5_threshold: float | None = Field(None, gt=0, lt=1)
    # How the detectors' outputs become a block: "stacked" = one logistic score over the pattern
    # families, both detectors' probabilities and the question's shape (rag.guard_model.stack,
    # threshold chosen leave-one-set-out); "either" = any family or any detector over its own
    # threshold (guard8; also used when a detector is off or missing). stack_threshold None = the
    # card's. learned_threshold / e5_threshold decide only under "either".
    decision: Literal["stacked", "either"] = "stacked"
    stack_threshold: float | None = Field(None, gt=0, lt=1)
    extra_patterns: list[str] = Field(default_factory=list)  # more regexes that block
    rate_limit: int | None = Field(30, ge=1)  # queries per user per window; None = off
    rate_window_s: float = Field(60.0, gt=0)

    @field_validator("extra_patterns")
    @classmethod
    def _compiles(cls, patterns: list[str]) -> list[str]:
        for pattern in patterns:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"extra_patterns: {pattern!r} is not a regular expression ({exc})") from None
        return patterns


class IntentConfig(BaseModel):
    """Axiom's 3-layer intent router: hard rules, semantic exemplars, LLM fallback."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = True
    semantic_threshold: float = Field(0.85, ge=0, le=1)  # Axiom: cosine >= 0.85 decides
    # Axiom's 0.85 suits bge-small's cosine scale; True picks the embedder's own threshold by
    # leave-one-out over the exemplars (rag.query.intent.evaluate.calibrate).
    calibrate_threshold: bool = False
    llm_confidence: float = Field(0.70, ge=0, le=1)  # Axiom: confidence given to the LLM's label
    use_llm: bool = True  # ask the LLM below the threshold (when a chat model is configured)
    default_intent: str = "question"  # below the threshold without an LLM: run retrieval
    # Skipping the documents is the costly mistake (a real question goes unanswered): the LLM
    # alone may not make it; its no-retrieval intent stands only when the semantic layer's best
    # guess needs no retrieval either. A constrained small model always names *some* intent.
    llm_skip_needs_agreement: bool = True


class ClassifyConfig(BaseModel):
    """Adaptive query classes (SUMMARY/COMPARISON/LIST/ANALYTICAL/FACTUAL) with retrieval hints."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = True
    use_llm: bool = False  # the keyword classifier is the Adaptive default; the LLM is optional


class RouteConfig(BaseModel):
    """Axiom complexity route and Vexora query type, entities and multi-hop flag."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = True
    complex_min_words: int = Field(14, ge=1)  # this many words or more counts as complex
    use_llm: bool = False  # the pattern router is the default; the LLM router is optional


class RewriteConfig(BaseModel):
    """Follow-up rewriting from recent messages (Axiom: last 5; Vexora: assistant text cut)."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = True
    history_messages: int = Field(5, ge=1, le=50)
    max_assistant_chars: int = Field(500, ge=50)  # Vexora truncates assistant turns to 500
    use_llm: bool = True


class ExpandConfig(BaseModel):
    """Query expansion (EchoMind multi-query, Adaptive HyDE / step-back / RAG-Fusion)."""

    model_config = ConfigDict(extra="forbid")

    methods: list[ExpansionMethod] = Field(default_factory=list)
    max_queries: int = Field(4, ge=1, le=10)  # EchoMind: original + variants, up to 4
    hyde_max_words: int = Field(5, ge=1)  # Adaptive: HyDE for abstract queries under 5 words
    intent_aware: bool = True  # EchoMind: classify, then rewrite with an intent prompt


class SpellConfig(BaseModel):
    """Adaptive guarded spell correction against the collection's own vocabulary."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = False
    min_word_overlap: float = Field(0.5, ge=0, le=1)  # Adaptive: revert under 50% shared words
    min_char_similarity: float = Field(0.6, ge=0, le=1)  # Adaptive: revert under 60% similar
    min_word_length: int = Field(4, ge=1)  # shorter words are never corrected
    min_count: int = Field(1, ge=1)  # a replacement must occur this often in the collection


class CacheConfig(BaseModel):
    """Adaptive semantic cache: dual threshold (precision 0.95, recall 0.85), TTL 300 s, 1,000 entries."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = False
    mode: Literal["precision", "recall", "adaptive"] = "adaptive"
    precision_threshold: float = Field(0.95, ge=0, le=1)
    recall_threshold: float = Field(0.85, ge=0, le=1)
    ttl_s: float = Field(300.0, gt=0)
    capacity: int = Field(1000, ge=1)

    @model_validator(mode="after")
    def _check(self) -> CacheConfig:
        if self.recall_threshold > self.precision_threshold:
            raise ValueError("recall_threshold must not exceed precision_threshold")
        return self


class QueryConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    enabled: bool = False  # the understand stage (intent, class, route, rewrite, expand, spell)
    guard: GuardConfig = Field(default_factory=GuardConfig)
    intent: IntentConfig = Field(default_factory=IntentConfig)
    classify: ClassifyConfig = Field(default_factory=ClassifyConfig)
    route: RouteConfig = Field(default_factory=RouteConfig)
    rewrite: RewriteConfig = Field(default_factory=RewriteConfig)
    expand: ExpandConfig = Field(default_factory=ExpandConfig)
    spell: SpellConfig = Field(default_factory=SpellConfig)
    cache: CacheConfig = Field(default_factory=CacheConfig)
    adaptive: AdaptiveConfig = Field(default_factory=AdaptiveConfig)  # the "adapt" stage
