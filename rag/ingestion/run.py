"""Run an ingest: parse → redact → chunk → embed → write on the query's runner
(rag.pipeline.run_stages over INGEST_STAGES), recorded in one Trace like a query's — per stage
its time, counts, and every file that was skipped and why.

- `ingest_files`: files (paths, uploads, or documents parsed before) into a collection — its own
  index, with the settings it was built with — then the index `config` reads, when that is
  another (rag.index.derived.resolve builds it through `write_documents` too). The CLI and the
  Documents page.
- `write_documents`: parsed documents into one index (what `Index.add_documents` runs: the
  sample collection, eval's indexes, every derived index).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from rag.embed import Embedder
from rag.index.collection import Collection, open_collection
from rag.index.derived import IndexSync, OnSync, own_settings_config, resolve
from rag.index.ingest import IngestSummary
from rag.index.payload import Access
from rag.index.writer import CollectionWriter, OnProgress
from rag.ingestion.parse import ParsedFiles
from rag.ingestion.registry import INGEST_STAGES, IngestEnv, Parsed, Source
from rag.ingestion.write import WriteOutput
from rag.pipeline import run_stages
from rag.records.document import Document, IngestLine, IngestReport
from rag.settings.pipeline import PipelineConfig
from rag.settings.retrieval import FilterConfig
from rag.stages import PipelineState
from rag.trace import Trace


@dataclass(frozen=True)
class IngestRun:
    """One ingest: what it wrote (None: every file was skipped, nothing was written — not even
    a new collection), the per-file report, its trace, and the derived indexes it updated."""

    summary: IngestSummary | None
    report: IngestReport
    trace: Trace
    syncs: tuple[IndexSync, ...] = ()


def new_trace(what: str, config: PipelineConfig) -> Trace:
    """An empty ingest trace: `what` stands where a query's trace has the question."""
    return Trace(query=what, preset=config.name, config=config.model_dump(mode="json"))


def _parse(env: IngestEnv, trace: Trace) -> PipelineState:
    state = PipelineState(query=trace.query, queries=(), filters=FilterConfig())
    return run_stages(state, env, trace, last="parse", raise_errors=True, stages=INGEST_STAGES)


def _write(writer: CollectionWriter, state: PipelineState, env: IngestEnv,
           trace: Trace) -> IngestSummary:
    """redact → write into `writer`'s index under its write lock (the unchanged documents are
    read from the manifest the lock holds current)."""
    catalogue = writer.catalogue
    with writer.writing():
        started = time.perf_counter()
        env.config = catalogue.pinned(env.config)  # the graph recorded (or, when new, chosen)
        catalogue.check_compatible(env.config)
        if not catalogue.manifest.settings:
            catalogue.fix_settings(env.config)
        env.writer = writer
        trace.config = env.config.model_dump(mode="json")
        trace.collection = catalogue.name
        state = run_stages(state, env, trace, first="redact", raise_errors=True,
                           stages=INGEST_STAGES)
        out = state.artifact("write", WriteOutput)
        assert out is not None  # raise_errors: a failed stage raised
    return IngestSummary(catalogue.name, out.added, out.replaced, out.unchanged, out.chunks_added,
                         out.chunks_removed, time.perf_counter() - started, writer.last_repair,
                         trace)


def handed_over(documents: Sequence[Document], what: str = "") -> Parsed:
    """Documents parsed before the run, as the parse stage's source."""
    report = IngestReport(tuple(documents), tuple(
        IngestLine(d.metadata.source, "ok", doc_id=d.doc_id, chars=len(d.text)) for d in documents))
    return Parsed(report, what or f"{len(documents)} document(s) handed over")


def write_documents(
    writer: CollectionWriter,
    documents: Sequence[Document],
    config: PipelineConfig,
    *,
    access: Access | None = None,
    embedder: Embedder | None = None,
    progress: bool = True,
    on_progress: OnProgress | None = None,
    what: str = "",
) -> IngestSummary:
    """Parsed `documents` into one index: the parse stage passes them on (`what`: where they
    came from), the rest run as in `ingest_files`."""
    env = IngestEnv(config, handed_over(documents, what), access=access, embedder=embedder,
                    progress=progress, on_progress=on_progress)
    trace = new_trace(f"write into {writer.catalogue.name}", config)
    return _write(writer, _parse(env, trace), env, trace)


def ingest_files(
    source: Source,
    collection: str | Collection,
    config: PipelineConfig,
    *,
    access: Access | None = None,
    progress: bool = True,
    on_progress: OnProgress | None = None,
    on_sync: OnSync | None = None,
) -> IngestRun:
    """Parse `source` and add its documents to `collection` (created when new, only once a file
    gave a document): its own index with the settings it was built with and, when `config` asks
    for other settings, that index brought up to date too (`on_sync` hears of it)."""
    name = collection if isinstance(collection, str) else collection.name
    trace = new_trace(f"ingest into {name}", config)
    env = IngestEnv(config, source, access=access, progress=progress, on_progress=on_progress)
    state = _parse(env, trace)
    parsed = state.artifact("parse", ParsedFiles)
    report = parsed.report if parsed is not None else IngestReport((), ())
    if state.halted:  # the later stages are recorded as not reached; nothing is opened
        run_stages(state, env, trace, first="redact", raise_errors=True, stages=INGEST_STAGES)
        return IngestRun(None, report, trace)
    target = open_collection(name, create=True) if isinstance(collection, str) else collection
    env.config = own_settings_config(target, config)
    summary = _write(target.writer, state, env, trace)
    syncs: list[IndexSync] = []

    def synced(done: IndexSync) -> None:
        syncs.append(done)
        if on_sync is not None:
            on_sync(done)

    resolve(target, config, on_progress, synced)
    return IngestRun(summary, report, trace, tuple(syncs))


def ingest_documents(
    collection: Collection,
    documents: Sequence[Document],
    config: PipelineConfig,
    *,
    access: Access | None = None,
    progress: bool = True,
    on_progress: OnProgress | None = None,
    on_sync: OnSync | None = None,
) -> IngestSummary:
    """`ingest_files` of documents parsed before (a caller that holds Documents, not files)."""
    done = ingest_files(handed_over(documents), collection, config, access=access,
                        progress=progress, on_progress=on_progress, on_sync=on_sync)
    if done.summary is None:
        raise ValueError("no documents to ingest")
    return done.summary
