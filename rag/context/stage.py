"""Pipeline stage "context": build the context from the final candidates (see rag.context.builder)."""

from __future__ import annotations

from rag.context.builder import build_context
from rag.context.prompts import choose_template, system_prompt
from rag.context.sink import SINK
from rag.llm.base import Message, Role
from rag.llm.client import make_client
from rag.outputs.context import BuiltContext, ChunkTable
from rag.query.understand import Understanding
from rag.settings.pipeline import PipelineConfig
from rag.stages import STAGES, PipelineState, StageEnv, StageInput, StageResult, StageSpec, StageStatus


def query_class(state: PipelineState) -> str | None:
    """The query class (Adaptive: SUMMARY, COMPARISON, …) the understand stage found, if it ran."""
    found = state.artifact("understand", Understanding)
    return found.classification.label if found is not None and found.classification else None


def conversation_messages(env: StageEnv) -> tuple[Message, ...]:
    roles: dict[str, Role] = {"system": "system", "user": "user", "assistant": "assistant"}
    return tuple(Message(roles[t.role], t.content) for t in env.conversation if t.role in roles)


def chunk_lookup(env: StageEnv) -> tuple[ChunkTable | None, str]:
    """Parents and siblings come from the collection (when it can list its chunks)."""
    chunks = getattr(env.collection(), "chunks", None)
    if not callable(chunks):
        return None, "the collection cannot list its chunks: no expansion"
    return ChunkTable(chunks()), ""


def run_context(state: PipelineState, env: StageEnv) -> StageResult:
    config = env.config
    settings = config.context.routed()  # a route's expansion, when the preset expands nothing
    lookup, lookup_note = chunk_lookup(env) if settings.expansion != "none" else (None, "")
    chat, note = make_client(env.shared.llm) if settings.compression == "llm" else (None, "")
    prompt = env.shared.prompt  # the answer's system prompt counts in the budget
    template = choose_template(state.query, prompt.template, query_class(state))
    built = build_context(
        state.query,
        state.candidates,
        settings,
        lookup=lookup,
        chat=chat,
        system_prompt=system_prompt(template, prompt.suggested_questions),
        history=conversation_messages(env),
    )
    sink = SINK.get()
    if sink is not None:
        sink.context_ready(built)
    warnings = built.warnings + tuple(n for n in (note, lookup_note) if n)
    status: StageStatus = "fallback" if built.no_rag else "ok"
    reason = f"no-RAG fallback: {built.reason}" if built.no_rag else ""
    inputs = {"candidates": len(state.candidates), "template": template}
    return StageResult(state, built, inputs, status, warnings, reason)


def _off(config: PipelineConfig) -> str | None:
    return None if config.context.enabled else "context.enabled is false"


def built_context(state: PipelineState) -> BuiltContext | None:
    return state.artifact("context", BuiltContext)


STAGES.add("context", StageSpec("context", run_context, BuiltContext, _off, settings=lambda c: c.context,
                                inputs=(StageInput("understand", Understanding),)))
