"""One chat turn: store the question first, run the pipeline (streamed), then store what came of
it — an assistant answer with mode, sources and grounding as metadata, or an error record naming
the stage that failed. Whatever happens, the conversation loses nothing.

It sits beside the runner (not in rag.generate): it composes the pipeline, memory and the
outputs of several stages."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

from rag.abstain.stage import AbstainDecision
from rag.memory import MemoryStore, running_summary
from rag.outputs.context import BuiltContext
from rag.outputs.generated import GenerateOutput
from rag.outputs.grounding import GroundedAnswer
from rag.pipeline import Source, run_query
from rag.settings.pipeline import PipelineConfig
from rag.streaming import StreamingRun
from rag.trace import Trace


@dataclass(frozen=True)
class TurnOutcome:
    role: Literal["assistant", "error"]
    content: str
    metadata: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))


def _sources(trace: Trace) -> list[dict[str, Any]]:
    context = trace.output(BuiltContext, "context")
    blocks = context.blocks if context is not None else ()
    return [{"n": b.n, "chunk_id": b.chunk_id, "doc_id": b.doc_id, "title": b.title} for b in blocks]


def _decision(trace: Trace) -> AbstainDecision | None:
    return trace.output(AbstainDecision)


def turn_outcome(trace: Trace) -> TurnOutcome:
    """The record a conversation keeps for this run."""
    generate = trace.stage("generate")
    generated = trace.output(GenerateOutput)
    grounded = trace.output(GroundedAnswer)
    statuses = {r.stage: r.status for r in trace.records}
    if trace.answer:
        meta: dict[str, Any] = {"stages": statuses, "warnings": trace.warnings, "sources": _sources(trace)}
        if generated is not None:
            meta |= {
                "mode": generated.answer.mode,
                "label": generated.answer.label,
                "suggested_questions": list(generated.answer.suggested_questions),
            }
        if grounded is not None:
            meta |= {
                "grounded_share": grounded.report.grounded_share,
                "confidence": grounded.report.confidence,
            }
        if (decision := _decision(trace)) is not None:
            relevance = decision.signals.relevance
            meta |= {"abstained": decision.kind or "", "abstain_reason": decision.reason,
                     "answer_relevance": relevance.score if relevance is not None else None}
            if decision.abstained:
                meta["label"] = f"Declined ({decision.kind}): {decision.reason}"
        return TurnOutcome("assistant", trace.answer, MappingProxyType(meta))
    failed = next((r for r in trace.records if r.status == "failed"), None)
    if failed is not None:
        why = f"{failed.stage} failed: {failed.reason or 'no reason given'}"
    elif generate is not None and generate.status == "skipped":
        why = f"no answer: generate was skipped ({generate.reason})"
    else:
        why = "no answer was produced"
    return TurnOutcome("error", why, MappingProxyType({"stages": statuses, "warnings": trace.warnings}))


def start_turn(
    store: MemoryStore,
    conversation_id: str,
    question: str,
    config: PipelineConfig,
    collection: Source = None,
) -> StreamingRun:
    """Record the question, then run it in the background with the conversation's history."""
    history = store.history(conversation_id, config.generation.history_messages)
    store.add(conversation_id, "user", question)
    # the conversation's user is the asker: their private documents, nobody else's
    return StreamingRun(lambda: run_query(question, config, collection, conversation=history,
                                          user=store.user))  # fmt: skip


def finish_turn(
    store: MemoryStore, conversation_id: str, question: str, run: StreamingRun
) -> tuple[Trace | None, TurnOutcome]:
    """Wait for the run, record its outcome (an error record if the run itself raised) and
    update the running summary."""
    trace: Trace | None = None
    try:
        trace = run.trace()
    except Exception as exc:  # noqa: BLE001 - recorded in the conversation as an error turn
        outcome = TurnOutcome("error", f"the run failed: {type(exc).__name__}: {exc}")
    else:
        outcome = turn_outcome(trace)
    store.add(conversation_id, outcome.role, outcome.content, outcome.metadata)
    if outcome.role == "assistant":
        previous = store.get(conversation_id)
        summary, _ = running_summary(previous.summary if previous else "", question, outcome.content)
        store.set_summary(conversation_id, summary)
    return trace, outcome
