"""What a finished run means for the conversation: an assistant answer (with mode, sources and
grounding as metadata) or an error record naming the stage that failed — never nothing."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

from rag.trace import Trace


@dataclass(frozen=True)
class TurnOutcome:
    role: Literal["assistant", "error"]
    content: str
    metadata: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))


def _sources(trace: Trace) -> list[dict[str, Any]]:
    record = trace.stage("context")
    blocks = record.outputs.get("blocks", ()) if record is not None else ()
    return [{"n": getattr(b, "n", None), "chunk_id": getattr(b, "chunk_id", None),
             "doc_id": getattr(b, "doc_id", None), "title": getattr(b, "title", "")} for b in blocks]


def turn_outcome(trace: Trace) -> TurnOutcome:
    """The record a conversation keeps for this run."""
    generate = trace.stage("generate")
    ground = trace.stage("ground")
    statuses = {r.stage: r.status for r in trace.records}
    if trace.answer:
        meta: dict[str, Any] = {"stages": statuses, "warnings": trace.warnings,
                                "sources": _sources(trace)}
        if generate is not None and generate.status != "skipped":
            meta |= {"mode": generate.outputs.get("mode"), "label": generate.outputs.get("label"),
                     "suggested_questions": list(generate.outputs.get("suggested_questions", ()))}
        if ground is not None and ground.status == "ok":
            meta |= {"grounded_share": ground.outputs.get("grounded_share"),
                     "confidence": ground.outputs.get("confidence")}
        return TurnOutcome("assistant", trace.answer, MappingProxyType(meta))
    failed = next((r for r in trace.records if r.status == "failed"), None)
    if failed is not None:
        why = f"{failed.stage} failed: {failed.reason or 'no reason given'}"
    elif generate is not None and generate.status == "skipped":
        why = f"no answer: generate was skipped ({generate.reason})"
    else:
        why = "no answer was produced"
    return TurnOutcome("error", why, MappingProxyType({"stages": statuses, "warnings": trace.warnings}))
