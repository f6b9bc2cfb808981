"""The ingest pipeline (rag.ingestion): each stage on its own through the runner, an ingest with a
broken, an encrypted and an empty file (the run goes on; the trace says what happened to each),
and a derived index built by the same stages holding the chunks the collection's text gives."""

from __future__ import annotations

import hashlib
import io
import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from fpdf import FPDF
from pypdf import PdfReader, PdfWriter

from rag.chunking import get_chunker
from rag.documents.base import Document, DocumentMetadata, IngestReport
from rag.index import open_collection
from rag.index.derived import kept_documents, resolve
from rag.ingestion import INGEST_ORDER, INGEST_STAGES, FilePaths, ingest_files
from rag.ingestion.chunk import ChunkOutput
from rag.ingestion.embed import EmbedOutput
from rag.ingestion.parse import ParsedFiles
from rag.ingestion.redact import RedactOutput
from rag.ingestion.registry import IngestEnv, Parsed
from rag.ingestion.run import handed_over, ingest_documents, new_trace
from rag.ingestion.write import WriteOutput
from rag.pipeline import StageInputError, run_stages
from rag.settings.pipeline import PipelineConfig
from rag.settings.retrieval import FilterConfig
from rag.stages import PipelineState
from rag.trace import Trace

APT = "APT resolves dependencies and downloads packages from the configured mirrors.\n"
SSH = "# SSH\n\nKeys let you log in without a password. Mail admin@example.org for a key.\n"


def config(size: int = 400, redact: bool = False) -> PipelineConfig:
    """Hashing embeddings (no model), recursive chunks of `size` characters."""
    return PipelineConfig.model_validate({
        "documents": {"redact_pii": redact},
        "chunking": {"strategy": "recursive", "params": {"size": size, "overlap": 0}},
        "embedding": {"backend": "hashing"},
    })  # fmt: skip


@pytest.fixture(autouse=True)
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RAG_WORKBENCH_DATA", str(tmp_path / "data"))
    return tmp_path


