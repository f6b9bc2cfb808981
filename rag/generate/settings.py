"""Generation section: which answerer, the OpenAI-compatible endpoint and its failure handling (Adaptive)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

GenerationMode = Literal["auto", "llm", "extractive"]
# Prompt templates per query class (Adaptive: factual / summary / comparison / list / analytical).
TemplateName = Literal["auto", "factual", "summary", "comparison", "list", "analytical"]


class GenerationConfig(BaseModel):
    """`mode="auto"` uses the LLM when `OPENAI_BASE_URL` is set and the offline extractive answerer
    otherwise. Keys are read from the environment variables named here, never stored in a config."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = False
    mode: GenerationMode = "auto"
    model: str = "gpt-4o-mini"
    base_url_env: str = "OPENAI_BASE_URL"
    api_key_env: str = "OPENAI_API_KEY"
    # Fallback provider (Adaptive): used when the primary fails or its circuit is open.
    fallback_model: str | None = None
    fallback_base_url_env: str = "OPENAI_FALLBACK_BASE_URL"
    fallback_api_key_env: str = "OPENAI_FALLBACK_API_KEY"
    # Last resort when every provider failed: answer extractively and say so in the trace.
    fallback_to_extractive: bool = True
    temperature: float = Field(0.2, ge=0, le=2)
    max_tokens: int = Field(800, ge=1, le=32_000)  # per reply, for every LLM call of a run
    timeout_s: float = Field(120.0, gt=0)  # Adaptive: "response within 120 s?"
    retries: int = Field(2, ge=0, le=10)  # extra attempts on 429 / 5xx / timeout
    # All LLM work of one query (every stage, attempt, backoff) ends by then; calls get what is left.
    deadline_s: float = Field(30.0, gt=0)
    backoff_base_s: float = Field(1.0, ge=0)  # exponential backoff: base * 2**attempt, + jitter
    backoff_max_s: float = Field(20.0, ge=0)
    jitter: float = Field(0.5, ge=0, le=1)  # fraction of the delay drawn uniformly at random
    breaker_failures: int = Field(5, ge=1)  # open the circuit after this many failed calls
    breaker_cooldown_s: float = Field(30.0, ge=0)  # half-open after this long
    # Stages that parse a reply ask for one constrained to a JSON schema, where the endpoint can
    # (OpenAI json_schema, llama.cpp grammars): a small model then cannot answer off-format.
    structured_replies: bool = True
    # An LLM judges (rerank grades, Self-RAG grades, grounding verdicts, compression) only after
    # it was right above chance on labelled probes (rag.generate.judge_check).
    check_judges: bool = True
    template: TemplateName = "auto"
    stream: bool = True
    suggested_questions: bool = True  # ask for and parse SUGGESTED_QUESTIONS: q1 | q2 | q3
    extractive_sentences: int = Field(3, ge=1, le=20)  # sentences the offline answerer picks
    history_messages: int = Field(5, ge=0, le=50)  # Axiom: generation sees the last 5 messages
