"""The LLM endpoint: where every LLM call of a run goes and how it is made (model, endpoint and
key variables, fallback provider, timeouts, retries, backoff, breaker, structured replies,
judge checks). Presets keep these keys in the generation section; a run takes them out once, at
its edge (`StageEnv.llm`, rag/stages.py), so the stages that call an LLM besides generate
(rerank, verify, compression, grounding, abstain, the query's router) read this, not
generation's section."""

from __future__ import annotations

from typing import TypeAlias

from pydantic import BaseModel, ConfigDict

from rag.settings.generation import GenerationConfig, GenerationMode, TemplateName


class LLMEndpoint(BaseModel):
    """No defaults: it is always taken from a validated GenerationConfig (`of`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    mode: GenerationMode
    model: str
    base_url_env: str
    api_key_env: str
    fallback_model: str | None
    fallback_base_url_env: str
    fallback_api_key_env: str
    temperature: float
    max_tokens: int
    timeout_s: float
    retries: int
    backoff_base_s: float
    backoff_max_s: float
    jitter: float
    breaker_failures: int
    breaker_cooldown_s: float
    structured_replies: bool
    check_judges: bool

    @classmethod
    def of(cls, generation: GenerationConfig) -> LLMEndpoint:
        return cls.model_validate(generation.model_dump(include=set(cls.model_fields)))


class AnswerPrompt(BaseModel):
    """The system prompt the answer will be asked with (its template setting, whether it asks
    for suggested questions): taken from the generation section at the run's edge, so the
    context stage counts it in its token budget without reading that section."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    template: TemplateName
    suggested_questions: bool

    @classmethod
    def of(cls, generation: GenerationConfig) -> AnswerPrompt:
        return cls(template=generation.template, suggested_questions=generation.suggested_questions)


# what an LLM client is built from: the endpoint, or (generate, tests) the whole section
LLMSettings: TypeAlias = LLMEndpoint | GenerationConfig