def encrypted_pdf() -> bytes:
    pdf = FPDF()
    pdf.set_font("helvetica", size=12)
    pdf.add_page()
    pdf.multi_cell(0, 8, "A secret page.")
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(bytes(pdf.output()))))
    writer.encrypt("secret", owner_password="owner", algorithm="AES-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def files(folder: Path, broken: bool = True) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "apt.txt").write_text(APT)
    (folder / "ssh.md").write_text(SSH)
    if broken:
        (folder / "broken.pdf").write_bytes(b"not a pdf at all")
        (folder / "locked.pdf").write_bytes(encrypted_pdf())
        (folder / "empty.txt").write_bytes(b"")
    return folder


def run(state: PipelineState, env: IngestEnv, stage: str) -> tuple[PipelineState, Trace]:
    """One stage through the runner (its declared inputs checked first)."""
    trace = new_trace("test", env.config)
    return run_stages(state, env, trace, first=stage, last=stage, raise_errors=True,
                      stages=INGEST_STAGES), trace


def seeded(**artifacts: object) -> PipelineState:
    state = PipelineState(query="test", queries=(), filters=FilterConfig())
    for stage, value in artifacts.items():
        state = state.with_artifact(stage, value)
    return state


def writer_env(cfg: PipelineConfig, documents: list[Document] | None = None) -> IngestEnv:
    collection = open_collection("stages", create=True)
    collection.fix_settings(cfg)
    return IngestEnv(cfg, handed_over(documents or []), writer=collection.writer, progress=False)


def test_the_ingest_stages_are_registered_in_order_with_typed_outputs_and_inputs() -> None:
    assert INGEST_STAGES.names() == list(INGEST_ORDER) == ["parse", "redact", "chunk", "embed",
                                                           "write"]
    assert INGEST_STAGES.output_types() == {"parse": ParsedFiles, "redact": RedactOutput,
                                            "chunk": ChunkOutput, "embed": EmbedOutput,
                                            "write": WriteOutput}
    reads = {name: [(i.stage, i.kind) for i in spec.inputs]
             for name in INGEST_ORDER if (spec := INGEST_STAGES.find(name))}
    assert reads["write"] == [("redact", RedactOutput), ("embed", EmbedOutput)]
    assert reads["chunk"] == [("redact", RedactOutput)]


def test_parse_stage_skips_bad_files_with_the_reason_and_goes_on(data: Path) -> None:
    folder = files(data / "in")
    env = IngestEnv(config(), FilePaths((folder,)))
    state, trace = run(seeded(), env, "parse")
    parsed = state.artifact("parse", ParsedFiles)
    assert parsed is not None and not state.halted
    assert (parsed.files, parsed.documents) == (5, 2)
    problems = {Path(p.source).name: p.problem for p in parsed.skipped}
    assert set(problems) == {"broken.pdf", "locked.pdf", "empty.txt"}
    assert "password" in problems["locked.pdf"].lower() or "encrypt" in problems["locked.pdf"].lower()
    assert "empty" in problems["empty.txt"]
    assert len(trace.records[0].warnings) == 3 and trace.records[0].status == "ok"


def test_parse_stage_halts_the_run_when_no_file_gives_a_document(data: Path) -> None:
    (data / "bad").mkdir()
    (data / "bad" / "broken.pdf").write_bytes(b"nope")
    state, _ = run(seeded(), IngestEnv(config(), FilePaths((data / "bad",))), "parse")
    assert state.halted == "nothing to ingest: all 1 file(s) skipped"


def test_redact_stage_keeps_new_or_changed_documents_and_redacts_their_pii() -> None:
    cfg = config(redact=True)
    parsed = handed_over([make("apt.txt", APT), make("ssh.md", SSH)])
    env = writer_env(cfg)
    state = seeded(parse=ParsedFiles("t", 2, 2, 0, report=parsed.report))
    state, _ = run(state, env, "redact")
    out = state.artifact("redact", RedactOutput)
    assert out is not None and (out.documents, out.unchanged, out.redacted) == (2, (), 1)
    ssh = next(d for d in out.todo if d.metadata.source == "ssh.md")
    assert "admin@example.org" not in ssh.text and "[REDACTED_EMAIL]" in ssh.text

    ingest_documents(open_collection("stages"), [make("apt.txt", APT)], cfg, progress=False)
    with env.writer.writing():  # type: ignore[union-attr]  # as a run: the manifest read afresh
        state, _ = run(seeded(parse=ParsedFiles("t", 2, 2, 0, report=parsed.report)), env, "redact")
    out = state.artifact("redact", RedactOutput)
    assert out is not None and out.unchanged == ("apt.txt",) and out.documents == 1


def test_chunk_stage_cuts_each_document_by_the_configured_strategy() -> None:
    docs = (make("apt.txt", APT), make("ssh.md", SSH))
    todo = RedactOutput(2, (), False, 0, 0, docs)
    state, _ = run(seeded(redact=todo), IngestEnv(config(size=40), Parsed(handed_over([]).report, "t")),
                   "chunk")
    out = state.artifact("chunk", ChunkOutput)
    assert out is not None and out.chunks == len(out.pairs) > 2
    assert all(chunk.text == doc.text[chunk.start:chunk.end] for doc, chunk in out.pairs)
    assert {doc.metadata.source for doc, _ in out.pairs} == {"apt.txt", "ssh.md"}


def test_embed_stage_makes_a_vector_per_chunk_and_prepares_the_write_beside_it() -> None:
    cfg = config(size=40)
    docs = [make("apt.txt", APT)]
    pairs = tuple((docs[0], c) for c in get_chunker("recursive", {"size": 40, "overlap": 0}).chunk(docs[0]))
    chunked = ChunkOutput("recursive", 1, len(pairs), (), pairs)
    state, _ = run(seeded(chunk=chunked), writer_env(cfg), "embed")
    out = state.artifact("embed", EmbedOutput)
    assert out is not None and out.embedded is not None and out.prepared is not None
    assert out.embedded.shape == (len(pairs), out.dim) and out.vectors == len(pairs)
    assert np.allclose(np.linalg.norm(out.embedded, axis=1), 1.0, atol=1e-5)
    assert len(out.prepared.payloads) == len(pairs)
    state, _ = run(seeded(chunk=ChunkOutput("recursive", 0, 0)), writer_env(cfg), "embed")
    none = state.artifact("embed", EmbedOutput)
    assert none is not None and none.embedded is None and none.describe().startswith("nothing new")


def test_write_stage_lists_the_documents_and_their_chunks() -> None:
    cfg = config()
    docs = (make("apt.txt", APT),)
    env = writer_env(cfg)
    pairs = tuple((docs[0], c) for c in get_chunker("recursive", {"size": 400, "overlap": 0}).chunk(docs[0]))
    state, _ = run(seeded(chunk=ChunkOutput("recursive", 1, len(pairs), (), pairs)), env, "embed")
    state = state.with_artifact("redact", RedactOutput(1, (), False, 0, 0, docs))
    with env.writer.writing():  # type: ignore[union-attr]
        state, _ = run(state, env, "write")
    out = state.artifact("write", WriteOutput)
    assert out is not None and out.added == ("apt.txt",) and out.chunks_added == len(pairs)
    assert list(open_collection("stages").manifest.documents) == ["apt.txt"]


def test_a_stage_without_its_input_fails_naming_both_stages() -> None:
    with pytest.raises(StageInputError, match="'chunk' needs stage 'redact'"):
        run(seeded(), IngestEnv(config(), Parsed(handed_over([]).report, "t")), "chunk")


def test_an_ingest_with_bad_files_goes_on_and_its_trace_says_what_happened(data: Path) -> None:
    done = ingest_files(FilePaths((files(data / "in"),)), "mine", config(size=40), progress=False)
    trace = done.trace
    assert [(r.stage, r.status) for r in trace.records] == [(s, "ok") for s in INGEST_ORDER]
    assert all(r.wall_ms > 0 for r in trace.records)
    parsed = trace.output(ParsedFiles)
    assert parsed is not None and sorted(Path(p.source).name for p in parsed.skipped) == [
        "broken.pdf", "empty.txt", "locked.pdf"]
    assert sum("skipped" in w and "broken.pdf" in w for w in trace.warnings) == 1
    written = trace.output(WriteOutput)
    assert done.summary is not None and written is not None
    assert sorted(Path(s).name for s in written.added) == ["apt.txt", "ssh.md"]
    assert written.chunks_added == done.summary.chunks_added == open_collection("mine").manifest.chunk_count
    chunked = trace.output(ChunkOutput)
    assert chunked is not None and chunked.chunks == written.chunks_added
    # the trace as JSON: the counts and failures, not the documents and vectors
    text = trace.to_json()
    back = Trace.from_dict(json.loads(text), INGEST_STAGES.output_types())
    assert back.output(ParsedFiles) == replace(parsed, report=IngestReport((), ()))
    assert back.output(WriteOutput) == written
    assert '"embedded"' not in text and '"todo"' not in text and APT.strip() not in text


def test_an_ingest_of_only_bad_files_writes_nothing_and_says_so(data: Path) -> None:
    (data / "bad").mkdir()
    (data / "bad" / "broken.pdf").write_bytes(b"nope")
    done = ingest_files(FilePaths((data / "bad",),), "nothing", config(), progress=False)
    assert done.summary is None
    assert [r.status for r in done.trace.records] == ["ok", "skipped", "skipped", "skipped", "skipped"]
    assert done.trace.records[1].reason.startswith("not reached: nothing to ingest")
    with pytest.raises(ValueError, match="no collection 'nothing'"):
        open_collection("nothing")


def test_a_derived_index_is_built_by_the_ingest_stages_and_holds_what_the_old_path_gave(
    data: Path,
) -> None:
    """The old path chunked the kept text with the derived settings' chunker and embedded every
    chunk: the chunks (ids and texts) the stages build are those."""
    whole, small = config(size=400), config(size=40)
    done = ingest_files(FilePaths((files(data / "in", broken=False),)), "base", whole, progress=False)
    assert done.syncs == ()  # the config reads the collection's own index
    synced: list[object] = []
    collection = open_collection("base")
    ref = resolve(collection, small, on_sync=synced.append)
    assert ref.stored is not None and ref.stored is not collection
    chunker = get_chunker("recursive", {"size": 40, "overlap": 0})
    expected = {c.chunk_id: c.text for d in kept_documents(collection) for c in chunker.chunk(d)}
    assert {c.chunk_id: c.text for c in ref.stored.chunks()} == expected
    assert len(expected) > collection.manifest.chunk_count
    (sync,) = synced
    (trace,) = sync.traces  # type: ignore[attr-defined]
    assert [r.stage for r in trace.records] == list(INGEST_ORDER)
    assert trace.records[0].status == "cache_hit"
    assert "kept text of collection 'base'" in trace.records[0].output.what
    assert trace.records[0].reason == "parsed before this run; not parsed again"
    assert trace.output(WriteOutput).chunks_added == len(expected)  # type: ignore[union-attr]


def make(source: str, text: str) -> Document:
    digest = hashlib.sha256(text.encode()).hexdigest()
    meta = DocumentMetadata(source=source, title=source, content_hash=digest, format="txt")
    return Document(doc_id=f"{source}#{digest[:12]}", text=text, metadata=meta)
