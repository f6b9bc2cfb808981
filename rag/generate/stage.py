"""Pipeline stage "generate": answer from the built context with the LLM (streamed to the current
StreamSink, if any) or the offline extractive answerer; a failed LLM falls back, visibly."""

from __future__ import annotations

from dataclasses import replace
from functools import partial

from rag.context.builder import build_context
from rag.context.sink import SINK
from rag.context.stage import built_context, query_class
from rag.generate.answer import AnswerPlan, AnswerStream, generate_answer, plan_answer, planned_with
from rag.generate.answer_rank import e5_similarity
from rag.generate.fit_time import Speeds, fit_to_time
from rag.generate.section_prior import lazy_embedding_similarity
from rag.llm import read_speed
from rag.llm.client import LLMClient, make_client
from rag.llm.deadline import current_deadline
from rag.outputs.context import BuiltContext
from rag.outputs.generated import GeneratedAnswer, GenerateOutput
from rag.query.understand import Understanding
from rag.settings.context import ContextConfig
from rag.settings.generation import GenerationConfig
from rag.settings.pipeline import PipelineConfig
from rag.stages import (
    STAGES,
    PipelineState,
    StageEnv,
    StageInput,
    StageResult,
    StageSpec,
    StageStatus,
)


def answer_plan(
    state: PipelineState, env: StageEnv, feedback: str = ""
) -> tuple[AnswerPlan, tuple[str, ...]]:
    """The plan for this state's context; a default context when the context stage did not run."""
    context = built_context(state)
    warnings: tuple[str, ...] = ()
    if context is None:
        context = build_context(state.query, state.candidates, ContextConfig())
        warnings = ("context stage did not run: default context (top 5 chunks as retrieved)",)
    plan = plan_answer(
        state.query, context, env.config.generation, intent=query_class(state), feedback=feedback
    )
    return plan, warnings


def fitted_to_time(plan: AnswerPlan, client: LLMClient, settings: GenerationConfig
                   ) -> tuple[AnswerPlan, tuple[str, ...]]:
    """The plan re-made with less context when the primary endpoint could not read it in time."""
    deadline = current_deadline()
    primary = client.endpoints[0]
    speeds = Speeds(*(read_speed.chars_per_second(activity, primary.base_url, primary.model)
                      for activity in ("reading", "writing")))
    fit = fit_to_time(plan.context, sum(len(m.content) for m in plan.messages),
                      deadline.remaining() if deadline else None, plan.max_tokens, speeds)
    if not fit.note:
        return plan, ()
    return planned_with(plan.query, fit.context, settings, plan.template, plan.feedback), (fit.note,)


def answer_again(plan: AnswerPlan, settings: GenerationConfig, feedback: str,
                 client: LLMClient | None) -> GeneratedAnswer:
    """The answer re-made from `plan`'s context and template with `feedback` (grounding's retry)."""
    again = planned_with(plan.query, plan.context, settings, plan.template, feedback)
    return generate_answer(again, settings, client)


def run_generate(state: PipelineState, env: StageEnv) -> StageResult:
    settings = env.config.generation
    plan, warnings = answer_plan(state, env)
    client, note = make_client(settings)
    if client is not None and settings.stream:
        plan, fitted = fitted_to_time(plan, client, settings)
        warnings += fitted
    similarity = lazy_embedding_similarity(env.shared.embedding) if settings.extractive_section_prior \
        else None
    texts, no_texts = env.kept_texts()
    answer_model = e5_similarity() if settings.extractive_answer_model else None
    stream = AnswerStream(plan, settings, client, note, texts, similarity, answer_model)
    sink = SINK.get()
    for token in stream:
        if sink is not None:
            sink.token(token)
    answer = stream.result
    assert answer is not None
    if texts is None and answer.mode == "extractive" and plan.context.blocks:
        warnings += (f"answer quoted from the context blocks only, not whole sentences: {no_texts}",)
    if plan.context is not built_context(state):  # the default context is this stage's doing
        state = state.with_artifact("context", plan.context)  # grounding checks against it
    failed_over = client is not None and answer.mode in ("extractive", "error")
    status: StageStatus = "failed" if answer.mode == "error" else "fallback" if failed_over or note else "ok"
    output = GenerateOutput(answer, plan.max_tokens, tuple(client.describe()) if client else (),
                            partial(answer_again, plan, settings))
    reason = answer.warnings[-1] if status != "ok" and answer.warnings else ""
    return StageResult(
        replace(state, answer=answer.text),
        output,
        {"template": plan.template, "blocks": len(plan.context.blocks)},
        status,
        warnings + answer.warnings,
        reason,
    )


def generated(state: PipelineState) -> GeneratedAnswer | None:
    found = state.artifact("generate", GenerateOutput)
    return found.answer if found is not None else None


def _off(config: PipelineConfig) -> str | None:
    return None if config.generation.enabled else "generation.enabled is false"


STAGES.add(
    "generate", StageSpec("generate", run_generate, GenerateOutput, _off, settings=lambda c: c.generation,
                          inputs=(StageInput("context", BuiltContext),
                                  StageInput("understand", Understanding)))
)
