"""Ingest stage `redact`: of the parsed documents, those the index does not hold as they are
(same source, content and access as listed: unchanged, nothing to do), with PII replaced by
`[REDACTED_<KIND>]` when `documents.redact_pii` is on. What it passes on is the text the index
keeps and chunks."""

from __future__ import annotations

from dataclasses import dataclass, field

from rag.index import ingest as steps
from rag.index.payload import Access
from rag.ingestion.parse import ParsedFiles
from rag.ingestion.registry import INGEST_STAGES, ingest_env, target
from rag.records.document import Document
from rag.stages import PipelineState, StageEnv, StageInput, StageResult, StageSpec
from rag.trace import NOT_IN_TRACE


@dataclass(frozen=True)
class RedactOutput:
    """New or changed documents (to index), the unchanged sources, and what redaction did."""

    documents: int
    unchanged: tuple[str, ...]
    redact_pii: bool
    redacted: int  # documents with at least one PII match replaced
    matches: int  # PII matches replaced in all
    todo: tuple[Document, ...] = field(default=(), metadata=NOT_IN_TRACE)

    def describe(self) -> str:
        pii = (f"PII replaced in {self.redacted} ({self.matches} matches)" if self.redact_pii
               else "no redaction (documents.redact_pii is false)")
        return f"{self.documents} new or changed, {len(self.unchanged)} unchanged; {pii}"


def run(state: PipelineState, env: StageEnv) -> StageResult:
    ingest = ingest_env(env)
    parsed = state.artifact("parse", ParsedFiles)
    assert parsed is not None  # a required input: the runner checked it
    access = ingest.access or Access()
    known = target(ingest).catalogue.manifest.documents
    by_source = {d.metadata.source: d for d in parsed.report.documents}  # the last copy wins
    unchanged = tuple(
        s for s, d in by_source.items()
        if s in known and known[s].content_hash == d.metadata.content_hash
        and known[s].access == access.key
    )  # fmt: skip
    todo = steps.redact_documents([d for s, d in by_source.items() if s not in unchanged],
                                  env.config)
    matches = [int(d.metadata.extra.get("redacted_matches", 0)) for d in todo]
    output = RedactOutput(len(todo), unchanged, env.config.documents.redact_pii,
                          sum(1 for m in matches if m), sum(matches), tuple(todo))
    return StageResult(state, output, inputs={"documents": len(by_source)})


INGEST_STAGES.add("redact", StageSpec("redact", run, RedactOutput, settings=lambda c: c.documents,
                                      inputs=(StageInput("parse", ParsedFiles, required=True),)))
